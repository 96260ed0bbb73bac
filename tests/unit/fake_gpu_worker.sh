#!/bin/sh
# Stands in for `kseek __worker` on a machine with $KSEEK_FAKE_GPUS fake GPUs, for the multi-GPU scheduler's tests.
# It must never touch a GPU. Usage: fake_gpu_worker.sh __worker --probe FILE --device N | __worker JOB RESULT |
# __worker --serve (job lines "JOB<tab>RESULT" on descriptor 3, a reply after each, as kseek's serving worker)
# Behaviour, from the environment: KSEEK_FAKE_GPUS (how many GPUs exist), KSEEK_FAKE_BUSY_GPU (that ordinal exists
# but its probe fails as a GPU in exclusive use by another process does), KSEEK_FAKE_CRASH_GPU (every worker on that
# ordinal dies), KSEEK_FAKE_UNUSABLE_GPU (every worker on that ordinal cannot open a session: NOT_RUNNABLE with
# gpu_unusable), KSEEK_FAKE_CRASH_SCENARIO / KSEEK_FAKE_HANG_SCENARIO (that scenario id dies / never ends on any GPU),
# KSEEK_FAKE_LOG (appends "ID DEVICE" as a scenario starts), KSEEK_FAKE_RENDEZVOUS (a folder: a scenario whose name
# is "rendezvous" waits, at most 20 s, until one is running on every GPU; alone, it FAILS).
shift
if [ "$1" = "--probe" ]; then
  file=$2
  device=$4
  if [ "$device" = "${KSEEK_FAKE_BUSY_GPU:--1}" ]; then
    printf '{"available": false, "problem": "cuCtxCreate on GPU %s failed: CUDA_ERROR_DEVICES_UNAVAILABLE"}' "$device" > "$file"
  elif [ "$device" -lt "${KSEEK_FAKE_GPUS:-0}" ]; then
    printf '{"available": true, "name": "Fake GPU", "uuid": "GPU-fake-%s", "compute_capability": "9.0", "copy_bandwidth_bytes_per_second": 1e12}' "$device" > "$file"
  else
    printf '{"available": false, "problem": "cuDeviceGet(%s) failed: CUDA_ERROR_INVALID_DEVICE"}' "$device" > "$file"
  fi
  exit 0
fi
# One job; the crash and hang modes act on this process itself, as a real worker's fault would.
run_job() {
  job=$1
  result=$2
  unusable=0
  device=$(sed -n 's/^  "device": \([0-9]*\).*/\1/p' "$job")
  id=$(sed -n 's/^    "id": "\(.*\)".*/\1/p' "$job")
  name=$(sed -n 's/^    "name": "\(.*\)".*/\1/p' "$job")
  [ -n "$KSEEK_FAKE_LOG" ] && echo "$id $device" >> "$KSEEK_FAKE_LOG"
  status=PASSED
  if [ "$name" = "rendezvous" ]; then
    : > "$KSEEK_FAKE_RENDEZVOUS/arrived-$device"
  fi
  [ "$device" = "${KSEEK_FAKE_CRASH_GPU:-none}" ] && kill -SEGV $$
  if [ "$device" = "${KSEEK_FAKE_UNUSABLE_GPU:-none}" ]; then
    printf '{"status": "NOT_RUNNABLE", "message": "cuCtxCreate failed on fake GPU %s", "gpu_unusable": true}' "$device" > "$result"
    unusable=1
    return
  fi
  [ "$id" = "${KSEEK_FAKE_CRASH_SCENARIO:-none}" ] && kill -SEGV $$
  [ "$id" = "${KSEEK_FAKE_HANG_SCENARIO:-none}" ] && exec sleep 60
  if [ "$name" = "rendezvous" ]; then
    status=FAILED
    for _ in $(seq 200); do
      if [ "$(ls "$KSEEK_FAKE_RENDEZVOUS" | grep -c arrived-)" -ge "$KSEEK_FAKE_GPUS" ]; then status=PASSED; break; fi
      sleep 0.1
    done
  fi
  printf '{"status": "%s", "message": "fake %s on %s", "input_seed": 1, "timing": {"rounds": 20, "ratio": 1.1, "ci_low": 1.09, "ci_high": 1.11, "confidence": 0.95, "meets_confidence": true, "seed_median_ms": 1.1, "candidate_median_ms": 1.0}}' \
    "$status" "$id" "$device" > "$result"
}
if [ "$1" = "--serve" ]; then
  tab=$(printf '\t')
  while IFS= read -r line <&3; do
    run_job "${line%%"$tab"*}" "${line#*"$tab"}"
    if [ "$unusable" = 1 ]; then printf 'done exit\n' >&3; exit 0; fi
    printf 'done\n' >&3
  done
  exit 0
fi
run_job "$1" "$2"
