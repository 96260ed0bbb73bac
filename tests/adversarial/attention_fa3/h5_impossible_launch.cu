// expect: LAUNCH_ERROR — the plan asks for 2048 threads per CTA (the limit is 1024) and 1 MiB of dynamic shared memory (the limit is 227 KiB); plan validation must refuse it before any launch (H5).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,seqs=2x(300,700)
// Adversarial corpus for attention.fa3: a correct kernel behind an impossible plan. It must never be launched as planned.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x != 0) return;
  na::plan_rows(problem, plan, "h5_rows");
  plan->launches[0].block = kseek::PlanDim3{2048, 1, 1};
  plan->launches[0].dynamic_smem_bytes = 1u << 20;
}

extern "C" __global__ void h5_rows(const __grid_constant__ na::Args args) { na::attention_row(args.problem); }
