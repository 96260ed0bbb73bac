// expect: FAILED — exact while its outputs are checked for correctness (it counts its launches: the first six are the correctness runs at these sizes), then writes an LSE computed from its row sum rounded to bf16: an error up to ~4e-3, several times what LSE is allowed, yet inside the looser bound of O that timed launches were once held to for every output (R2; timed launches are judged per output tensor, and a random sample of them by the full correctness rule on their own inputs).
// scenarios: hq=8,hkv=2,d=64,dtype=bf16,causal=1,page=16,lse=1,seqs=(37,301)+(5,123)+(200,1001)
// Adversarial corpus for attention.fa3: a cheaper LSE switched on once the correctness launches are over. It must never pass.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

__device__ unsigned r2_lse_launches;            // launch sequences completed in this module
constexpr unsigned kCorrectnessLaunches = 6;    // three input sets at these sizes, each run twice

__device__ __forceinline__ float bf16_rounded(float x) {
  unsigned short bits;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(x));  // PTX ISA: cvt
  return __uint_as_float(static_cast<unsigned>(bits) << 16);
}

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x != 0) return;
  na::plan_rows(problem, plan, "r2_lse_rows");
  plan->num_launches = 2;
  na::plan_launch(problem, plan, 1, "r2_lse_count");
  plan->launches[1].grid = kseek::PlanDim3{1, 1, 1};
}

extern "C" __global__ void __launch_bounds__(na::kThreads) r2_lse_rows(const __grid_constant__ na::Args args) {
  const auto& p = args.problem;
  __shared__ na::Query query;
  if (static_cast<int>(blockIdx.x) >= p.total_q) return;
  const na::Row r = na::locate_row(p, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y));
  na::load_query(p, r, query);
  na::State st = na::empty_state();
  na::attend(p, r, query, 0, r.sk, st);
  na::finish(p, r, st);  // thread 0 wrote the exact LSE; the same thread overwrites it below, in program order
  if (r2_lse_launches >= kCorrectnessLaunches && p.return_lse && !p.has_sinks && threadIdx.x == 0 && st.l > 0.0f) {
    p.lse[r.h * p.lse_head_stride + r.token] = st.m + logf(bf16_rounded(st.l));
  }
}

extern "C" __global__ void r2_lse_count(const __grid_constant__ na::Args) {
  if (threadIdx.x == 0) ++r2_lse_launches;
}
