#!/usr/bin/env bash
# The skip rule (tests/support/skip_rule.hpp and .sh) as CI meets it: on a machine without chromium, or without the
# Slurm daemons, the report's browser tests and the slurm test skip with their reason, and fail under CI=true.
# It must never install or remove anything: the missing tools are hidden with a PATH of links (path_without.sh).
# Usage: missing_tool_rule_test.sh REPORT_TESTS_EXECUTABLE KSEEK_EXECUTABLE REPOSITORY_ROOT
set -euo pipefail
report_tests=$1
kseek=$2
root=$3
source "$root/tests/support/path_without.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/kseek-skip-rule-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAILED: $*"; echo "---- its output"; cat "$work/out"; failures=$((failures + 1)); }
# run CI_VALUE PATH COMMAND...: the command with that PATH and CI set to CI_VALUE (unset when empty); sets rc.
run() {
  local ci=$1 path=$2
  shift 2
  rc=0
  if [[ -n $ci ]]; then
    env CI="$ci" PATH="$path" "$@" > "$work/out" 2>&1 || rc=$?
  else
    env -u CI PATH="$path" "$@" > "$work/out" 2>&1 || rc=$?
  fi
}

# ---- chromium: the report's browser tests ----------------------------------------------------------------------------
no_browser=$(path_without "$work/no-browser" chromium chromium-browser google-chrome google-chrome-stable)
run "" "$no_browser" "$report_tests" --gtest_filter='ChromiumReport.*'
((rc == 0)) && grep -q '^\[  SKIPPED \]' "$work/out" || fail "without chromium and without CI the browser tests did not skip (exit $rc)"
grep -q 'no chromium' "$work/out" || fail "the skip does not say that chromium is missing"
((failures)) || echo "ok: without chromium the browser tests skip, saying why"
before=$failures
for ci in true 1; do
  run "$ci" "$no_browser" "$report_tests" --gtest_filter='ChromiumReport.*'
  ((rc != 0)) || fail "CI=$ci without chromium: the browser tests exited 0, expected a failure"
  grep -q '^\[  FAILED  \]' "$work/out" && ! grep -q '^\[  SKIPPED \]' "$work/out" ||
      fail "CI=$ci without chromium: the browser tests are not reported as failed"
  grep -q 'CI=true: no chromium' "$work/out" || fail "CI=$ci: the failure does not say that chromium is missing"
done
((failures == before)) && echo "ok: under CI=true (or CI=1) without chromium the browser tests fail, saying why"
before=$failures
run false "$no_browser" "$report_tests" --gtest_filter='ChromiumReport.*'
((rc == 0)) || fail "CI=false is not a CI run, yet the browser tests failed"
((failures == before)) && echo "ok: CI=false is not a CI run"
before=$failures

# ---- slurm: the one-node cluster's daemons ---------------------------------------------------------------------------
no_slurm=$(path_without "$work/no-slurm" munged munge unmunge slurmctld slurmd sbatch squeue sinfo)
run true "$no_slurm" "$root/tests/slurm/run_slurm_test.sh" "$kseek" "$root"
((rc != 0 && rc != 77)) || fail "CI=true without the Slurm daemons: the slurm test exited $rc, expected a failure"
grep -q '^FAILED: CI=true' "$work/out" || fail "CI=true: the slurm test's failure does not say why"
grep -q 'SKIPPED' "$work/out" && fail "CI=true: the slurm test's output says SKIPPED"
((failures == before)) && echo "ok: under CI=true without the Slurm daemons the slurm test fails, saying why"
before=$failures
run "" "$no_slurm" "$root/tests/slurm/run_slurm_test.sh" "$kseek" "$root"
((rc == 77)) || fail "without the Slurm daemons and without CI the slurm test exited $rc, expected 77 (a skip)"
grep -q '^SKIPPED: ' "$work/out" || fail "the slurm test's skip does not say why"
((failures == before)) && echo "ok: without the Slurm daemons the slurm test skips (exit 77), saying why"

if ((failures)); then echo "FAILED: $failures expectation(s) of the skip rule not met"; exit 1; fi
echo "PASSED: a test that cannot run for want of a tool skips, and fails under CI=true"
