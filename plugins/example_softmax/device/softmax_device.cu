// The example_softmax plugin's own device code: input generation and the two references (fp64 gold, fp32 same
// precision), launched by the plugin through DeviceHost. It must never be offered to a candidate, never include a
// system or toolkit header (kseek's NVRTC offers none), and favour being obviously right over being fast.
#include <kseek/example/softmax_problem.h>

#include "softmax_device_params.h"

namespace kseek {
namespace plugins {
namespace example_softmax {
namespace device {

using example::kSoftmaxBF16;
using example::kSoftmaxFP16;
using example::kSoftmaxFP32;
using u16 = unsigned short;
using u32 = unsigned int;
using u64 = unsigned long long;

constexpr int kThreads = 256;  // every reference kernel: one CTA per row
constexpr int kWarps = kThreads / 32;
constexpr float kFp16Limit = 60000.0f;  // inputs stay finite in fp16 (max 65504) whatever the scale

// ---- element access (no cuda_bf16.h / cuda_fp16.h under NVRTC: conversions are PTX cvt, PTX ISA 9.7.9.21) ----

__device__ float load_element(const void* base, long long index, int dtype) {
  if (dtype == kSoftmaxFP32) return static_cast<const float*>(base)[index];
  const u16 bits = static_cast<const u16*>(base)[index];
  if (dtype == kSoftmaxBF16) return __uint_as_float(static_cast<u32>(bits) << 16);  // bf16 is fp32's upper half
  float value;
  asm("cvt.f32.f16 %0, %1;" : "=f"(value) : "h"(bits));
  return value;
}

// Round to nearest even, as a careful kernel writing this dtype would.
__device__ void store_element(void* base, long long index, int dtype, float value) {
  if (dtype == kSoftmaxFP32) {
    static_cast<float*>(base)[index] = value;
    return;
  }
  u16 bits;
  if (dtype == kSoftmaxBF16) {
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(value));
  } else {
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(value));
  }
  static_cast<u16*>(base)[index] = bits;
}

// ---- counter-based randomness: every element is a pure function of (seed, row, column) -------------------------

__device__ u64 splitmix64(u64 z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

__device__ float unit_float(u64 bits) { return static_cast<float>(bits >> 40) * (1.0f / 16777216.0f); }  // [0, 1)

// A row's character, in scaled-logit units (the values softmax sees after multiplying by `scale`).
struct RowShape {
  float offset;  // added to every logit of the row; softmax ignores it, a kernel without a running max does not
  float spread;  // the row's own standard deviation: some rows are flat, some peaked
};

__device__ RowShape row_shape(u64 seed, int row) {
  const u64 h = splitmix64(seed ^ (0xA0761D6478BD642Full * (static_cast<u64>(row) + 1)));
  const float kind = unit_float(h);
  const float where = unit_float(splitmix64(h ^ 1));
  RowShape shape;
  if (kind < 0.125f) {
    shape.offset = 95.0f + 25.0f * where;  // exp(logit) overflows fp32 (> e^88.7) for the whole row
  } else if (kind < 0.25f) {
    shape.offset = -(105.0f + 15.0f * where);  // exp(logit) underflows to 0 (< e^-103.3): 0 / 0 without a max
  } else {
    shape.offset = -8.0f + 16.0f * where;
  }
  shape.spread = exp2f(-1.0f + 3.0f * unit_float(splitmix64(h ^ 2)));  // 0.5 .. 4
  return shape;
}

// ---- reductions over one CTA (kThreads threads); `scratch` holds kWarps partials --------------------------------

template <class T, class Op>
__device__ T block_reduce(T value, T* scratch, Op op) {
  for (int offset = 16; offset > 0; offset >>= 1) value = op(value, __shfl_xor_sync(0xFFFFFFFFu, value, offset));
  const int warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0) scratch[warp] = value;
  __syncthreads();  // partials visible to every thread
  T total = scratch[0];
  for (int w = 1; w < kWarps; ++w) total = op(total, scratch[w]);
  __syncthreads();  // nobody overwrites scratch (next reduction) while another thread still reads it
  return total;
}

struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct SumOp {
  template <class T>
  __device__ T operator()(T a, T b) const {
    return a + b;
  }
};

__device__ float row_max(const void* x, long long row_base, int cols, int dtype) {
  __shared__ float scratch[kWarps];
  float m = -3.402823466e38f;  // finite: inputs are finite, so the first real element replaces it
  for (int c = threadIdx.x; c < cols; c += kThreads) m = fmaxf(m, load_element(x, row_base + c, dtype));
  return block_reduce(m, scratch, MaxOp{});
}

}  // namespace device
}  // namespace example_softmax
}  // namespace plugins
}  // namespace kseek

