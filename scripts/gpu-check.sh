#!/usr/bin/env bash
# Builds kernelseek on a GPU machine that has the packages but no registry (no apt), then runs the whole test
# suite, `kseek doctor`, and the main job. Logs go to $OUT (or ./gpu-logs). It must never install anything.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-logs}
mkdir -p "$out"
export PATH="/usr/local/cuda/bin:$PATH"
{
  echo "== $(date -u +%FT%TZ) $(hostname)"
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem --format=csv 2>&1
  g++ --version | head -1; cmake --version | head -1; nvcc --version | tail -1
  grep -h 'define BOOST_LIB_VERSION' /usr/include/boost/version.hpp
} > "$out/environment.txt" 2>&1
cat "$out/environment.txt"
start=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build build-gpu --parallel > "$out/build.log" 2>&1 || { grep -E 'error|FAILED' "$out/build.log" | head -30; exit 1; }
echo "build: $(( $(date +%s) - start )) s"
(cd build-gpu && ctest --output-on-failure --parallel "$(nproc)") > "$out/ctest.log" 2>&1
echo "ctest exit $?"; grep -E 'tests passed|Failed|\*\*\*' "$out/ctest.log" | tail -15
build-gpu/bin/kseek doctor | tee "$out/doctor.txt"
build-gpu/bin/kseek eval --plugin attention.fa3 --set case-study > "$out/main-job.txt" 2>&1
echo "main job exit $?"; cat "$out/main-job.txt"
