// expect: PASSED — an honest control (T4's twin): t4_l2_evict_last_prefetch.cu with the prefetch switched off and every launch kept, so the two differ only in what they leave in the L2.
// scenarios: hq=16,hkv=4,d=128,dtype=bf16,causal=1,page=0,seqs=2x(1,2048)
// Adversarial corpus for attention.fa3: the naive block, then bookkeeping of every K/V address seen, then (kPrefetch) an L2 prefetch of all of them with the evict_last priority. It must never be faster than its twin by more than noise.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

constexpr bool kPrefetch = false;
constexpr int kMaxSets = 8;
__device__ const char* t4_seen_k[kMaxSets];  // K and V of every input set seen so far (sets keep their addresses)
__device__ const char* t4_seen_v[kMaxSets];
__device__ int t4_seen_count;

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x != 0) return;
  na::plan_rows(problem, plan, "t4_rows");
  plan->num_launches = 3;
  na::plan_launch(problem, plan, 1, "t4_remember");
  plan->launches[1].grid = kseek::PlanDim3{1, 1, 1};
  na::plan_launch(problem, plan, 2, "t4_prefetch");
  plan->launches[2].grid = kseek::PlanDim3{132, 1, 1};
}

extern "C" __global__ void __launch_bounds__(na::kThreads) t4_rows(const __grid_constant__ na::Args args) {
  na::attention_row(args.problem);
}

extern "C" __global__ void t4_remember(const __grid_constant__ na::Args args) {
  if (threadIdx.x != 0) return;
  const char* k = static_cast<const char*>(args.problem.k);
  for (int s = 0; s < t4_seen_count; ++s) {
    if (t4_seen_k[s] == k) return;
  }
  if (t4_seen_count < kMaxSets) {
    t4_seen_k[t4_seen_count] = k;
    t4_seen_v[t4_seen_count] = static_cast<const char*>(args.problem.v);
    ++t4_seen_count;
  }
}

// Marks every line of every K/V set seen evict_last in the L2, whichever set the next launch is given.
extern "C" __global__ void t4_prefetch(const __grid_constant__ na::Args args) {
  if (!kPrefetch) return;
  const auto& p = args.problem;
  const long long k_bytes = static_cast<long long>(p.total_k) * p.k_row_stride * 2;  // bf16, packed cache
  const long long v_bytes = static_cast<long long>(p.total_k) * p.v_row_stride * 2;
  const long long stride = 128ll * gridDim.x * blockDim.x;
  for (int s = 0; s < t4_seen_count; ++s) {
    for (long long off = 128ll * (blockIdx.x * blockDim.x + threadIdx.x); off < k_bytes; off += stride) {
      asm volatile("prefetch.global.L2::evict_last [%0];" :: "l"(t4_seen_k[s] + off));  // PTX ISA: prefetch (sm_80+)
    }
    for (long long off = 128ll * (blockIdx.x * blockDim.x + threadIdx.x); off < v_bytes; off += stride) {
      asm volatile("prefetch.global.L2::evict_last [%0];" :: "l"(t4_seen_v[s] + off));
    }
  }
}
