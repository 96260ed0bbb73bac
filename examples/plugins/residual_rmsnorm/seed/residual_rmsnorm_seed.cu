// The residual_rmsnorm seed candidate: one CTA per row, 16-byte accesses, the row held in registers between the
// sum-of-squares reduction and the write of y, fp32 maths; and its plan. Device code only, NVRTC for sm_90a: it must
// never include a system or toolkit header, never launch from the device, and never touch memory outside the rows
// that ResidualRmsNormProblem describes.
#include <kseek/device/launch_plan.h>
#include <kseek/ops/residual_rmsnorm_problem.h>

namespace kseek {
namespace plugins {
namespace residual_rmsnorm {
namespace seed {

using ops::ResidualRmsNormProblem;
using u16 = unsigned short;
using u32 = unsigned int;
using u64 = unsigned long long;

// =====================================================================================================================
// Launch shapes. A row of hidden elements is hidden / 8 16-byte vectors; a CTA of kThreads threads holds up to
// kThreads * kVecs of them in registers. Prefill rows use 256-thread CTAs (many CTAs per SM hide latency); decode
// (a few rows, a few CTAs in flight on the whole GPU) spreads a long row over 1024 threads instead. A row that fits no
// register shape, or is not 16-byte aligned, is streamed: a pass that writes residual_out, then one that reads it back.
// =====================================================================================================================
constexpr int kElemsPerVector = 8;  // 16 bytes of 16-bit elements
constexpr int kPrefillThreads = 256;
constexpr int kDecodeThreads = 1024;
constexpr int kStreamThreads = 1024;
constexpr int kDecodeTokens = 256;  // below this many rows (about two per SM on an H200) the decode shapes apply
static_assert(kPrefillThreads % 32 == 0 && kDecodeThreads % 32 == 0 && kStreamThreads % 32 == 0,
              "reductions go through whole warps");

// =====================================================================================================================
// Element types. No cuda_bf16.h / cuda_fp16.h under NVRTC: conversions are PTX cvt (PTX ISA 9.7.9.21), rounding to
// nearest even; the packed forms need sm_80 or later.
// =====================================================================================================================
struct BF16 {
  static constexpr const char* kName = "bf16";
  static __device__ float scalar(const void* p) { return __uint_as_float(u32(*static_cast<const u16*>(p)) << 16); }
  static __device__ u16 round(float v) {
    u16 bits;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(v));
    return bits;
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
  static constexpr const char* kName = "fp16";
  static __device__ float scalar(const void* p) {
    float v;
    asm("cvt.f32.f16 %0, %1;" : "=f"(v) : "h"(*static_cast<const u16*>(p)));
    return v;
  }
  static __device__ u16 round(float v) {
    u16 bits;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(v));
    return bits;
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

// Eight elements of a 16-byte vector, as floats.
template <class E>
struct Vec {
  float v[kElemsPerVector];
  __device__ void unpack(const uint4& raw) {
    E::unpack(raw.x, v[0], v[1]);
    E::unpack(raw.y, v[2], v[3]);
    E::unpack(raw.z, v[4], v[5]);
    E::unpack(raw.w, v[6], v[7]);
  }
  __device__ uint4 pack() const {
    return make_uint4(E::pack(v[0], v[1]), E::pack(v[2], v[3]), E::pack(v[4], v[5]), E::pack(v[6], v[7]));
  }
};

// =====================================================================================================================
// Memory and reduction primitives.
// =====================================================================================================================
__device__ __forceinline__ uint4 load_input(const uint4* p) {  // read-only path: no kernel writes the inputs
  uint4 r;
  asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"  // PTX ISA 9.7.9.8 (ld.global.nc)
               : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
               : "l"(p));
  return r;
}

__device__ __forceinline__ void store_streaming(uint4* p, const uint4& v) {  // y is not read again: evict first
  asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};"                 // PTX ISA 9.7.9.9 (st, .cs cache operator)
               :
               : "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, offset);
  return v;
}

// Sum over the CTA's kThreads threads; each CTA reduces exactly once, so the scratch needs one barrier only.
template <int kThreads>
__device__ float cta_sum(float v) {
  __shared__ float scratch[kThreads / 32];
  v = warp_sum(v);
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();  // every warp's partial written before anyone reads them
  float total = 0.0f;
#pragma unroll
  for (int w = 0; w < kThreads / 32; ++w) total += scratch[w];
  return total;
}

// 1 / sqrt(mean square + eps), from the row's sum of squares of the rounded residual.
__device__ __forceinline__ float inverse_rms(float sum_squares, int hidden, float eps) {
  return rsqrtf(sum_squares / static_cast<float>(hidden) + eps);
}

// Byte addresses of one row (64-bit: tokens * hidden may pass 2^31).
struct Row {
  const char* x;
  const char* residual;
  char* residual_out;
  char* y;
  __device__ Row(const ResidualRmsNormProblem& p, int row) {
    const long long offset = static_cast<long long>(row) * p.hidden * 2;
    x = static_cast<const char*>(p.x) + offset;
    residual = static_cast<const char*>(p.residual) + offset;
    residual_out = static_cast<char*>(p.residual_out) + offset;
    y = static_cast<char*>(p.y) + offset;
  }
};

__device__ __forceinline__ bool vectorisable(const ResidualRmsNormProblem& p) {
  const u64 bases = reinterpret_cast<u64>(p.x) | reinterpret_cast<u64>(p.residual) | reinterpret_cast<u64>(p.weight) |
                    reinterpret_cast<u64>(p.residual_out) | reinterpret_cast<u64>(p.y);
  return (bases & 15) == 0 && p.hidden % kElemsPerVector == 0;
}

// =====================================================================================================================
// Streamed row, any hidden, kThreads threads:
//   pass 1: r = round(x + residual) -> residual_out, s = sum r^2        pass 2: y = round(r * rsqrt(s/hidden+eps) * w)
// Pass 2 reads back the residual_out elements the same thread wrote in pass 1, so no barrier guards them.
// =====================================================================================================================
template <class E, int kThreads>
__device__ void row_streaming(const ResidualRmsNormProblem& p, const Row& row, bool vectorised) {
  const int vectors = vectorised ? p.hidden / kElemsPerVector : 0;
  const int first_scalar = vectors * kElemsPerVector;
  const uint4* x_v = reinterpret_cast<const uint4*>(row.x);
  const uint4* res_v = reinterpret_cast<const uint4*>(row.residual);
  uint4* rout_v = reinterpret_cast<uint4*>(row.residual_out);
  float sum_squares = 0.0f;
  for (int i = threadIdx.x; i < vectors; i += kThreads) {
    Vec<E> a, b;
    a.unpack(load_input(x_v + i));
    b.unpack(load_input(res_v + i));
#pragma unroll
    for (int j = 0; j < kElemsPerVector; ++j) a.v[j] += b.v[j];
    const uint4 rounded = a.pack();
    rout_v[i] = rounded;
    a.unpack(rounded);
#pragma unroll
    for (int j = 0; j < kElemsPerVector; ++j) sum_squares = fmaf(a.v[j], a.v[j], sum_squares);
  }
  u16* rout_s = reinterpret_cast<u16*>(row.residual_out);
  for (int c = first_scalar + threadIdx.x; c < p.hidden; c += kThreads) {
    const u16 bits = E::round(E::scalar(row.x + 2 * c) + E::scalar(row.residual + 2 * c));
    rout_s[c] = bits;
    const float r = E::scalar(&bits);
    sum_squares = fmaf(r, r, sum_squares);
  }
  const float inv_rms = inverse_rms(cta_sum<kThreads>(sum_squares), p.hidden, p.eps);

  const uint4* w_v = static_cast<const uint4*>(p.weight);
  uint4* y_v = reinterpret_cast<uint4*>(row.y);
  for (int i = threadIdx.x; i < vectors; i += kThreads) {
    Vec<E> r, w;
    r.unpack(rout_v[i]);
    w.unpack(load_input(w_v + i));
#pragma unroll
    for (int j = 0; j < kElemsPerVector; ++j) r.v[j] = r.v[j] * inv_rms * w.v[j];
    store_streaming(y_v + i, r.pack());
  }
  u16* y_s = reinterpret_cast<u16*>(row.y);
  const char* w_s = static_cast<const char*>(p.weight);
  for (int c = first_scalar + threadIdx.x; c < p.hidden; c += kThreads) {
    y_s[c] = E::round(E::scalar(&rout_s[c]) * inv_rms * E::scalar(w_s + 2 * c));
  }
}

// =====================================================================================================================
// Row in registers: each thread owns vectors t, t + kThreads, ... (at most kVecs); x and residual are read once,
// residual_out and y written once, weight read once per row (from L2 after the first rows).
// =====================================================================================================================
template <class E, int kThreads, int kVecs>
__device__ void row_in_registers(const ResidualRmsNormProblem& p) {
  const Row row(p, blockIdx.x);
  // The plan picks a register shape only when hidden % 8 == 0, and the problem promises 16-byte aligned bases; a
  // broken promise stops the kernel rather than issuing misaligned vector accesses. (A scalar fallback here would
  // cost the v8 shapes spills, for a path no shipped scenario takes.)
  if (!vectorisable(p)) __trap();
  const int vectors = p.hidden / kElemsPerVector;
  const int t = threadIdx.x;
  const uint4* x_v = reinterpret_cast<const uint4*>(row.x);
  const uint4* res_v = reinterpret_cast<const uint4*>(row.residual);
  const uint4* w_v = static_cast<const uint4*>(p.weight);

  uint4 a_raw[kVecs];
  uint4 b_raw[kVecs];
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {  // all loads in flight before any arithmetic
    if (t + k * kThreads < vectors) {
      a_raw[k] = load_input(x_v + t + k * kThreads);
      b_raw[k] = load_input(res_v + t + k * kThreads);
    }
  }

  uint4 r_raw[kVecs];  // the rounded residual, packed: half the registers of floats
  float sum_squares = 0.0f;
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    if (t + k * kThreads < vectors) {
      Vec<E> a, b;
      a.unpack(a_raw[k]);
      b.unpack(b_raw[k]);
#pragma unroll
      for (int j = 0; j < kElemsPerVector; ++j) a.v[j] += b.v[j];
      r_raw[k] = a.pack();
      reinterpret_cast<uint4*>(row.residual_out)[t + k * kThreads] = r_raw[k];
      a.unpack(r_raw[k]);
#pragma unroll
      for (int j = 0; j < kElemsPerVector; ++j) sum_squares = fmaf(a.v[j], a.v[j], sum_squares);
    }
  }

