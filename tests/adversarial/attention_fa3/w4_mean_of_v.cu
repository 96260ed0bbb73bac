// expect: FAILED — every logit is replaced by 0, so O is the plain mean of the visible V rows and LSE is log(count): an input, not attention (W4).
// scenarios: hq=8,hkv=2,d=64,dtype=bf16,causal=1,page=16,lse=1,seqs=(37,301)+(5,123);hq=4,hkv=4,d=128,dtype=fp16,causal=0,page=0,seqs=2x(64,64)
// Adversarial corpus for attention.fa3: the naive kernel with uniform attention weights. It must never use q.k.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

struct UniformWeights : na::Policy {
  __device__ static float logit(const kseek::attention::AttentionProblem&, const na::Row&, float) { return 0.0f; }
};

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "w4_mean");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) w4_mean(const __grid_constant__ na::Args args) {
  na::attention_row<UniformWeights>(args.problem);
}
