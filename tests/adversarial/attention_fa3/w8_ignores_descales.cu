// expect: FAILED — the fp8 q/k/v descales are treated as 1; they are drawn per (sequence, kv head) in [0.5, 1.5) / 8, so both the logits and O are off by large factors (W8).
// scenarios: hq=4,hkv=2,d=64,dtype=fp8,causal=1,page=32,seqs=(64,500)+(1,333);hq=4,hkv=4,d=128,dtype=fp8,causal=0,page=16,seqs=2x(32,96)
// Adversarial corpus for attention.fa3: the naive kernel run as if no descale pointer were given. It must never read a descale.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "w8_descales");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) w8_descales(const __grid_constant__ na::Args args) {
  kseek::attention::AttentionProblem p = args.problem;
  p.q_descale = nullptr;
  p.k_descale = nullptr;
  p.v_descale = nullptr;
  na::attention_row(p);
}
