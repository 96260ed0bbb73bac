#!/usr/bin/env bash
# Sets up, builds and runs every test (CTest labels unit, nvrtc, export, report, slurm, ci), then lists every test that
# did not run with its reason. GPU tests skip without a GPU; a test that skips for a missing tool or package fails
# under CI=true. It must never hide a failing or a skipped test: the exit status is CTest's, and CTest's summary
# line closes the output.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cd build
junit=$PWD/Testing/kseek-junit.xml
log=$PWD/Testing/kseek-ctest.log
mkdir -p Testing
rm -f "$junit"
status=0
ctest --output-on-failure --parallel "$(nproc)" --output-junit "$junit" "$@" 2>&1 | tee "$log" || status=$?
echo
../scripts/list-skipped-tests.sh "$junit" || true
# CTest's own summary line, again, so that the output still ends with it.
grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1 || true
exit "$status"
