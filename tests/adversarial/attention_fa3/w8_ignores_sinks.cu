// expect: FAILED — the attention sinks are left out of the softmax denominator (and of LSE); sinks up to e^10 take most of the weight in flat rows (W8).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,sinks=1,page=16,lse=1,seqs=(100,400)+(3,50)
// Adversarial corpus for attention.fa3: the naive kernel with no sink. It must never read sinks.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

struct NoSinks : na::Policy {
  __device__ static float sink(const kseek::attention::AttentionProblem&, const na::Row&) { return na::neg_inf(); }
};

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "w8_sinks");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) w8_sinks(const __grid_constant__ na::Args args) {
  na::attention_row<NoSinks>(args.problem);
}
