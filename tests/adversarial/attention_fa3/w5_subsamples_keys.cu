// expect: FAILED — only every other key is attended (half the work); the few dominant keys the inputs plant land on skipped positions in most rows (W5).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=0,page=0,seqs=2x(256,1024)
// Adversarial corpus for attention.fa3: the naive kernel that subsamples keys. It must never read an odd key.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

struct EvenKeysOnly : na::Policy {
  __device__ static bool visible(const kseek::attention::AttentionProblem& p, const na::Row& r, int j) {
    return j % 2 == 0 && na::Policy::visible(p, r, j);
  }
};

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "w5_even");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) w5_even(const __grid_constant__ na::Args args) {
  na::attention_row<EvenKeysOnly>(args.problem);
}
