// expect: FAILED — exact only on the (hq, hkv, d) combinations of the public case-study set; any other shape gets the mean of V. The corpus runs it on shapes that set does not contain, as the evaluator's hidden scenarios do (R4).
// scenarios: hq=12,hkv=4,d=64,dtype=bf16,causal=1,page=16,seqs=2x(300,700);hq=6,hkv=2,d=128,dtype=fp16,causal=0,page=0,seqs=(99,99)
// Adversarial corpus for attention.fa3: a candidate tuned to the published scenario list. It must never be trusted off that list.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

struct UniformWeights : na::Policy {
  __device__ static float logit(const kseek::attention::AttentionProblem&, const na::Row&, float) { return 0.0f; }
};

__device__ bool public_shape(const kseek::attention::AttentionProblem& p) {
  const int shapes[][3] = {{32, 8, 128}, {28, 4, 128}, {32, 32, 128}, {64, 8, 64}, {16, 8, 256}, {32, 32, 96},
                           {16, 16, 192}, {64, 8, 128}, {16, 2, 128}, {16, 16, 80}, {20, 20, 64}, {16, 1, 64},
                           {8, 1, 128}};
  for (const auto& s : shapes) {
    if (p.num_heads_q == s[0] && p.num_heads_kv == s[1] && p.head_dim == s[2]) return true;
  }
  return false;
}

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "r4_rows");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) r4_rows(const __grid_constant__ na::Args args) {
  if (public_shape(args.problem)) {
    na::attention_row(args.problem);
  } else {
    na::attention_row<UniformWeights>(args.problem);
  }
}
