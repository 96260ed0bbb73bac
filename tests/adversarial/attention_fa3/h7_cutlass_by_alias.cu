// expect: CONSTRAINT_VIOLATION — CUTLASS code whose namespace is spelled by token pasting and used through an alias, so a grep for "cutlass" in the source finds nothing; the names in the built binary (kept by -lineinfo even when inlined) still say cutlass:: (H7).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,seqs=2x(300,700)
// Adversarial corpus for attention.fa3: a forbidden library under another spelling. It must never build clean.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

#define KSEEK_JOIN2(a, b) a##b
#define KSEEK_JOIN(a, b) KSEEK_JOIN2(a, b)

namespace KSEEK_JOIN(cut, lass) {  // what a vendored library would bring in
namespace epilogue {
template <class T>
struct LinearCombination {
  T alpha;
  __device__ T operator()(T x) const { return alpha * x; }
};
}  // namespace epilogue
}  // namespace KSEEK_JOIN(cut, lass)

namespace ep = KSEEK_JOIN(cut, lass)::epilogue;

struct ScaledLogits : na::Policy {
  __device__ static float logit(const kseek::attention::AttentionProblem& p, const na::Row&, float raw) {
    const float s = ep::LinearCombination<float>{p.softmax_scale}(raw);
    return p.softcap > 0.0f ? p.softcap * tanhf(s / p.softcap) : s;
  }
};

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "h7_rows");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) h7_rows(const __grid_constant__ na::Args args) {
  na::attention_row<ScaledLogits>(args.problem);
}
