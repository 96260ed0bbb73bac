// expect: FAILED — the PrefixLM spans are ignored: a plain causal mask, so a row inside an image span misses the span's later keys (up to 99 of them here); the fp32 reference honours the span list (W6, mask semantics).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,prefix_lm=2x64,page=16,seqs=2x(300,700);hq=8,hkv=8,d=128,dtype=fp16,causal=1,prefix_lm=3x100,lse=1,page=0,seqs=(500,500)+(333,400)
// Adversarial corpus for attention.fa4: the naive kernel with the causal mask of FA3. It must never read the span list.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

struct CausalOnly : na::Policy {
  __device__ static bool visible(const kseek::attention::AttentionProblem& p, const na::Row& r, int j) {
    const long long diagonal = static_cast<long long>(r.i) + (r.sk - r.sq);
    const int right = p.causal ? 0 : p.window_right;
    if (p.window_left >= 0 && j < diagonal - p.window_left) return false;
    return right < 0 || j <= diagonal + right;
  }
};

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "w6_no_spans");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) w6_no_spans(const __grid_constant__ na::Args args) {
  na::attention_row<CausalOnly>(args.problem);
}
