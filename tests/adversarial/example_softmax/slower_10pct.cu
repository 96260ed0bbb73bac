// expect: PASSED — the seed plus ~22% more reads of x (2/9 of x's bytes, from rows half the tensor away); still exact, ratio about 0.90.
// Control for example.softmax: proves a slower but correct candidate is reported as such. It must never change what y receives.
//
// Sizing: the seed moves 2N bytes per call for an N-byte x (x read once, y written once; the streaming shape's second
// read of a row comes mostly from L2). Each CTA here then reads, from DRAM, 2/9 of a span of x as long as its own rows,
// starting half the tensor away, where L2 holds neither a recent nor an imminent copy for tensors over ~2x L2 (every
// `default` scenario moves at least 130 MB against H200's 50 MB of L2). A bandwidth-bound kernel's time scales with
// bytes: (2 + 2/9) / 2 = 10/9, so ratio = 0.90. Expect up to a few points either way per scenario: S01 (256 rows,
// latency bound) and the small-cols shapes (sector rounding) stray most; `small` scenarios are too tiny to time.
#include <kseek/device/launch_plan.h>
#include <kseek/example/softmax_problem.h>

namespace kseek {
namespace plugins {
namespace example_softmax {
namespace candidate {

using example::SoftmaxProblem;
using u16 = unsigned short;
using u32 = unsigned int;
using u64 = unsigned long long;

// =====================================================================================================================
// Launch shapes. A row that fits in registers is read once; a longer one is streamed twice (the re-read mostly hits
// L2). The plan takes the first shape whose capacity (threads per row * vectors per thread * elements per vector)
// holds cols.
// =====================================================================================================================
constexpr int kWarpRowsPerCta = 8;  // warp shapes: 8 warps, one row each
constexpr int kWarpThreads = 32 * kWarpRowsPerCta;
constexpr int kStreamThreads = 1024;  // streaming shape: one CTA per row, any cols
constexpr int kStreamUnroll = 4;      // 16-byte loads in flight per thread per pass
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLowest = -3.402823466e38f;  // finite "no element yet": (kLowest - m) never makes a NaN

enum ShapeKind : int { kWarpPerRow = 0, kCtaPerRow = 1, kStream = 2 };
struct Shape {
  ShapeKind kind;
  int threads_per_row;
  int vectors_per_thread;  // register shapes only
  const char* name;        // kernel name infix
};

// =====================================================================================================================
// Element types. No cuda_bf16.h / cuda_fp16.h under NVRTC: conversions are PTX cvt (PTX ISA 9.7.9.21), rounding to
// nearest even.
// =====================================================================================================================
struct BF16 {
  static constexpr int kBytes = 2;
  static constexpr const char* kName = "bf16";
  static __device__ float scalar(const void* p) { return __uint_as_float(u32(*static_cast<const u16*>(p)) << 16); }
  static __device__ void store_scalar(void* p, float v) {
    u16 bits;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(v));
    *static_cast<u16*>(p) = bits;
  }
  static __device__ void unpack(u32 w, float& lo, float& hi) {
    lo = __uint_as_float(w << 16);  // bf16 is the upper half of an fp32
    hi = __uint_as_float(w & 0xFFFF0000u);
  }
  static __device__ u32 pack(float lo, float hi) {
    u32 w;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));  // first source lands in the upper half
    return w;
  }
};

struct FP16 {
  static constexpr int kBytes = 2;
  static constexpr const char* kName = "fp16";
  static __device__ float scalar(const void* p) {
    float v;
    asm("cvt.f32.f16 %0, %1;" : "=f"(v) : "h"(*static_cast<const u16*>(p)));
    return v;
  }
  static __device__ void store_scalar(void* p, float v) {
    u16 bits;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(v));
    *static_cast<u16*>(p) = bits;
  }
  static __device__ void unpack(u32 w, float& lo, float& hi) {
    asm("cvt.f32.f16 %0, %1;" : "=f"(lo) : "h"(static_cast<u16>(w & 0xFFFFu)));
    asm("cvt.f32.f16 %0, %1;" : "=f"(hi) : "h"(static_cast<u16>(w >> 16)));
  }
  static __device__ u32 pack(float lo, float hi) {
    u32 w;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
    return w;
  }
};

