// expect: PASSED — an honest control (C2): rows cut into 2048-column chunks, per-chunk (max, sum) in the workspace, then a combine-and-write kernel.
// Adversarial corpus for example.softmax: a correct candidate shaped unlike the seed (two kernels, a workspace). It must never fail.
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

namespace {

constexpr int kChunk = 2048;  // columns per CTA; a longer row is split across CTAs

// One chunk's softmax statistics: sum over the chunk of exp(scale * (x - max)).
struct Partial {
  float max;
  float sum;
};

__device__ unsigned chunks_per_row(int cols) { return static_cast<unsigned>((cols + kChunk - 1) / kChunk); }

struct Tile {
  int row;
  unsigned chunk;
  int begin;  // first column of the chunk
  int end;    // one past its last column
};

__device__ Tile my_tile(const SoftmaxProblem& p) {
  const unsigned chunks = chunks_per_row(p.cols);
  Tile t;
  t.row = static_cast<int>(blockIdx.x / chunks);
  t.chunk = blockIdx.x % chunks;
  t.begin = static_cast<int>(t.chunk) * kChunk;
  t.end = min(t.begin + kChunk, p.cols);
  return t;
}

}  // namespace

extern "C" __global__ void kseek_plan(const SoftmaxProblem problem, kseek::LaunchPlan* plan) {
  const unsigned chunks = chunks_per_row(problem.cols);
  const unsigned tiles = static_cast<unsigned>(problem.rows) * chunks;
  plan_begin(plan, 2, static_cast<unsigned long long>(tiles) * sizeof(Partial));
  plan_launch(plan, 0, "c2_chunk_statistics", tiles, kThreads);
  plan_launch(plan, 1, "c2_combine_and_write", tiles, kThreads);
}

// [rows * chunks] Partial -> workspace
extern "C" __global__ void c2_chunk_statistics(const __grid_constant__ Args args) {
  const SoftmaxProblem& p = args.problem;
  const Tile t = my_tile(p);
  const long long base = static_cast<long long>(t.row) * p.row_stride;
  float m = -3.402823466e38f;
  for (int c = t.begin + threadIdx.x; c < t.end; c += kThreads) m = fmaxf(m, load_x(p, base + c));
  m = block_reduce(m, true);
  float s = 0.0f;
  for (int c = t.begin + threadIdx.x; c < t.end; c += kThreads) s += expf((load_x(p, base + c) - m) * p.scale);
  s = block_reduce(s, false);
  if (threadIdx.x == 0) static_cast<Partial*>(args.workspace)[blockIdx.x] = Partial{m, s};
}

// Every CTA of a row folds the row's partials (the previous launch finished them), then writes its own chunk.
extern "C" __global__ void c2_combine_and_write(const __grid_constant__ Args args) {
  const SoftmaxProblem& p = args.problem;
  const Tile t = my_tile(p);
  const unsigned chunks = chunks_per_row(p.cols);
  const Partial* row_partials = static_cast<const Partial*>(args.workspace) + static_cast<long long>(t.row) * chunks;
  float m = -3.402823466e38f;
  for (unsigned k = threadIdx.x; k < chunks; k += kThreads) m = fmaxf(m, row_partials[k].max);
  m = block_reduce(m, true);
  float s = 0.0f;
  for (unsigned k = threadIdx.x; k < chunks; k += kThreads) {
    s += row_partials[k].sum * expf((row_partials[k].max - m) * p.scale);
  }
  s = block_reduce(s, false);
  const long long base = static_cast<long long>(t.row) * p.row_stride;
  for (int c = t.begin + threadIdx.x; c < t.end; c += kThreads) {
    store_y(p, base + c, expf((load_x(p, base + c) - m) * p.scale) / s);
  }
}
