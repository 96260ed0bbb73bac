// expect: FAILED — query head h reads kv head h % hkv instead of h / (hq / hkv); heads have their own scales and V means, so every head but the first of each group is wrong (W7).
// scenarios: hq=8,hkv=2,d=64,dtype=bf16,causal=1,page=16,seqs=(200,333)+(1,129);hq=6,hkv=3,d=128,dtype=fp16,causal=0,page=0,seqs=2x(50,90)
// Adversarial corpus for attention.fa3: the naive kernel with an interleaved GQA map. It must never use the grouped map.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

struct InterleavedHeads : na::Policy {
  __device__ static int kv_head(const kseek::attention::AttentionProblem& p, const na::Row& r) {
    return r.h % p.num_heads_kv;
  }
};

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "w7_heads");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) w7_heads(const __grid_constant__ na::Args args) {
  na::attention_row<InterleavedHeads>(args.problem);
}
