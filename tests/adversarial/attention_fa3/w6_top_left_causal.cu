// expect: FAILED — the causal diagonal is aligned top-left (key j visible iff j <= i) instead of bottom-right (j <= i + sk - sq); with sq < sk most keys are hidden (W6).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,seqs=2x(300,700);hq=4,hkv=4,d=64,dtype=fp16,causal=1,page=0,seqs=(16,1000)+(100,101)
// Adversarial corpus for attention.fa3: the naive kernel with the mask of a square problem. It must never shift the diagonal.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

struct TopLeftCausal : na::Policy {
  __device__ static bool visible(const kseek::attention::AttentionProblem& p, const na::Row& r, int j) {
    if (p.window_left >= 0 && j < r.i - p.window_left) return false;
    const int right = p.causal ? 0 : p.window_right;
    return right < 0 || j <= r.i + right;
  }
};

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "w6_top_left");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) w6_top_left(const __grid_constant__ na::Args args) {
  na::attention_row<TopLeftCausal>(args.problem);
}
