#!/usr/bin/env bash
# Formats the project's C++ and CUDA sources with clang-format (14 or later) and the repository's .clang-format.
#   scripts/format.sh          rewrite the files in place
#   scripts/format.sh --check  list the files that differ and exit 1 if any does (changes nothing)
# Files under a folder whose .clang-format says DisableFormat (the adversarial corpus, campaigns) are left as they are.
set -euo pipefail
cd "$(dirname "$0")/.."
formatter=${CLANG_FORMAT:-$(command -v clang-format || command -v clang-format-14 || true)}
[[ -n $formatter ]] || { echo "format.sh: no clang-format found (apt install clang-format, or set CLANG_FORMAT)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cu' '*.cuh')
if [[ ${1:-} == --check ]]; then
  differ=0
  for f in "${files[@]}"; do
    if ! "$formatter" --style=file "$f" | cmp -s - "$f"; then echo "$f"; differ=1; fi
  done
  exit $differ
fi
"$formatter" --style=file -i "${files[@]}"
