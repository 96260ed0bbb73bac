// expect: FAILED — O itself is right, but 256 bytes just past O's last element are inverted; the guard region after O no longer holds its pattern (H2).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,seqs=2x(300,700)
// Adversarial corpus for attention.fa3: the naive kernel plus a stray write past the output. It must never write anywhere but just past O.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "h2_rows");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) h2_rows(const __grid_constant__ na::Args args) {
  const kseek::attention::AttentionProblem& p = args.problem;
  na::attention_row(p);
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x < 64) {
    const long long last = static_cast<long long>(p.total_q - 1) * p.o_row_stride +
                           static_cast<long long>(p.num_heads_q - 1) * p.o_head_stride + p.head_dim_v;  // one past
    const int bytes = p.dtype_o == kseek::attention::kDTypeFP32 ? 4 : 2;
    unsigned* past = reinterpret_cast<unsigned*>(static_cast<unsigned char*>(p.o) + (last * bytes + 3) / 4 * 4);
    past[threadIdx.x] = ~past[threadIdx.x];
  }
}
