// expect: PASSED — an honest control: two kernels run side by side (kLaunchWithPrevious); the first waits for a flag only the second sets, so run one after the other it would never end (TIMEOUT).
// Adversarial corpus for example.softmax: a correct candidate whose plan needs its group of launches to run at once,
// as the candidate ABI promises. CUDA itself promises nothing of the kind for two streams: under CUDA_LAUNCH_BLOCKING=1
// or a serialising tool it hangs, and it relies on the GPU having room for both kernels (32 blocks and 1). It must
// never fail where the harness keeps that promise.
#include <kseek/device/launch_plan.h>
#include <kseek/example/softmax_problem.h>

namespace {

using kseek::example::SoftmaxProblem;
constexpr int kThreads = 256;
constexpr unsigned kSoftmaxBlocks = 32;  // few enough that the releasing kernel always finds a free SM beside them

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
  l.flags = 0;
}

// Launch `index` starts with the launch before it instead of after it.
__device__ void launch_with_previous(kseek::LaunchPlan* plan, int index) {
  plan->launches[index].flags = kseek::kLaunchWithPrevious;
}


}  // namespace

using Args = kseek::KernelArgs<SoftmaxProblem>;

extern "C" __global__ void kseek_plan(const SoftmaxProblem problem, kseek::LaunchPlan* plan) {
  (void)problem;
  plan_begin(plan, 2, 64);  // the flag (zeroed by the harness before every launch sequence)
  plan_launch(plan, 0, "c4_softmax_after_the_flag", kSoftmaxBlocks, kThreads);
  plan_launch(plan, 1, "c4_raise_the_flag", 1, 32);
  launch_with_previous(plan, 1);
}

// Waits until the kernel beside it has raised the flag, then writes every row (a row per block, grid-stride).
extern "C" __global__ void c4_softmax_after_the_flag(const __grid_constant__ Args args) {
  const SoftmaxProblem& p = args.problem;
  if (threadIdx.x == 0) {
    const volatile unsigned* flag = static_cast<const volatile unsigned*>(args.workspace);
    while (*flag == 0) __nanosleep(256);
  }
  __syncthreads();  // no thread of the block goes on before the flag is up
  for (int row = static_cast<int>(blockIdx.x); row < p.rows; row += static_cast<int>(gridDim.x)) {
    const long long base = static_cast<long long>(row) * p.row_stride;
    float m = -3.402823466e38f;
    for (int c = threadIdx.x; c < p.cols; c += kThreads) m = fmaxf(m, load_x(p, base + c));
    m = block_reduce(m, true);
    float s = 0.0f;
    for (int c = threadIdx.x; c < p.cols; c += kThreads) s += expf((load_x(p, base + c) - m) * p.scale);
    s = block_reduce(s, false);
    for (int c = threadIdx.x; c < p.cols; c += kThreads) {
      store_y(p, base + c, expf((load_x(p, base + c) - m) * p.scale) / s);
    }
  }
}

extern "C" __global__ void c4_raise_the_flag(const __grid_constant__ Args args) {
  if (threadIdx.x == 0) atomicExch(static_cast<unsigned*>(args.workspace), 1u);
}
