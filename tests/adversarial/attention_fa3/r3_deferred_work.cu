// expect: FAILED — each call stores its own result in __device__ memory and returns the previous call's: right when a call repeats the last one's inputs, wrong as soon as the inputs change; outputs are checked right after each launch (R3).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,lse=1,seqs=2x(300,700)
// Adversarial corpus for attention.fa3: a one-call pipeline. It must never deliver the current call's result once primed.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

constexpr long long kStashFloats = 4ll << 20;  // O of the scenario above in fp32, then LSE
__device__ float r3_stash[kStashFloats];
__device__ int r3_primed;

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x != 0) return;
  na::plan_rows(problem, plan, "r3_rows");
  plan->num_launches = 2;
  na::plan_launch(problem, plan, 1, "r3_prime");
  plan->launches[1].grid = kseek::PlanDim3{1, 1, 1};
}

extern "C" __global__ void __launch_bounds__(na::kThreads) r3_rows(const __grid_constant__ na::Args args) {
  const kseek::attention::AttentionProblem& p = args.problem;
  const long long pairs = static_cast<long long>(p.total_q) * p.num_heads_q;
  if (pairs * (p.head_dim_v + 1) > kStashFloats) {
    na::attention_row(p);
    return;
  }
  const long long pair = static_cast<long long>(blockIdx.x) * p.num_heads_q + blockIdx.y;
  float* o_stash = r3_stash + pair * p.head_dim_v;
  float* lse_stash = r3_stash + pairs * p.head_dim_v + pair;
  const long long o_base = static_cast<long long>(blockIdx.x) * p.o_row_stride + blockIdx.y * p.o_head_stride;
  const long long lse_at = blockIdx.y * p.lse_head_stride + blockIdx.x;
  float previous[na::kChannelsPerThread];
  float previous_lse = 0.0f;
  if (r3_primed) {
    for (int k = 0; k < na::kChannelsPerThread; ++k) {
      const int c = threadIdx.x + k * na::kThreads;
      if (c < p.head_dim_v) previous[k] = o_stash[c];
    }
    previous_lse = *lse_stash;
  }
  na::attention_row(p);  // this call's result, into O ...
  __syncthreads();       // ... then moved to the stash, and O gets the previous call's
  for (int k = 0; k < na::kChannelsPerThread; ++k) {
    const int c = threadIdx.x + k * na::kThreads;
    if (c >= p.head_dim_v) break;
    o_stash[c] = na::load(p.o, o_base + c, p.dtype_o);
    if (r3_primed) na::store(p.o, o_base + c, p.dtype_o, previous[k]);
  }
  if (p.return_lse && threadIdx.x == 0) {
    const float current = p.lse[lse_at];
    if (r3_primed) p.lse[lse_at] = previous_lse;
    *lse_stash = current;
  }
}

extern "C" __global__ void r3_prime(const __grid_constant__ na::Args) {
  if (threadIdx.x == 0) r3_primed = 1;
}
