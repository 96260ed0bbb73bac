// expect: FAILED — each call returns the previous call's softmax and computes its own for the next call; checked right after it returns, y belongs to other inputs (R3).
// Adversarial corpus for example.softmax: a one-call pipeline through a 512 MiB __device__ buffer. It must never deliver the current call's result once primed.
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

// One CTA of kThreads per row, three plain passes over x: max, sum of exponentials, normalised write.
__device__ void softmax_row(const SoftmaxProblem& p, int row) {
  const long long base = static_cast<long long>(row) * p.row_stride;
  float m = -3.402823466e38f;
  for (int c = threadIdx.x; c < p.cols; c += kThreads) m = fmaxf(m, load_x(p, base + c));
  m = block_reduce(m, true);
  float sum = 0.0f;
  for (int c = threadIdx.x; c < p.cols; c += kThreads) sum += expf((load_x(p, base + c) - m) * p.scale);
  sum = block_reduce(sum, false);
  for (int c = threadIdx.x; c < p.cols; c += kThreads) {
    store_y(p, base + c, expf((load_x(p, base + c) - m) * p.scale) / sum);
  }
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

namespace {

// 512 MiB: exactly S08's output (32768 x 8192 x 2 bytes), so every shipped scenario is deferred.
constexpr unsigned long long kPendingBytes = 512ull << 20;

struct Shape {
  int rows, cols, row_stride, dtype;
  float scale;
  int valid;
};

__device__ unsigned char g_pending[kPendingBytes];  // the softmax of the previous call's x
__device__ Shape g_pending_shape;                   // what g_pending holds; changed only by r3_commit

__device__ unsigned long long row_bytes(const SoftmaxProblem& p) {
  return static_cast<unsigned long long>(p.row_stride) * (p.dtype == kseek::example::kSoftmaxFP32 ? 4 : 2);
}

__device__ bool fits(const SoftmaxProblem& p) { return row_bytes(p) * p.rows <= kPendingBytes; }

__device__ bool primed(const SoftmaxProblem& p) {
  const Shape& s = g_pending_shape;
  return s.valid && s.rows == p.rows && s.cols == p.cols && s.row_stride == p.row_stride && s.dtype == p.dtype &&
         s.scale == p.scale;
}

}  // namespace

extern "C" __global__ void kseek_plan(const SoftmaxProblem problem, kseek::LaunchPlan* plan) {
  plan_begin(plan, 3, 0);
  plan_launch(plan, 0, "r3_deliver_previous", static_cast<unsigned>(problem.rows), kThreads);
  plan_launch(plan, 1, "r3_compute_for_next_call", static_cast<unsigned>(problem.rows), kThreads);
  plan_launch(plan, 2, "r3_commit", 1, 1);
}

// Primed: y gets the previous call's result. Not yet (first call of a shape): an honest answer, so a harness that
// checks only the first call sees nothing wrong.
extern "C" __global__ void r3_deliver_previous(const __grid_constant__ Args args) {
  const SoftmaxProblem& p = args.problem;
  if (!primed(p)) {
    softmax_row(p, blockIdx.x);
    return;
  }
  const unsigned long long bytes = row_bytes(p);
  const unsigned char* kept = g_pending + blockIdx.x * bytes;
  unsigned char* y_row = static_cast<unsigned char*>(p.y) + blockIdx.x * bytes;
  for (unsigned long long b = threadIdx.x; b < bytes; b += kThreads) y_row[b] = kept[b];
}

// This call's real work, parked for the next call: the same softmax, written to g_pending instead of y.
extern "C" __global__ void r3_compute_for_next_call(const __grid_constant__ Args args) {
  SoftmaxProblem parked = args.problem;
  if (!fits(parked)) return;
  parked.y = g_pending;
  softmax_row(parked, blockIdx.x);
}

extern "C" __global__ void r3_commit(const __grid_constant__ Args args) {
  const SoftmaxProblem& p = args.problem;
  if (fits(p)) g_pending_shape = Shape{p.rows, p.cols, p.row_stride, p.dtype, p.scale, 1};
}
