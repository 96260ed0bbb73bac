#!/usr/bin/env bash
# scripts/list-skipped-tests.sh on the JUnit file of a real CTest run: a small project whose tests skip the ways this
# repository's do (GoogleTest's GTEST_SKIP, a script's "SKIPPED: reason" and exit 77), plus a disabled test, a test
# CTest cannot start, a pass and a failure. Every test that did not run is listed with its own reason; no other is.
# It must never touch the repository's build: the project lives in a temporary folder.
# Usage: skip_listing_test.sh REPOSITORY_ROOT CMAKE_COMMAND CTEST_COMMAND
set -euo pipefail
root=$1
cmake=$2
ctest=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/kseek-skip-listing-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/project"
# What a GoogleTest binary prints for a GTEST_SKIP with a two-line message that needs XML escaping.
cat > "$work/project/gtest_skip.sh" <<'OUT'
printf '[==========] Running 1 test from 1 test suite.\n[ RUN      ] Browser.Page\n'
printf '/src/tests/report/page_test.cpp:57: Skipped\nSKIPPED: no chromium on PATH & <none> "here"\nsecond line\n\n'
printf '[  SKIPPED ] Browser.Page (0 ms)\n[==========] 1 test from 1 test suite ran. (0 ms total)\n'
OUT
cat > "$work/project/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.21)
project(skip_listing NONE)
enable_testing()
add_test(NAME gtest_skip COMMAND sh "${CMAKE_CURRENT_SOURCE_DIR}/gtest_skip.sh")
set_tests_properties(gtest_skip PROPERTIES SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
add_test(NAME script_skip COMMAND sh -c "echo 'ok: a step'; echo 'SKIPPED: slurmd needs root'; exit 77")
add_test(NAME silent_skip COMMAND sh -c "exit 77")
add_test(NAME fails_mentioning_skipped COMMAND sh -c "echo 'FAILED: CI=true: this would have been SKIPPED'; exit 1")
set_tests_properties(script_skip silent_skip fails_mentioning_skipped PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME disabled COMMAND true)
set_tests_properties(disabled PROPERTIES DISABLED TRUE)
add_test(NAME needs_a_file COMMAND true)
set_tests_properties(needs_a_file PROPERTIES REQUIRED_FILES "${CMAKE_CURRENT_BINARY_DIR}/no-such-file")
add_test(NAME passes COMMAND true)
CMAKE
"$cmake" -S "$work/project" -B "$work/build" > "$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
(cd "$work/build" && "$ctest" --output-junit "$work/junit.xml" > "$work/ctest.log" 2>&1) || true
"$root/scripts/list-skipped-tests.sh" "$work/junit.xml" > "$work/listing" 2>&1 || { cat "$work/listing"; exit 1; }
cat "$work/listing"

failures=0
expect() { grep -qxF -- "$1" "$work/listing" || { echo "FAILED: the listing has no line '$1'"; failures=$((failures + 1)); }; }
expect "5 of 7 tests did not run, each with the reason it gave:"
expect "  gtest_skip: no chromium on PATH & <none> \"here\" second line"
expect "  script_skip: slurmd needs root"
expect "  silent_skip: SKIP_RETURN_CODE=77"
expect "  disabled: disabled (the test's DISABLED property)"
expect "  needs_a_file: NOT RUN (counted as failed): Required Files Missing: Unable to find required file: $work/build/no-such-file"
for name in passes fails_mentioning_skipped; do
  grep -q "^  $name:" "$work/listing" && { echo "FAILED: $name is listed as not run"; failures=$((failures + 1)); }
done
# A listing of a run in which every test ran says so.
(cd "$work/build" && "$ctest" -R '^passes$' --output-junit "$work/all-ran.xml" > /dev/null 2>&1)
[[ $("$root/scripts/list-skipped-tests.sh" "$work/all-ran.xml") == "All 1 tests ran: none was skipped." ]] ||
    { echo "FAILED: a run without skips is not listed as such"; failures=$((failures + 1)); }
# No JUnit file: an error (exit 2), not an empty listing.
rc=0
"$root/scripts/list-skipped-tests.sh" "$work/missing.xml" > /dev/null 2>&1 || rc=$?
((rc == 2)) || { echo "FAILED: a missing JUnit file gave exit $rc, expected 2"; failures=$((failures + 1)); }
if ((failures)); then echo "FAILED: $failures expectation(s) of the skip listing not met"; exit 1; fi
echo "PASSED: every test that did not run is listed with its reason"
