// expect: FAILED — results are replayed whenever x's address was seen before; fresh inputs written at a reused address (and timed outputs re-checked) expose the stale replay (R1).
// Adversarial corpus for example.softmax: a 4-entry output cache in __device__ globals keyed by (x pointer, shape). It must never be trusted: it checks no data.
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

// Four entries of 128 MiB (512 MiB of .bss-like device globals, nothing in the cubin file): every `small` scenario
// and S01-S06 of `default` fit; S07 and S08 are too big and are computed honestly.
constexpr int kEntries = 4;
constexpr unsigned long long kEntryBytes = 128ull << 20;

struct Key {
  const void* x;
  int rows, cols, row_stride, dtype;
  float scale;
  int valid;
};

__device__ unsigned char g_outputs[kEntries][kEntryBytes];
__device__ Key g_keys[kEntries];
__device__ int g_next_slot;  // round-robin victim; only r1_remember changes it, so every CTA of a launch agrees

__device__ unsigned long long output_bytes(const SoftmaxProblem& p) {
  const unsigned long long element = p.dtype == kseek::example::kSoftmaxFP32 ? 4 : 2;
  return static_cast<unsigned long long>(p.rows) * p.row_stride * element;
}

__device__ int find_entry(const SoftmaxProblem& p) {
  for (int e = 0; e < kEntries; ++e) {
    const Key& k = g_keys[e];
    if (k.valid && k.x == p.x && k.rows == p.rows && k.cols == p.cols && k.row_stride == p.row_stride &&
        k.dtype == p.dtype && k.scale == p.scale) {
      return e;
    }
  }
  return -1;
}

}  // namespace

extern "C" __global__ void kseek_plan(const SoftmaxProblem problem, kseek::LaunchPlan* plan) {
  plan_begin(plan, 2, 0);
  plan_launch(plan, 0, "r1_softmax_or_replay", static_cast<unsigned>(problem.rows), kThreads);
  plan_launch(plan, 1, "r1_remember", 1, 1);
}

// Hit: copy the remembered row. Miss: compute the row, and keep a copy in the next slot when the output fits.
extern "C" __global__ void r1_softmax_or_replay(const __grid_constant__ Args args) {
  const SoftmaxProblem& p = args.problem;
  const int hit = find_entry(p);
  const unsigned long long row_bytes = static_cast<unsigned long long>(p.row_stride) *
                                       (p.dtype == kseek::example::kSoftmaxFP32 ? 4 : 2);
  unsigned char* y_row = static_cast<unsigned char*>(p.y) + blockIdx.x * row_bytes;
  if (hit >= 0) {
    const unsigned char* kept = g_outputs[hit] + blockIdx.x * row_bytes;
    for (unsigned long long b = threadIdx.x; b < row_bytes; b += kThreads) y_row[b] = kept[b];
    return;
  }
  softmax_row(p, blockIdx.x);
  if (output_bytes(p) > kEntryBytes) return;
  __syncthreads();  // this CTA's stores to its row are visible to the whole CTA before it copies them
  unsigned char* slot = g_outputs[g_next_slot] + blockIdx.x * row_bytes;
  for (unsigned long long b = threadIdx.x; b < row_bytes; b += kThreads) slot[b] = y_row[b];
}

// Runs after every CTA above (same stream): records the key of what the miss path just stored.
extern "C" __global__ void r1_remember(const __grid_constant__ Args args) {
  const SoftmaxProblem& p = args.problem;
  if (find_entry(p) >= 0 || output_bytes(p) > kEntryBytes) return;
  g_keys[g_next_slot] = Key{p.x, p.rows, p.cols, p.row_stride, p.dtype, p.scale, 1};
  g_next_slot = (g_next_slot + 1) % kEntries;
}
