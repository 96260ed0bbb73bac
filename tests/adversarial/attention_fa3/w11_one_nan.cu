// expect: FAILED — a correct O and LSE, then one NaN planted in O (and one +inf in LSE); non-finite output fails outright, whatever the error statistics say (W11).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,lse=1,seqs=2x(300,700)
// Adversarial corpus for attention.fa3: the naive kernel plus two non-finite elements. It must never write outside O and LSE.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "w11_rows");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) w11_rows(const __grid_constant__ na::Args args) {
  const kseek::attention::AttentionProblem& p = args.problem;
  na::attention_row(p);
  __syncthreads();  // the planted values overwrite the row's own results, never the other way round
  if (blockIdx.x == gridDim.x / 2 && blockIdx.y == 0 && threadIdx.x == 0) {
    const long long token = blockIdx.x;
    na::store(p.o, token * p.o_row_stride + 3, p.dtype_o, __int_as_float(0x7fc00000));
    if (p.return_lse) p.lse[token] = __int_as_float(0x7f800000);
  }
}
