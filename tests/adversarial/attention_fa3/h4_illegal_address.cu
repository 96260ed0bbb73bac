// expect: CRASHED — one store per CTA goes to device address 0x100, which is never mapped: an illegal-address fault kills the context; the worker dies and the scenario is CRASHED, the evaluation goes on (H4).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,seqs=2x(300,700)
// Adversarial corpus for attention.fa3: a fault on purpose. It must never write anywhere that could be mapped.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "h4_fault");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) h4_fault(const __grid_constant__ na::Args args) {
  if (threadIdx.x == 0) *reinterpret_cast<volatile int*>(static_cast<unsigned long long>(0x100)) = args.problem.total_q;
}