  uint4 w_raw[kVecs];  // issued before the reduction so their latency hides behind its barrier
#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    if (t + k * kThreads < vectors) w_raw[k] = load_input(w_v + t + k * kThreads);
  }
  const float inv_rms = inverse_rms(cta_sum<kThreads>(sum_squares), p.hidden, p.eps);

#pragma unroll
  for (int k = 0; k < kVecs; ++k) {
    if (t + k * kThreads < vectors) {
      Vec<E> r, w;
      r.unpack(r_raw[k]);
      w.unpack(w_raw[k]);
#pragma unroll
      for (int j = 0; j < kElemsPerVector; ++j) r.v[j] = r.v[j] * inv_rms * w.v[j];
      store_streaming(reinterpret_cast<uint4*>(row.y) + t + k * kThreads, r.pack());
    }
  }
}

template <class E>
__device__ void row_streamed(const ResidualRmsNormProblem& p) {
  row_streaming<E, kStreamThreads>(p, Row(p, blockIdx.x), vectorisable(p));
}

// The register shapes the plan chooses from, smallest first within each thread count; the kernel list at the end of
// the file instantiates each for each dtype as rmsnorm_t<threads>_v<vecs>_<dtype>.
struct Shape {
  int threads;
  int vecs;
  const char* name;
};
constexpr int kShapeCount = 6;
__device__ const Shape kShapes[kShapeCount] = {
    {kDecodeThreads, 1, "t1024_v1"}, {kDecodeThreads, 2, "t1024_v2"}, {kPrefillThreads, 1, "t256_v1"},
    {kPrefillThreads, 2, "t256_v2"}, {kPrefillThreads, 4, "t256_v4"}, {kPrefillThreads, 8, "t256_v8"},
};

__device__ int append(char* out, int at, const char* text) {
  while (*text != '\0' && at < kKernelNameBytes - 1) out[at++] = *text++;
  out[at] = '\0';
  return at;
}

}  // namespace seed
}  // namespace residual_rmsnorm
}  // namespace plugins
}  // namespace kseek

