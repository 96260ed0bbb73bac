// expect: FAILED — the sliding window's left edge is exclusive (window_left keys instead of window_left + 1 including the diagonal); with window=(7,0) one key in eight is lost (W6).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,window=(7,0),page=16,seqs=(100,333)+(64,64);hq=4,hkv=4,d=128,dtype=fp16,causal=0,window=(15,3),page=0,seqs=(77,200)
// Adversarial corpus for attention.fa3: the naive kernel with `>` where the mask says `>=`. It must never see key i + shift - window_left.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

struct WindowOffByOne : na::Policy {
  __device__ static bool visible(const kseek::attention::AttentionProblem& p, const na::Row& r, int j) {
    const long long diagonal = static_cast<long long>(r.i) + (r.sk - r.sq);
    if (p.window_left >= 0 && j <= diagonal - p.window_left) return false;
    return na::Policy::visible(p, r, j);
  }
};

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "w6_window");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) w6_window(const __grid_constant__ na::Args args) {
  na::attention_row<WindowOffByOne>(args.problem);
}
