// The seed of example.gemm_bias_gelu: C = gelu(A * W^T + bias) on tensor cores (mma.sync m16n8k16, bf16 in, fp32
// accumulate) fed by ldmatrix from a three-stage cp.async pipeline, GELU and bias fused into the register epilogue.
// The ordinary design a competent engineer writes first, for sm_80 and later (built for sm_90a). Device code only: it
// must never rely on a toolkit header — conversions and PTX come from the SDK's kseek/device headers.
#include <kseek/device/convert.h>
#include <kseek/device/launch_plan.h>
#include <kseek/device/ptx.h>
#include <kseek/ops/gemm_bias_gelu_problem.h>

using Problem = kseek::ops::GemmBiasGeluProblem;
namespace kd = kseek::device;

// CTA tile 128 x 128 x 32; 8 warps as 2 (m) x 4 (n), each 64 x 32 = 4 x 4 mma tiles of 16 x 8 per 16-deep k step.
constexpr int kBlockM = 128, kBlockN = 128, kBlockK = 32, kStages = 3;
constexpr int kWarpsM = 2, kWarpsN = 4, kThreads = 32 * kWarpsM * kWarpsN;
constexpr int kWarpM = kBlockM / kWarpsM, kWarpN = kBlockN / kWarpsN;
constexpr int kMmaM = kWarpM / 16, kMmaN = kWarpN / 8;
constexpr int kChunksPerRow = kBlockK / 8;  // 16-byte chunks of a tile row
// A row of 40 elements (80 bytes) puts the 8 rows one ldmatrix phase reads in 8 distinct groups of 4 banks.
constexpr int kRowStride = kBlockK + 8;
static_assert(kWarpN % 16 == 0, "one ldmatrix.x4 gives B for two n8 tiles");
static_assert(kRowStride * 2 % 16 == 0, "cp.async destinations and ldmatrix rows are 16-byte aligned");

struct alignas(16) Stage {
  unsigned short a[kBlockM][kRowStride];  // a[m0 + r][k0 + c] as bf16 bits
  unsigned short w[kBlockN][kRowStride];  // w[n0 + r][k0 + c]
};
constexpr unsigned kSharedBytes = kStages * sizeof(Stage);  // 61440: over 48 KiB, so dynamic and raised by the harness

// Rows [row0, row0 + kRows) x columns [k0, k0 + kBlockK) of a row-major [rows, k] matrix into `tile`, zeros outside.
// kAligned (k % 8 == 0): a 16-byte chunk is wholly inside or outside, and cp.async zero-fills the outside ones.
template <int kRows, bool kAligned>
__device__ __forceinline__ void load_tile(unsigned short (*tile)[kRowStride], const unsigned short* src, int rows,
                                          int k, int row0, int k0) {
  for (int chunk = threadIdx.x; chunk < kRows * kChunksPerRow; chunk += kThreads) {
    const int r = chunk / kChunksPerRow, c = chunk % kChunksPerRow * 8;
    const int row = row0 + r, col = k0 + c;
    const long long at = static_cast<long long>(row) * k + col;
    if constexpr (kAligned) {
      const bool inside = row < rows && col < k;
      kd::cp_async_16(kd::shared_address(&tile[r][c]), inside ? src + at : src, inside ? 16 : 0);
    } else {
      for (int e = 0; e < 8; ++e) tile[r][c + e] = row < rows && col + e < k ? src[at + e] : 0;
    }
  }
}

__device__ __forceinline__ float gelu(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678f)); }