struct FP32 {
  static constexpr int kBytes = 4;
  static constexpr const char* kName = "fp32";
  static __device__ float scalar(const void* p) { return *static_cast<const float*>(p); }
  static __device__ void store_scalar(void* p, float v) { *static_cast<float*>(p) = v; }
};

// A 16-byte vector of any element type, as floats.
template <class E>
struct Vec {
  static constexpr int kElems = 16 / E::kBytes;
  float v[kElems];

  __device__ void unpack(const uint4& raw) {
    if constexpr (E::kBytes == 4) {
      v[0] = __uint_as_float(raw.x);
      v[1] = __uint_as_float(raw.y);
      v[2] = __uint_as_float(raw.z);
      v[3] = __uint_as_float(raw.w);
    } else {
      E::unpack(raw.x, v[0], v[1]);
      E::unpack(raw.y, v[2], v[3]);
      E::unpack(raw.z, v[4], v[5]);
      E::unpack(raw.w, v[6], v[7]);
    }
  }
  __device__ uint4 pack() const {
    if constexpr (E::kBytes == 4) {
      return make_uint4(__float_as_uint(v[0]), __float_as_uint(v[1]), __float_as_uint(v[2]), __float_as_uint(v[3]));
    } else {
      return make_uint4(E::pack(v[0], v[1]), E::pack(v[2], v[3]), E::pack(v[4], v[5]), E::pack(v[6], v[7]));
    }
  }
};

// =====================================================================================================================
// Memory and maths primitives.
// =====================================================================================================================
__device__ __forceinline__ uint4 load_vector(const uint4* p) {  // read-only path: x is never written by anyone
  uint4 r;
  asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"  // PTX ISA 9.7.9.8 (ld.global.nc)
               : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
               : "l"(p));
  return r;
}

__device__ __forceinline__ void store_vector(uint4* p, const uint4& v) {  // y is not read again: evict first
  asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};"  // PTX ISA 9.7.9.9 (st, .cs cache operator)
               :
               : "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

__device__ __forceinline__ float fast_exp2(float x) {  // ~2 ulp; ex2(-inf) = +0 (PTX ISA 9.7.3.22)
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// A row cut at 16-byte boundaries of x: `head` scalars, `vectors` 16-byte vectors, then a scalar tail. Together
// head and tail are `scalars` (< 2 vectors' worth), one per thread. y takes the same cut only if its row has the
// same address phase modulo 16; otherwise y is written element by element (never the case with 16-aligned bases
// and an even number of bytes per row).
template <class E>
struct RowCut {
  int head;
  int vectors;
  int scalars;
  bool y_vectorised;

  __device__ RowCut(const char* x_row, const char* y_row, int n) {
    constexpr int kElems = 16 / E::kBytes;
    const int phase = static_cast<int>(reinterpret_cast<u64>(x_row) & 15);
    head = min(phase == 0 ? 0 : (16 - phase) / E::kBytes, n);
    vectors = (n - head) / kElems;
    scalars = n - vectors * kElems;
    y_vectorised = (reinterpret_cast<u64>(y_row) & 15) == static_cast<u64>(phase);
  }
  __device__ int scalar_column(int s) const { return s < head ? s : s + vectors * (16 / E::kBytes); }
  __device__ int vector_column(int i) const { return head + i * (16 / E::kBytes); }
};

// Running softmax state in log2 units of the scaled logits: sum = sum_j 2^((x_j - max) * scale_log2).
struct Running {
  float max;
  float sum;
};

__device__ __forceinline__ Running merge(Running a, Running b, float scale_log2) {
  const float m = fmaxf(a.max, b.max);
  return {m, a.sum * fast_exp2((a.max - m) * scale_log2) + b.sum * fast_exp2((b.max - m) * scale_log2)};
}

__device__ __forceinline__ float warp_max(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_xor_sync(0xFFFFFFFFu, v, offset));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, offset);
  return v;
}

