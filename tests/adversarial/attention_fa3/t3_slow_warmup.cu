// expect: PASSED — correct (naive) throughout, but its first eight launches (the six correctness runs, then warm-up) also spin 20 ms to look slow early and skew an adaptive sampler; warm-up never sizes the sample and the minimum rounds are fixed, so it is timed as what it is (T3).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,seqs=2x(300,700)
// Adversarial corpus for attention.fa3: a __device__ launch counter and a %globaltimer spin. It must never change O or LSE.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

__device__ unsigned t3_launches;

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x != 0) return;
  na::plan_rows(problem, plan, "t3_rows");
  plan->num_launches = 2;
  na::plan_launch(problem, plan, 1, "t3_count");
  plan->launches[1].grid = kseek::PlanDim3{1, 1, 1};
}

extern "C" __global__ void __launch_bounds__(na::kThreads) t3_rows(const __grid_constant__ na::Args args) {
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && t3_launches < 8) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));  // PTX ISA: special registers, %globaltimer (ns)
    do {
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < 20000000ull);
  }
  na::attention_row(args.problem);
}

extern "C" __global__ void t3_count(const __grid_constant__ na::Args) {
  if (threadIdx.x == 0) ++t3_launches;
}
