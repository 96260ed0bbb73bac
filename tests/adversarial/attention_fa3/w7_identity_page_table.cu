// expect: FAILED — the paged cache is read as if block_table were the identity (sequence b's page n at block b * max_blocks_per_seq + n); the harness shuffles the table, and the last page is partial (W7).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,seqs=(100,333)+(7,77)+(300,700);hq=8,hkv=1,d=128,dtype=bf16,causal=0,page=64,seqs=3x(1,300)
// Adversarial corpus for attention.fa3: the naive kernel that never reads block_table. It must never read outside the cache (ids wrap at num_blocks).
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

struct IdentityPages : na::Policy {
  __device__ static na::KeySlot key_slot(const kseek::attention::AttentionProblem& p, const na::Row& r, int j) {
    if (!p.paged) return na::Policy::key_slot(p, r, j);
    const long long block = static_cast<long long>(r.b) * p.max_blocks_per_seq + j / p.block_size;
    return na::KeySlot{block % p.num_blocks, j % p.block_size};
  }
};

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "w7_pages");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) w7_pages(const __grid_constant__ na::Args args) {
  na::attention_row<IdentityPages>(args.problem);
}