using kseek::plugins::example_softmax::FillParams;
using kseek::plugins::example_softmax::ReferenceParams;
namespace dev = kseek::plugins::example_softmax::device;

// Grid-stride over every element of x: z = offset + spread * g (g ~ N(0, 1) by Irwin-Hall of four uniforms), about
// one element in 1024 lifted 6..14 spreads above its row (the peaks that decide a row), one in 2^20 pushed 40..80
// below it; then x = z / scale, rounded to the dtype. Elements between cols and row_stride are left alone.
extern "C" __global__ void softmax_fill(const FillParams p) {
  const dev::u64 element_seed = dev::splitmix64(p.seed ^ 0x5851F42D4C957F2Dull);
  const long long total = static_cast<long long>(p.rows) * p.cols;
  const float limit = p.dtype == kseek::example::kSoftmaxFP16 ? dev::kFp16Limit : 1.0e30f;
  void* x = reinterpret_cast<void*>(p.x);
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int row = static_cast<int>(i / p.cols);
    const int col = static_cast<int>(i - static_cast<long long>(row) * p.cols);
    const dev::RowShape shape = dev::row_shape(p.seed, row);
    const dev::u64 h = dev::splitmix64(element_seed ^ static_cast<dev::u64>(i));
    const float sum4 = static_cast<float>((h & 0xFFFF) + ((h >> 16) & 0xFFFF) + ((h >> 32) & 0xFFFF) + (h >> 48));
    const float gauss = (sum4 * (1.0f / 65536.0f) - 2.0f) * 1.7320508f;  // mean 0, variance 1
    float z = shape.offset + shape.spread * gauss;
    const dev::u64 h2 = dev::splitmix64(h);
    if ((h2 & 1023) == 0) {
      z += shape.spread * (6.0f + 8.0f * dev::unit_float(h2));
    } else if (((h2 >> 10) & 0xFFFFF) == 0) {
      z -= 40.0f + 40.0f * dev::unit_float(h2);
    }
    const float value = fminf(fmaxf(z / p.scale, -limit), limit);
    dev::store_element(x, static_cast<long long>(row) * p.row_stride + col, p.dtype, value);
  }
}

// The fp32 gold (one CTA per row): max in fp32 (exact), exponentials and their sum in fp64, one division in fp64,
// rounded once to fp32.
extern "C" __global__ void softmax_reference_gold(const ReferenceParams p) {
  __shared__ double scratch[dev::kWarps];
  const long long base = static_cast<long long>(blockIdx.x) * p.row_stride;
  const void* x = reinterpret_cast<const void*>(p.x);
  float* gold = reinterpret_cast<float*>(p.out);
  const double m = dev::row_max(x, base, p.cols, p.dtype);
  const double scale = p.scale;
  double sum = 0.0;
  for (int c = threadIdx.x; c < p.cols; c += dev::kThreads) {
    sum += exp((dev::load_element(x, base + c, p.dtype) - m) * scale);
  }
  sum = dev::block_reduce(sum, scratch, dev::SumOp{});
  for (int c = threadIdx.x; c < p.cols; c += dev::kThreads) {
    gold[base + c] = static_cast<float>(exp((dev::load_element(x, base + c, p.dtype) - m) * scale) / sum);
  }
}

// The same-precision reference (one CTA per row): what a careful kernel in this dtype does — fp32 max, fp32
// exponentials and sum, an fp32 division, output rounded to nearest even in the dtype. The tolerance rule
// compares a candidate's error with this one's, so an honest fp32 kernel lands well inside twice it.
extern "C" __global__ void softmax_reference_same_precision(const ReferenceParams p) {
  __shared__ float scratch[dev::kWarps];
  const long long base = static_cast<long long>(blockIdx.x) * p.row_stride;
  const void* x = reinterpret_cast<const void*>(p.x);
  void* out = reinterpret_cast<void*>(p.out);
  const float m = dev::row_max(x, base, p.cols, p.dtype);
  float sum = 0.0f;
  for (int c = threadIdx.x; c < p.cols; c += dev::kThreads) {
    sum += expf((dev::load_element(x, base + c, p.dtype) - m) * p.scale);
  }
  sum = dev::block_reduce(sum, scratch, dev::SumOp{});
  for (int c = threadIdx.x; c < p.cols; c += dev::kThreads) {
    dev::store_element(out, base + c, p.dtype, expf((dev::load_element(x, base + c, p.dtype) - m) * p.scale) / sum);
  }
}
