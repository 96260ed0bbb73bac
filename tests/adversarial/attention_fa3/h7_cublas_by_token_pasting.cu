// expect: CONSTRAINT_VIOLATION — a cuBLAS device entry point declared under a name assembled by the preprocessor, so the source never spells it; the symbol it leaves in the relocatable binary is what the checker reads (H7).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,seqs=2x(300,700)
// Adversarial corpus for attention.fa3: a forbidden library entry point under another spelling. It must never build clean.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

#define KSEEK_JOIN2(a, b) a##b
#define KSEEK_JOIN(a, b) KSEEK_JOIN2(a, b)
#define KSEEK_GEMM KSEEK_JOIN(KSEEK_JOIN(cub, las), Sgemm_v2)

extern "C" __device__ int KSEEK_GEMM(void* handle, int m, int n, int k);

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "h7_rows");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) h7_rows(const __grid_constant__ na::Args args) {
  if (args.problem.total_q < 0) KSEEK_GEMM(nullptr, 0, 0, 0);  // never taken, but linked
  na::attention_row(args.problem);
}
