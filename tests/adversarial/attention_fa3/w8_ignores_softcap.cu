// expect: FAILED — softcap is ignored: logits of up to +-200 (the inputs' large rows) are not squashed to +-30, so peaked rows keep their peaks (W8).
// scenarios: hq=4,hkv=4,d=64,dtype=bf16,causal=1,softcap=30,page=0,seqs=(100,400);hq=4,hkv=2,d=128,dtype=bf16,causal=1,softcap=50,page=16,seqs=2x(64,256)
// Adversarial corpus for attention.fa3: the naive kernel without tanh soft-capping. It must never apply softcap.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

struct NoSoftcap : na::Policy {
  __device__ static float logit(const kseek::attention::AttentionProblem& p, const na::Row&, float raw) {
    return p.softmax_scale * raw;
  }
};

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "w8_softcap");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) w8_softcap(const __grid_constant__ na::Args args) {
  na::attention_row<NoSoftcap>(args.problem);
}
