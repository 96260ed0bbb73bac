#!/usr/bin/env bash
# End to end through a real one-node Slurm cluster on localhost (munged, slurmctld, slurmd started here as root):
# `kseek slurm submit` runs an evaluation as a 2-task job array plus a dependent merge job, and the merged record is
# checked. Nothing needs a GPU: a candidate that does not compile gives every scenario a verdict (COMPILE_ERROR, a
# COMPLETE record per shard), and the seed's A/A run gives NEEDS_GPU shards that the merge must report as such.
# It must never leave a daemon running or touch the machine's own Slurm or munge: everything lives in a temporary
# folder with its own key, socket and ports, and is torn down on exit. Where the daemons cannot run (not root, not
# installed, not starting) it runs the generated job scripts without Slurm, then prints "SKIPPED: reason" and exits 77
# (CTest's SKIP_RETURN_CODE), or fails under CI=true (tests/support/skip_rule.sh).
# Usage: run_slurm_test.sh KSEEK_EXECUTABLE REPOSITORY_ROOT
set -euo pipefail
kseek=$1
root=$2
source "$root/tests/support/skip_rule.sh"
plugin=example.softmax
candidate=$root/tests/fixtures/candidates/syntax_error.cu

work=$(mktemp -d "${TMPDIR:-/tmp}/kseek-slurm-test.XXXXXX")
chmod 755 "$work"  # munged wants every folder above its socket reachable
pids=()
failed=1
teardown() {
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  if ((failed)); then
    for log in "$work"/log/* "$work"/run*/*.log; do
      [[ -f $log ]] && { echo "---- $log"; tail -n 30 "$log"; }
    done
  fi
  rm -rf "$work"
}
trap teardown EXIT
export KSEEK_CACHE_DIR=$work/cache
mkdir -p "$work/log" "$work/munge" "$work/state" "$work/spool"

fail() { echo "FAILED: $*"; exit 1; }

# The merged record, checked with grep on kseek's two-space JSON layout (no jq or python needed):
# check_merged FILE STATUS [SCENARIO_STATUS]
check_merged() {
  local file=$1 status=$2 scenario_status=${3:-}
  [[ -f $file ]] || fail "no merged record $file"
  grep -q "^  \"status\": \"$status\"" "$file" || fail "$file: status is not $status: $(grep '^  "status"' "$file")"
  grep -q '^  "schema": "kseek.eval/1"' "$file" || fail "$file: not a kseek.eval/1 record"
  grep -q '^  "shard"' "$file" && fail "$file: a merged record has no shard block"
  [[ $(grep -c '"file": ".*/shard-[01].json"' "$file") == 2 ]] || fail "$file: merged_from does not name both shards"
  grep -q "^merged 2 shards of $plugin: $status" "$(dirname "$file")/merge.log" ||
      fail "the merge job did not report the merge: $(cat "$(dirname "$file")/merge.log")"
  if [[ -n $scenario_status ]]; then
    grep -Eq "^      \"$scenario_status\": $scenario_count,?$" "$file" ||
        fail "$file: the summary does not count $scenario_count $scenario_status verdicts"
    grep -Eq "^    \"scenarios\": $scenario_count,?$" "$file" || fail "$file: the summary does not count $scenario_count scenarios"
  fi
  echo "ok: $file is a merged $status record${scenario_status:+ with $scenario_count $scenario_status verdicts}"
}

scenario_count=$("$kseek" scenarios --plugin "$plugin" --json | sed -n 's/^  "count": \([0-9]*\).*/\1/p')
[[ $scenario_count -ge 2 ]] || fail "the $plugin plugin's default set has fewer than 2 scenarios ($scenario_count)"

# Without Slurm: each task of the generated array script run here, then the merge script. Used when the daemons
# cannot run, so that the scripts themselves are still exercised.
run_scripts_locally() {
  "$kseek" slurm submit "$candidate" --plugin "$plugin" --shards 2 --gpus-per-task 0 --input-seed 7 --dir "$work/run0" \
      --dry-run > "$work/dry-run.txt"
  mkdir -p "$work/run0"
  awk -v dir="$work/run0" '/^# ---- submit/ { out = ""; next }
                           /^# ---- / { out = dir "/" ($3 ~ /merge/ ? "merge.sh" : "eval-array.sh"); next }
                           out { print > out }' "$work/dry-run.txt"
  for task in 0 1; do SLURM_ARRAY_TASK_ID=$task bash "$work/run0/eval-array.sh" > "$work/run0/shard-$task.log" 2>&1 ||
      fail "array task $task failed without Slurm"; done
  bash "$work/run0/merge.sh" > "$work/run0/merge.log" 2>&1 || fail "the merge script failed without Slurm"
  check_merged "$work/run0/merged.json" COMPLETE COMPILE_ERROR
}
# skip REASON: what this machine lacks for a cluster of its own; a failure under CI=true, where setup installs it.
skip() {
  in_ci && skip_or_fail_for_missing_tool "$*"  # fails at once, the daemons' logs shown by teardown
  run_scripts_locally
  failed=0
  skip_or_fail_for_missing_tool "$* (the generated job scripts ran without Slurm and their merged record checked out)"
}