namespace seed = kseek::plugins::residual_rmsnorm::seed;
using RmsNormArgs = kseek::KernelArgs<kseek::ops::ResidualRmsNormProblem>;

// One thread, null pointers: the shape follows from dtype, tokens and hidden alone. An unknown dtype or an empty
// problem yields no launch, which the harness reports instead of running anything.
extern "C" __global__ void kseek_plan(const kseek::ops::ResidualRmsNormProblem problem, kseek::LaunchPlan* plan) {
  plan->abi_version = kseek::kLaunchPlanAbiVersion;
  plan->num_launches = 0;
  plan->workspace_bytes = 0;
  plan->num_tensor_maps = 0;
  const char* dtype_name = problem.dtype == kseek::ops::kResidualRmsNormBF16   ? seed::BF16::kName
                           : problem.dtype == kseek::ops::kResidualRmsNormFP16 ? seed::FP16::kName
                                                                               : nullptr;
  if (dtype_name == nullptr || problem.tokens < 1 || problem.hidden < 1) return;
  // The first register shape of the right kind that holds the row; -1 (streamed) when none does.
  int chosen = -1;
  if (problem.hidden % seed::kElemsPerVector == 0) {
    const int vectors = problem.hidden / seed::kElemsPerVector;
    // Decode spreads a row over 1024 threads only when it has work for more than 256 of them; a row too long for
    // the decode shapes falls to the prefill ones, which hold up to 2048 vectors.
    const bool decode = problem.tokens < seed::kDecodeTokens && vectors > seed::kPrefillThreads;
    for (int pass = decode ? 0 : 1; pass < 2 && chosen < 0; ++pass) {
      const int threads = pass == 0 ? seed::kDecodeThreads : seed::kPrefillThreads;
      for (int s = 0; s < seed::kShapeCount && chosen < 0; ++s) {
        const seed::Shape& shape = seed::kShapes[s];
        if (shape.threads == threads && vectors <= shape.threads * shape.vecs) chosen = s;
      }
    }
  }
  const char* shape_name = chosen < 0 ? "stream" : seed::kShapes[chosen].name;
  const unsigned threads = static_cast<unsigned>(chosen < 0 ? seed::kStreamThreads : seed::kShapes[chosen].threads);
  kseek::PlannedLaunch& launch = plan->launches[0];
  int at = seed::append(launch.kernel, 0, "rmsnorm_");
  at = seed::append(launch.kernel, at, shape_name);
  at = seed::append(launch.kernel, at, "_");
  seed::append(launch.kernel, at, dtype_name);
  launch.grid = {static_cast<unsigned>(problem.tokens), 1, 1};
  launch.block = {threads, 1, 1};
  launch.cluster = {1, 1, 1};
  launch.dynamic_smem_bytes = 0;
  launch.reserved = 0;
  plan->num_launches = 1;
}

