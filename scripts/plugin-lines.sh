#!/usr/bin/env bash
# Counts a plugin folder's non-blank lines and how many of them are plumbing, by one mechanical rule, so that the
# plugin guide's figures can be re-made by anyone. It must never judge content: only the patterns below decide.
# Usage: scripts/plugin-lines.sh PLUGIN_DIR
# Plumbing: every line of CMakeLists.txt (build wiring); in sources and headers, preprocessor lines (#include,
# #pragma), namespace and using lines and the lines closing a namespace, the declaration of embedded_files(), the
# KSEEK_PLUGIN export and the constructor that hands the description to the SDK base. Everything else — scenarios,
# accounting, layout, constraints, kernels, the problem's contract, comments, question packs, the README — is the
# operator.
set -euo pipefail
dir=${1:?usage: scripts/plugin-lines.sh PLUGIN_DIR}
total=0
plumbing=0
while IFS= read -r file; do
  lines=$(grep -cv '^[[:space:]]*$' "$file" || true)
  case "$file" in
    */CMakeLists.txt) plumb=$lines ;;
    *.cpp | *.hpp | *.h | *.cu | *.cuh)
      plumb=$(grep -cE '^[[:space:]]*#[[:space:]]*(include|pragma)|^[[:space:]]*(namespace[[:space:]]|using[[:space:]])|^[[:space:]]*}[[:space:]]*//[[:space:]]*namespace|embedded_files\(\)|^KSEEK_PLUGIN\(|: OperatorPlugin\(' "$file" || true) ;;
    *) plumb=0 ;;
  esac
  printf '%5d %5d  %s\n' "$lines" "$plumb" "${file#"$dir"/}"
  total=$((total + lines))
  plumbing=$((plumbing + plumb))
done < <(find "$dir" -type f ! -path '*/build/*' | sort)
printf '%5d %5d  total (non-blank lines, plumbing); plumbing %d%%\n' "$total" "$plumbing" $((100 * plumbing / total))
