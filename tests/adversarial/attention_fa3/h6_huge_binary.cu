// expect: COMPILE_ERROR — a 33 MiB initialised __device__ table makes the cubin larger than the plugin's 32 MiB cap; the size cap rejects it at build time, no GPU needed (H6).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,seqs=2x(300,700)
// Adversarial corpus for attention.fa3: a binary inflated by data. It must never build under the cap.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

// One non-zero element is enough: the whole initialised image, zeros included, goes into the cubin.
__device__ unsigned long long h6_table[(33ull << 20) / 8] = {1ull};

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "h6_rows");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) h6_rows(const __grid_constant__ na::Args args) {
  if (h6_table[blockIdx.x % 4096 * 1024] == 42ull) return;  // keeps the table referenced
  na::attention_row(args.problem);
}
