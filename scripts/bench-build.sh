#!/usr/bin/env bash
# Build-time benchmark: NVRTC cold build, cache hit, and nvcc on the same candidate, median of N runs each.
# It must never reuse a cache between "cold" runs. Prints a markdown table row set for docs/benchmarks.md.
# Usage: scripts/bench-build.sh [PLUGIN_ID] [CANDIDATE.cu] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
plugin=${1:-attention.fa3}
candidate=${2:-plugins/attention_common/seeds/fa2_class_seed.cu}
runs=${3:-3}
arch=sm_90a
kseek=build/bin/kseek
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

cold=(); hit=(); nv=()
for ((i = 0; i < runs; i++)); do
  rm -rf "$work/cache"
  t0=$(now); "$kseek" build "$candidate" --plugin "$plugin" --arch "$arch" --cache-dir "$work/cache" >/dev/null; t1=$(now)
  cold+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')")
  t0=$(now); "$kseek" build "$candidate" --plugin "$plugin" --arch "$arch" --cache-dir "$work/cache" >/dev/null; t1=$(now)
  hit+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')")
done

# nvcc on the same file with the same headers and the options kseek gives NVRTC.
includes=(-I sdk/include -I plugins/attention_common/include)
for ((i = 0; i < runs; i++)); do
  t0=$(now)
  nvcc -cubin -arch="$arch" -std=c++17 -lineinfo -Xptxas -v -DKSEEK_CANDIDATE=1 "${includes[@]}" "$candidate" \
       -o "$work/nvcc.cubin" 2>/dev/null
  t1=$(now)
  nv+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')")
done

m_cold=$(printf '%s\n' "${cold[@]}" | median)
m_hit=$(printf '%s\n' "${hit[@]}" | median)
m_nv=$(printf '%s\n' "${nv[@]}" | median)
echo "candidate: $candidate ($(wc -l <"$candidate") lines), arch $arch, $runs runs each, $(nproc) CPU cores, $(date -u +%F)"
echo "| what | median wall time (s) | runs (s) |"
echo "|---|---|---|"
echo "| kseek build, NVRTC cold (no cache) | $m_cold | ${cold[*]} |"
echo "| kseek build, cache hit | $m_hit | ${hit[*]} |"
echo "| nvcc -cubin, same options | $m_nv | ${nv[*]} |"
