# Export tests: install kernelseek to a temporary prefix once, then build out-of-tree plugin projects against it
# (the consumer, examples/plugins/residual_rmsnorm and gemm_bias_gelu, a `kseek new-plugin` scaffold) and load each with the installed
# kseek. It must never use the build tree's headers or CMake files for those projects.
# Inputs: KSEEK_EXPORT_STEP (install | consumer | residual_rmsnorm | gemm_bias_gelu | new_plugin | cleanup), KSEEK_BUILD_DIR,
#         KSEEK_WORK_DIR, KSEEK_GENERATOR; KSEEK_PROJECT_SOURCE for the plugin steps; KSEEK_CONFORMANCE_EXE (the
#         nvrtc test binary, whose conformance suite is run over the plugin built out of tree).
cmake_minimum_required(VERSION 3.25)
set(prefix "${KSEEK_WORK_DIR}/prefix")
set(kseek "${prefix}/bin/kseek")

function(run_step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "export test: ${name} failed (${rc})\n${out}\n${err}")
  endif()
  set(STEP_OUTPUT "${out}" PARENT_SCOPE)
endfunction()

# Runs the installed kseek with a private build cache; fails unless the exit code is `expected`.
function(run_kseek name expected)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "KSEEK_CACHE_DIR=${KSEEK_WORK_DIR}/nvrtc-cache" "${kseek}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expected)
    message(FATAL_ERROR "export test: ${name}: kseek ${ARGN} exited ${rc}, expected ${expected}\n${out}\n${err}")
  endif()
  set(STEP_OUTPUT "${out}${err}" PARENT_SCOPE)
endfunction()

