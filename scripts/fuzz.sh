#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz and the plugins' tests/fuzz) with clang (ASan + UBSan, KSEEK_FUZZ=ON) in a
# build folder of their own and runs each for SECONDS (default 60), one after the other; prints each target's
# executions and findings.
# It must never touch another build folder or the committed seed corpora: new inputs and crashes stay in the build folder.
#
#   scripts/fuzz.sh [SECONDS]     env: KSEEK_FUZZ_BUILD_DIR (default build-fuzz), KSEEK_FUZZ_JOBS (default 2),
#                                      KSEEK_FUZZ_TARGETS (default: all), CXX (default clang++)
set -euo pipefail

seconds="${1:-60}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KSEEK_FUZZ_BUILD_DIR:-${root}/build-fuzz}"
jobs="${KSEEK_FUZZ_JOBS:-2}"
targets="${KSEEK_FUZZ_TARGETS:-question_pack record_log scenario_name goal_expression plugin_descriptor campaign_config}"

cmake -S "${root}" -B "${build}" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER="${CXX:-clang++}" -DKSEEK_FUZZ=ON \
  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined,fuzzer-no-link" >/dev/null
cmake --build "${build}" --target kseek_fuzz_targets --parallel "${jobs}"

mkdir -p "${build}/fuzz-work"
status=0
for target in ${targets}; do
  corpus="${build}/fuzz-work/${target}/corpus"
  artifacts="${build}/fuzz-work/${target}/artifacts"
  mkdir -p "${corpus}" "${artifacts}"
  log="${build}/fuzz-work/${target}/fuzz.log"
  # The committed seeds: core's targets in tests/fuzz/corpus, a plugin's in its own tests/fuzz/corpus.
  seeds=""
  for folder in "${root}/tests/fuzz/corpus/${target}" "${root}"/plugins/*/tests/fuzz/corpus/"${target}"; do
    if [[ -d ${folder} ]]; then seeds=${folder}; break; fi
  done
  [[ -n ${seeds} ]] || { echo "== ${target}: no committed seed corpus found" >&2; status=1; continue; }
  echo "== ${target}: ${seconds} s (log: ${log})"
  # New inputs go to the first folder (the build's); the committed seeds are read only.
  if ! UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "${build}/fuzz/kseek_fuzz_${target}" \
      -max_total_time="${seconds}" -timeout=10 -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
      -artifact_prefix="${artifacts}/" "${corpus}" "${seeds}" >"${log}" 2>&1; then
    status=1
    echo "   FINDING: see ${log} and ${artifacts}/"
  fi
  grep -E "^stat::number_of_executed_units|^stat::new_units_added|^#[0-9]+ +DONE" "${log}" | sed 's/^/   /' || true
done
exit "${status}"
