#!/usr/bin/env bash
# `kseek run` on a GPU machine with the scripted stand-in agent and REAL evaluations (no test worker, no
# KSEEK_TESTING): a campaign on example.softmax (default set) that starts from a ~10%-slower kernel, then the story
# speed-up (the seed), stagnation, a false completion claim, a correctness break (w2_skips_last_rows.cu), the fix
# (the seed again). Small sampling (min_rounds 10, time_budget 1 s) keeps it under about three minutes.
# Writes run.txt (what kseek run printed), status.txt, status.json, log-summary.txt, campaign-log.jsonl and the
# session prompts to $OUT (default ./gpu-logs). Usage: scripts/gpu-runner-demo.sh [KSEEK]   (default: builds build-gpu)
# It must never set a test switch, edit the campaign's log, or accept a person's config edit other than the sampling.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-logs}
mkdir -p "$out"
export PATH="/usr/local/cuda/bin:$PATH"
export KSEEK_CACHE_DIR=${KSEEK_CACHE_DIR:-/tmp/kseek-cache}
unset KSEEK_TESTING KSEEK_WORKER_EXECUTABLE KSEEK_STANDIN_TAMPER KSEEK_STANDIN_HANG KSEEK_STANDIN_SELF_TESTING
if [[ $# -ge 1 ]]; then
  kseek=$(realpath "$1")
else
  cmake -S "$root" -B "$root/build-gpu" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$out/build.txt" 2>&1 &&
    cmake --build "$root/build-gpu" --parallel --target kseek kseek_plugins >> "$out/build.txt" 2>&1 || { tail -30 "$out/build.txt"; exit 1; }
  kseek=$root/build-gpu/bin/kseek
fi
dir=$(mktemp -d)/softmax-run
adv=$root/tests/adversarial/example_softmax
{
  echo "\$ kseek init $dir --plugin example.softmax --seed slower_10pct.cu --goal 'all_passed and geomean >= 0.95'"
  "$kseek" init "$dir" --plugin example.softmax --seed "$adv/slower_10pct.cu" --goal 'all_passed and geomean >= 0.95' || exit 1
  # A person's edit, accepted the documented way: small sampling for a short demonstration.
  sed -i '1s/^{$/{\n  "eval": {"min_rounds": 10, "time_budget": 1},/' "$dir/campaign.json"
  "$kseek" reconfigure --campaign "$dir" || exit 1
  echo "\$ kseek run $dir --agent-cmd tests/fixtures/standin_agent.sh --budget-sessions 7 --budget-hours 0.08"
} > "$out/run.txt" 2>&1
start=$(date +%s)
KSEEK_STANDIN_MODE=real KSEEK_STANDIN_BASE="$root/plugins/example_softmax/seed/softmax_seed.cu" \
  KSEEK_STANDIN_WRONG="$adv/w2_skips_last_rows.cu" \
  "$kseek" run "$dir" --agent-cmd "$root/tests/fixtures/standin_agent.sh" --budget-sessions 7 --budget-hours 0.08 \
  >> "$out/run.txt" 2>&1
code=$?
echo "(kseek run exit $code after $(( $(date +%s) - start )) s; 0 = goal met)" >> "$out/run.txt"
"$kseek" status --campaign "$dir" > "$out/status.txt" 2>&1
"$kseek" --json status --campaign "$dir" > "$out/status.json" 2>&1
cp "$dir/.kseek/log.jsonl" "$out/campaign-log.jsonl"
tar -C "$dir" -cf "$out/prompts-and-agent-output.tar" standin-prompts standin-evals.log .kseek/run 2>/dev/null
# One line per log record: its type and the fields that tell the story.
sed 's/^[0-9a-f]* //' "$dir/.kseek/log.jsonl" | awk '
  function field(name,   m) {
    if (match($0, "\"" name "\": *(\"[^\"]*\"|[-0-9.e]+|true|false|null)")) {
      m = substr($0, RSTART, RLENGTH); sub("^\"" name "\": *", "", m); return name "=" m " "
    }
    return ""
  }
  { gsub(/"(scenarios|terms)": *\[[^]]*\]/, "")
    line = field("type") field("phase") field("session") field("exit_status") field("evaluations") field("questions")
    line = line field("number") field("status") field("all_passed") field("geomean") field("event") field("id")
    line = line field("via") field("kind") field("holds") field("caller") field("outcome") field("budget")
    print NR ": " line }' > "$out/log-summary.txt"
cat "$out/run.txt" "$out/status.txt"
exit $code
