// expect: FAILED — it looks for somebody else's answer where one could linger (the previous contents of O and LSE, its workspace) and keeps any finite value it finds, writing zeros otherwise; the harness poisons outputs, zeroes the workspace and computes references only after the candidate ran, so there is nothing to find (H1).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,lse=1,seqs=2x(300,700)
// Adversarial corpus for attention.fa3: a scavenger with no honest fallback. It must never read outside O, LSE and its workspace.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x != 0) return;
  na::plan_rows(problem, plan, "h1_scavenge");
  // A workspace as large as O in fp32, in case the harness left a reference there.
  plan->workspace_bytes = static_cast<unsigned long long>(problem.total_q) * problem.num_heads_q * problem.head_dim_v * 4;
}

__device__ bool finite(float v) { return (__float_as_uint(v) & 0x7f800000u) != 0x7f800000u; }

extern "C" __global__ void __launch_bounds__(na::kThreads) h1_scavenge(const __grid_constant__ na::Args args) {
  const kseek::attention::AttentionProblem& p = args.problem;
  const long long pair = static_cast<long long>(blockIdx.x) * p.num_heads_q + blockIdx.y;
  const float* found = static_cast<const float*>(args.workspace) + pair * p.head_dim_v;
  const long long base = static_cast<long long>(blockIdx.x) * p.o_row_stride + blockIdx.y * p.o_head_stride;
  for (int c = threadIdx.x; c < p.head_dim_v; c += na::kThreads) {
    const float left = na::load(p.o, base + c, p.dtype_o);
    const float candidate = finite(left) ? left : (found != nullptr && found[c] != 0.0f ? found[c] : 0.0f);
    na::store(p.o, base + c, p.dtype_o, candidate);
  }
  if (p.return_lse && threadIdx.x == 0) {
    float& lse = p.lse[blockIdx.y * p.lse_head_stride + blockIdx.x];
    if (!finite(lse)) lse = 0.0f;
  }
}
