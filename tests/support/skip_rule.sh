# Test support for shell-driven tests (source it): the rule of tests/support/skip_rule.hpp. A test that cannot run
# for want of a tool, package or permission prints "SKIPPED: reason" and exits 77 (CTest's SKIP_RETURN_CODE), or,
# under CI=true, prints "FAILED: CI=true: reason" and exits 1.
# It must never be used for a missing GPU, which is a skip everywhere.

in_ci() { [[ ${CI:-} == true || ${CI:-} == TRUE || ${CI:-} == True || ${CI:-} == 1 ]]; }

# skip_or_fail_for_missing_tool REASON...: ends the test.
skip_or_fail_for_missing_tool() {
  if in_ci; then
    echo "FAILED: CI=true: $* (under CI a test that cannot run for want of a tool or package fails instead of skipping)"
    exit 1
  fi
  echo "SKIPPED: $*"
  exit 77
}