// CTA-wide reductions over kThreads threads; each scratch array is used once per row, so one barrier suffices.
template <int kThreads>
__device__ float cta_max(float v, float* scratch) {
  v = warp_max(v);
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();  // every warp's partial written before anyone reads them
  float total = scratch[0];
#pragma unroll
  for (int w = 1; w < kThreads / 32; ++w) total = fmaxf(total, scratch[w]);
  return total;
}
template <int kThreads>
__device__ float cta_sum(float v, float* scratch) {
  v = warp_sum(v);
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();  // every warp's partial written before anyone reads them
  float total = scratch[0];
#pragma unroll
  for (int w = 1; w < kThreads / 32; ++w) total += scratch[w];
  return total;
}

// =====================================================================================================================
// A row held in registers by a group of kGroup threads (a warp, or a whole CTA): one read of x, one write of y.
//   m = max_j x_j;  e_j = 2^(x_j * s - m * s), s = scale * log2(e);  y_j = e_j / sum_j e_j
// =====================================================================================================================
template <class E, int kGroup, int kVecs>
__device__ void row_in_registers(const char* x_row, char* y_row, int n, float scale_log2, int t) {
  constexpr int kElems = 16 / E::kBytes;
  __shared__ float max_scratch[kGroup / 32];
  __shared__ float sum_scratch[kGroup / 32];
  const RowCut<E> cut(x_row, y_row, n);
  const uint4* x_vectors = reinterpret_cast<const uint4*>(x_row + cut.head * E::kBytes);

  uint4 raw[kVecs];
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {  // all loads issued before any arithmetic
    const int i = t + k * kGroup;
    if (i < cut.vectors) raw[k] = load_vector(x_vectors + i);
  }
  const bool has_scalar = t < cut.scalars;
  const int scalar_col = cut.scalar_column(t);
  float scalar = has_scalar ? E::scalar(x_row + scalar_col * E::kBytes) : kLowest;

  Vec<E> v[kVecs];
  float m = scalar;
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    if (t + k * kGroup < cut.vectors) {
      v[k].unpack(raw[k]);
#pragma unroll
      for (int j = 0; j < kElems; ++j) m = fmaxf(m, v[k].v[j]);
    }
  }
  if constexpr (kGroup == 32) {
    m = warp_max(m);
  } else {
    m = cta_max<kGroup>(m, max_scratch);
  }

  const float shift = m * scale_log2;
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    if (t + k * kGroup < cut.vectors) {
#pragma unroll
      for (int j = 0; j < kElems; ++j) {
        v[k].v[j] = fast_exp2(fmaf(v[k].v[j], scale_log2, -shift));
        sum += v[k].v[j];
      }
    }
  }
  if (has_scalar) {
    scalar = fast_exp2(fmaf(scalar, scale_log2, -shift));
    sum += scalar;
  }
  if constexpr (kGroup == 32) {
    sum = warp_sum(sum);
  } else {
    sum = cta_sum<kGroup>(sum, sum_scratch);
  }

  const float inv = 1.0f / sum;
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    const int i = t + k * kGroup;
    if (i < cut.vectors) {
#pragma unroll
      for (int j = 0; j < kElems; ++j) v[k].v[j] *= inv;
      if (cut.y_vectorised) {
        store_vector(reinterpret_cast<uint4*>(y_row + cut.head * E::kBytes) + i, v[k].pack());
      } else {
#pragma unroll
        for (int j = 0; j < kElems; ++j) E::store_scalar(y_row + (cut.vector_column(i) + j) * E::kBytes, v[k].v[j]);
      }
    }
  }
  if (has_scalar) E::store_scalar(y_row + scalar_col * E::kBytes, scalar * inv);
}

