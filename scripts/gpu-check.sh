#!/usr/bin/env bash
# On a GPU machine with the packages but no registry: build, then run the named jobs (default: all of them
# except the long ones), writing logs and JSON records to $OUT (or ./gpu-logs). At most 8 files are written.
#   scripts/gpu-check.sh [JOB...]
# Jobs: tests (ctest, GPU tests serially), softmax (A/A x3 + 10%-slower), fa3-case (case-study A/A),
#       fa3-case3 (three case-study A/A runs), fa3-full (full set, correctness), fa3-hf704, fa4 (FA4 seed on this
#       GPU), user-name, rmsnorm (the out-of-tree operator), fa3-corpus[-sample] (adversarial candidates; fa4-corpus: the PrefixLM files), campaign (a real
#       campaign: scripts/gpu-campaign.sh), two-gpus (issue #10's measurement; needs a 2-GPU machine),
#       conformance (the GPU half of the plugin conformance suite), fa4-functional (FA4 on Hopper through sm_90a),
#       fa3-ab (each file of KSEEK_AB_FILE against the FA3 seed, one input seed; KSEEK_AB_SCENARIOS narrows the set),
#       trust-repeat (the honest controls and the switch-when-timed candidates, KSEEK_REPEAT runs each with fresh
#       input seeds: false-positive and catch rates), gpu-trust (the GPU tests of the trust mechanisms: T4, H9),
#       build-time (the FA3 seed's build for sm_90a and sm_100a, cold with each pipeline and compared, then cached),
#       fa3-draft (a draft, default the campaign candidate, correctness only),
#       fa3-campaign (one campaign evaluation in examples/campaigns/fa3-h200; its .kseek comes back as a tar),
#       peers (KSEEK_PEER_SCRIPT: PyTorch SDPA and the GPU's ceilings, written to $OUT/sdpa.json),
#       gemm-campaign (the out-of-tree GEMM operator in a campaign driven over MCP: scripts/mcp-session.py),
#       fa3-refcache (the reference cache: the case-study A/A cold, warm, and with --no-reference-cache, one input seed),
#       reference-engines (the attention references on tensor cores against FMAs: GPU tests, then the case-study set
#       once per engine on one build).
# KSEEK_STREAMS (default 1) runs that many corpus evaluations at once on each GPU: verdicts, not timings, are what
# the corpus jobs record, and most of a corpus file's time is compiling and host work.
# KSEEK_CACHE_DIR may point at a carried build cache so the seeds' cold NVRTC builds are skipped.
# It must never install anything.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-logs}
mkdir -p "$out"
export PATH="/usr/local/cuda/bin:$PATH"
export KSEEK_CACHE_DIR=${KSEEK_CACHE_DIR:-/tmp/kseek-cache}
jobs=("$@")
[[ ${#jobs[@]} -eq 0 ]] && jobs=(tests softmax fa3-case fa4)
log="$out/log.txt"
{
  echo "== $(date -u +%FT%TZ) jobs: ${jobs[*]}"
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv 2>&1
  g++ --version | head -1; cmake --version | head -1; nvcc --version | tail -1
  grep -h 'define BOOST_LIB_VERSION' /usr/include/boost/version.hpp
} > "$log" 2>&1
start=$(date +%s)
step() { echo "== $1 ($(date -u +%T), +$(( $(date +%s) - start )) s)" | tee -a "$log"; }
# KSEEK_PREBUILT_DIR: a build folder made elsewhere and carried here (the development host's Debian 12 build runs on
# the GPU machine's Ubuntu 24.04: same libfmt.so.9, libcrypto.so.3 and CUDA 13 sonames). Used when its kseek answers
# `doctor`, which saves the ~155 s build of a cold GPU machine (seen 2026-12-02); else this builds build-gpu. The
# evaluation jobs need only its bin/ and lib/ (6 MB); the ctest and install jobs need the whole folder.
build=build-gpu
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [[ -n ${KSEEK_PREBUILT_DIR:-} ]] && "$KSEEK_PREBUILT_DIR/bin/kseek" doctor >> "$log" 2>&1; then
  build=$KSEEK_PREBUILT_DIR
  echo "using the carried build $build" >> "$log"
else
  [[ -n ${KSEEK_PREBUILT_DIR:-} ]] && echo "the carried build $KSEEK_PREBUILT_DIR does not run here; building" | tee -a "$log"
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >> "$log" 2>&1 || { tail -30 "$log"; exit 1; }
  cmake --build build-gpu --parallel >> "$log" 2>&1 || { grep -E 'error|FAILED' "$log" | head -30; exit 1; }
  build-gpu/bin/kseek doctor >> "$log" 2>&1  # a carried build has answered it above
fi
step "built"
kseek=$build/bin/kseek

# Deals ITEMS round-robin to N streams, each run as FUNCTION STREAM ITEM... in the background, and waits for all.
deal_to_streams() {
  local n=$1 fn=$2; shift 2
  local items=("$@") g i share
  for (( g = 0; g < n; g++ )); do
    share=()
    for (( i = g; i < ${#items[@]}; i += n )); do share+=("${items[$i]}"); done
    "$fn" "$g" "${share[@]}" &
  done
  wait
}

# A table goes to the log; the JSON record to $OUT/NAME.json. Exit status is logged, never fatal.
evaluate() {
  local name=$1; shift
  step "$name: kseek eval $*"
  $kseek eval "$@" --out "$out/$name.json" >> "$log" 2>&1
  echo "exit $?" >> "$log"
}

for job in "${jobs[@]}"; do
  case $job in
    tests)
      step "ctest (no gpu label, parallel)"
      (cd "$build" && ctest --output-on-failure --parallel 16 -LE gpu) > "$out/ctest.txt" 2>&1
      grep -E 'tests passed|\*\*\*Failed' "$out/ctest.txt" | tail -8 | tee -a "$log"
      step "ctest -L gpu (serial: timings share one GPU)"
      (cd "$build" && ctest --output-on-failure -L gpu) >> "$out/ctest.txt" 2>&1
      grep -E 'tests passed|\*\*\*Failed|Skipped' "$out/ctest.txt" | tail -20 | tee -a "$log" ;;
    softmax)
      for run in 1 2 3; do evaluate "aa-softmax-$run" --plugin example.softmax --set default; done
      evaluate slower-softmax tests/adversarial/example_softmax/slower_10pct.cu --plugin example.softmax --set default ;;
    fa3-case)
      evaluate aa-fa3-case-1 --plugin attention.fa3 --set case-study ;;
    fa3-case3)
      for run in 1 2 3; do evaluate "aa-fa3-case-$run" --plugin attention.fa3 --set case-study; done ;;
    fa3-full)
      evaluate fa3-full --plugin attention.fa3 --set full --correctness-only ;;
    fa4)
      evaluate fa4-case --plugin attention.fa4 --set case-study
      evaluate fa4-case-functional --plugin attention.fa4 --set case-study --functional-arch sm_90a --correctness-only ;;
    fa4-functional)
      # FA4's scenarios, references and portable seed on Hopper: the case-study set and the full set's PrefixLM cells.
      evaluate fa4-case-functional --plugin attention.fa4 --set case-study --functional-arch sm_90a --correctness-only
      evaluate fa4-prefixlm-functional --plugin attention.fa4 --set full --scenarios 'BF4-30;BF4-31;BF4-32' \
        --functional-arch sm_90a --correctness-only ;;
    fa3-ab)
      # A/B against the current seed: each file of $KSEEK_AB_FILE (space-separated: e.g. the previous seed, or the arms
      # of a kernel experiment) as the candidate, all with one input seed, so `kseek compare` of any two records
      # compares the kernels. Records: fa3-ab.json for one file, fa3-ab-<file name>.json for several.
      read -r -a ab_files <<< "${KSEEK_AB_FILE:?KSEEK_AB_FILE names the candidate(s)}"
      # Every arm's cold build and the seed's at once, before any evaluation: one build keeps one core busy for ~45 s
      # on the H200 machine, five together took 46-53 s in all (2026-12-02); the evaluations then hit the cache.
      step "fa3-ab: building ${#ab_files[@]} arm(s) and the seed in parallel"
      # The build cache keys a source by its name too: the seed is built under the name an evaluation gives it
      # (<family>_seed_<arch>.cu), else its entry would not be the one the evaluations look up (2026-12-03: a seed
      # built as fa2_class_seed.cu left the first evaluation a 111 s cold seed build).
      seed_copy=$(mktemp -d)/fa3_seed_sm_90a.cu
      cp plugins/attention_common/seeds/fa2_class_seed.cu "$seed_copy"
      for f in "${ab_files[@]}" "$seed_copy"; do
        $kseek build "$f" --plugin attention.fa3 > /dev/null 2>&1 &
      done
      wait
      for f in "${ab_files[@]}"; do
        name=fa3-ab; (( ${#ab_files[@]} > 1 )) && name="fa3-ab-$(basename "$f" .cu)"
        evaluate "$name" --plugin attention.fa3 "$f" --set case-study --input-seed "${KSEEK_AB_INPUT_SEED:-20261202}" \
          --scenario-timeout 60 ${KSEEK_AB_SCENARIOS:+--scenarios "$KSEEK_AB_SCENARIOS"}
      done ;;
    fa3-refcache)
      # The reference cache on the case-study set, one input seed (KSEEK_REFCACHE_INPUT_SEED): the seed against itself
      # with an empty cache (it computes every reference and stores those worth it), again (it reads them back), and
      # with --no-reference-cache (all computed, nothing stored). In each record: stage_seconds.references {computed,
      # from_cache, stored} and stage_seconds.summed_over_scenarios {references, reference_cache}. With
      # KSEEK_REFCACHE_DROP_CACHES=1 the page cache is dropped before the warm run, so entries come from the disk.
      refcache_seed=${KSEEK_REFCACHE_INPUT_SEED:-20261203}
      rm -rf "$KSEEK_CACHE_DIR/references"
      evaluate fa3-refcache-cold --plugin attention.fa3 --set case-study --input-seed "$refcache_seed"
      du -sb "$KSEEK_CACHE_DIR/references" >> "$log" 2>&1
      if [[ ${KSEEK_REFCACHE_DROP_CACHES:-0} == 1 ]]; then
        sync && echo 3 > /proc/sys/vm/drop_caches 2>> "$log" && echo "page cache dropped" >> "$log"
      fi
      evaluate fa3-refcache-warm --plugin attention.fa3 --set case-study --input-seed "$refcache_seed"
      evaluate fa3-refcache-off --plugin attention.fa3 --set case-study --input-seed "$refcache_seed" \
        --no-reference-cache ;;
    user-name)
      evaluate fa3-user-name --plugin attention.fa3 \
        --scenario 'hq=12,hkv=4,d=128,dtype=bf16,causal=1,page=48,seqs=3x(1000,1500)' --min-rounds 10 --time-budget 2 ;;
    fa3-hf704)
      evaluate fa3-hf704 --plugin attention.fa3 --set full --scenarios 'HF7-04' --min-rounds 10 --time-budget 1 ;;
    gemm-campaign)
      # The out-of-tree GEMM operator in a campaign whose agent talks MCP: `kseek init --plugin-dir`, then the server
      # started exactly as the campaign's .mcp.json registers it, its eval / status / ask / gate called as tools.
      # KSEEK_GEMM_PLUGIN_DIR: the plugin built out of tree elsewhere against the installed SDK and carried here;
      # else it is built here against this build's install.
      step "gemm_bias_gelu campaign over MCP"
      plugin_dir=${KSEEK_GEMM_PLUGIN_DIR:-}
      if [[ -z $plugin_dir ]] && cmake --install "$build" --prefix /tmp/kseek-prefix >> "$log" 2>&1 &&
         cmake -S examples/plugins/gemm_bias_gelu -B /tmp/gemm-build -G Ninja -DCMAKE_PREFIX_PATH=/tmp/kseek-prefix \
               -DCMAKE_BUILD_TYPE=Release >> "$log" 2>&1 && cmake --build /tmp/gemm-build >> "$log" 2>&1; then
        plugin_dir=/tmp/gemm-build
      fi
      if [[ -n $plugin_dir ]]; then
        gemm_dir=$(mktemp -d)/gemm-campaign
        { $kseek --plugin-dir "$(realpath "$plugin_dir")" init "$gemm_dir" --plugin example.gemm_bias_gelu \
            --set default --goal 'all_passed and geomean >= 1.5' --key-in-campaign
          echo "(init exit $?)"
          python3 scripts/mcp-session.py "$gemm_dir" eval status ask gate
          echo "(mcp-session exit $?)"
          (kseek_path=$(realpath "$kseek") && cd "$gemm_dir" && "$kseek_path" status); } > "$out/gemm-campaign.txt" 2>&1
        tail -5 "$out/gemm-campaign.txt" >> "$log"
        tar -C "$(dirname "$gemm_dir")" -cf "$out/gemm-campaign.tar" --exclude=.claude --exclude=.codex \
            --exclude=.mcp.json --exclude=.kseek-key "$(basename "$gemm_dir")"
      else
        echo "gemm_bias_gelu build failed" | tee -a "$log"
      fi ;;
    rmsnorm)
      # The out-of-tree operator, built against the installed SDK exactly as a user would build it.
      step "residual_rmsnorm out of tree"
      if cmake --install "$build" --prefix /tmp/kseek-prefix >> "$log" 2>&1 &&
         cmake -S examples/plugins/residual_rmsnorm -B /tmp/rr-build -G Ninja -DCMAKE_PREFIX_PATH=/tmp/kseek-prefix \
               -DCMAKE_BUILD_TYPE=Release >> "$log" 2>&1 && cmake --build /tmp/rr-build >> "$log" 2>&1; then
        evaluate rr-default --plugin-dir /tmp/rr-build --plugin ops.residual_rmsnorm --set default
      else
        echo "rmsnorm build failed" | tee -a "$log"
      fi ;;
    fa3-corpus|fa3-corpus-sample|fa4-corpus)
      # Adversarial candidates for attention.fa3 (and fa4's, through the portable sm_90a path): expected verdict (first line) against the one observed. Files are
      # dealt round-robin to the visible GPUs, one stream per GPU (verdicts, not timings, are what is recorded here).
      files=(tests/adversarial/attention_fa3/*.cu tests/adversarial/attention_fa4/*.cu)
      [[ $job == fa3-corpus-sample ]] && files=(tests/adversarial/attention_fa3/{c2_naive_rows,c2_split_kv_combine,c3_cluster_tma,w6_top_left_causal,w7_identity_page_table,w8_ignores_softcap,r1_cache_by_pointer,r3_deferred_work,h1_scans_for_leftovers,h4_illegal_address}.cu)
      [[ $job == fa4-corpus ]] && files=(tests/adversarial/attention_fa4/*.cu)
      gpus=$(nvidia-smi -L | wc -l); (( gpus < 1 )) && gpus=1
      streams=$(( gpus * ${KSEEK_STREAMS:-1} ))
      step "$job (${#files[@]} candidates over $gpus GPU(s), $streams streams)"
      corpus_stream() {
        local stream=$1; shift
        local gpu=$(( stream % gpus ))
        for f in "$@"; do
          local expect scenarios observed t0
          expect=$(sed -n '1s|^// expect: \([A-Z_]*\).*|\1|p' "$f")
          scenarios=$(sed -n '2s|^// scenarios: ||p' "$f")
          local constraints=() plugin=attention.fa3 extra=()
          # The file's own constraints line, as the GPU test passes it (H6 lowers the compile time cap with it).
          if grep -q '^// constraints: ' "$f"; then
            sed -n 's|^// constraints: ||p' "$f" > "/tmp/kseek-corpus-$stream.json"
            constraints=(--constraints "/tmp/kseek-corpus-$stream.json")
          fi
          [[ $f == */attention_fa4/* ]] && plugin=attention.fa4 extra=(--functional-arch sm_90a)
          t0=$(date +%s)
          observed=$(CUDA_VISIBLE_DEVICES=$gpu $kseek eval "$f" --plugin $plugin "${extra[@]}" --scenarios "$scenarios" \
                       "${constraints[@]}" --min-rounds 10 --time-budget 1 --scenario-timeout 20 --json 2>/dev/null |
                     python3 -c "import json,sys,collections; r=json.load(sys.stdin); print(r.get('status'), dict(collections.Counter(s['status'] for s in r.get('scenarios', []))))")
          echo "$(basename "$f") expect=$expect observed=$observed gpu=$gpu seconds=$(( $(date +%s) - t0 ))"
        done > "/tmp/kseek-corpus-stream$stream.txt"
      }
      deal_to_streams "$streams" corpus_stream "${files[@]}"
      sort /tmp/kseek-corpus-stream*.txt >> "$out/fa3-corpus.txt" && rm -f /tmp/kseek-corpus-stream*.txt
      awk '{e=$2; o=$3; sub("expect=","",e); sub("observed=","",o); if (o != "COMPLETE") bad++; else if (index($0, "\x27" e "\x27") == 0) bad++} END {print "corpus: " NR " files, " bad+0 " without their declared verdict"}' "$out/fa3-corpus.txt" | tee -a "$log" ;;
    trust-repeat)
      # Issue 19's rates: each honest control and each switch-when-timed candidate, KSEEK_REPEAT times with a fresh
      # input seed each run (the timed launches' full checks are drawn afresh in every run anyway).
      repeat=${KSEEK_REPEAT:-20}
      files=(tests/adversarial/attention_fa3/{c2_naive_rows,c2_split_kv_combine,c3_cluster_tma,t4_l2_twin_without_prefetch,r2_timed_bf16_lse,r2_timed_skips_faint_keys}.cu)
      gpus=$(nvidia-smi -L | wc -l); (( gpus < 1 )) && gpus=1
      streams=$(( gpus * ${KSEEK_STREAMS:-1} ))
      runs=()
      for f in "${files[@]}"; do for (( r = 1; r <= repeat; r++ )); do runs+=("$f:$r"); done; done
      step "trust-repeat (${#runs[@]} evaluations over $streams streams)"
      repeat_stream() {
        local stream=$1; shift
        for item in "$@"; do
          local f=${item%%:*} r=${item##*:}
          local scenarios; scenarios=$(sed -n '2s|^// scenarios: ||p' "$f")
          CUDA_VISIBLE_DEVICES=$(( stream % gpus )) $kseek eval "$f" --plugin attention.fa3 --scenarios "$scenarios" \
            --input-seed $(( 7000 + 97 * r )) --min-rounds 10 --time-budget 1 --scenario-timeout 60 --json 2>/dev/null |
            python3 -c "
import json, sys
r = json.load(sys.stdin)
for s in r.get('scenarios', []):
    t = s.get('timing', {})
    print('$(basename "$f")', $r, s.get('scenario'), s.get('status'), t.get('timed_reference_launches', 0), t.get('timed_output_checks', 0), (s.get('message') or '')[:160].replace(chr(10), ' '))
"
        done > "/tmp/kseek-repeat-stream$stream.txt"
      }
      deal_to_streams "$streams" repeat_stream "${runs[@]}"
      sort /tmp/kseek-repeat-stream*.txt > "$out/trust-repeat.txt" && rm -f /tmp/kseek-repeat-stream*.txt
      python3 -c "
import collections
runs = collections.defaultdict(lambda: [0, 0, set()])
for line in open('$out/trust-repeat.txt'):
    f, r, scenario, status = line.split()[:4]
    runs[f][2].add(r)
    runs[f][0 if status == 'PASSED' else 1] += 1
for f, (passed, other, seen) in sorted(runs.items()):
    print(f'{f}: {len(seen)} runs, {passed + other} scenario verdicts: {passed} PASSED, {other} not')
" | tee -a "$log" ;;
    baseline)
      # The same candidates through an earlier kseek (KSEEK_BASELINE_TAR: `git archive` of that commit), to show
      # what a trust fix changed: KSEEK_BASELINE_FILES (default: the timed-check, L2 and printf candidates).
      step "baseline: build $(basename "${KSEEK_BASELINE_TAR:?KSEEK_BASELINE_TAR names a git archive}")"
      rm -rf /tmp/kseek-baseline && mkdir -p /tmp/kseek-baseline && tar -xf "$KSEEK_BASELINE_TAR" -C /tmp/kseek-baseline
      (cmake -S /tmp/kseek-baseline -B /tmp/kseek-baseline/build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
         cmake --build /tmp/kseek-baseline/build --parallel --target kseek kseek_plugins) >> "$log" 2>&1 ||
        { echo "baseline build failed" | tee -a "$log"; continue; }
      step "baseline: built"
      for f in ${KSEEK_BASELINE_FILES:-r2_timed_bf16_lse r2_timed_skips_faint_keys t4_l2_evict_last_prefetch t4_l2_twin_without_prefetch h9_prints_forged_record}; do
        f=tests/adversarial/attention_fa3/$f.cu
        scenarios=$(sed -n '2s|^// scenarios: ||p' "$f")
        rounds=10; budget=1
        [[ $f == *t4_l2* ]] && rounds=40 budget=4
        /tmp/kseek-baseline/build/bin/kseek eval "$f" --plugin attention.fa3 --scenarios "$scenarios" \
          --min-rounds $rounds --time-budget $budget --json > "/tmp/kseek-baseline-out.txt" 2>/dev/null
        python3 -c "
import json, sys
text = open('/tmp/kseek-baseline-out.txt').read()
try:
    r = json.loads(text)
except Exception as e:
    print('$(basename "$f")', 'stdout is not one JSON document:', repr(text[:120])); sys.exit()
for s in r.get('scenarios', []):
    t = s.get('timing', {})
    print('$(basename "$f")', s.get('status'), 'ratio', t.get('ratio'), '[', t.get('ci_low'), t.get('ci_high'), ']', (s.get('message') or '')[:200])
" | tee -a "$out/baseline.txt" "$log"
      done ;;
    build-time)
      # Issue 20's build stage. The FA3 seed for sm_90a (attention.fa3) and sm_100a (attention.fa4), each built cold
      # with the per-kernel pipeline (NVRTC's front end on one thread, ptxas per kernel on every core) and the lto one
      # (the default: code generation per kernel on every core), each into an empty cache, their kernels' resources
      # compared; then the default FA3 build three times from the cache. KSEEK_BUILD_TIME_WHOLE=1 adds the
      # whole-program build (NVRTC alone, one thread: ~75 s there).
      step "build-time: the FA3 seed cold per kernel, then lto, then cached"
      rm -rf "$KSEEK_CACHE_DIR"  # the jobs after this one reuse what the default build puts there
      pipelines=(per-kernel lto)
      [[ ${KSEEK_BUILD_TIME_WHOLE:-0} == 1 ]] && pipelines=(whole per-kernel lto)
      for spec in "attention.fa3 sm_90a" "attention.fa4 sm_100a"; do
        read -r plugin arch <<< "$spec"
        for pipeline in "${pipelines[@]}"; do
          t0=$(date +%s.%N)
          KSEEK_CACHE_DIR=$KSEEK_CACHE_DIR/$pipeline KSEEK_BUILD_PIPELINE=$pipeline $kseek --json build \
            plugins/attention_common/seeds/fa2_class_seed.cu --plugin "$plugin" --arch "$arch" \
            > "/tmp/kseek-build-$arch-$pipeline.json" 2>/dev/null
          t1=$(date +%s.%N)
          python3 -c "
import json
r = json.load(open('/tmp/kseek-build-$arch-$pipeline.json'))
print('build-time $arch $pipeline cold: %.2f s wall, status %s, kernels %d, stages %s, nproc $(nproc)' % (
    $t1 - $t0, r.get('status'), len(r.get('kernels', [])), r.get('stage_seconds')))
" | tee -a "$out/build-time.txt" "$log"
        done
        python3 -c "
import json
base = json.load(open('/tmp/kseek-build-$arch-per-kernel.json'))
b = {k['kernel']: k for k in base.get('kernels', [])}
for other in '${pipelines[*]}'.split():
    if other == 'per-kernel':
        continue
    o = json.load(open('/tmp/kseek-build-$arch-%s.json' % other))
    d = [(k['kernel'], b.get(k['kernel'], {}).get('registers'), k['registers']) for k in o.get('kernels', [])
         if b.get(k['kernel']) != k]
    print('build-time $arch: %s against per-kernel: %d of %d kernels with identical resources (registers, spills, '
          'stack, smem, barriers)%s' % (other, len(o.get('kernels', [])) - len(d), len(b), '' if not d else
          '; DIFFERENT (per-kernel, %s registers): %s' % (other, d)))
" | tee -a "$out/build-time.txt" "$log"
      done
      # The default build fills the cache the later jobs read.
      $kseek build plugins/attention_common/seeds/fa2_class_seed.cu --plugin attention.fa3 > /dev/null 2>&1
      for run in 1 2 3; do
        t0=$(date +%s.%N)
        $kseek --json build plugins/attention_common/seeds/fa2_class_seed.cu --plugin attention.fa3 \
          > /tmp/kseek-build-cached.json 2>/dev/null
        t1=$(date +%s.%N)
        python3 -c "
import json
r = json.load(open('/tmp/kseek-build-cached.json'))
print('build-time cached $run: %.2f s wall, status %s, cache_hit %s' % ($t1 - $t0, r.get('status'), r.get('cache_hit')))
" | tee -a "$out/build-time.txt" "$log"
      done ;;
    fa3-draft)
      # Issue 17's stage (a) draft: correctness first, on the scenarios its plan takes, with a short watchdog (a
      # pipeline that deadlocks must cost seconds, not the call).
      evaluate fa3-draft "${KSEEK_DRAFT_FILE:-examples/campaigns/fa3-h200/candidate.cu}" --plugin attention.fa3 \
        --set case-study --scenarios "${KSEEK_DRAFT_SCENARIOS:-H24;H04;H01;H26;H02;H03}" --correctness-only \
        --scenario-timeout 20
      python3 -c "
import json
r = json.load(open('$out/fa3-draft.json'))
for s in r.get('scenarios', []):
    print('fa3-draft', s.get('scenario'), s.get('status'), (s.get('message') or '')[:240])
" | tee -a "$log" ;;
    fa3-campaign)
      # One evaluation of the campaign's candidate, as the campaign itself records it; its log and records come back.
      # Its key is in its own .kseek-key/, which kseek looks in when the per-user folder has none: no KSEEK_KEY_DIR.
      step "fa3-campaign: kseek eval in examples/campaigns/fa3-h200"
      (cd examples/campaigns/fa3-h200 && "../../../$kseek" eval) >> "$log" 2>&1
      echo "exit $?" >> "$log"
      tar -C examples/campaigns/fa3-h200 -cf "$out/fa3-campaign-kseek.tar" .kseek ;;
    peers)
      # PyTorch SDPA (FA2, cuDNN) and the GPU's ceilings, in the same call as the kseek runs they are compared with.
      step "peers: ${KSEEK_PEER_SCRIPT:?KSEEK_PEER_SCRIPT names the peer script}"
      OUT="$out" timeout 300 python3 "$KSEEK_PEER_SCRIPT" >> "$log" 2>&1
      echo "exit $?" >> "$log" ;;
    reference-engines)
      # The attention references on tensor cores against the FMA engine (issue 20): their GPU tests (both engines
      # against fp64 on small cases, and against each other at evaluation sizes, each timed), then the case-study set
      # once per engine on this one build (KSEEK_REFERENCE_ENGINE), same candidate (KSEEK_ENGINES_CANDIDATE, default
      # the campaign's) and input seed, no reference cache: stage_seconds.summed_over_scenarios.references in
      # ref-fma.json and ref-tensor-cores.json is the comparison; the verdicts must not move.
      # The test binary is run directly, so a carried build needs only it beside bin/ and lib/ (no CTest files).
      step "reference engines: the attention GPU tests"
      attention_tests=""
      for t in "$build/plugins/attention_common/tests/kseek_attention_gpu_tests" "$build/tests/kseek_attention_gpu_tests"; do
        [[ -x $t ]] && { attention_tests=$t; break; }
      done
      if [[ -n $attention_tests ]]; then
        # Parameterised suites carry a prefix (Features/AttentionReferenceGpu, CaseStudy/AttentionReferenceEngines).
        # The binary finds the plugins where it was built (KSEEK_TREE_PLUGIN_DIR): a carried build must sit at that
        # path (or be linked there), else every case skips, and the SKIPPED lines below say so.
        timeout 300 "$attention_tests" --gtest_filter='*AttentionReference*:*AttentionFill*' > "$out/attention-gpu.txt" 2>&1
        echo "exit $?" >> "$out/attention-gpu.txt"
        grep -E 'references fma|worst gold|^\[  (PASSED|FAILED|SKIPPED) |^exit' "$out/attention-gpu.txt" | tail -40 |
          tee -a "$log"
      else
        echo "no kseek_attention_gpu_tests under $build: the engines' GPU tests did not run" | tee -a "$log"
      fi
      for engine in fma tensor-cores; do
        KSEEK_REFERENCE_ENGINE=$engine evaluate "ref-$engine" \
          "${KSEEK_ENGINES_CANDIDATE:-examples/campaigns/fa3-h200/candidate.cu}" --plugin attention.fa3 \
          --set case-study --input-seed "${KSEEK_ENGINES_INPUT_SEED:-20261205}" --no-reference-cache
      done ;;
    gpu-trust)
      step "ctest -L gpu -R 'L2Residue|CandidateOutput|r2_timed|t4_l2|h9_'"
      (cd "$build" && ctest --verbose -L gpu -R 'L2Residue|CandidateOutput|r2_timed|t4_l2|h9_') > "$out/gpu-trust.txt" 2>&1
      grep -E 'T4:|tests passed|\*\*\*Failed|Passed|Failed' "$out/gpu-trust.txt" | tail -20 | tee -a "$log" ;;
    conformance)
      step "ctest -L gpu -R PluginConformanceGpu"
      (cd "$build" && ctest --output-on-failure -L gpu -R PluginConformanceGpu) > "$out/conformance.txt" 2>&1
      grep -E 'tests passed|\*\*\*Failed|Skipped|Passed' "$out/conformance.txt" | tail -8 | tee -a "$log" ;;
    two-gpus)
      # Issue #10 on a 2-GPU machine: the case-study set on one GPU, on both (--gpus all), and as two shards merged;
      # same input seed everywhere, so the three records differ only in where each scenario ran.
      # The seed's cold NVRTC build (~1 min) is paid once here, so the three wall times below compare evaluation only.
      evaluate warm-cache --plugin attention.fa3 --scenario H01 --correctness-only
      evaluate one-gpu --plugin attention.fa3 --set case-study --input-seed 20251 --device 0
      evaluate two-gpus --plugin attention.fa3 --set case-study --input-seed 20251 --gpus all
      step "two shards, one per GPU, then kseek merge"
      for i in 0 1; do
        CUDA_VISIBLE_DEVICES=$i $kseek eval --plugin attention.fa3 --set case-study --input-seed 20251 --shard $i/2 \
          --out "$out/shard-$i.json" >> "$log" 2>&1 &
      done
      wait
      $kseek merge "$out/shard-0.json" "$out/shard-1.json" --out "$out/merged.json" >> "$log" 2>&1
      python3 -c "
import json, sys
for name in ('one-gpu', 'two-gpus', 'merged'):
    r = json.load(open('$out/' + name + '.json'))
    g = r.get('summary', {}).get('geomean', {})
    print(f\"{name}: status {r.get('status')}, wall {r.get('wall_seconds', 0):.1f} s, geomean {g.get('value', 0):.4f} [{g.get('ci_low', 0):.4f}, {g.get('ci_high', 0):.4f}]\")
" | tee -a "$log" ;;
    campaign)
      step "campaign"
      bash scripts/gpu-campaign.sh "$kseek" "$out" >> "$log" 2>&1
      echo "exit $?" >> "$log" ;;
    *) echo "unknown job '$job'" | tee -a "$log"; exit 2 ;;
  esac
done
step "done"
