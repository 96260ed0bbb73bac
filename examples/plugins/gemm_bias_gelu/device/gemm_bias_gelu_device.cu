// example.gemm_bias_gelu's own device code: input generation and the two references (fp64 gold, fp32 same
// precision), each kernel receiving the candidate's Problem. It must never be offered to a candidate, never include a
// toolkit header (kseek's NVRTC offers none here), and favour being obviously right over being fast.
#include <kseek/device/convert.h>
#include <kseek/device/plugin_args.h>
#include <kseek/device/random.h>
#include <kseek/ops/gemm_bias_gelu_problem.h>

using Problem = kseek::ops::GemmBiasGeluProblem;
namespace kd = kseek::device;

constexpr int kTile = 16;  // reference kernels: a 16 x 16 CTA, one thread per output element

// a is ~N(0, 1) with one row in 16 scaled by 8 (outlier tokens); w ~N(0, 1) * 1.5 / sqrt(k), so that the products'
// sum is ~N(0, 1.5^2) whatever k is and spans GELU's curved part; bias ~N(0, 0.5^2) except one channel in 32 at
// +-(4..8), where GELU is the identity or zero. Dropping the bias, a k tail or fp32 accumulation all fail.
extern "C" __global__ void gemm_bias_gelu_fill(const kseek::FillArgs<Problem> args) {
  const Problem& p = args.problem;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const float w_scale = 1.5f * rsqrtf(static_cast<float>(p.k));
  for (long long e = first; e < static_cast<long long>(p.m) * p.k; e += stride) {
    const bool outlier_row = (kd::random_bits(args.seed, 0, e / p.k) & 15) == 0;
    const float value = kd::normal01(kd::random_bits(args.seed, 1, e)) * (outlier_row ? 8.0f : 1.0f);
    static_cast<unsigned short*>(const_cast<void*>(p.a))[e] = kd::float_to_bf16(value);
  }
  for (long long e = first; e < static_cast<long long>(p.n) * p.k; e += stride) {
    const float value = kd::normal01(kd::random_bits(args.seed, 2, e)) * w_scale;
    static_cast<unsigned short*>(const_cast<void*>(p.w))[e] = kd::float_to_bf16(value);
  }
  for (long long j = first; j < p.n; j += stride) {
    const unsigned long long bits = kd::random_bits(args.seed, 3, j);
    float value = 0.5f * kd::normal01(bits);
    if ((bits & 31) == 0) value = (bits & 32 ? 1.0f : -1.0f) * (4.0f + 4.0f * kd::uniform01(bits >> 8));
    static_cast<unsigned short*>(const_cast<void*>(p.bias))[j] = kd::float_to_bf16(value);
  }
}

// sum over k of a[i, k] * w[j, k] for this thread's (i, j), k staged through shared memory 16 at a time.
template <class Accumulator>
__device__ Accumulator tiled_dot(const Problem& p, int i, int j) {
  __shared__ float a_tile[kTile][kTile];  // a[block row + y][k0 + x]
  __shared__ float w_tile[kTile][kTile];  // w[block column + y][k0 + x]
  const auto* a = static_cast<const unsigned short*>(p.a);
  const auto* w = static_cast<const unsigned short*>(p.w);
  const int x = threadIdx.x, y = threadIdx.y, w_row = blockIdx.x * kTile + y;
  Accumulator sum = 0;
  for (int k0 = 0; k0 < p.k; k0 += kTile) {
    const bool in_k = k0 + x < p.k;
    a_tile[y][x] = i < p.m && in_k ? kd::bf16_to_float(a[static_cast<long long>(i) * p.k + k0 + x]) : 0.0f;
    w_tile[y][x] = w_row < p.n && in_k ? kd::bf16_to_float(w[static_cast<long long>(w_row) * p.k + k0 + x]) : 0.0f;
    __syncthreads();  // both tiles complete before anyone reads them
    for (int kk = 0; kk < kTile; ++kk) sum += static_cast<Accumulator>(a_tile[y][kk]) * w_tile[x][kk];
    __syncthreads();  // everyone done reading before the next k0 overwrites them
  }
  return sum;
}

// Gold: the sum and GELU in fp64, rounded once to fp32 (c points at the float gold buffer).
extern "C" __global__ void gemm_bias_gelu_reference_gold(const Problem p) {
  const int i = blockIdx.y * kTile + threadIdx.y, j = blockIdx.x * kTile + threadIdx.x;
  const double s = tiled_dot<double>(p, i, j);
  if (i >= p.m || j >= p.n) return;
  const double x = s + kd::bf16_to_float(static_cast<const unsigned short*>(p.bias)[j]);
  static_cast<float*>(p.c)[static_cast<long long>(i) * p.n + j] =
      static_cast<float>(0.5 * x * (1.0 + erf(x * 0.7071067811865476)));
}

// Same precision: what a careful bf16 kernel does — fp32 sum, fp32 GELU (erff), one rounding to bf16. The tolerance
// rule compares a candidate's error with this one's.
extern "C" __global__ void gemm_bias_gelu_reference_same_precision(const Problem p) {
  const int i = blockIdx.y * kTile + threadIdx.y, j = blockIdx.x * kTile + threadIdx.x;
  const float s = tiled_dot<float>(p, i, j);
  if (i >= p.m || j >= p.n) return;
  const float x = s + kd::bf16_to_float(static_cast<const unsigned short*>(p.bias)[j]);
  static_cast<unsigned short*>(p.c)[static_cast<long long>(i) * p.n + j] =
      kd::float_to_bf16(0.5f * x * (1.0f + erff(x * 0.70710678f)));
}
