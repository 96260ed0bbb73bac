// expect: PASSED — an honest control (C2): keys cut into three uneven splits, one CTA per (token, head, split) writing its (max, sum, unnormalised O) to the workspace, then a combine kernel that merges the splits, adds the sink and writes O and LSE.
// scenarios: hq=8,hkv=2,d=64,dtype=bf16,causal=1,page=16,lse=1,seqs=(37,301)+(5,123)+(200,1001);hq=4,hkv=2,d=128,dtype=fp16,causal=1,sinks=1,page=0,lse=1,seqs=(1,700)+(64,64);hq=4,hkv=1,d=64,dv=512,qv=1,dtype=bf16,causal=0,page=64,seqs=3x(1,300)
// Adversarial corpus for attention.fa3: a correct candidate shaped unlike the seed (two kernels, a workspace). It must never fail.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;
using kseek::attention::AttentionProblem;

constexpr int kSplits = 3;

// Workspace, per (token, head, split): m, l, then dv floats of unnormalised O, split-major within a pair.
__device__ long long partial_floats(const AttentionProblem& p) { return 2 + p.head_dim_v; }
__device__ float* partial(const AttentionProblem& p, void* workspace, int token, int h, int split) {
  const long long index = (static_cast<long long>(token) * p.num_heads_q + h) * kSplits + split;
  return static_cast<float*>(workspace) + index * partial_floats(p);
}

extern "C" __global__ void kseek_plan(const AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x != 0) return;
  na::plan_rows(problem, plan, "c2_partial");
  plan->num_launches = 2;
  na::plan_launch(problem, plan, 0, "c2_partial", kSplits);
  na::plan_launch(problem, plan, 1, "c2_combine");
  plan->workspace_bytes = static_cast<unsigned long long>(problem.total_q) * problem.num_heads_q * kSplits *
                          (2ull + problem.head_dim_v) * sizeof(float);
}

extern "C" __global__ void __launch_bounds__(na::kThreads) c2_partial(const __grid_constant__ na::Args args) {
  __shared__ na::Query query;
  const AttentionProblem& p = args.problem;
  const na::Row r = na::locate_row(p, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y));
  const int split = static_cast<int>(blockIdx.z);
  // Uneven on purpose: split s covers [s * sk * 2 / 7, ...), the last one takes the rest.
  const int lo = static_cast<int>(static_cast<long long>(r.sk) * 2 * split / 7);
  const int hi = split == kSplits - 1 ? r.sk : static_cast<int>(static_cast<long long>(r.sk) * 2 * (split + 1) / 7);
  na::load_query(p, r, query);
  na::State st = na::empty_state();
  na::attend(p, r, query, lo, hi, st);
  float* out = partial(p, args.workspace, r.token, r.h, split);
  if (threadIdx.x == 0) {
    out[0] = st.m;
    out[1] = st.l;
  }
  for (int k = 0; k < na::kChannelsPerThread; ++k) {
    const int c = static_cast<int>(threadIdx.x) + k * na::kThreads;
    if (c < p.head_dim_v) out[2 + c] = st.acc[k];
  }
}

extern "C" __global__ void __launch_bounds__(na::kThreads) c2_combine(const __grid_constant__ na::Args args) {
  const AttentionProblem& p = args.problem;
  const na::Row r = na::locate_row(p, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y));
  na::State merged = na::empty_state();
  for (int s = 0; s < kSplits; ++s) merged.m = fmaxf(merged.m, partial(p, args.workspace, r.token, r.h, s)[0]);
  for (int s = 0; s < kSplits; ++s) {
    const float* in = partial(p, args.workspace, r.token, r.h, s);
    if (in[0] == na::neg_inf()) continue;  // a split that saw no visible key adds nothing
    const float w = expf(in[0] - merged.m);
    merged.l += w * in[1];
    for (int k = 0; k < na::kChannelsPerThread; ++k) {
      const int c = static_cast<int>(threadIdx.x) + k * na::kThreads;
      if (c < p.head_dim_v) merged.acc[k] += w * in[2 + c];
    }
  }
  na::finish(p, r, merged);
}
