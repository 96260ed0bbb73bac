// expect: COMPILE_ERROR — a binary tree of template instantiations 2^28 leaves wide keeps the compiler busy far past any limit; the compile time cap (300 s by default, lowered to 10 s by the constraints line below so tests stay short) stops it (H6).
// scenarios: hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,seqs=2x(300,700)
// constraints: {"compile_timeout_seconds": 10}
// Adversarial corpus for attention.fa3: a compile that never ends. It must never finish compiling.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;

// Node kPath's children are 2 kPath and 2 kPath + 1: every node of the tree is a distinct instantiation.
template <int kDepth, unsigned long long kPath>
struct Fanout {
  static constexpr unsigned long long value =
      Fanout<kDepth - 1, 2 * kPath>::value ^ Fanout<kDepth - 1, 2 * kPath + 1>::value;
};
template <unsigned long long kPath>
struct Fanout<0, kPath> {
  static constexpr unsigned long long value = kPath * 0x9E3779B97F4A7C15ull;
};

extern "C" __global__ void kseek_plan(const kseek::attention::AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0) na::plan_rows(problem, plan, "h6_rows");
}

extern "C" __global__ void __launch_bounds__(na::kThreads) h6_rows(const __grid_constant__ na::Args args) {
  if (Fanout<28, 1ull>::value == 0ull) return;
  na::attention_row(args.problem);
}
