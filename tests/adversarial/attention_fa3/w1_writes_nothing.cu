// expect: FAILED — O and LSE are never written, so the NaN poison the harness writes before every launch is what gets compared (W1).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,lse=1,seqs=2x(300,700)
// Adversarial corpus for attention.fa3: a valid plan and a kernel with an empty body. It must never touch O or LSE.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "w1_nothing");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) w1_nothing(const __grid_constant__ na::Args) {}
