#!/usr/bin/env bash
# A real campaign on a GPU machine: `kseek init`, two real evaluations (the seed, then a 10%-slower edit), status,
# gate and the stop hook; everything it prints goes to stdout (gpu-check.sh puts it in its log) and the campaign's
# log is copied to $OUT. Usage: scripts/gpu-campaign.sh KSEEK OUTDIR
# It must never edit the campaign's config or log itself: only kseek commands touch them.
set -uo pipefail
kseek=$(realpath "$1")
out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)/softmax-campaign
run() { echo "\$ kseek $*"; "$kseek" "$@"; echo "(exit $?)"; }

run init "$dir" --plugin example.softmax --set default --goal 'all_passed and geomean >= 1.05'
cd "$dir" || exit 1
# Small sampling so the demonstration stays short; the protocol is the full one.
run status
run ask
echo "== evaluation 1: the candidate as created (the seed)"
run eval
cp "$root/tests/adversarial/example_softmax/slower_10pct.cu" candidate.cu
echo "== evaluation 2: candidate.cu replaced by a 10%-slower kernel"
run eval
run status
run gate
echo "== the stop hook, as Claude Code would call it"
echo '{"session_id":"gpu-demo","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"The kernel is memory-bound at the bandwidth limit; the optimisation is complete."}' |
  "$kseek" hook stop --host claude --campaign "$dir"
echo "(exit $?)"
run questions stats
cp .kseek/log.jsonl "$out/campaign-log.jsonl"
# The whole campaign (config, candidate, log, records) for examples/campaigns/.
tar -C "$(dirname "$dir")" -cf "$out/campaign.tar" --exclude=.claude --exclude=.codex --exclude=.mcp.json "$(basename "$dir")"
