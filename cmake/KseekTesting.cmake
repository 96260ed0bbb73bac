# What every test tree shares, core's (tests/) and each plugin's (plugins/<name>/tests/): GoogleTest, the environment
# the tests run in, and the recipe of a libFuzzer target. Included before the plugins when KSEEK_BUILD_TESTS is on, so
# that a plugin folder can add its own tests; the test-support targets themselves are tests/CMakeLists.txt's.
# It must never make the default build need clang or libFuzzer.
find_package(GTest REQUIRED)
include(GoogleTest)
# Test campaigns sign their records with keys kept here, not in the user's state folder.
set(KSEEK_TEST_ENVIRONMENT "KSEEK_KEY_DIR=${CMAKE_BINARY_DIR}/test-campaign-keys")

option(KSEEK_FUZZ "Build the libFuzzer targets (clang, -fsanitize=fuzzer,address,undefined); scripts/fuzz.sh" OFF)
if(KSEEK_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "KSEEK_FUZZ=ON needs clang (libFuzzer); got ${CMAKE_CXX_COMPILER_ID}. See scripts/fuzz.sh.")
  endif()
  add_custom_target(kseek_fuzz_targets)
endif()

# kseek_add_fuzz_target(<target> <source> LIBRARIES <library>...): with KSEEK_FUZZ=ON, the libFuzzer executable
# <build>/fuzz/kseek_fuzz_<target> (ASan and UBSan), part of kseek_fuzz_targets; otherwise nothing. Its seed corpus is
# the folder fuzz/corpus/<target>/ beside the source, which the tree's replay test (label unit) runs on every build.
function(kseek_add_fuzz_target target source)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "LIBRARIES")
  if(NOT KSEEK_FUZZ)
    return()
  endif()
  add_executable(kseek_fuzz_${target} ${source})
  target_link_libraries(kseek_fuzz_${target} PRIVATE kseek_test_support ${arg_LIBRARIES})
  target_compile_definitions(kseek_fuzz_${target} PRIVATE KSEEK_LIBFUZZER=1)
  target_compile_options(kseek_fuzz_${target} PRIVATE -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer)
  # --as-needed as GNU toolchains default to: the CUDA imports must not make libcuda a load-time dependency.
  target_link_options(kseek_fuzz_${target} PRIVATE -fsanitize=fuzzer,address,undefined -Wl,--as-needed)
  set_target_properties(kseek_fuzz_${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/fuzz")
  add_dependencies(kseek_fuzz_targets kseek_fuzz_${target})
endfunction()
