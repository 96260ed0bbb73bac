#!/usr/bin/env bash
# Lists every test that did not run in a CTest JUnit file (ctest --output-junit), each with the reason it gave:
# GoogleTest's GTEST_SKIP message, a script's "SKIPPED: reason" line, or CTest's own word (disabled, a missing file).
# It must never change a verdict: it only reads the file, and exits 0 whatever the tests did (2 if it cannot read it).
# Usage: scripts/list-skipped-tests.sh JUNIT_XML
set -euo pipefail
junit=${1:?usage: list-skipped-tests.sh JUNIT_XML}
[[ -r $junit ]] || { echo "list-skipped-tests: no JUnit file at $junit (did ctest run?)" >&2; exit 2; }

awk '
function unescape(s) {
  gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s); gsub(/&quot;/, "\"", s); gsub(/&apos;/, "\047", s); gsub(/&amp;/, "\\&", s)
  return s
}
function attribute(line, name,    start, rest) {
  start = index(line, " " name "=\"")
  if (start == 0) return ""
  rest = substr(line, start + length(name) + 3)
  return unescape(substr(rest, 1, index(rest, "\"") - 1))
}
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t\r]+$/, "", s); return s }
# The reason a test gave, from its output: GoogleTest prints "file:line: Skipped" and then the message; a script
# prints "SKIPPED: reason". Else CTest says why it did not run the test.
function reason_of(    i, n, lines, text, collecting) {
  n = split(output, lines, "\n")
  text = ""
  for (i = 1; i <= n; i++) {
    if (collecting) {
      if (lines[i] ~ /^\[  SKIPPED \]/ || trim(lines[i]) == "") break
      text = text (text == "" ? "" : " ") trim(lines[i])
    } else if (lines[i] ~ /: Skipped$/) {
      collecting = 1
    }
  }
  sub(/^SKIPPED:? +/, "", text)  # some GTEST_SKIP messages repeat the word
  if (text != "") return text
  for (i = 1; i <= n; i++) {
    if (lines[i] ~ /^SKIPPED:? /) { text = lines[i]; sub(/^SKIPPED:? +/, "", text); return trim(text) }
  }
  if (status == "disabled") return "disabled (the test'"'"'s DISABLED property)"
  text = message
  for (i = 1; i <= n; i++) if (trim(lines[i]) != "") { text = text (text == "" ? "" : ": ") trim(lines[i]); break }
  return text == "" ? "no reason given" : text
}
/<testcase / {
  name = attribute($0, "name"); status = attribute($0, "status"); message = ""; output = ""; in_output = 0
  tests++
}
/<skipped / { message = attribute($0, "message") }
/<system-out>/ { in_output = 1; sub(/.*<system-out>/, "") }
in_output {
  line = $0
  if (sub(/<\/system-out>.*/, "", line)) in_output = 0
  output = output unescape(line) "\n"
  next
}
/<\/testcase>/ {
  if (status == "run") passed++
  else if (status == "fail") failed++
  else {
    # CTest counts a test it could not start (a missing file, a failed fixture) as failed; the rest are skips.
    reason = reason_of()
    if (status == "disabled" || message ~ /^SKIP_/) { skipped++; listing = listing sprintf("  %s: %s\n", name, reason) }
    else { not_run++; listing = listing sprintf("  %s: NOT RUN (counted as failed): %s\n", name, reason) }
  }
}
END {
  if (skipped + not_run == 0) { printf "All %d tests ran: none was skipped.\n", tests; exit }
  printf "%d of %d tests did not run, each with the reason it gave:\n%s", skipped + not_run, tests, listing
}
' "$junit"
