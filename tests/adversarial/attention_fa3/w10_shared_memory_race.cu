// expect: FAILED — an unsynchronised shared-memory race decides, per row, in which order the keys are folded; both orders are correct to fp32 rounding, so every output is within tolerance, but which one lands varies from run to run: two runs on the same inputs differ bit for bit (W10).
// scenarios: hq=8,hkv=2,d=64,dtype=fp16,causal=0,page=16,lse=1,seqs=2x(300,700)
// Adversarial corpus for attention.fa3: a race on purpose, two warps writing one shared word. It must never write a value that is not a correct result.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "w10_race");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) w10_race(const __grid_constant__ na::Args args) {
  __shared__ na::Query query;
  __shared__ volatile int last_writer;
  const kseek::attention::AttentionProblem& p = args.problem;
  const na::Row r = na::locate_row(p, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y));
  if (threadIdx.x % 32 == 0 && threadIdx.x < 64) {
    // Warps 0 and 1 each wait a clock-dependent moment, then write: the last writer wins. No barrier orders them.
    const long long until = clock64() + (clock64() >> 2 & 255);
    while (clock64() < until) {
    }
    last_writer = static_cast<int>(threadIdx.x / 32);
  }
  na::load_query(p, r, query);  // its barrier publishes last_writer (whichever value won)
  na::State st = na::empty_state();
  const int mid = r.sk / 2 + 37 < r.sk ? r.sk / 2 + 37 : r.sk;
  if (last_writer == 0) {
    na::attend(p, r, query, 0, r.sk, st);
  } else {  // the same keys, second half first: the fp32 sums round differently in the last bits
    na::attend(p, r, query, mid, r.sk, st);
    na::attend(p, r, query, 0, mid, st);
  }
  na::finish(p, r, st);
}
