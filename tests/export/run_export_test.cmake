# Export test: install kernelseek to a temporary prefix, build the consumer plugin against it, and load it
# with the installed kseek. It must never use the build tree's headers or CMake files.
# Inputs: KSEEK_BUILD_DIR, KSEEK_CONSUMER_SOURCE, KSEEK_WORK_DIR, KSEEK_GENERATOR.
cmake_minimum_required(VERSION 3.25)
set(prefix "${KSEEK_WORK_DIR}/prefix")
set(consumer_build "${KSEEK_WORK_DIR}/consumer-build")
file(REMOVE_RECURSE "${KSEEK_WORK_DIR}")

function(run_step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "export test: ${name} failed (${rc})\n${out}\n${err}")
  endif()
  set(STEP_OUTPUT "${out}" PARENT_SCOPE)
endfunction()

run_step("install" "${CMAKE_COMMAND}" --install "${KSEEK_BUILD_DIR}" --prefix "${prefix}")
run_step("configure consumer" "${CMAKE_COMMAND}" -S "${KSEEK_CONSUMER_SOURCE}" -B "${consumer_build}"
         -G "${KSEEK_GENERATOR}" "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_BUILD_TYPE=Release)
run_step("build consumer" "${CMAKE_COMMAND}" --build "${consumer_build}")
run_step("list plugins" "${prefix}/bin/kseek" plugins --json --plugin-dir "${consumer_build}")
foreach(id test.consumer attention.fa3 attention.fa4)
  string(FIND "${STEP_OUTPUT}" "\"${id}\"" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "export test: installed kseek does not list ${id}:\n${STEP_OUTPUT}")
  endif()
endforeach()
string(FIND "${STEP_OUTPUT}" "\"problems\": []" clean)
if(clean EQUAL -1)
  message(FATAL_ERROR "export test: plugin problems reported:\n${STEP_OUTPUT}")
endif()
run_step("scenarios of the consumer" "${prefix}/bin/kseek" scenarios --plugin test.consumer --json
         --plugin-dir "${consumer_build}")
message(STATUS "export test passed: installed SDK builds and loads an out-of-tree plugin")
file(REMOVE_RECURSE "${KSEEK_WORK_DIR}")
