// expect: FAILED — exp(s) without subtracting the row maximum: rows the inputs shift past s = 88.7 overflow to inf / inf and rows below -104 to 0 / 0, both NaN (W9, W11).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,seqs=2x(300,700)
// Adversarial corpus for attention.fa3: the naive kernel with its running maximum pinned at 0. It must never subtract a maximum.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

struct NoRunningMax : na::Policy {
  static constexpr bool kSubtractMax = false;
};

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "w9_unsafe");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) w9_unsafe(const __grid_constant__ na::Args args) {
  na::attention_row<NoRunningMax>(args.problem);
}
