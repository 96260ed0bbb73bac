// expect: PASSED — an honest control (C3): rows loaded by TMA tensor maps through the ABI, CTAs launched in clusters of 2.
// scenarios: rows=64,cols=4096,dtype=fp16;rows=33,cols=1000,dtype=bf16;rows=16,cols=12288,dtype=bf16;rows=8,cols=1024,dtype=fp32;rows=5,cols=3001,dtype=fp16
// Adversarial corpus for example.softmax: a correct candidate using clusters and TMA tensor maps (the plan asks
// for a map over x; the harness encodes it). Rows that TMA cannot view fall back to plain loads. It must never fail.
#include <kseek/device/launch_plan.h>
#include <kseek/example/softmax_problem.h>

namespace {

using kseek::example::SoftmaxProblem;
using Args = kseek::KernelArgs<SoftmaxProblem>;
constexpr int kThreads = 256;
constexpr unsigned kClusterSize = 2;
constexpr unsigned kMaxRowBytes = 96 * 1024;  // a row staged whole in shared memory

__device__ int element_bytes(int dtype) { return dtype == kseek::example::kSoftmaxFP32 ? 4 : 2; }
__device__ int box_elements(int dtype) { return dtype == kseek::example::kSoftmaxFP32 ? 128 : 256; }  // 512 B boxes

__device__ float to_float(const unsigned char* p, int dtype) {
  if (dtype == kseek::example::kSoftmaxFP32) return *reinterpret_cast<const float*>(p);
  const unsigned short bits = *reinterpret_cast<const unsigned short*>(p);
  if (dtype == kseek::example::kSoftmaxBF16) return __uint_as_float(static_cast<unsigned>(bits) << 16);
  float v;
  asm("cvt.f32.f16 %0, %1;" : "=f"(v) : "h"(bits));  // PTX ISA 9.7.9.21 cvt
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

// Softmax of one row whose elements sit at row_bytes[c * elem]; writes y.
__device__ void softmax_row(const SoftmaxProblem& p, int row, const unsigned char* row_bytes) {
  const int elem = element_bytes(p.dtype);
  float m = -3.402823466e38f;
  for (int c = threadIdx.x; c < p.cols; c += kThreads) m = fmaxf(m, to_float(row_bytes + c * elem, p.dtype));
  m = block_reduce(m, true);
  float s = 0.0f;
  for (int c = threadIdx.x; c < p.cols; c += kThreads) s += expf((to_float(row_bytes + c * elem, p.dtype) - m) * p.scale);
  s = block_reduce(s, false);
  const float inv = 1.0f / s;
  const long long base = static_cast<long long>(row) * p.row_stride;
  for (int c = threadIdx.x; c < p.cols; c += kThreads) {
    store_y(p, base + c, expf((to_float(row_bytes + c * elem, p.dtype) - m) * p.scale) * inv);
  }
}

__device__ bool tma_path(const SoftmaxProblem& p) {
  const unsigned row_bytes = static_cast<unsigned>(p.row_stride) * element_bytes(p.dtype);
  const unsigned staged = static_cast<unsigned>((p.cols + box_elements(p.dtype) - 1) / box_elements(p.dtype)) *
                          box_elements(p.dtype) * element_bytes(p.dtype);
  return row_bytes % 16 == 0 && staged <= kMaxRowBytes;
}

__device__ void name_kernel(kseek::PlannedLaunch& l, const char* kernel) {
  int i = 0;
  for (; kernel[i] != '\0' && i < kseek::kKernelNameBytes - 1; ++i) l.kernel[i] = kernel[i];
  l.kernel[i] = '\0';
}

__device__ unsigned shared_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

}  // namespace

extern "C" __global__ void kseek_plan(const SoftmaxProblem problem, kseek::LaunchPlan* plan) {
  plan->abi_version = kseek::kLaunchPlanAbiVersion;
  plan->num_launches = 1;
  plan->workspace_bytes = 0;
  kseek::PlannedLaunch& l = plan->launches[0];
  l.block = {kThreads, 1, 1};
  l.reserved = 0;
  if (tma_path(problem)) {
    const unsigned loads = static_cast<unsigned>((problem.cols + box_elements(problem.dtype) - 1) / box_elements(problem.dtype));
    name_kernel(l, "c3_tma_rows");
    l.grid = {(static_cast<unsigned>(problem.rows) + kClusterSize - 1) / kClusterSize * kClusterSize, 1, 1};
    l.cluster = {kClusterSize, 1, 1};
    l.dynamic_smem_bytes = loads * box_elements(problem.dtype) * element_bytes(problem.dtype) + 16;  // + mbarrier
    plan->num_tensor_maps = 1;
    kseek::TensorMapRequest& map = plan->tensor_maps[0];
    map.tensor = kseek::example::kSoftmaxTensorX;
    map.box_rank = 2;
    map.box[0] = static_cast<unsigned>(box_elements(problem.dtype));
    map.box[1] = 1;
    map.box[2] = map.box[3] = map.box[4] = 0;
    map.swizzle = kseek::kSwizzleNone;
    map.l2_promotion_bytes = 0;
    map.reserved = 0;
  } else {
    name_kernel(l, "c3_plain_rows");
    l.grid = {static_cast<unsigned>(problem.rows), 1, 1};
    l.cluster = {1, 1, 1};
    l.dynamic_smem_bytes = 0;
    plan->num_tensor_maps = 0;
  }
}

// One row per CTA, staged by TMA: box k of the row lands at byte k * box_bytes (boxes past cols are zero-filled
// by the copy engine and never read).
extern "C" __global__ void c3_tma_rows(const __grid_constant__ Args args) {
  extern __shared__ __align__(128) unsigned char staged[];
  const SoftmaxProblem& p = args.problem;
  const int row = blockIdx.x;
  if (row >= p.rows) return;  // the grid is rounded up to whole clusters; the spare CTA has no row
  const int box = box_elements(p.dtype);
  const unsigned loads = static_cast<unsigned>((p.cols + box - 1) / box);
  const unsigned box_bytes = static_cast<unsigned>(box * element_bytes(p.dtype));
  unsigned long long* barrier = reinterpret_cast<unsigned long long*>(staged + loads * box_bytes);
  const unsigned barrier_address = shared_address(barrier);
  if (threadIdx.x == 0) {
    // PTX ISA 9.7.13.15.11 mbarrier.init; the fence makes the initialised barrier visible to the async proxy.
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(barrier_address));
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    // PTX ISA 9.7.13.15.13 mbarrier.arrive.expect_tx: the phase completes when every box's bytes have landed.
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrier_address), "r"(loads * box_bytes)
                 : "memory");
    const unsigned long long map = reinterpret_cast<unsigned long long>(&args.tensor_maps[0]);
    for (unsigned k = 0; k < loads; ++k) {
      // PTX ISA 9.7.9.25.5.1 cp.async.bulk.tensor: box (k * box, row) of x into staged + k * box_bytes.
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
              shared_address(staged + k * box_bytes)),
          "l"(map), "r"(static_cast<int>(k) * box), "r"(row), "r"(barrier_address)
          : "memory");
    }
  }
  __syncthreads();  // the barrier is initialised before any thread waits on it
  unsigned done = 0;
  while (!done) {
    // PTX ISA 9.7.13.15.16 mbarrier.try_wait: phase 0 completes once the copies have delivered every byte.
    asm volatile(
        "{ .reg .pred ready; mbarrier.try_wait.parity.shared::cta.b64 ready, [%1], 0; selp.u32 %0, 1, 0, ready; }"
        : "=r"(done)
        : "r"(barrier_address)
        : "memory");
  }
  softmax_row(p, row, staged);
}

// Rows TMA cannot view (row bytes not a multiple of 16, or too long to stage): plain loads from global memory.
extern "C" __global__ void c3_plain_rows(const __grid_constant__ Args args) {
  const SoftmaxProblem& p = args.problem;
  const int row = blockIdx.x;
  const long long base = static_cast<long long>(row) * p.row_stride * element_bytes(p.dtype);
  softmax_row(p, row, static_cast<const unsigned char*>(p.x) + base);
}
