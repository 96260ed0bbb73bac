// expect: FAILED — the grid covers hq - 1 query heads, so the last head of every token stays poisoned (W2).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,seqs=2x(300,700)
// Adversarial corpus for attention.fa3: a correct row kernel behind an off-by-one plan. It must never write the last head.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x != 0) return;
  na::plan_rows(problem, plan, "w2_rows");
  if (plan->launches[0].grid.y > 1) plan->launches[0].grid.y -= 1;
}

extern "C" __global__ void __launch_bounds__(na::kThreads) w2_rows(const __grid_constant__ na::Args args) {
  na::attention_row(args.problem);
}
