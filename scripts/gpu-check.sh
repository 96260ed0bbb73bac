#!/usr/bin/env bash
# On a GPU machine with the packages but no registry: build, run every test (GPU tests serially), the A/A and
# 10%-slower benchmarks of the example plugin, and the main job. At most 8 files land in $OUT (or ./gpu-logs).
# It must never install anything.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-logs}
mkdir -p "$out"
export PATH="/usr/local/cuda/bin:$PATH"
export KSEEK_CACHE_DIR=${KSEEK_CACHE_DIR:-/tmp/kseek-cache}
log="$out/log.txt"
{
  echo "== $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv 2>&1
  g++ --version | head -1; cmake --version | head -1; nvcc --version | tail -1
  grep -h 'define BOOST_LIB_VERSION' /usr/include/boost/version.hpp
} > "$log" 2>&1
start=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >> "$log" 2>&1 || { tail -30 "$log"; exit 1; }
cmake --build build-gpu --parallel >> "$log" 2>&1 || { grep -E 'error|FAILED' "$log" | head -30; exit 1; }
echo "build: $(( $(date +%s) - start )) s" | tee -a "$log"
kseek=build-gpu/bin/kseek
$kseek doctor >> "$log" 2>&1
step() { echo "== $1 ($(date -u +%T))" | tee -a "$log"; }

step "ctest (no gpu label, parallel)"
(cd build-gpu && ctest --output-on-failure --parallel 16 -LE gpu) > "$out/ctest.txt" 2>&1
grep -E 'tests passed|\*\*\*Failed' "$out/ctest.txt" | tail -8 | tee -a "$log"
step "ctest -L gpu (serial: timings share one GPU)"
(cd build-gpu && ctest --output-on-failure -L gpu) >> "$out/ctest.txt" 2>&1
grep -E 'tests passed|\*\*\*Failed|Skipped' "$out/ctest.txt" | tail -20 | tee -a "$log"

if [[ ${GPU_CHECK_BENCHMARKS:-1} == 0 ]]; then step "benchmarks skipped (GPU_CHECK_BENCHMARKS=0)"; exit 0; fi
for run in 1 2 3; do
  step "A/A example.softmax default, run $run"
  $kseek eval --plugin example.softmax --set default --out "$out/aa-softmax-$run.json" >> "$log" 2>&1
done
step "10% slower candidate, example.softmax default"
$kseek eval tests/adversarial/example_softmax/slower_10pct.cu --plugin example.softmax --set default \
  --out "$out/slower-softmax.json" >> "$log" 2>&1
step "main job: attention.fa3 case-study (H01 only: the attention GPU side is not written yet)"
$kseek eval --plugin attention.fa3 --scenarios H01 >> "$log" 2>&1
echo "exit $?" >> "$log"
step "done in $(( $(date +%s) - start )) s"
