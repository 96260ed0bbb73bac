// expect: CRASHED — the naive kernel, but the CTA of the middle token executes `trap`; the context is lost, the worker dies and the scenario is CRASHED (H4).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,seqs=2x(300,700)
// Adversarial corpus for attention.fa3: an abort on purpose. It must never write outside O.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "h4_trap");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) h4_trap(const __grid_constant__ na::Args args) {
  na::attention_row(args.problem);
  if (blockIdx.x == gridDim.x / 2 && blockIdx.y == 0 && threadIdx.x == 0) asm volatile("trap;");  // PTX ISA: trap
}