template <bool kAligned>
__device__ __forceinline__ void gemm_bias_gelu(const Problem& p) {
  extern __shared__ __align__(16) unsigned char shared[];
  Stage* stages = reinterpret_cast<Stage*>(shared);
  const auto* a = static_cast<const unsigned short*>(p.a);  // [m, k]
  const auto* w = static_cast<const unsigned short*>(p.w);  // [n, k]
  const int m0 = blockIdx.y * kBlockM, n0 = blockIdx.x * kBlockN;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp_m = warp / kWarpsN * kWarpM, warp_n = warp % kWarpsN * kWarpN;
  const int k_tiles = (p.k + kBlockK - 1) / kBlockK;
  const auto load_stage = [&](int tile) {
    Stage& s = stages[tile % kStages];
    load_tile<kBlockM, kAligned>(s.a, a, p.m, p.k, m0, tile * kBlockK);
    load_tile<kBlockN, kAligned>(s.w, w, p.n, p.k, n0, tile * kBlockK);
  };
  float acc[kMmaM][kMmaN][4] = {};

  // One commit per tile, empty or not, so that "all but kStages - 2 groups done" always means "tile t has landed".
  for (int t = 0; t < kStages - 1; ++t) {
    if (t < k_tiles) load_stage(t);
    kd::cp_async_commit();
  }
  for (int t = 0; t < k_tiles; ++t) {
    kd::cp_async_wait<kStages - 2>();
    __syncthreads();  // tile t is visible to every warp, and every warp is done reading tile t - 1, overwritten next
    if (t + kStages - 1 < k_tiles) load_stage(t + kStages - 1);
    kd::cp_async_commit();
    const Stage& s = stages[t % kStages];
    const int sub = lane / 8, row = lane % 8;  // lanes 8*sub.. address the rows of ldmatrix's matrix `sub`
#pragma unroll
    for (int kk = 0; kk < kBlockK; kk += 16) {
      unsigned af[kMmaM][4], bf[kMmaN][2];
#pragma unroll
      for (int i = 0; i < kMmaM; ++i) {  // matrix sub: rows +8 when sub is odd, k +8 when sub >= 2 (a[0..3] order)
        kd::ldmatrix_x4(af[i], kd::shared_address(&s.a[warp_m + i * 16 + row + (sub & 1) * 8][kk + (sub >> 1) * 8]));
      }
#pragma unroll
      for (int j = 0; j < kMmaN; j += 2) {  // matrix sub: k +8 when sub is odd, the next n8 tile when sub >= 2
        unsigned r[4];
        kd::ldmatrix_x4(r, kd::shared_address(&s.w[warp_n + j * 8 + row + (sub >> 1) * 8][kk + (sub & 1) * 8]));
        bf[j][0] = r[0], bf[j][1] = r[1], bf[j + 1][0] = r[2], bf[j + 1][1] = r[3];
      }
#pragma unroll
      for (int i = 0; i < kMmaM; ++i) {
#pragma unroll
        for (int j = 0; j < kMmaN; ++j) kd::mma_bf16_16816(acc[i][j], af[i], bf[j][0], bf[j][1]);
      }
    }
  }

  // acc[i][j][2h + e] is s[m0 + warp_m + 16i + lane/4 + 8h][n0 + warp_n + 8j + 2(lane%4) + e].
  const auto* bias = static_cast<const unsigned short*>(p.bias);
  auto* c = static_cast<unsigned short*>(p.c);
#pragma unroll
  for (int j = 0; j < kMmaN; ++j) {
    const int col = n0 + warp_n + j * 8 + lane % 4 * 2;
    const float bias0 = col < p.n ? kd::bf16_to_float(bias[col]) : 0.0f;
    const float bias1 = col + 1 < p.n ? kd::bf16_to_float(bias[col + 1]) : 0.0f;
#pragma unroll
    for (int i = 0; i < kMmaM; ++i) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = m0 + warp_m + i * 16 + lane / 4 + h * 8;
        if (row >= p.m || col >= p.n) continue;
        const float v0 = gelu(acc[i][j][2 * h] + bias0), v1 = gelu(acc[i][j][2 * h + 1] + bias1);
        unsigned short* out = c + static_cast<long long>(row) * p.n + col;
        if (col + 1 < p.n && p.n % 2 == 0) {  // an even n keeps the pair 4-byte aligned
          *reinterpret_cast<unsigned*>(out) = kd::pack_bf16x2(v0, v1);
        } else {
          out[0] = kd::float_to_bf16(v0);
          if (col + 1 < p.n) out[1] = kd::float_to_bf16(v1);
        }
      }
    }
  }
}

// Two CTAs per SM: at most 128 registers (124 on sm_90a, no spills) and 2 x 60 KiB of shared memory.
extern "C" __global__ void __launch_bounds__(kThreads, 2)
    gemm_bias_gelu_cp_async(const __grid_constant__ kseek::KernelArgs<Problem> args) {
  gemm_bias_gelu<true>(args.problem);
}

extern "C" __global__ void __launch_bounds__(kThreads, 2)
    gemm_bias_gelu_scalar_loads(const __grid_constant__ kseek::KernelArgs<Problem> args) {
  gemm_bias_gelu<false>(args.problem);
}

// One launch: CTA (x, y) computes c[128y.., 128x..]. cp.async needs 16-byte aligned rows, so k % 8 picks the kernel.
extern "C" __global__ void kseek_plan(const Problem problem, kseek::LaunchPlan* plan) {
  plan->abi_version = kseek::kLaunchPlanAbiVersion;
  plan->num_launches = 1;
  plan->workspace_bytes = 0;
  plan->num_tensor_maps = 0;
  kseek::PlannedLaunch& launch = plan->launches[0];
  const char* name = problem.k % 8 == 0 ? "gemm_bias_gelu_cp_async" : "gemm_bias_gelu_scalar_loads";
  int i = 0;
  for (; name[i] != 0; ++i) launch.kernel[i] = name[i];
  launch.kernel[i] = 0;
  launch.grid = {unsigned((problem.n + kBlockN - 1) / kBlockN), unsigned((problem.m + kBlockM - 1) / kBlockM), 1};
  launch.block = {unsigned(kThreads), 1, 1};
  launch.cluster = {1, 1, 1};
  launch.dynamic_smem_bytes = kSharedBytes;
}
