// expect: FAILED — on decode shapes (one query per sequence) it writes zeros in one tiny launch to post an absurd speed-up and inflate the geometric mean; correctness sees the zeros before timing ever could (T2; the physics floor, MISTRUSTED, and the geomean clamp back it up).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=0,page=16,seqs=3x(1,517);hq=8,hkv=1,d=128,dtype=bf16,causal=1,page=64,seqs=4x(1,2000)
// Adversarial corpus for attention.fa3: correct (naive) on prefill, a constant on decode. It must never pass a decode scenario.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x != 0) return;
  if (problem.max_seqlen_q > 1) {
    na::plan_rows(problem, plan, "t2_rows");
    return;
  }
  na::plan_rows(problem, plan, "t2_zeros");
  plan->launches[0].grid = kseek::PlanDim3{1, 1, 1};
}

extern "C" __global__ void __launch_bounds__(na::kThreads) t2_rows(const __grid_constant__ na::Args args) {
  na::attention_row(args.problem);
}

extern "C" __global__ void __launch_bounds__(na::kThreads) t2_zeros(const __grid_constant__ na::Args args) {
  const kseek::attention::AttentionProblem& p = args.problem;
  for (long long t = 0; t < p.total_q; ++t) {
    for (int h = 0; h < p.num_heads_q; ++h) {
      for (int c = threadIdx.x; c < p.head_dim_v; c += na::kThreads) {
        na::store(p.o, t * p.o_row_stride + h * p.o_head_stride + c, p.dtype_o, 0.0f);
      }
      if (p.return_lse && threadIdx.x == 0) p.lse[h * p.lse_head_stride + t] = 0.0f;
    }
  }
}
