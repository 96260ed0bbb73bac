// expect: FAILED — softmax without its running max: rows shifted past e^88 overflow to inf/inf and rows below e^-103 to 0/0, both NaN (W9, W11).
// Adversarial corpus for example.softmax: exp(scale * x) / sum exp(scale * x) taken literally. It must never subtract a maximum.
#include <kseek/device/launch_plan.h>
#include <kseek/example/softmax_problem.h>

namespace {

using kseek::example::SoftmaxProblem;
constexpr int kThreads = 256;

__device__ float load_x(const SoftmaxProblem& p, long long i) {
  if (p.dtype == kseek::example::kSoftmaxFP32) return static_cast<const float*>(p.x)[i];
  const unsigned short bits = static_cast<const unsigned short*>(p.x)[i];
  if (p.dtype == kseek::example::kSoftmaxBF16) return __uint_as_float(static_cast<unsigned>(bits) << 16);
  float v;
  asm("cvt.f32.f16 %0, %1;" : "=f"(v) : "h"(bits));
  return v;
}

__device__ void store_y(const SoftmaxProblem& p, long long i, float v) {
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

__device__ float block_reduce(float v, bool is_max) {
  __shared__ float partial[kThreads / 32];
  for (int o = 16; o > 0; o >>= 1) {
    const float other = __shfl_xor_sync(0xFFFFFFFFu, v, o);
    v = is_max ? fmaxf(v, other) : v + other;
  }
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();  // every warp's partial written before anyone reads them
  float total = partial[0];
  for (int w = 1; w < kThreads / 32; ++w) total = is_max ? fmaxf(total, partial[w]) : total + partial[w];
  __syncthreads();  // nobody overwrites `partial` (next reduction) while another thread still reads it
  return total;
}

__device__ void plan_begin(kseek::LaunchPlan* plan, unsigned launches, unsigned long long workspace_bytes) {
  plan->abi_version = kseek::kLaunchPlanAbiVersion;
  plan->num_launches = launches;
  plan->workspace_bytes = workspace_bytes;
  plan->num_tensor_maps = 0;
}

__device__ void plan_launch(kseek::LaunchPlan* plan, int index, const char* kernel, unsigned grid, unsigned block) {
  kseek::PlannedLaunch& l = plan->launches[index];
  int i = 0;
  for (; kernel[i] != '\0' && i < kseek::kKernelNameBytes - 1; ++i) l.kernel[i] = kernel[i];
  l.kernel[i] = '\0';
  l.grid = {grid, 1, 1};
  l.block = {block, 1, 1};
  l.cluster = {1, 1, 1};
  l.dynamic_smem_bytes = 0;
  l.reserved = 0;
}

}  // namespace

using Args = kseek::KernelArgs<SoftmaxProblem>;

extern "C" __global__ void kseek_plan(const SoftmaxProblem problem, kseek::LaunchPlan* plan) {
  plan_begin(plan, 1, 0);
  plan_launch(plan, 0, "w9_unsafe_softmax", static_cast<unsigned>(problem.rows), kThreads);
}

extern "C" __global__ void w9_unsafe_softmax(const __grid_constant__ Args args) {
  const SoftmaxProblem& p = args.problem;
  const long long base = static_cast<long long>(blockIdx.x) * p.row_stride;
  float sum = 0.0f;
  for (int c = threadIdx.x; c < p.cols; c += kThreads) sum += expf(load_x(p, base + c) * p.scale);
  sum = block_reduce(sum, false);
  for (int c = threadIdx.x; c < p.cols; c += kThreads) store_y(p, base + c, expf(load_x(p, base + c) * p.scale) / sum);
}