((EUID == 0)) || skip "the one-node cluster needs root to start slurmd"
missing=()
for tool in munged munge unmunge slurmctld slurmd sbatch squeue sinfo; do
  command -v "$tool" > /dev/null || missing+=("$tool")
done
((${#missing[@]} == 0)) || skip "not installed: ${missing[*]} (scripts/setup.sh installs munge, slurmctld, slurmd, slurm-client)"

# ---- munge: our own key and socket --------------------------------------------------------------------------------
socket=$work/munge/munge.socket
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged -F --force --key-file="$work/munge/munge.key" --socket="$socket" --pid-file="$work/munge/munged.pid" \
    --seed-file="$work/munge/seed" --log-file="$work/log/munged.log" > "$work/log/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [[ -S $socket ]] && break; sleep 0.1; done
munge -n -S "$socket" 2>/dev/null | unmunge -S "$socket" > /dev/null 2>&1 ||
    skip "munged did not start: $(tail -n 3 "$work/log/munged.out" 2>/dev/null | tr '\n' ' ')"

# ---- slurm.conf: one node, no cgroups, everything under $work, ports of our own ------------------------------------
cpus=$(nproc)
memory_mb=$(awk '/MemTotal/ { print int($2 / 1024 / 2) }' /proc/meminfo)
port=$((20000 + $$ % 20000))
export SLURM_CONF=$work/slurm.conf
cat > "$SLURM_CONF" <<CONF
ClusterName=kseektest
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory_mb State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -D -f "$SLURM_CONF" > "$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N localhost -f "$SLURM_CONF" > "$work/log/slurmd.out" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 120); do
  state=$(sinfo -h -n localhost -o %T 2>/dev/null || true)
  [[ $state == idle ]] && break
  sleep 0.5
done
[[ $state == idle ]] || skip "the Slurm node did not become idle within 60 s (state '${state:-none}'): $(tail -n 2 "$work/log/slurmctld.out" "$work/log/slurmd.out" 2>/dev/null | tr '\n' ' ')"
echo "ok: one-node Slurm cluster up ($(sinfo --version), ports $port-$((port + 1)))"

# submit_and_wait DIR [kseek slurm submit arguments...]: submits, waits (bounded) for both jobs, prints nothing else.
submit_and_wait() {
  local dir=$1
  shift
  local out
  out=$("$kseek" slurm submit "$@" --shards 2 --gpus-per-task 0 --partition debug --time 00:15:00 --dir "$dir" --json) ||
      fail "kseek slurm submit failed: $out"
  local array merge
  array=$(sed -n 's/^  "array_job": "\([0-9]*\)".*/\1/p' <<< "$out")
  merge=$(sed -n 's/^  "merge_job": "\([0-9]*\)".*/\1/p' <<< "$out")
  [[ -n $array && -n $merge ]] || fail "no job ids in: $out"
  echo "ok: submitted array job $array and merge job $merge"
  for _ in $(seq 600); do
    if [[ -z $(squeue -h -j "$array,$merge" 2>/dev/null) ]]; then
      scontrol show job "$merge" | grep -q "JobState=COMPLETED" ||
          fail "merge job $merge did not complete: $(scontrol show job "$merge" | grep -o 'JobState=[A-Z_]* Reason=[^ ]*')"
      return 0
    fi
    sleep 0.5
  done
  squeue
  fail "jobs $array and $merge did not finish within 300 s"
}

# ---- a candidate that does not compile: every scenario COMPILE_ERROR, COMPLETE shards, a clean merge ----------------
submit_and_wait "$work/run1" "$candidate" --plugin "$plugin" --input-seed 7
for task in 0 1; do
  grep -q '^  "status": "COMPLETE"' "$work/run1/shard-$task.json" || fail "shard $task is not COMPLETE"
  grep -q "^    \"index\": $task" "$work/run1/shard-$task.json" || fail "shard-$task.json does not say it is shard $task"
done
check_merged "$work/run1/merged.json" COMPLETE COMPILE_ERROR

# ---- the seed (A/A): shards that need a GPU here; the merge says so (or, on a GPU machine, completes) ---------------
submit_and_wait "$work/run2" --plugin "$plugin" --correctness-only
if grep -q '^  "status": "NEEDS_GPU"' "$work/run2/merged.json"; then
  check_merged "$work/run2/merged.json" NEEDS_GPU
  grep -q '2 of 2 shards need a GPU' "$work/run2/merged.json" || fail "the merged NEEDS_GPU record does not name the shards"
else
  check_merged "$work/run2/merged.json" COMPLETE
fi
failed=0
echo "PASSED: kseek slurm submit ran 2 shards and their merge through Slurm twice"
