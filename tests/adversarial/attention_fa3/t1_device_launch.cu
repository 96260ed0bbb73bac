// expect: CONSTRAINT_VIOLATION — the planned kernel launches its rows as a child grid from the device (dynamic parallelism), so the work would escape the timed window; the built binary's device-launch symbols are rejected before any GPU is touched (T1).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,seqs=2x(300,700)
// Adversarial corpus for attention.fa3: a one-thread parent that launches the naive rows with <<<>>>. It must never build clean.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

__global__ void t1_child(const na::Args args) { na::attention_row(args.problem); }

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x != 0) return;
  na::plan_rows(problem, plan, "t1_parent");
  plan->launches[0].grid = kseek::PlanDim3{1, 1, 1};
  plan->launches[0].block = kseek::PlanDim3{1, 1, 1};
}

extern "C" __global__ void t1_parent(const __grid_constant__ na::Args args) {
  const dim3 grid(static_cast<unsigned>(args.problem.total_q), static_cast<unsigned>(args.problem.num_heads_q));
  t1_child<<<grid, na::kThreads>>>(args);
}