function(expect_in text what)
  foreach(needle IN LISTS ARGN)
    string(FIND "${text}" "${needle}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "export test: ${what}: '${needle}' not found in:\n${text}")
    endif()
  endforeach()
endfunction()

# Configures and builds an out-of-tree plugin project against the installed package only.
function(build_against_prefix source build)
  file(REMOVE_RECURSE "${build}")
  if(NOT EXISTS "${kseek}")
    message(FATAL_ERROR "export test: ${kseek} is missing; the export.install_sdk fixture did not run")
  endif()
  run_step("configure ${source}" "${CMAKE_COMMAND}" -S "${source}" -B "${build}" -G "${KSEEK_GENERATOR}"
           "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_BUILD_TYPE=Release)
  run_step("build ${source}" "${CMAKE_COMMAND}" --build "${build}")
endfunction()

# The loader sees the plugin, with no library refused, next to the installed in-tree plugins.
function(expect_listed build id)
  run_kseek("list plugins" 0 --plugin-dir "${build}" plugins --json)
  expect_in("${STEP_OUTPUT}" "plugin list" "\"${id}\"" "\"attention.fa3\"" "\"example.softmax\"" "\"problems\": []")
endfunction()

# The CPU conformance suite over the out-of-tree plugin (and the tree's general checks), run by the build's own
# nvrtc test binary with the plugin's folder added.
function(run_conformance build id)
  run_step("conformance of ${id}" "${CMAKE_COMMAND}" -E env "KSEEK_CONFORMANCE_PLUGIN_DIRS=${build}"
           "KSEEK_CONFORMANCE_EXPECT=${id}" "${KSEEK_CONFORMANCE_EXE}"
           "--gtest_filter=PluginConformance.*:Plugins/Conformance.*/${ARGN}")
  expect_in("${STEP_OUTPUT}" "conformance of ${id}" "[  PASSED  ]")
  string(FIND "${STEP_OUTPUT}" "[  FAILED  ]" failed)
  string(REGEX MATCH "\\[==========\\] ([0-9]+) tests? from" ran "${STEP_OUTPUT}")
  if(NOT failed EQUAL -1 OR CMAKE_MATCH_1 LESS 7)
    message(FATAL_ERROR "export test: conformance of ${id} ran ${CMAKE_MATCH_1} tests (expected 7):\n${STEP_OUTPUT}")
  endif()
endfunction()

if(KSEEK_EXPORT_STEP STREQUAL "install")
  file(REMOVE_RECURSE "${KSEEK_WORK_DIR}")
  run_step("install" "${CMAKE_COMMAND}" --install "${KSEEK_BUILD_DIR}" --prefix "${prefix}")
  message(STATUS "export test: kernelseek installed to ${prefix}")

elseif(KSEEK_EXPORT_STEP STREQUAL "consumer")
  set(build "${KSEEK_WORK_DIR}/consumer-build")
  build_against_prefix("${KSEEK_PROJECT_SOURCE}" "${build}")
  expect_listed("${build}" test.consumer)
  run_kseek("scenarios of the consumer" 0 scenarios --plugin test.consumer --json --plugin-dir "${build}")
  message(STATUS "export test passed: installed SDK builds and loads an out-of-tree plugin")

elseif(KSEEK_EXPORT_STEP STREQUAL "residual_rmsnorm")
  set(build "${KSEEK_WORK_DIR}/residual-rmsnorm-build")
  set(id ops.residual_rmsnorm)
  build_against_prefix("${KSEEK_PROJECT_SOURCE}" "${build}")
  expect_listed("${build}" ${id})
  run_kseek("scenarios" 0 --plugin-dir "${build}" scenarios --plugin ${id} --json)
  expect_in("${STEP_OUTPUT}" "default scenarios" "\"R01\"" "\"R12\"" "tokens=1,hidden=4096,dtype=bf16"
            "tokens=16384,hidden=8192,dtype=fp16")
  run_kseek("scenario name" 0 --plugin-dir "${build}" scenarios --plugin ${id} --scenario
            "dtype=fp16,hidden=1000,tokens=3,eps=1e-5" --json)
  expect_in("${STEP_OUTPUT}" "read-back name" "tokens=3,hidden=1000,dtype=fp16,eps=1e-05")
  run_kseek("bad scenario name" 2 --plugin-dir "${build}" scenarios --plugin ${id} --scenario "tokens=3,hiden=8")
  expect_in("${STEP_OUTPUT}" "bad-name error" "unknown key 'hiden'")
  run_kseek("build the seed" 0 --plugin-dir "${build}" build
            "${KSEEK_PROJECT_SOURCE}/seed/residual_rmsnorm_seed.cu" --plugin ${id})
  expect_in("${STEP_OUTPUT}" "seed build" "kseek_plan" "rmsnorm_t256_v8_bf16" "no violation")
  run_kseek("check the seed" 0 --plugin-dir "${build}" check
            "${KSEEK_PROJECT_SOURCE}/seed/residual_rmsnorm_seed.cu" --plugin ${id} --json)
  run_kseek("lint the question pack" 0 questions lint "${KSEEK_PROJECT_SOURCE}/packs/residual_rmsnorm.json")
  run_conformance("${build}" ${id} ops_residual_rmsnorm)
  # The installed kseek alone: conform, a candidate including toolkit headers, and a campaign that finds its plugin.
  run_kseek("conform" 0 --plugin-dir "${build}" conform --plugin ${id})
  expect_in("${STEP_OUTPUT}" "conform" "names-read-back" "seed-builds" "PASSED (CPU half)")
  file(WRITE "${KSEEK_WORK_DIR}/toolkit.cu" "#include <cuda_bf16.h>\n#include <cooperative_groups.h>\n"
       "extern \"C\" __global__ void k(__nv_bfloat16* y) { y[0] = __float2bfloat16(1.0f); }\n")
  run_kseek("a candidate with toolkit headers" 0 --plugin-dir "${build}" build "${KSEEK_WORK_DIR}/toolkit.cu" --plugin ${id})
  set(campaign "${KSEEK_WORK_DIR}/rmsnorm-campaign")
  file(REMOVE_RECURSE "${campaign}")
  run_kseek("init with a plugin folder" 0 --plugin-dir "${build}" init "${campaign}" --plugin ${id})
  expect_in("${STEP_OUTPUT}" "init" "(recorded)")
  foreach(file CONTRACT.md include/kseek/device/launch_plan.h)
    if(NOT EXISTS "${campaign}/${file}")
      message(FATAL_ERROR "export test: init wrote no ${file}")
    endif()
  endforeach()
  # No --plugin-dir now: campaign.json recorded it. Without a GPU the record is NEEDS_GPU (3); with one, 0 or 1.
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "KSEEK_CACHE_DIR=${KSEEK_WORK_DIR}/nvrtc-cache" "${kseek}" --json
                          eval --campaign "${campaign}" --correctness-only
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc MATCHES "^[013]$" OR out MATCHES "no plugin")
    message(FATAL_ERROR "export test: eval in a campaign of an out-of-tree plugin exited ${rc}:\n${out}\n${err}")
  endif()
  file(REMOVE_RECURSE "${build}" "${campaign}")
  message(STATUS "export test passed: ${id} builds out of tree, loads, and its seed passes the checker")

elseif(KSEEK_EXPORT_STEP STREQUAL "gemm_bias_gelu")
  # The example written on kseek::OperatorPlugin and the SDK's device headers: it must behave like any other plugin.
  set(build "${KSEEK_WORK_DIR}/gemm-bias-gelu-build")
  set(id example.gemm_bias_gelu)
  build_against_prefix("${KSEEK_PROJECT_SOURCE}" "${build}")
  expect_listed("${build}" ${id})
  run_kseek("scenarios" 0 --plugin-dir "${build}" scenarios --plugin ${id} --json)
  expect_in("${STEP_OUTPUT}" "default scenarios" "\"G01\"" "\"G08\"" "m=4096,n=4096,k=4096" "m=3001,n=5003,k=2047")
  run_kseek("scenario name" 0 --plugin-dir "${build}" scenarios --plugin ${id} --scenario "k=33,n=45,m=77" --json)
  expect_in("${STEP_OUTPUT}" "read-back name" "m=77,n=45,k=33")
  run_kseek("bad scenario name" 2 --plugin-dir "${build}" scenarios --plugin ${id} --scenario "m=3,n=8,kk=8")
  expect_in("${STEP_OUTPUT}" "bad-name error" "unknown key 'kk'")
  run_kseek("lint the question pack" 0 questions lint "${KSEEK_PROJECT_SOURCE}/packs/gemm_bias_gelu.json")
  run_kseek("check the seed" 0 --plugin-dir "${build}" check "${KSEEK_PROJECT_SOURCE}/seed/gemm_bias_gelu_seed.cu"
            --plugin ${id})
  run_conformance("${build}" ${id} example_gemm_bias_gelu)
  run_kseek("conform" 0 --plugin-dir "${build}" conform --plugin ${id})
  expect_in("${STEP_OUTPUT}" "conform" "names-read-back" "seed-builds" "device-library-builds" "PASSED (CPU half)")
  set(campaign "${KSEEK_WORK_DIR}/gemm-campaign")
  file(REMOVE_RECURSE "${campaign}")
  run_kseek("init with a plugin folder" 0 --plugin-dir "${build}" init "${campaign}" --plugin ${id})
  expect_in("${STEP_OUTPUT}" "init" "(recorded)")
  foreach(file CONTRACT.md include/kseek/ops/gemm_bias_gelu_problem.h include/kseek/device/ptx.h)
    if(NOT EXISTS "${campaign}/${file}")
      message(FATAL_ERROR "export test: init of a ${id} campaign wrote no ${file}")
    endif()
  endforeach()
  # No --plugin-dir now: campaign.json recorded it. Without a GPU the record is NEEDS_GPU (3); with one, 0 or 1.
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "KSEEK_CACHE_DIR=${KSEEK_WORK_DIR}/nvrtc-cache" "${kseek}" --json
                          eval --campaign "${campaign}" --correctness-only
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc MATCHES "^[013]$" OR out MATCHES "no plugin")
    message(FATAL_ERROR "export test: eval in a ${id} campaign exited ${rc}:\n${out}\n${err}")
  endif()
  file(REMOVE_RECURSE "${build}" "${campaign}")
  message(STATUS "export test passed: ${id} builds out of tree, conforms, and runs in a campaign")

