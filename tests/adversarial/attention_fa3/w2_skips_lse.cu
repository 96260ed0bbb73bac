// expect: FAILED — O is right but the LSE output is never written; every output tensor is poisoned and checked, LSE included (W2).
// scenarios: hq=8,hkv=2,d=64,dtype=bf16,causal=1,page=16,lse=1,seqs=(37,301)+(5,123)
// Adversarial corpus for attention.fa3: the naive kernel run as if return_lse were 0. It must never write LSE.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "w2_o_only");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) w2_o_only(const __grid_constant__ na::Args args) {
  kseek::attention::AttentionProblem p = args.problem;
  p.return_lse = 0;
  na::attention_row(p);
}
