// expect: TIMEOUT — every CTA spins on a flag nobody sets; the watchdog must kill the worker, record TIMEOUT and go on (H3).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,seqs=2x(300,700)
// Adversarial corpus for attention.fa3: a kernel that never returns. It must never write O or leave the loop.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

__device__ volatile int h3_release;  // never set by anyone

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "h3_spin");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) h3_spin(const __grid_constant__ na::Args) {
  while (h3_release == 0) {
  }
}