elseif(KSEEK_EXPORT_STEP STREQUAL "new_plugin")
  set(project "${KSEEK_WORK_DIR}/scaffold")
  set(build "${KSEEK_WORK_DIR}/scaffold-build")
  set(id demo.vector_scale)
  file(REMOVE_RECURSE "${project}")
  run_kseek("new-plugin" 0 new-plugin ${id} "${project}" --json)
  expect_in("${STEP_OUTPUT}" "new-plugin output" "\"status\": \"OK\"" "seed/demo_vector_scale_seed.cu")
  run_kseek("new-plugin into a used folder" 2 new-plugin ${id} "${project}")
  expect_in("${STEP_OUTPUT}" "used-folder error" "is not empty")
  build_against_prefix("${project}" "${build}")
  expect_listed("${build}" ${id})
  run_kseek("scenarios of the scaffold" 0 --plugin-dir "${build}" scenarios --plugin ${id} --json)
  expect_in("${STEP_OUTPUT}" "scaffold scenarios" "\"V01\"" "n=1048576,alpha=2")
  run_kseek("check the scaffold seed" 0 --plugin-dir "${build}" check
            "${project}/seed/demo_vector_scale_seed.cu" --plugin ${id})
  run_kseek("lint the scaffold pack" 0 questions lint "${project}/packs/demo_vector_scale.json")
  run_conformance("${build}" ${id} demo_vector_scale)
  run_kseek("conform the scaffold" 0 --plugin-dir "${build}" conform --plugin ${id})
  file(REMOVE_RECURSE "${project}" "${build}")
  message(STATUS "export test passed: kseek new-plugin writes a project that builds and loads as generated")

elseif(KSEEK_EXPORT_STEP STREQUAL "cleanup")
  file(REMOVE_RECURSE "${KSEEK_WORK_DIR}")

else()
  message(FATAL_ERROR "export test: unknown KSEEK_EXPORT_STEP '${KSEEK_EXPORT_STEP}'")
endif()
