// expect: FAILED — keys past the last whole 128-key tile are ignored; with odd and varlen lengths (301, 123, 1001) the dropped tail carries real weight (W5).
// scenarios: hq=8,hkv=2,d=64,dtype=bf16,causal=1,page=16,seqs=(37,301)+(5,123)+(200,1001)
// Adversarial corpus for attention.fa3: the naive kernel that only sees sk rounded down to a tile multiple. It must never read the tail.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

struct WholeTilesOnly : na::Policy {
  __device__ static bool visible(const kseek::attention::AttentionProblem& p, const na::Row& r, int j) {
    return j < r.sk / na::kThreads * na::kThreads && na::Policy::visible(p, r, j);
  }
};

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "w5_tiles");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) w5_tiles(const __grid_constant__ na::Args args) {
  na::attention_row<WholeTilesOnly>(args.problem);
}
