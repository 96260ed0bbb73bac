// expect: FAILED — the candidate counts its own launches: the first six (the correctness runs: three input sets for shapes this small, each run twice) are exact, later ones (warm-up and timed) attend to half the keys; timed outputs are verified too (R2).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,seqs=2x(300,700)
// Adversarial corpus for attention.fa3: phase detection by a __device__ launch counter. It must never be trusted once counted past six.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

__device__ unsigned r2_launches;  // launch sequences completed in this module

struct EvenKeysOnly : na::Policy {
  __device__ static bool visible(const kseek::attention::AttentionProblem& p, const na::Row& r, int j) {
    return j % 2 == 0 && na::Policy::visible(p, r, j);
  }
};

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x != 0) return;
  na::plan_rows(problem, plan, "r2_rows");
  plan->num_launches = 2;
  na::plan_launch(problem, plan, 1, "r2_count");
  plan->launches[1].grid = kseek::PlanDim3{1, 1, 1};
}

extern "C" __global__ void __launch_bounds__(na::kThreads) r2_rows(const __grid_constant__ na::Args args) {
  if (r2_launches < 6) {
    na::attention_row(args.problem);
  } else {
    na::attention_row<EvenKeysOnly>(args.problem);
  }
}

extern "C" __global__ void r2_count(const __grid_constant__ na::Args) {
  if (threadIdx.x == 0) ++r2_launches;
}
