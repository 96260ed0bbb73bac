// expect: FAILED — rewrites x to zeros and writes the uniform softmax of zeros: right for the inputs it left behind.
// Adversarial corpus for example.softmax: a candidate that edits its read-only input so that a reference computed
// afterwards on the same buffers would agree with its cheap output. It must never pass.
#include <kseek/device/launch_plan.h>
#include <kseek/example/softmax_problem.h>

namespace {

using kseek::example::SoftmaxProblem;
using Args = kseek::KernelArgs<SoftmaxProblem>;
constexpr unsigned kThreads = 256;

__device__ void store(const SoftmaxProblem& p, long long i, float v) {
  if (p.dtype == kseek::example::kSoftmaxFP32) {
    static_cast<float*>(p.y)[i] = v;
    return;
  }
  unsigned short bits;
  if (p.dtype == kseek::example::kSoftmaxBF16) {
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(v));
  } else {
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(v));
  }
  static_cast<unsigned short*>(p.y)[i] = bits;
}

}  // namespace

extern "C" __global__ void kseek_plan(const SoftmaxProblem problem, kseek::LaunchPlan* plan) {
  plan->abi_version = kseek::kLaunchPlanAbiVersion;
  plan->num_launches = 1;
  plan->workspace_bytes = 0;
  plan->num_tensor_maps = 0;
  kseek::PlannedLaunch& l = plan->launches[0];
  const char name[] = "w12_zero_and_uniform";
  for (int i = 0; i < static_cast<int>(sizeof(name)); ++i) l.kernel[i] = name[i];
  const unsigned long long total = static_cast<unsigned long long>(problem.rows) * problem.row_stride;
  l.grid = {static_cast<unsigned>((total + kThreads - 1) / kThreads), 1, 1};
  l.block = {kThreads, 1, 1};
  l.cluster = {1, 1, 1};
  l.dynamic_smem_bytes = 0;
  l.reserved = 0;
}

extern "C" __global__ void w12_zero_and_uniform(const __grid_constant__ Args args) {
  const SoftmaxProblem& p = args.problem;
  const long long i = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= static_cast<long long>(p.rows) * p.row_stride) return;
  const int elem = p.dtype == kseek::example::kSoftmaxFP32 ? 4 : 2;
  unsigned char* x = const_cast<unsigned char*>(static_cast<const unsigned char*>(p.x));
  for (int b = 0; b < elem; ++b) x[i * elem + b] = 0;  // x := 0 (all-zero bits are 0.0 in every dtype)
  store(p, i, 1.0f / static_cast<float>(p.cols));       // softmax of a zero row is uniform
}
