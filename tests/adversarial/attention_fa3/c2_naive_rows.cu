// expect: PASSED — an honest control (C2): naive_kernel.cuh as it is, one 128-thread CTA per (token, head), over GQA, MQA, paged and packed caches, windows, softcap, sinks, fp8 with descales, MLA q_v and LSE. Every wrong candidate of this corpus is this kernel with one thing broken, so this file passing is what makes their failures mean something.
// scenarios: hq=8,hkv=2,d=64,dtype=bf16,causal=1,page=16,lse=1,seqs=(37,301)+(5,123)+(200,1001);hq=4,hkv=4,d=128,dtype=fp16,causal=0,window=(15,3),page=0,seqs=(77,200)+(16,1000);hq=4,hkv=2,d=64,dtype=bf16,causal=1,softcap=30,sinks=1,page=32,lse=1,seqs=(100,400)+(3,50);hq=4,hkv=2,d=64,dtype=fp8,causal=1,page=32,seqs=(64,500)+(1,333);hq=4,hkv=1,d=64,dv=512,qv=1,dtype=bf16,causal=0,page=64,seqs=3x(1,300)
// Adversarial corpus for attention.fa3: the shared naive block, unmodified. It must never fail.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "c2_rows");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) c2_rows(const __grid_constant__ na::Args args) {
  na::attention_row(args.problem);
}