// Defines rmsnorm_<shape>_<dtype> for one element type: the names kseek_plan builds from kShapes.
#define KSEEK_RMSNORM_KERNEL(NAME, THREADS, BODY) \
  extern "C" __global__ void __launch_bounds__(THREADS) NAME(const __grid_constant__ RmsNormArgs args) { BODY; }

#define KSEEK_RMSNORM_SEED_KERNELS(E, DT)                                                                     \
  KSEEK_RMSNORM_KERNEL(rmsnorm_t1024_v1_##DT, 1024, (seed::row_in_registers<seed::E, 1024, 1>(args.problem))) \
  KSEEK_RMSNORM_KERNEL(rmsnorm_t1024_v2_##DT, 1024, (seed::row_in_registers<seed::E, 1024, 2>(args.problem))) \
  KSEEK_RMSNORM_KERNEL(rmsnorm_t256_v1_##DT, 256, (seed::row_in_registers<seed::E, 256, 1>(args.problem)))    \
  KSEEK_RMSNORM_KERNEL(rmsnorm_t256_v2_##DT, 256, (seed::row_in_registers<seed::E, 256, 2>(args.problem)))    \
  KSEEK_RMSNORM_KERNEL(rmsnorm_t256_v4_##DT, 256, (seed::row_in_registers<seed::E, 256, 4>(args.problem)))    \
  KSEEK_RMSNORM_KERNEL(rmsnorm_t256_v8_##DT, 256, (seed::row_in_registers<seed::E, 256, 8>(args.problem)))    \
  KSEEK_RMSNORM_KERNEL(rmsnorm_stream_##DT, seed::kStreamThreads, (seed::row_streamed<seed::E>(args.problem)))

KSEEK_RMSNORM_SEED_KERNELS(BF16, bf16)
KSEEK_RMSNORM_SEED_KERNELS(FP16, fp16)
