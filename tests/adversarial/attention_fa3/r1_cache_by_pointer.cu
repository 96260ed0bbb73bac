// expect: FAILED — results are kept in __device__ memory and replayed whenever Q's address and the sizes match a cached call (4 entries, so every input set the harness cycles through is cached); the harness writes fresh inputs at those addresses for every timed launch and re-checks the output, so the stale replay is caught (R1).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,lse=1,seqs=2x(300,700)
// Adversarial corpus for attention.fa3: an output cache keyed by (q pointer, sizes) that checks no data. It must never be trusted, and never write outside O, LSE and its own cache.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;
using kseek::attention::AttentionProblem;

constexpr int kEntries = 4;
constexpr long long kEntryFloats = 1ll << 20;  // per entry: O in fp32, then LSE (4 MiB)
__device__ float r1_cache[kEntries * kEntryFloats];
__device__ const void* r1_key_q[kEntries];     // Q address of the call cached in each entry; null = empty
__device__ int r1_key_total_q[kEntries];
__device__ unsigned r1_next;                   // the entry a miss fills

__device__ bool fits(const AttentionProblem& p) {
  return static_cast<long long>(p.total_q) * p.num_heads_q * (p.head_dim_v + 1) <= kEntryFloats;
}

__device__ int lookup(const AttentionProblem& p) {
  for (int e = 0; e < kEntries; ++e) {
    if (r1_key_q[e] == p.q && r1_key_total_q[e] == p.total_q) return e;
  }
  return -1;
}

extern "C" __global__ void kseek_plan(const AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x != 0) return;
  na::plan_rows(problem, plan, "r1_rows");
  plan->num_launches = 2;  // then one thread records the key, after every row has looked the old keys up
  na::plan_launch(problem, plan, 1, "r1_commit");
  plan->launches[1].grid = kseek::PlanDim3{1, 1, 1};
}

extern "C" __global__ void __launch_bounds__(na::kThreads) r1_rows(const __grid_constant__ na::Args args) {
  const AttentionProblem& p = args.problem;
  const int hit = fits(p) ? lookup(p) : -1;
  const int entry = hit >= 0 ? hit : static_cast<int>(r1_next % kEntries);
  const long long pair = static_cast<long long>(blockIdx.x) * p.num_heads_q + blockIdx.y;
  float* o_cache = r1_cache + entry * kEntryFloats + pair * p.head_dim_v;
  float* lse_cache = r1_cache + entry * kEntryFloats + static_cast<long long>(p.total_q) * p.num_heads_q * p.head_dim_v + pair;
  const long long o_base = static_cast<long long>(blockIdx.x) * p.o_row_stride + blockIdx.y * p.o_head_stride;
  const long long lse_at = blockIdx.y * p.lse_head_stride + blockIdx.x;
  if (hit >= 0) {  // "seen it": replay
    for (int c = threadIdx.x; c < p.head_dim_v; c += na::kThreads) na::store(p.o, o_base + c, p.dtype_o, o_cache[c]);
    if (p.return_lse && threadIdx.x == 0) p.lse[lse_at] = *lse_cache;
    return;
  }
  na::attention_row(p);
  if (!fits(p)) return;
  __syncthreads();  // each thread reads back only its own stores, but LSE is thread 0's: keep the order obvious
  for (int c = threadIdx.x; c < p.head_dim_v; c += na::kThreads) o_cache[c] = na::load(p.o, o_base + c, p.dtype_o);
  if (p.return_lse && threadIdx.x == 0) *lse_cache = p.lse[lse_at];
}

extern "C" __global__ void r1_commit(const __grid_constant__ na::Args args) {
  const AttentionProblem& p = args.problem;
  if (threadIdx.x != 0 || !fits(p) || lookup(p) >= 0) return;
  const unsigned entry = r1_next % kEntries;
  r1_key_q[entry] = p.q;
  r1_key_total_q[entry] = p.total_q;
  ++r1_next;
}