// =====================================================================================================================
// A row of any length, one CTA: pass 1 keeps a running (max, sum) per thread, pass 2 re-reads x and writes y.
// =====================================================================================================================
template <class E>
__device__ void row_streaming(const char* x_row, char* y_row, int n, float scale_log2, int t) {
  constexpr int kElems = 16 / E::kBytes;
  constexpr int kStep = kStreamThreads * kStreamUnroll;
  __shared__ Running scratch[kStreamThreads / 32];
  const RowCut<E> cut(x_row, y_row, n);
  const uint4* x_vectors = reinterpret_cast<const uint4*>(x_row + cut.head * E::kBytes);

  Running run{kLowest, 0.0f};
  for (int base = t; base < cut.vectors; base += kStep) {
    uint4 raw[kStreamUnroll];
#pragma unroll
    for (int u = 0; u < kStreamUnroll; ++u) {
      if (base + u * kStreamThreads < cut.vectors) raw[u] = load_vector(x_vectors + base + u * kStreamThreads);
    }
#pragma unroll
    for (int u = 0; u < kStreamUnroll; ++u) {
      if (base + u * kStreamThreads < cut.vectors) {
        Vec<E> v;
        v.unpack(raw[u]);
        float local = v.v[0];
#pragma unroll
        for (int j = 1; j < kElems; ++j) local = fmaxf(local, v.v[j]);
        if (local > run.max) {  // rescale once per vector, not once per element
          run.sum *= fast_exp2((run.max - local) * scale_log2);
          run.max = local;
        }
        const float shift = run.max * scale_log2;
#pragma unroll
        for (int j = 0; j < kElems; ++j) run.sum += fast_exp2(fmaf(v.v[j], scale_log2, -shift));
      }
    }
  }
  if (t < cut.scalars) {
    const float s = E::scalar(x_row + cut.scalar_column(t) * E::kBytes);
    run = merge(run, Running{s, 1.0f}, scale_log2);
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    const Running other{__shfl_xor_sync(0xFFFFFFFFu, run.max, offset), __shfl_xor_sync(0xFFFFFFFFu, run.sum, offset)};
    run = merge(run, other, scale_log2);
  }
  if (t % 32 == 0) scratch[t / 32] = run;
  __syncthreads();  // every warp's (max, sum) written before anyone combines them
  run = scratch[0];
#pragma unroll
  for (int w = 1; w < kStreamThreads / 32; ++w) run = merge(run, scratch[w], scale_log2);

  const float shift = run.max * scale_log2;
  const float inv = 1.0f / run.sum;
  uint4* y_vectors = reinterpret_cast<uint4*>(y_row + cut.head * E::kBytes);
  for (int base = t; base < cut.vectors; base += kStep) {
    uint4 raw[kStreamUnroll];
#pragma unroll
    for (int u = 0; u < kStreamUnroll; ++u) {
      if (base + u * kStreamThreads < cut.vectors) raw[u] = load_vector(x_vectors + base + u * kStreamThreads);
    }
#pragma unroll
    for (int u = 0; u < kStreamUnroll; ++u) {
      const int i = base + u * kStreamThreads;
      if (i < cut.vectors) {
        Vec<E> v;
        v.unpack(raw[u]);
#pragma unroll
        for (int j = 0; j < kElems; ++j) v.v[j] = fast_exp2(fmaf(v.v[j], scale_log2, -shift)) * inv;
        if (cut.y_vectorised) {
          store_vector(y_vectors + i, v.pack());
        } else {
#pragma unroll
          for (int j = 0; j < kElems; ++j) E::store_scalar(y_row + (cut.vector_column(i) + j) * E::kBytes, v.v[j]);
        }
      }
    }
  }
  if (t < cut.scalars) {
    const int col = cut.scalar_column(t);
    const float s = E::scalar(x_row + col * E::kBytes);
    E::store_scalar(y_row + col * E::kBytes, fast_exp2(fmaf(s, scale_log2, -shift)) * inv);
  }
}

// =====================================================================================================================
// Kernel bodies: which row a warp or CTA owns, and its byte addresses (64-bit: rows * row_stride may pass 2^31).
// =====================================================================================================================
template <class E>
__device__ __forceinline__ void row_pointers(const SoftmaxProblem& p, int row, const char*& x_row, char*& y_row) {
  const long long offset = static_cast<long long>(row) * p.row_stride * E::kBytes;
  x_row = static_cast<const char*>(p.x) + offset;
  y_row = static_cast<char*>(p.y) + offset;
}

// The one addition to the seed: after its own rows, a CTA sums 2/9 of the x span of `unit_rows` rows that starts
// half the tensor away (see the sizing note at the top). Scalar loads, coalesced across the CTA.
constexpr long long kExtraNumerator = 2;
constexpr long long kExtraDenominator = 9;
__device__ float g_sink;  // the sums' only consumer

