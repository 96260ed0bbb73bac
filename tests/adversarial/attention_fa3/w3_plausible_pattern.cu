// expect: FAILED — O is hashed noise of the right size and spread, LSE is log(sk): plausible, finite, unrelated to the inputs; the fp32 reference on random inputs rejects it (W3).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,lse=1,seqs=2x(300,700)
// Adversarial corpus for attention.fa3: writes every element, reads no input but the lengths. It must never compute attention.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "w3_pattern");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) w3_pattern(const __grid_constant__ na::Args args) {
  const kseek::attention::AttentionProblem& p = args.problem;
  const na::Row r = na::locate_row(p, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y));
  for (int c = threadIdx.x; c < p.head_dim_v; c += na::kThreads) {
    unsigned h = static_cast<unsigned>(r.token * 7919 + r.h * 104729 + c) * 2654435761u;
    h ^= h >> 15;
    const float noise = static_cast<float>(h & 0xffffu) / 65535.0f - 0.5f;  // mean 0, like an average of centred V
    na::store(p.o, r.token * p.o_row_stride + r.h * p.o_head_stride + c, p.dtype_o, 0.3f * noise);
  }
  if (p.return_lse && threadIdx.x == 0) p.lse[r.h * p.lse_head_stride + r.token] = logf(static_cast<float>(r.sk));
}
