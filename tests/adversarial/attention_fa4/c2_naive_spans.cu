// expect: PASSED — an honest control (C2) for FA4's PrefixLM: naive_kernel.cuh as it is, which reads the problem's span list (AttentionProblem v2), over a chunked prefill with GQA and a paged cache, and packed varlen sequences with the LSE. Run with --functional-arch sm_90a on Hopper; this file passing is what makes w6_ignores_spans's failure mean something.
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,prefix_lm=2x64,page=16,seqs=2x(300,700);hq=8,hkv=8,d=128,dtype=fp16,causal=1,prefix_lm=3x100,lse=1,page=0,seqs=(500,500)+(333,400)
// Adversarial corpus for attention.fa4: the shared naive block, unmodified. It must never fail.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "c2_spans");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) c2_spans(const __grid_constant__ na::Args args) {
  na::attention_row(args.problem);
}