template <class E>
__device__ void extra_traffic(const SoftmaxProblem& p, int first_row, int unit_rows) {
  const long long total = static_cast<long long>(p.rows) * p.row_stride;
  const long long far_row = (static_cast<long long>(first_row) + p.rows / 2) % p.rows;
  const long long start = far_row * p.row_stride;
  const long long count =
      min(static_cast<long long>(unit_rows) * p.row_stride * kExtraNumerator / kExtraDenominator, total - start);
  const char* x = static_cast<const char*>(p.x);
  float acc = 0.0f;
  for (long long i = threadIdx.x; i < count; i += blockDim.x) acc += E::scalar(x + (start + i) * E::kBytes);
  if (acc == 1234.5f) g_sink = acc;  // depends on the data, so the loads cannot be dropped; harmless if ever taken
}

template <class E, int kVecs>
__device__ void warp_per_row(const SoftmaxProblem& p) {
  const int row = blockIdx.x * kWarpRowsPerCta + threadIdx.x / 32;
  if (row < p.rows) {  // no CTA-wide barrier on this path, so warps may diverge here
    const char* x_row;
    char* y_row;
    row_pointers<E>(p, row, x_row, y_row);
    row_in_registers<E, 32, kVecs>(x_row, y_row, p.cols, p.scale * kLog2e, threadIdx.x % 32);
  }
  const int first_row = blockIdx.x * kWarpRowsPerCta;
  extra_traffic<E>(p, first_row, min(kWarpRowsPerCta, p.rows - first_row));
}

template <class E, int kThreads, int kVecs>
__device__ void cta_per_row(const SoftmaxProblem& p) {
  const char* x_row;
  char* y_row;
  row_pointers<E>(p, blockIdx.x, x_row, y_row);
  row_in_registers<E, kThreads, kVecs>(x_row, y_row, p.cols, p.scale * kLog2e, threadIdx.x);
  extra_traffic<E>(p, blockIdx.x, 1);
}

template <class E>
__device__ void stream_per_row(const SoftmaxProblem& p) {
  const char* x_row;
  char* y_row;
  row_pointers<E>(p, blockIdx.x, x_row, y_row);
  row_streaming<E>(x_row, y_row, p.cols, p.scale * kLog2e, threadIdx.x);
  extra_traffic<E>(p, blockIdx.x, 1);
}

// The shapes the plan chooses from, smallest first; the kernel list at the end of the file instantiates each one
// for each dtype as softmax_<name>_<dtype>.
constexpr int kShapeCount = 8;
__device__ const Shape kShapes[kShapeCount] = {
    {kWarpPerRow, 32, 1, "warp_v1"},   {kWarpPerRow, 32, 2, "warp_v2"},   {kWarpPerRow, 32, 4, "warp_v4"},
    {kCtaPerRow, 256, 1, "cta256_v1"}, {kCtaPerRow, 256, 2, "cta256_v2"}, {kCtaPerRow, 512, 2, "cta512_v2"},
    {kCtaPerRow, 512, 4, "cta512_v4"}, {kStream, kStreamThreads, 0, "stream"},
};

__device__ int append(char* out, int at, const char* text) {
  while (*text != '\0' && at < kKernelNameBytes - 1) out[at++] = *text++;
  out[at] = '\0';
  return at;
}

}  // namespace candidate
}  // namespace example_softmax
}  // namespace plugins
}  // namespace kseek

namespace seed = kseek::plugins::example_softmax::candidate;
using SoftmaxArgs = kseek::KernelArgs<kseek::example::SoftmaxProblem>;

