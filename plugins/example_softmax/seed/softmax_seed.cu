// The example_softmax seed candidate: row softmax with a warp or a CTA per row, 16-byte accesses, fp32 math, and
// its plan. Device code only, NVRTC for sm_90a: it must never include a system or toolkit header, never launch from
// the device, and never touch memory outside the rows of x and y that SoftmaxProblem describes.
#include <kseek/device/launch_plan.h>
#include <kseek/example/softmax_problem.h>

namespace kseek {
namespace plugins {
namespace example_softmax {
namespace seed {

using example::SoftmaxProblem;
using u16 = unsigned short;
using u32 = unsigned int;
using u64 = unsigned long long;

// =====================================================================================================================
// Launch shapes. A row that fits in registers is read once; a longer one is streamed by one CTA, a statistics pass
// (two for fp32) and then a write pass (the re-reads mostly hit L2). The plan takes the first shape whose capacity
// (threads per row * vectors per thread * elements per vector) holds cols.
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
  asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};"              // PTX ISA 9.7.9.9 (st, .cs cache operator)
               :
               : "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

__device__ __forceinline__ float fast_exp2(float x) {  // ~2 ulp; ex2(-inf) = +0 (PTX ISA 9.7.3.22)
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// exp(scale * (x - max)) for a row's max. 16-bit outputs: ex2.approx of x * scale*log2(e) - max * scale*log2(e), one
// FMA and one MUFU op, its error far below half an output ulp. fp32 outputs: expf((x - max) * scale), the way the
// same-precision reference computes it, so the tolerance (twice that reference's error) is not spent here.
template <class E>
struct RowExp {
  float max;
  float scale;
  float shift;  // max * scale * log2(e)
  float scale_log2;

  __device__ RowExp(float row_max, float row_scale)
      : max(row_max), scale(row_scale), shift(row_max * (row_scale * kLog2e)), scale_log2(row_scale * kLog2e) {}
  __device__ float operator()(float x) const {
    if constexpr (E::kBytes == 4) {
      return expf((x - max) * scale);
    } else {
      return fast_exp2(fmaf(x, scale_log2, -shift));
    }
  }
};

// A row cut at 16-byte boundaries of x: `head` scalars, `vectors` 16-byte vectors, then a scalar tail. Together
// head and tail are `scalars` (< 2 vectors' worth), one per thread. y takes the same cut only if its row has the
// same address phase modulo 16; otherwise y is written element by element (only when the bases of x and y differ
// in alignment modulo 16, since both rows sit at the same offset from their base).
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

// One thread's running softmax state over the elements it has seen: sum = sum_j 2^((x_j - max) * scale_log2).
struct Running {
  float max;
  float sum;
};

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
__device__ void row_in_registers(const char* x_row, char* y_row, int n, float scale, int t) {
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

  const RowExp<E> exp_of(m, scale);
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    if (t + k * kGroup < cut.vectors) {
#pragma unroll
      for (int j = 0; j < kElems; ++j) {
        v[k].v[j] = exp_of(v[k].v[j]);
        sum += v[k].v[j];
      }
    }
  }
  if (has_scalar) {
    scalar = exp_of(scalar);
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
// A row of any length, one CTA: statistics pass(es) over x, then a pass that re-reads x and writes y.
// =====================================================================================================================

// Calls visit(v, i) for every 16-byte vector i of the row this thread owns, kStreamUnroll loads in flight at a time.
template <class E, class Visit>
__device__ __forceinline__ void for_each_vector(const uint4* x_vectors, int count, int t, Visit&& visit) {
  constexpr int kStep = kStreamThreads * kStreamUnroll;
  for (int base = t; base < count; base += kStep) {
    uint4 raw[kStreamUnroll];
#pragma unroll
    for (int u = 0; u < kStreamUnroll; ++u) {
      if (base + u * kStreamThreads < count) raw[u] = load_vector(x_vectors + base + u * kStreamThreads);
    }
#pragma unroll
    for (int u = 0; u < kStreamUnroll; ++u) {
      if (base + u * kStreamThreads < count) {
        Vec<E> v;
        v.unpack(raw[u]);
        visit(v, base + u * kStreamThreads);
      }
    }
  }
}

template <class E>
__device__ void row_streaming(const char* x_row, char* y_row, int n, float scale, int t) {
  constexpr int kElems = 16 / E::kBytes;
  __shared__ float max_scratch[kStreamThreads / 32];
  __shared__ float sum_scratch[kStreamThreads / 32];
  const RowCut<E> cut(x_row, y_row, n);
  const uint4* x_vectors = reinterpret_cast<const uint4*>(x_row + cut.head * E::kBytes);
  const bool has_scalar = t < cut.scalars;
  const int scalar_col = cut.scalar_column(t);
  const float scalar = has_scalar ? E::scalar(x_row + scalar_col * E::kBytes) : kLowest;

  float row_max;
  float row_sum;
  if constexpr (E::kBytes == 4) {
    // fp32 outputs: the exact max first, then the sum against it (one more read of the row, mostly from L2). An
    // online sum would be rescaled every time its max grows, each time with an exponential's rounding error.
    float m = scalar;
    for_each_vector<E>(x_vectors, cut.vectors, t, [&](const Vec<E>& v, int) {
#pragma unroll
      for (int j = 0; j < kElems; ++j) m = fmaxf(m, v.v[j]);
    });
    row_max = cta_max<kStreamThreads>(m, max_scratch);
    const RowExp<E> exp_of(row_max, scale);
    float sum = has_scalar ? exp_of(scalar) : 0.0f;
    for_each_vector<E>(x_vectors, cut.vectors, t, [&](const Vec<E>& v, int) {
#pragma unroll
      for (int j = 0; j < kElems; ++j) sum += exp_of(v.v[j]);
    });
    row_sum = cta_sum<kStreamThreads>(sum, sum_scratch);
  } else {
    // 16-bit outputs: one online pass keeps a running (max, sum) per thread, rescaling once per vector whose max is
    // new. The row's max is then taken exactly and each thread's sum rescaled once to it: pairwise (max, sum) merges
    // would rescale a partial sum once per merge level.
    const float scale_log2 = scale * kLog2e;
    Running run{kLowest, 0.0f};
    const auto add = [&](float local_max, const float* values, int count) {
      if (local_max > run.max) {
        run.sum *= fast_exp2((run.max - local_max) * scale_log2);
        run.max = local_max;
      }
      const float shift = run.max * scale_log2;
      for (int j = 0; j < count; ++j) run.sum += fast_exp2(fmaf(values[j], scale_log2, -shift));
    };
    for_each_vector<E>(x_vectors, cut.vectors, t, [&](const Vec<E>& v, int) {
      float local = v.v[0];
#pragma unroll
      for (int j = 1; j < kElems; ++j) local = fmaxf(local, v.v[j]);
      add(local, v.v, kElems);
    });
    if (has_scalar) add(scalar, &scalar, 1);
    row_max = cta_max<kStreamThreads>(run.max, max_scratch);
    row_sum = cta_sum<kStreamThreads>(run.sum * fast_exp2((run.max - row_max) * scale_log2), sum_scratch);
  }

  const RowExp<E> exp_of(row_max, scale);
  const float inv = 1.0f / row_sum;
  uint4* y_vectors = reinterpret_cast<uint4*>(y_row + cut.head * E::kBytes);
  for_each_vector<E>(x_vectors, cut.vectors, t, [&](const Vec<E>& v, int i) {
    Vec<E> out;
#pragma unroll
    for (int j = 0; j < kElems; ++j) out.v[j] = exp_of(v.v[j]) * inv;
    if (cut.y_vectorised) {
      store_vector(y_vectors + i, out.pack());
    } else {
#pragma unroll
      for (int j = 0; j < kElems; ++j) E::store_scalar(y_row + (cut.vector_column(i) + j) * E::kBytes, out.v[j]);
    }
  });
  if (has_scalar) E::store_scalar(y_row + scalar_col * E::kBytes, exp_of(scalar) * inv);
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

template <class E, int kVecs>
__device__ void warp_per_row(const SoftmaxProblem& p) {
  const int row = blockIdx.x * kWarpRowsPerCta + threadIdx.x / 32;
  if (row >= p.rows) return;  // no CTA-wide barrier on this path, so a warp may leave alone
  const char* x_row;
  char* y_row;
  row_pointers<E>(p, row, x_row, y_row);
  row_in_registers<E, 32, kVecs>(x_row, y_row, p.cols, p.scale, threadIdx.x % 32);
}

template <class E, int kThreads, int kVecs>
__device__ void cta_per_row(const SoftmaxProblem& p) {
  const char* x_row;
  char* y_row;
  row_pointers<E>(p, blockIdx.x, x_row, y_row);
  row_in_registers<E, kThreads, kVecs>(x_row, y_row, p.cols, p.scale, threadIdx.x);
}

template <class E>
__device__ void stream_per_row(const SoftmaxProblem& p) {
  const char* x_row;
  char* y_row;
  row_pointers<E>(p, blockIdx.x, x_row, y_row);
  row_streaming<E>(x_row, y_row, p.cols, p.scale, threadIdx.x);
}

// The shapes the plan chooses from, smallest first; the kernel list at the end of the file instantiates each one
// for each dtype as softmax_<name>_<dtype>.
constexpr int kShapeCount = 8;
__device__ const Shape kShapes[kShapeCount] = {
    {kWarpPerRow, 32, 1, "warp_v1"},   {kWarpPerRow, 32, 2, "warp_v2"},        {kWarpPerRow, 32, 4, "warp_v4"},
    {kCtaPerRow, 256, 1, "cta256_v1"}, {kCtaPerRow, 256, 2, "cta256_v2"},      {kCtaPerRow, 512, 2, "cta512_v2"},
    {kCtaPerRow, 512, 4, "cta512_v4"}, {kStream, kStreamThreads, 0, "stream"},
};

__device__ int append(char* out, int at, const char* text) {
  while (*text != '\0' && at < kKernelNameBytes - 1) out[at++] = *text++;
  out[at] = '\0';
  return at;
}

}  // namespace seed
}  // namespace example_softmax
}  // namespace plugins
}  // namespace kseek

namespace seed = kseek::plugins::example_softmax::seed;
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

// Defines softmax_<shape>_<dtype> for one element type: the names kseek_plan builds from kShapes.
#define KSEEK_SOFTMAX_KERNEL(NAME, THREADS, BODY) \
  extern "C" __global__ void __launch_bounds__(THREADS) NAME(const __grid_constant__ SoftmaxArgs args) { BODY; }

#define KSEEK_SOFTMAX_SEED_KERNELS(E, DT)                                                                        \
  KSEEK_SOFTMAX_KERNEL(softmax_warp_v1_##DT, seed::kWarpThreads, (seed::warp_per_row<seed::E, 1>(args.problem))) \
  KSEEK_SOFTMAX_KERNEL(softmax_warp_v2_##DT, seed::kWarpThreads, (seed::warp_per_row<seed::E, 2>(args.problem))) \
  KSEEK_SOFTMAX_KERNEL(softmax_warp_v4_##DT, seed::kWarpThreads, (seed::warp_per_row<seed::E, 4>(args.problem))) \
  KSEEK_SOFTMAX_KERNEL(softmax_cta256_v1_##DT, 256, (seed::cta_per_row<seed::E, 256, 1>(args.problem)))          \
  KSEEK_SOFTMAX_KERNEL(softmax_cta256_v2_##DT, 256, (seed::cta_per_row<seed::E, 256, 2>(args.problem)))          \
  KSEEK_SOFTMAX_KERNEL(softmax_cta512_v2_##DT, 512, (seed::cta_per_row<seed::E, 512, 2>(args.problem)))          \
  KSEEK_SOFTMAX_KERNEL(softmax_cta512_v4_##DT, 512, (seed::cta_per_row<seed::E, 512, 4>(args.problem)))          \
  KSEEK_SOFTMAX_KERNEL(softmax_stream_##DT, seed::kStreamThreads, (seed::stream_per_row<seed::E>(args.problem)))

KSEEK_SOFTMAX_SEED_KERNELS(BF16, bf16)
KSEEK_SOFTMAX_SEED_KERNELS(FP16, fp16)
KSEEK_SOFTMAX_SEED_KERNELS(FP32, fp32)