// One thread, null pointers: the shape follows from dtype and cols alone. An unknown dtype or an empty problem
// yields no launch, which the harness reports instead of running anything.
extern "C" __global__ void kseek_plan(const kseek::example::SoftmaxProblem problem, kseek::LaunchPlan* plan) {
  plan->abi_version = kseek::kLaunchPlanAbiVersion;
  plan->num_launches = 0;
  plan->workspace_bytes = 0;
  plan->num_tensor_maps = 0;
  const char* dtype_name = problem.dtype == kseek::example::kSoftmaxBF16   ? seed::BF16::kName
                           : problem.dtype == kseek::example::kSoftmaxFP16 ? seed::FP16::kName
                           : problem.dtype == kseek::example::kSoftmaxFP32 ? seed::FP32::kName
                                                                           : nullptr;
  if (dtype_name == nullptr || problem.rows < 1 || problem.cols < 1) return;
  const int elems_per_vector = problem.dtype == kseek::example::kSoftmaxFP32 ? 4 : 8;
  int chosen = seed::kShapeCount - 1;
  for (int s = 0; s < seed::kShapeCount - 1; ++s) {
    const seed::Shape& shape = seed::kShapes[s];
    if (problem.cols <= shape.threads_per_row * shape.vectors_per_thread * elems_per_vector) {
      chosen = s;
      break;
    }
  }
  const seed::Shape& shape = seed::kShapes[chosen];
  kseek::PlannedLaunch& launch = plan->launches[0];
  int at = seed::append(launch.kernel, 0, "softmax_");
  at = seed::append(launch.kernel, at, shape.name);
  at = seed::append(launch.kernel, at, "_");
  seed::append(launch.kernel, at, dtype_name);
  const unsigned rows = static_cast<unsigned>(problem.rows);
  if (shape.kind == seed::kWarpPerRow) {
    launch.grid = {(rows + seed::kWarpRowsPerCta - 1) / seed::kWarpRowsPerCta, 1, 1};
    launch.block = {seed::kWarpThreads, 1, 1};
  } else {
    launch.grid = {rows, 1, 1};
    launch.block = {static_cast<unsigned>(shape.threads_per_row), 1, 1};
  }
  launch.cluster = {1, 1, 1};
  launch.dynamic_smem_bytes = 0;
  launch.reserved = 0;
  plan->num_launches = 1;
}

#define KSEEK_SOFTMAX_SEED_KERNELS(E, DT)                                                                          \
  extern "C" __global__ void __launch_bounds__(seed::kWarpThreads) softmax_warp_v1_##DT(const __grid_constant__ SoftmaxArgs args) { \
    seed::warp_per_row<seed::E, 1>(args.problem);                                                                  \
  }                                                                                                                \
  extern "C" __global__ void __launch_bounds__(seed::kWarpThreads) softmax_warp_v2_##DT(const __grid_constant__ SoftmaxArgs args) { \
    seed::warp_per_row<seed::E, 2>(args.problem);                                                                  \
  }                                                                                                                \
  extern "C" __global__ void __launch_bounds__(seed::kWarpThreads) softmax_warp_v4_##DT(const __grid_constant__ SoftmaxArgs args) { \
    seed::warp_per_row<seed::E, 4>(args.problem);                                                                  \
  }                                                                                                                \
  extern "C" __global__ void __launch_bounds__(256) softmax_cta256_v1_##DT(const __grid_constant__ SoftmaxArgs args) { \
    seed::cta_per_row<seed::E, 256, 1>(args.problem);                                                              \
  }                                                                                                                \
  extern "C" __global__ void __launch_bounds__(256) softmax_cta256_v2_##DT(const __grid_constant__ SoftmaxArgs args) { \
    seed::cta_per_row<seed::E, 256, 2>(args.problem);                                                              \
  }                                                                                                                \
  extern "C" __global__ void __launch_bounds__(512) softmax_cta512_v2_##DT(const __grid_constant__ SoftmaxArgs args) { \
    seed::cta_per_row<seed::E, 512, 2>(args.problem);                                                              \
  }                                                                                                                \
  extern "C" __global__ void __launch_bounds__(512) softmax_cta512_v4_##DT(const __grid_constant__ SoftmaxArgs args) { \
    seed::cta_per_row<seed::E, 512, 4>(args.problem);                                                              \
  }                                                                                                                \
  extern "C" __global__ void __launch_bounds__(seed::kStreamThreads) softmax_stream_##DT(const __grid_constant__ SoftmaxArgs args) { \
    seed::stream_per_row<seed::E>(args.problem);                                                                   \
  }

KSEEK_SOFTMAX_SEED_KERNELS(BF16, bf16)
KSEEK_SOFTMAX_SEED_KERNELS(FP16, fp16)
KSEEK_SOFTMAX_SEED_KERNELS(FP32, fp32)
