// The FA3 plugin's seed candidate: FA2-class varlen forward attention (mma.sync m16n8k16 + cp.async) and its plan.
// Device code only, NVRTC for sm_90a: it must never include a system or toolkit header, never launch from the device,
// and never touch memory outside the buffers AttentionProblem and the workspace describe.
#include <kseek/attention/problem.h>
#include <kseek/attention/problem_features.h>
#include <kseek/device/launch_plan.h>

namespace kseek {
namespace plugins {
namespace attention_fa3 {
namespace seed {

using attention::AttentionProblem;
using attention::DType;
using Args = KernelArgs<AttentionProblem>;
using u8 = unsigned char;
using u16 = unsigned short;
using u32 = unsigned int;
using i64 = long long;
using u64 = unsigned long long;

// =====================================================================================================================
// Tile constants. Every kernel of this file is one TileConfig; KSEEK_FA3_SEED_KERNELS at the end lists them all.
// =====================================================================================================================
constexpr int kThreads = 128;  // 4 warps per CTA, every kernel
constexpr int kWarps = kThreads / 32;
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;
constexpr int kWorkspaceHeaderBytes = 256;  // int num_splits, padded so the partials stay 256-byte aligned
constexpr int kMaxSplits = 256;             // the combine keeps one weight per split per warp in shared memory
constexpr int kMinTilesPerSplit = 2;        // a split below this many key tiles costs more than it hides
constexpr int kMaxRowsForDecode = 64;       // GQA-packed query rows per (sequence, kv head) that pick the decode tiling

enum ElemKind : int {
  kElemBF16 = 0,  // bf16 inputs, bf16 MMA
  kElemFP16 = 1,  // fp16 inputs, fp16 MMA
  kElemFP8 = 2,   // e4m3 inputs, widened exactly to fp16 in shared memory, fp16 MMA
};

// kD_/kDV_: padded head dims (multiples of 16; real d/dv are zero-filled up to them in shared memory).
// kWN_: warps that share one 16-row group: they split the keys of S and the channels of O (P goes through smem).
// kMT_: 16-row MMA tiles per warp. kBN_: keys per tile (one cp.async ring slot, one pair of barriers).
// kBNC_: keys per compute chunk (S, softmax and PV run chunk by chunk inside a tile, bounding the S registers).
// kStages_: cp.async ring depth.
template <int kD_, int kDV_, int kWN_, int kMT_, int kBN_, int kBNC_, int kStages_, int kElem_>
struct TileConfig {
  static constexpr int kD = kD_;
  static constexpr int kDV = kDV_;
  static constexpr int kWN = kWN_;
  static constexpr int kWM = kWarps / kWN_;
  static constexpr int kMT = kMT_;
  static constexpr int kBM = kWM * kMT_ * 16;  // GQA-packed query rows per CTA
  static constexpr int kBN = kBN_;
  static constexpr int kBNC = kBNC_;
  static constexpr int kStages = kStages_;
  static constexpr bool kFp8 = kElem_ == kElemFP8;
  static constexpr bool kMmaF16 = kElem_ != kElemBF16;
  static constexpr int kElemBytes = kFp8 ? 1 : 2;
  static constexpr bool kQv = kDV_ == 512;                  // only the MLA tiling carries q_v rows
  static constexpr int kKeysPerWarp = kBNC_ / kWN_;         // S columns one warp owns in a chunk
  static constexpr int kNTS = kKeysPerWarp / 8;             // S n-tiles per warp
  static constexpr int kChPerWarp = kDV_ / kWN_;            // O columns one warp owns
  static constexpr int kNTO = kChPerWarp / 8;               // O n-tiles per warp
  static constexpr int kSAcc = (kMT_ * kNTS >= 2) ? 1 : 2;  // independent S accumulators to break the MMA chain
  static constexpr int kChunksK = kD_ / 8;                  // 8-element copy chunks per K/Q row
  static constexpr int kChunksV = kDV_ / 8;                 // 8-element copy chunks per V/q_v row
  // Shared-memory pitches. +8 elements (16 B) per row staggers the rows of an 8x8 ldmatrix over all 32 banks.
  static constexpr int kLdK = kD_ + 8;
  static constexpr int kLdV = kDV_ + 8;
  static constexpr int kLdP = kBNC_ + 8;
  static constexpr int kRawLdK = kD_ + 16;  // fp8 staging pitch in bytes
  static constexpr int kRawLdV = kDV_ + 16;
  static constexpr int kKVBufs = kFp8 ? 1 : kStages_;  // fp8 converts each landed tile into one fp16 buffer

  static_assert(kD_ % 16 == 0 && kDV_ % 16 == 0, "head dims are padded to MMA k-steps of 16");
  static_assert(kWarps % kWN_ == 0, "warps split into row groups of kWN");
  static_assert(kBNC_ % 16 == 0 && kBN_ % kBNC_ == 0, "PV consumes keys in k-steps of 16; chunks tile the tile");
  static_assert(kBN_ <= kThreads, "one thread computes each key row's cache offsets");
  static_assert(kKeysPerWarp % 8 == 0 && kChPerWarp % 8 == 0, "each warp owns whole n-tiles of 8");
  static_assert(kWN_ == 1 || kMT_ == 1, "key/channel-split warps keep one 16-row tile");
  static_assert(kStages_ >= 2, "the ring needs one tile in flight while another is consumed");
  static_assert(kElem_ >= kElemBF16 && kElem_ <= kElemFP8, "unknown element kind");
};

// One CTA's shared memory. Unused buffers of a tiling collapse to one row.
template <class C>
struct alignas(128) SharedStorage {
  alignas(16) u16 q[C::kBM][C::kLdK];                             // [BM rows, D] Q (fp16/bf16), packed rows
  alignas(16) u16 qv[C::kQv ? C::kBM : 1][C::kQv ? C::kLdV : 8];  // [BM rows, DV] q_v (MLA tiling only)
  alignas(16) u16 k[C::kKVBufs][C::kBN][C::kLdK];                 // [bufs, BN keys, D] K tiles
  alignas(16) u16 v[C::kKVBufs][C::kBN][C::kLdV];                 // [bufs, BN keys, DV] V tiles
  // fp8 only: [stages, BN keys, D bytes] and [stages, BN keys, DV bytes] raw e4m3 ring, widened into k/v[0].
  alignas(16) u8 k_raw[C::kFp8 ? C::kStages : 1][C::kFp8 ? C::kBN : 1][C::kFp8 ? C::kRawLdK : 16];
  alignas(16) u8 v_raw[C::kFp8 ? C::kStages : 1][C::kFp8 ? C::kBN : 1][C::kFp8 ? C::kRawLdV : 16];
  alignas(16) u16 p[C::kWN > 1 ? C::kBM : 1][C::kWN > 1 ? C::kLdP : 8];  // [BM, BNC] probabilities (split warps)
  float red_max[C::kWN][C::kBM];                                         // per-warp partial row maxima of a tile
  float red_sum[C::kWN][C::kBM];                                         // per-warp partial row sums at the end
  i64 k_off[C::kStages][C::kBN];  // [stages, BN keys] element offset of each row in K, -1 past sk (zero-filled)
  i64 v_off[C::kStages][C::kBN];  // [stages, BN keys] same for V
};

extern __shared__ __align__(128) u8 kseek_fa3_smem[];

// =====================================================================================================================
// PTX wrappers. Each cites its PTX ISA section by title and anchor (docs.nvidia.com/cuda/parallel-thread-execution/).
// =====================================================================================================================
__device__ __forceinline__ u32 smem_u32(const void* ptr) { return static_cast<u32>(__cvta_generic_to_shared(ptr)); }

// PTX ISA: cp.async (#data-movement-and-conversion-instructions-cp-async): src_bytes < 16 zero-fills the rest.
__device__ __forceinline__ void cp_async_16(u32 dst, const void* src, u32 src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}
// PTX ISA: cp.async, 8-byte form (.ca is the only cache mode below 16 bytes).
__device__ __forceinline__ void cp_async_8(u32 dst, const void* src, u32 src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}
// PTX ISA: cp.async.commit_group (#data-movement-and-conversion-instructions-cp-async-commit-group).
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// PTX ISA: cp.async.wait_group (#data-movement-and-conversion-instructions-cp-async-wait-group).
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// PTX ISA: ldmatrix (#warp-level-matrix-instructions-ldmatrix): four 8x8 b16 tiles, lane l addresses row l%8
// of tile l/8.
__device__ __forceinline__ void ldsm_x4(u32 addr, u32& r0, u32& r1, u32& r2, u32& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}
// PTX ISA: ldmatrix, two tiles (lanes 0..15 address them).
__device__ __forceinline__ void ldsm_x2(u32 addr, u32& r0, u32& r1) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(r0), "=r"(r1) : "r"(addr));
}
// PTX ISA: ldmatrix .trans: each lane receives a column pair instead of a row pair.
__device__ __forceinline__ void ldsm_x4_t(u32 addr, u32& r0, u32& r1, u32& r2, u32& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}
__device__ __forceinline__ void ldsm_x2_t(u32 addr, u32& r0, u32& r1) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n" : "=r"(r0), "=r"(r1) : "r"(addr));
}

// PTX ISA: mma (#warp-level-matrix-instructions-mma), m16n8k16 row.col, fp32 accumulate; fragment layout in
// #warp-level-matrix-fragment-mma-16816-float.
template <bool kF16>
__device__ __forceinline__ void mma_16816(float (&c)[4], const u32 (&a)[4], u32 b0, u32 b1) {
  if constexpr (kF16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

// PTX ISA: ex2 (#floating-point-instructions-ex2): 2^x, ex2(-inf) = +0.
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}
// PTX ISA: lg2 (#floating-point-instructions-lg2).
__device__ __forceinline__ float fast_log2(float x) {
  float y;
  asm("lg2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}
// PTX ISA: rcp (#floating-point-instructions-rcp).
__device__ __forceinline__ float fast_rcp(float x) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// PTX ISA: cvt (#data-movement-and-conversion-instructions-cvt): hi goes to the upper half, lo to the lower.
template <bool kF16>
__device__ __forceinline__ u32 pack_half2(float lo, float hi) {
  u32 r;
  if constexpr (kF16) {
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  } else {
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  }
  return r;
}
// PTX ISA: cvt .f16x2.e4m3x2 (sm_89+): two e4m3 bytes to two fp16 halves, exactly, low byte to low half.
__device__ __forceinline__ u32 e4m3x2_to_f16x2(u16 pair) {
  u32 r;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;\n" : "=r"(r) : "h"(pair));
  return r;
}
// PTX ISA: cvt: fp32 to one fp16 / bf16 (round to nearest even).
__device__ __forceinline__ u16 f32_to_f16(float x) {
  u16 r;
  asm("cvt.rn.f16.f32 %0, %1;\n" : "=h"(r) : "f"(x));
  return r;
}
__device__ __forceinline__ u16 f32_to_bf16(float x) {
  u16 r;
  asm("cvt.rn.bf16.f32 %0, %1;\n" : "=h"(r) : "f"(x));
  return r;
}
// PTX ISA: %nsmid (#special-registers-nsmid): an upper bound of the SM ids on this device.
__device__ __forceinline__ u32 sm_count() {
  u32 r;
  asm volatile("mov.u32 %0, %%nsmid;\n" : "=r"(r));
  return r;
}

// =====================================================================================================================
// Small helpers
// =====================================================================================================================
__device__ __forceinline__ int imin(int a, int b) { return a < b ? a : b; }
__device__ __forceinline__ int imax(int a, int b) { return a > b ? a : b; }
__device__ __forceinline__ float neg_inf() { return __uint_as_float(0xff800000u); }

// tanh accurate in absolute terms (the softcap multiplies its error by up to ~50): 1 - 2 / (e^{2|x|} + 1).
__device__ __forceinline__ float tanh_abs_accurate(float x) {
  const u32 sign = __float_as_uint(x) & 0x80000000u;
  const float ax = __uint_as_float(__float_as_uint(x) & 0x7fffffffu);
  const float e = fast_exp2(ax * (2.0f * kLog2e));
  const float r = 1.0f - 2.0f * fast_rcp(e + 1.0f);
  return __uint_as_float(__float_as_uint(r) | sign);
}

// First key visible to query row i (bottom-right aligned window), and one past the last; both clamped to [0, sk].
__device__ __forceinline__ int visible_lo(int i, int shift, int window_left) {
  if (window_left < 0) return 0;
  const i64 v = static_cast<i64>(i) + shift - window_left;
  return v < 0 ? 0 : static_cast<int>(v);
}
__device__ __forceinline__ int visible_hi(int i, int shift, int window_right, int sk) {
  if (window_right < 0) return sk;
  const i64 v = static_cast<i64>(i) + shift + window_right + 1;
  return v < 0 ? 0 : (v > sk ? sk : static_cast<int>(v));
}

// One past the last key of the bidirectional span (problem.h v2) that holds key position `pos`, or 0 when none does.
__device__ __forceinline__ int span_end_at(const int* spans, int num_spans, i64 pos) {
  for (int s = 0; s < num_spans; ++s) {
    if (pos >= spans[2 * s] && pos < spans[2 * s + 1]) return spans[2 * s + 1];
  }
  return 0;
}

__device__ __forceinline__ bool aligned_to(const void* ptr, i64 s0, i64 s1, i64 s2, int elem_bytes, int bytes) {
  return (reinterpret_cast<u64>(ptr) % bytes) == 0 && (s0 * elem_bytes) % bytes == 0 &&
         (s1 * elem_bytes) % bytes == 0 && (s2 * elem_bytes) % bytes == 0;
}

// One 8-element chunk copied synchronously (misaligned tensors only); zeros when !ok. dst: 8 elements in shared
// memory; src: 8 elements in global memory (unread when !ok).
template <int kElemBytes>
__device__ __forceinline__ void copy_chunk_sync(void* dst, const u8* src, bool ok) {
  if constexpr (kElemBytes == 2) {
    u16* d = static_cast<u16*>(dst);
    const u16* s = reinterpret_cast<const u16*>(src);
#pragma unroll
    for (int e = 0; e < 8; ++e) d[e] = ok ? s[e] : u16(0);
  } else {
    u8* d = static_cast<u8*>(dst);
#pragma unroll
    for (int e = 0; e < 8; ++e) d[e] = ok ? src[e] : u8(0);
  }
}

// 8 e4m3 bytes (two words) to 8 fp16 in one 16-byte shared store.
__device__ __forceinline__ uint4 widen_e4m3x8(u32 lo, u32 hi) {
  uint4 r;
  r.x = e4m3x2_to_f16x2(static_cast<u16>(lo & 0xffffu));
  r.y = e4m3x2_to_f16x2(static_cast<u16>(lo >> 16));
  r.z = e4m3x2_to_f16x2(static_cast<u16>(hi & 0xffffu));
  r.w = e4m3x2_to_f16x2(static_cast<u16>(hi >> 16));
  return r;
}

// Writes two adjacent output elements (channel c even, c + 1 < dv) in the output dtype. base: O [total_q, hq, dv];
// off: element offset of the first of the two.
__device__ __forceinline__ void store_out_pair(void* base, i64 off, float a, float b, DType dt, bool pair_ok) {
  if (dt == attention::kDTypeFP32) {
    float* o = static_cast<float*>(base) + off;
    if (pair_ok) {
      *reinterpret_cast<float2*>(o) = make_float2(a, b);
    } else {
      o[0] = a;
      o[1] = b;
    }
  } else {
    u16* o = static_cast<u16*>(base) + off;
    const bool f16 = dt == attention::kDTypeFP16;
    const u16 ha = f16 ? f32_to_f16(a) : f32_to_bf16(a);
    const u16 hb = f16 ? f32_to_f16(b) : f32_to_bf16(b);
    if (pair_ok) {
      *reinterpret_cast<u32*>(o) = static_cast<u32>(ha) | (static_cast<u32>(hb) << 16);
    } else {
      o[0] = ha;
      o[1] = hb;
    }
  }
}

// Workspace of a split launch (ws: workspace_bytes, zeroed): [header: int num_splits, 256 B]
// [lse_part: splits x total_q x hq fp32, log2 units, padded to 256 B][o_part: splits x total_q x hq x dv fp32, each
// split normalised by its own row sum].
__device__ __forceinline__ u64 lse_part_bytes(int splits, const AttentionProblem& pr) {
  const u64 n = static_cast<u64>(splits) * static_cast<u64>(pr.total_q) * static_cast<u64>(pr.num_heads_q) * 4u;
  return (n + 255u) / 256u * 256u;
}
__device__ __forceinline__ float* lse_part_ptr(void* ws) {
  return reinterpret_cast<float*>(static_cast<u8*>(ws) + kWorkspaceHeaderBytes);
}
__device__ __forceinline__ float* o_part_ptr(void* ws, int splits, const AttentionProblem& pr) {
  return reinterpret_cast<float*>(static_cast<u8*>(ws) + kWorkspaceHeaderBytes + lse_part_bytes(splits, pr));
}

// =====================================================================================================================
// Loads
// =====================================================================================================================

// The cache row of key row `r` (= threadIdx.x) of key tile `tile`: the block id for paged K/V (fetched from
// block_table), the token index for packed K/V, or -1 past sk or for threads beyond the tile. Split from
// store_tile_offsets so the block_table load can be in flight during a whole tile of MMAs.
template <class C>
__device__ __forceinline__ int fetch_tile_row(int tile, const AttentionProblem& pr, int b, int sk, int k_start) {
  const int r = threadIdx.x;
  const int j = tile * C::kBN + r;
  if (r >= C::kBN || j >= sk) return -1;
  if (!pr.paged) return k_start + j;
  return pr.block_table[static_cast<i64>(b) * pr.block_table_batch_stride + j / pr.block_size];
}

// Element offsets of K/V rows of one key tile into ring slot `slot`; -1 marks a row past sk (zero-filled).
template <class C>
__device__ __forceinline__ void store_tile_offsets(SharedStorage<C>& sm, int slot, int tile, int fetched,
                                                   const AttentionProblem& pr, int kvh) {
  const int r = threadIdx.x;
  if (r >= C::kBN) return;
  i64 ko = -1, vo = -1;
  if (fetched >= 0) {
    if (pr.paged) {
      const int j = tile * C::kBN + r;
      const i64 in_page = j % pr.block_size;
      ko = fetched * pr.k_block_stride + in_page * pr.k_row_stride + kvh * pr.k_head_stride;
      vo = fetched * pr.v_block_stride + in_page * pr.v_row_stride + kvh * pr.v_head_stride;
    } else {
      ko = fetched * pr.k_row_stride + kvh * pr.k_head_stride;
      vo = fetched * pr.v_row_stride + kvh * pr.v_head_stride;
    }
  }
  sm.k_off[slot][r] = ko;
  sm.v_off[slot][r] = vo;
}

// Copies the kRows x kChunks 8-element chunks of one tile (rows at element offsets offs[], -1 = zero row; chunks
// at or past `width` elements zero-filled) into dst ([kRows, kLd] elements of kEs bytes; fp8 lands raw).
// dst: shared [kRows, kLd]; offs: shared [kRows] element offsets; src_base: the K or V tensor (bytes).
template <int kRows, int kChunks, int kLd, int kEs, class Dst>
__device__ __forceinline__ void issue_rows(Dst (*dst)[kLd], const i64* offs, const u8* src_base, int width, bool vec) {
  constexpr int kUnits = kRows * kChunks;
  constexpr int kIt = (kUnits + kThreads - 1) / kThreads;
  constexpr bool kExact = kUnits % kThreads == 0;
  if (vec) {
#pragma unroll
    for (int it = 0; it < kIt; ++it) {
      const int u = threadIdx.x + it * kThreads;
      if (kExact || u < kUnits) {
        const int row = u / kChunks, c = u - (u / kChunks) * kChunks;
        const i64 off = offs[row];
        const bool ok = off >= 0 && c * 8 < width;
        const u8* src = src_base + (ok ? (off + c * 8) * kEs : 0);
        if constexpr (kEs == 1)
          cp_async_8(smem_u32(&dst[row][c * 8]), src, ok ? 8u : 0u);
        else
          cp_async_16(smem_u32(&dst[row][c * 8]), src, ok ? 16u : 0u);
      }
    }
  } else {
#pragma unroll
    for (int it = 0; it < kIt; ++it) {
      const int u = threadIdx.x + it * kThreads;
      if (kExact || u < kUnits) {
        const int row = u / kChunks, c = u - (u / kChunks) * kChunks;
        const i64 off = offs[row];
        const bool ok = off >= 0 && c * 8 < width;
        copy_chunk_sync<kEs>(&dst[row][c * 8], src_base + (ok ? (off + c * 8) * kEs : 0), ok);
      }
    }
  }
}

// Starts the copies of one K/V tile into ring slot `slot` (16-bit: the compute buffers; fp8: the raw ring).
// kb: K (paged [num_blocks, block_size, hkv, d] or flat [total_k, hkv, d]) as bytes; vb: V likewise with dv.
template <class C>
__device__ __forceinline__ void issue_kv_tile(SharedStorage<C>& sm, int slot, const u8* kb, const u8* vb, int d, int dv,
                                              bool vec) {
  if constexpr (C::kFp8) {
    issue_rows<C::kBN, C::kChunksK, C::kRawLdK, 1>(sm.k_raw[slot], sm.k_off[slot], kb, d, vec);
    issue_rows<C::kBN, C::kChunksV, C::kRawLdV, 1>(sm.v_raw[slot], sm.v_off[slot], vb, dv, vec);
  } else {
    issue_rows<C::kBN, C::kChunksK, C::kLdK, 2>(sm.k[slot], sm.k_off[slot], kb, d, vec);
    issue_rows<C::kBN, C::kChunksV, C::kLdV, 2>(sm.v[slot], sm.v_off[slot], vb, dv, vec);
  }
}

// fp8 only: widens the landed raw tile of ring slot `slot` into the single fp16 K/V buffers.
template <class C>
__device__ __forceinline__ void widen_kv_tile(SharedStorage<C>& sm, int slot) {
  if constexpr (C::kFp8) {
    constexpr int kItK = (C::kBN * C::kChunksK + kThreads - 1) / kThreads;
    constexpr int kItV = (C::kBN * C::kChunksV + kThreads - 1) / kThreads;
#pragma unroll
    for (int it = 0; it < kItK; ++it) {
      const int u = threadIdx.x + it * kThreads;
      if (u < C::kBN * C::kChunksK) {
        const int row = u / C::kChunksK, c = u - row * C::kChunksK;
        const uint2 raw = *reinterpret_cast<const uint2*>(&sm.k_raw[slot][row][c * 8]);
        *reinterpret_cast<uint4*>(&sm.k[0][row][c * 8]) = widen_e4m3x8(raw.x, raw.y);
      }
    }
#pragma unroll
    for (int it = 0; it < kItV; ++it) {
      const int u = threadIdx.x + it * kThreads;
      if (u < C::kBN * C::kChunksV) {
        const int row = u / C::kChunksV, c = u - row * C::kChunksV;
        const uint2 raw = *reinterpret_cast<const uint2*>(&sm.v_raw[slot][row][c * 8]);
        *reinterpret_cast<uint4*>(&sm.v[0][row][c * 8]) = widen_e4m3x8(raw.x, raw.y);
      }
    }
  }
}

// Loads the CTA's GQA-packed query rows (row R -> token R / group, head kvh * group + R % group) into `dst`
// (shared [BM, kLd], kChunks*8 columns filled). src_base: Q [total_q, hq, d] or q_v [total_q, hq, dv].
// 16-bit: cp.async (joins the next commit group); fp8: synchronous widen.
template <class C, int kChunks, int kLd>
__device__ __forceinline__ void load_query_rows(u16 (*dst)[kLd], const void* src_base, i64 row_stride, i64 head_stride,
                                                int width, int q_start, int row0, int rows, int group, int kvh,
                                                bool vec) {
  constexpr int kEs = C::kElemBytes;
  constexpr int kIt = (C::kBM * kChunks + kThreads - 1) / kThreads;
  const u8* base = static_cast<const u8*>(src_base);
#pragma unroll
  for (int it = 0; it < kIt; ++it) {
    const int u = threadIdx.x + it * kThreads;
    if (u < C::kBM * kChunks) {
      const int r = u / kChunks, c = u - r * kChunks;
      const int R = row0 + r;
      const bool ok = R < rows && c * 8 < width;
      i64 off = 0;
      if (ok) {
        const int tok = R / group;
        const int head = kvh * group + (R - tok * group);
        off = static_cast<i64>(q_start + tok) * row_stride + static_cast<i64>(head) * head_stride + c * 8;
      }
      const u8* src = base + off * kEs;
      if constexpr (C::kFp8) {
        u32 lo = 0, hi = 0;
        if (ok) {
          if (vec) {
            const uint2 raw = *reinterpret_cast<const uint2*>(src);
            lo = raw.x;
            hi = raw.y;
          } else {
#pragma unroll
            for (int e = 0; e < 4; ++e) lo |= static_cast<u32>(src[e]) << (8 * e);
#pragma unroll
            for (int e = 0; e < 4; ++e) hi |= static_cast<u32>(src[4 + e]) << (8 * e);
          }
        }
        *reinterpret_cast<uint4*>(&dst[r][c * 8]) = widen_e4m3x8(lo, hi);
      } else {
        if (vec)
          cp_async_16(smem_u32(&dst[r][c * 8]), src, ok ? 16u : 0u);
        else
          copy_chunk_sync<2>(&dst[r][c * 8], src, ok);
      }
    }
  }
}

// =====================================================================================================================
// The attention kernel: one CTA = one (sequence, kv head, block of kBM packed query rows, key split).
// Per key tile: S = Q K^T (+ Qv V^T)  ->  mask, softcap  ->  online softmax in base 2  ->  O += P V.
// attention_forward runs the stages below in order; they pass their state on in the small structs that follow.
//
// The stages are written so that NVVM sees the same code as when they were one function, and ptxas allocates the same
// registers (sm_100a moves by tens of registers on small changes). Measured rules, each one needed:
//  - a stage fills its results through a reference: a struct returned by value reorders the PTX;
//  - the early returns stay in attention_forward, not behind a bool returned by a stage;
//  - the running state is three plain arrays (o, m_run, l_run) declared before any other local array: an inlined
//    function's local arrays are placed ahead of its caller's and renumber the loop registers, so the key chunk's
//    float scratch is one struct that attention_forward declares after them (the u32 A fragments inside the stages
//    still come first: in the two-chunk prefill kernels that renumbers registers but changes no count);
//  - O += P V stays in kv_main_loop: behind a call of its own the whole prefill main loop changes on sm_100a.
// =====================================================================================================================

// Which warp and lane this thread is, read once at entry.
struct WarpRole {
  int tid, lane;
  int wn;     // key/channel split index of this warp within its row group
  int g, t4;  // MMA fragment row and column pair
};

// What one CTA works on (CTA-uniform): its sequence, kv head and packed query rows, and the key tiles of its split.
struct CtaWork {
  int b, kvh, group;               // sequence, kv head, query heads per kv head
  int m_block;                     // block of kBM packed query rows
  int split, num_splits;           // this CTA's key split (blockIdx.z) and gridDim.z
  int q_start, sq;                 // first query token of the sequence and its number of tokens
  int rows, row0;                  // packed query rows of the sequence (sq * group) and the CTA's first
  int sk, k_start;                 // keys of the sequence and its first row in packed K/V (0 when paged)
  int shift, wl, wr;               // sk - sq and the window edges visible_lo/visible_hi take (wr = 0 when causal)
  int unmasked_from, unmasked_to;  // a chunk of keys inside [from, to) needs no mask in any row of the CTA
  int my_first, my_count;          // this split's first key tile and its number of tiles
};

// Logits in base 2: m is tracked in the units of s (raw or tanh), exp_mult > 0 maps them.
struct SoftmaxScales {
  float cap_in;    // s * cap_in goes through tanh when use_softcap
  float exp_mult;  // p = 2^(s * exp_mult - m * exp_mult)
  float v_scale;   // fp8 V descale, applied to the output
  bool use_softcap;
  bool has_qv;  // MLA tiling with a q_v operand in this problem
};

// Where the main loop streams K/V from: the tensors as bytes and whether they take 16-byte (fp8: 8-byte) cp.async.
struct KvSource {
  const u8* kb;
  const u8* vb;
  bool vec;
};

// This thread's place in the warp tiling and its ldmatrix lane coordinates (elements of the shared tiles).
struct ThreadLayout {
  int wn, g, t4;                           // as in WarpRole
  int a_row, a_col;                        // A operands: row lane%16, column half lane/16
  int bk_row4, bk_col4, bk_row2, bk_col2;  // B from row-major K-like tiles (x4: two n-tiles; x2: one)
  int bv_row, bv_col4;                     // B from V for PV (.trans; x4: two channel tiles; x2: one)
  int warp_row, warp_key, warp_ch;         // first local row, key of a chunk and O channel of this warp
};

// Where one key chunk of the main loop lies: its K/V buffer and its first key within the tile and within the sequence.
struct ChunkPos {
  int buf, c0, nc;
};

// Per-thread scratch of one key chunk (stage 4). attention_forward owns it (see the rules above).
template <class C>
struct ChunkScratch {
  float sacc[C::kSAcc][C::kMT][C::kNTS][4];  // independent S accumulators (MMA C layout)
  float s[C::kMT][C::kNTS][4];               // S, then the probabilities P
  float mx[C::kMT][2];                       // row maxima of the chunk
  float alpha[C::kMT][2];                    // rescale factors 2^(m_old - m_new) of O and l
  float m_scaled[2];                         // new row maxima of one 16-row tile, in exponent units
};

// One past the last key visible to query token i. Bidirectional spans (causal only) extend a row's right edge to its
// span's end; edges stay monotone in the row. Compiled in only for a plugin whose problems can carry spans
// (problem_features.h): even unused, the span code costs the decode kernels ~25 registers and up to 8% of their speed
// on the H200 (measured 2026-11-30).
__device__ __forceinline__ int row_hi(const AttentionProblem& pr, const CtaWork& cta, int i) {
  const int hi = visible_hi(i, cta.shift, cta.wr, cta.sk);
  if constexpr (kseek::attention::kProblemsHaveSpans) {
    if (pr.num_spans == 0) return hi;
    const int* spans = pr.spans + static_cast<i64>(cta.b) * pr.span_batch_stride;
    return imax(hi, imin(span_end_at(spans, pr.num_spans, static_cast<i64>(i) + cta.shift), cta.sk));
  } else {
    return hi;
  }
}

template <class C>
__device__ __forceinline__ void init_warp_role(WarpRole& r) {
  r.tid = threadIdx.x;
  r.lane = r.tid & 31;
  const int warp = r.tid >> 5;
  r.wn = warp - (warp / C::kWN) * C::kWN;
  r.g = r.lane >> 2;
  r.t4 = r.lane & 3;
}

// ---- stage 1a: grid position -> sequence, kv head, row block and key split; the split count to the workspace ------
template <class C>
__device__ __forceinline__ void locate_cta(const Args& args, const WarpRole& role, CtaWork& cta) {
  const AttentionProblem& pr = args.problem;
  const int hkv = pr.num_heads_kv;
  cta.group = pr.num_heads_q / hkv;
  cta.b = blockIdx.x / hkv;
  cta.kvh = blockIdx.x - (blockIdx.x / hkv) * hkv;
  cta.m_block = gridDim.y - 1 - blockIdx.y;  // the heaviest causal row blocks start first
  cta.split = blockIdx.z;
  cta.num_splits = gridDim.z;

  if (cta.num_splits > 1 && blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0 && role.tid == 0) {
    *static_cast<int*>(args.workspace) = cta.num_splits;  // read by the combine kernel, ordered by the stream
  }
}

// ---- stage 1b: the sequence's packed query rows and the CTA's first (only for a sequence that exists) -------------
template <class C>
__device__ __forceinline__ void locate_rows(const AttentionProblem& pr, CtaWork& cta) {
  cta.q_start = pr.cu_seqlens_q[cta.b];
  cta.sq = pr.cu_seqlens_q[cta.b + 1] - cta.q_start;
  cta.rows = cta.sq * cta.group;
  cta.row0 = cta.m_block * C::kBM;
}

// ---- stage 1c: the keys visible to the CTA's rows and the key tiles of its split (only for rows that exist) -------
// Edge tiles recompute each row's own range (mask_and_row_max).
template <class C>
__device__ __forceinline__ void plan_key_tiles(const AttentionProblem& pr, CtaWork& cta) {
  constexpr int kBN = C::kBN;
  cta.sk = pr.seqused_k ? pr.seqused_k[cta.b] : pr.cu_seqlens_k[cta.b + 1] - pr.cu_seqlens_k[cta.b];
  cta.k_start = pr.paged ? 0 : pr.cu_seqlens_k[cta.b];
  cta.shift = cta.sk - cta.sq;
  cta.wl = pr.window_left;
  cta.wr = pr.causal ? 0 : pr.window_right;
  const int i_first = cta.row0 / cta.group;
  const int i_last = (imin(cta.row0 + C::kBM, cta.rows) - 1) / cta.group;
  const int k_begin = visible_lo(i_first, cta.shift, cta.wl);
  const int k_end = row_hi(pr, cta, i_last);
  cta.unmasked_from = visible_lo(i_last, cta.shift, cta.wl);  // a tile starting here needs no left-edge mask
  cta.unmasked_to = row_hi(pr, cta, i_first);                 // a tile ending here needs no right/sk mask
  const int t_begin = k_begin / kBN;
  const int t_end = k_end > k_begin ? (k_end + kBN - 1) / kBN : t_begin;
  const int tiles_per_split = (t_end - t_begin + cta.num_splits - 1) / cta.num_splits;
  cta.my_first = t_begin + cta.split * tiles_per_split;
  cta.my_count = imax(0, imin(tiles_per_split, t_end - cta.my_first));
}

// ---- stage 2: scales (fp8 folds its per-(sequence, kv head) descales into them) ------------------------------------
template <class C>
__device__ __forceinline__ void init_scales(const AttentionProblem& pr, const CtaWork& cta, SoftmaxScales& sc) {
  float qk_descale = 1.0f, v_scale = 1.0f;
  if constexpr (C::kFp8) {
    const i64 di =
        static_cast<i64>(cta.b) * pr.descale_batch_stride + static_cast<i64>(cta.kvh) * pr.descale_head_stride;
    if (pr.q_descale) qk_descale *= pr.q_descale[di];
    if (pr.k_descale) qk_descale *= pr.k_descale[di];
    if (pr.v_descale) v_scale = pr.v_descale[di];
  }
  const float scale = pr.softmax_scale * qk_descale;
  const bool use_softcap = pr.softcap > 0.0f;
  const float cap_in = use_softcap ? scale / pr.softcap : 0.0f;
  const float exp_mult = use_softcap ? pr.softcap * kLog2e : scale * kLog2e;
  sc.cap_in = cap_in;
  sc.exp_mult = exp_mult;
  sc.v_scale = v_scale;
  sc.use_softcap = use_softcap;
  sc.has_qv = C::kQv && pr.has_q_v;
}

// ---- stage 3: prologue: Q (+ q_v), offsets of the first kS tiles, copies of the first kS - 1 tiles ----------------
template <class C>
__device__ __forceinline__ void start_pipeline(SharedStorage<C>& sm, const AttentionProblem& pr, const CtaWork& cta,
                                               bool has_qv, KvSource& src) {
  constexpr int kS = C::kStages;
  // Vector-copy eligibility (uniform); misaligned tensors take the synchronous element path.
  constexpr int kEs = C::kElemBytes;
  constexpr int kVecBytes = C::kFp8 ? 8 : 16;
  src.vec = aligned_to(pr.k, pr.k_row_stride, pr.k_head_stride, pr.paged ? pr.k_block_stride : 0, kEs, kVecBytes) &&
            aligned_to(pr.v, pr.v_row_stride, pr.v_head_stride, pr.paged ? pr.v_block_stride : 0, kEs, kVecBytes);
  const bool q_vec = aligned_to(pr.q, pr.q_row_stride, pr.q_head_stride, 0, kEs, kVecBytes);

  load_query_rows<C, C::kChunksK, C::kLdK>(sm.q, pr.q, pr.q_row_stride, pr.q_head_stride, pr.head_dim, cta.q_start,
                                           cta.row0, cta.rows, cta.group, cta.kvh, q_vec);
  if constexpr (C::kQv) {
    if (has_qv) {
      const bool qv_vec = aligned_to(pr.q_v, pr.qv_row_stride, pr.qv_head_stride, 0, kEs, kVecBytes);
      load_query_rows<C, C::kChunksV, C::kLdV>(sm.qv, pr.q_v, pr.qv_row_stride, pr.qv_head_stride, pr.head_dim_v,
                                               cta.q_start, cta.row0, cta.rows, cta.group, cta.kvh, qv_vec);
    }
  }
#pragma unroll
  for (int j = 0; j < kS; ++j) {
    if (j < cta.my_count) {
      const int fetched = fetch_tile_row<C>(cta.my_first + j, pr, cta.b, cta.sk, cta.k_start);
      store_tile_offsets(sm, j, cta.my_first + j, fetched, pr, cta.kvh);
    }
  }
  __syncthreads();  // tile offsets written by some threads are read by every thread's copies
  src.kb = static_cast<const u8*>(pr.k);
  src.vb = static_cast<const u8*>(pr.v);
#pragma unroll
  for (int j = 0; j < kS - 1; ++j) {
    if (j < cta.my_count) issue_kv_tile(sm, j, src.kb, src.vb, pr.head_dim, pr.head_dim_v, src.vec);
    cp_async_commit();  // one group per ring slot, empty or not, so wait_group counts stay uniform
  }
}

template <class C>
__device__ __forceinline__ void clear_running_rows(float (&o)[C::kMT][C::kNTO][4], float (&m_run)[C::kMT][2],
                                                   float (&l_run)[C::kMT][2]) {
#pragma unroll
  for (int mt = 0; mt < C::kMT; ++mt) {
#pragma unroll
    for (int nt = 0; nt < C::kNTO; ++nt) {
#pragma unroll
      for (int e = 0; e < 4; ++e) o[mt][nt][e] = 0.0f;
    }
    m_run[mt][0] = m_run[mt][1] = neg_inf();
    l_run[mt][0] = l_run[mt][1] = 0.0f;
  }
}

template <class C>
__device__ __forceinline__ void init_thread_layout(const WarpRole& r, ThreadLayout& tl) {
  const int lane = r.lane;
  tl.wn = r.wn;
  tl.g = r.g;
  tl.t4 = r.t4;
  tl.a_row = lane & 15;
  tl.a_col = (lane >> 4) * 8;
  tl.bk_row4 = (lane & 7) + ((lane >> 4) << 3);
  tl.bk_col4 = ((lane >> 3) & 1) * 8;
  tl.bk_row2 = lane & 7;
  tl.bk_col2 = ((lane >> 3) & 1) * 8;
  tl.bv_row = (lane & 7) + (((lane >> 3) & 1) << 3);
  tl.bv_col4 = (lane >> 4) * 8;
  const int wm = (r.tid >> 5) / C::kWN;  // row group of this warp
  tl.warp_row = wm * C::kMT * 16;
  tl.warp_key = r.wn * C::kKeysPerWarp;
  tl.warp_ch = r.wn * C::kChPerWarp;
}

// ---- stage 4a: S = Q K^T (+ Qv V^T) of the chunk at `at`, into scr.s ----------------------------------------------
template <class C>
__device__ __forceinline__ void compute_scores(const SharedStorage<C>& sm, const ChunkPos& at, bool has_qv,
                                               const ThreadLayout& tl, ChunkScratch<C>& scr) {
  constexpr int kMT = C::kMT, kNTS = C::kNTS;
  constexpr bool kF16 = C::kMmaF16;
  const int buf = at.buf, c0 = at.c0;
  const int warp_row = tl.warp_row, warp_key = tl.warp_key, a_row = tl.a_row, a_col = tl.a_col;
  float(&sacc)[C::kSAcc][kMT][kNTS][4] = scr.sacc;
#pragma unroll
  for (int x = 0; x < C::kSAcc; ++x)
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
      for (int nt = 0; nt < kNTS; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) sacc[x][mt][nt][e] = 0.0f;

  {
    const u32 q_addr = smem_u32(&sm.q[warp_row + a_row][a_col]);
    const u32 k_addr4 = smem_u32(&sm.k[buf][c0 + warp_key + tl.bk_row4][tl.bk_col4]);
    const u32 k_addr2 = smem_u32(&sm.k[buf][c0 + warp_key + tl.bk_row2][tl.bk_col2]);
#pragma unroll
    for (int kk = 0; kk < C::kD / 16; ++kk) {
      u32 a[kMT][4];
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt)
        ldsm_x4(q_addr + (mt * 16 * C::kLdK + kk * 16) * 2, a[mt][0], a[mt][1], a[mt][2], a[mt][3]);
#pragma unroll
      for (int np = 0; np < kNTS / 2; ++np) {
        u32 b0, b1, b2, b3;
        ldsm_x4(k_addr4 + (np * 16 * C::kLdK + kk * 16) * 2, b0, b1, b2, b3);
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt) {
          mma_16816<kF16>(sacc[kk % C::kSAcc][mt][2 * np], a[mt], b0, b1);
          mma_16816<kF16>(sacc[kk % C::kSAcc][mt][2 * np + 1], a[mt], b2, b3);
        }
      }
      if constexpr (kNTS % 2 == 1) {
        u32 b0, b1;
        ldsm_x2(k_addr2 + ((kNTS - 1) * 8 * C::kLdK + kk * 16) * 2, b0, b1);
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt) mma_16816<kF16>(sacc[kk % C::kSAcc][mt][kNTS - 1], a[mt], b0, b1);
      }
    }
  }
  // The same MMA loop as Q K^T above, on q_v and V: kept as a second copy on purpose, since one helper for both moved
  // registers by up to +26 (sm_90a decode) and +-38 (sm_100a) (docs/measurements/2026-12-02-seed-stage-functions.md).
  if constexpr (C::kQv) {
    if (has_qv) {  // MLA: the latent part of every logit, q_v . v, from the V tile read as K-like rows
      const u32 qv_addr = smem_u32(&sm.qv[warp_row + a_row][a_col]);
      const u32 v_addr4 = smem_u32(&sm.v[buf][c0 + warp_key + tl.bk_row4][tl.bk_col4]);
      const u32 v_addr2 = smem_u32(&sm.v[buf][c0 + warp_key + tl.bk_row2][tl.bk_col2]);
#pragma unroll
      for (int kk = 0; kk < C::kDV / 16; ++kk) {
        u32 a[kMT][4];
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt)
          ldsm_x4(qv_addr + (mt * 16 * C::kLdV + kk * 16) * 2, a[mt][0], a[mt][1], a[mt][2], a[mt][3]);
#pragma unroll
        for (int np = 0; np < kNTS / 2; ++np) {
          u32 b0, b1, b2, b3;
          ldsm_x4(v_addr4 + (np * 16 * C::kLdV + kk * 16) * 2, b0, b1, b2, b3);
#pragma unroll
          for (int mt = 0; mt < kMT; ++mt) {
            mma_16816<kF16>(sacc[kk % C::kSAcc][mt][2 * np], a[mt], b0, b1);
            mma_16816<kF16>(sacc[kk % C::kSAcc][mt][2 * np + 1], a[mt], b2, b3);
          }
        }
        if constexpr (kNTS % 2 == 1) {
          u32 b0, b1;
          ldsm_x2(v_addr2 + ((kNTS - 1) * 8 * C::kLdV + kk * 16) * 2, b0, b1);
#pragma unroll
          for (int mt = 0; mt < kMT; ++mt) mma_16816<kF16>(sacc[kk % C::kSAcc][mt][kNTS - 1], a[mt], b0, b1);
        }
      }
    }
  }
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int nt = 0; nt < kNTS; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        float x = sacc[0][mt][nt][e];
#pragma unroll
        for (int y = 1; y < C::kSAcc; ++y) x += sacc[y][mt][nt][e];
        scr.s[mt][nt][e] = x;
      }
}

// ---- stage 4b: softcap, mask, row max (each feature is one CTA-uniform branch around the whole chunk) -------------
template <class C>
__device__ __forceinline__ void mask_and_row_max(SharedStorage<C>& sm, const AttentionProblem& pr, const CtaWork& cta,
                                                 const SoftmaxScales& sc, const ThreadLayout& tl, const ChunkPos& at,
                                                 ChunkScratch<C>& scr) {
  constexpr int kMT = C::kMT, kNTS = C::kNTS;
  const int g = tl.g, t4 = tl.t4, warp_row = tl.warp_row;
  const int nc = at.nc;
  float(&s)[kMT][kNTS][4] = scr.s;
  float(&mx)[kMT][2] = scr.mx;
  if (sc.use_softcap) {
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
      for (int nt = 0; nt < kNTS; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) s[mt][nt][e] = tanh_abs_accurate(s[mt][nt][e] * sc.cap_in);
  }
  if (!(nc >= cta.unmasked_from && nc + C::kBNC <= cta.unmasked_to)) {
    // Rare edge tiles: each row's visible range, recomputed here to keep it out of the registers of the hot path.
    // Rows past the last valid one behave like it (their results are never stored).
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
      for (int hf = 0; hf < 2; ++hf) {
        const int tok = imin(cta.row0 + warp_row + mt * 16 + hf * 8 + g, cta.rows - 1) / cta.group;
        const int lo = visible_lo(tok, cta.shift, cta.wl), hi = row_hi(pr, cta, tok);
#pragma unroll
        for (int nt = 0; nt < kNTS; ++nt)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int key = nc + tl.warp_key + nt * 8 + 2 * t4 + e;
            if (key < lo || key >= hi) s[mt][nt][2 * hf + e] = neg_inf();
          }
      }
  }
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt) {
    mx[mt][0] = mx[mt][1] = neg_inf();
#pragma unroll
    for (int nt = 0; nt < kNTS; ++nt) {
      mx[mt][0] = fmaxf(mx[mt][0], fmaxf(s[mt][nt][0], s[mt][nt][1]));
      mx[mt][1] = fmaxf(mx[mt][1], fmaxf(s[mt][nt][2], s[mt][nt][3]));
    }
#pragma unroll
    for (int hf = 0; hf < 2; ++hf) {
      mx[mt][hf] = fmaxf(mx[mt][hf], __shfl_xor_sync(0xffffffffu, mx[mt][hf], 1));
      mx[mt][hf] = fmaxf(mx[mt][hf], __shfl_xor_sync(0xffffffffu, mx[mt][hf], 2));
    }
  }
  if constexpr (C::kWN > 1) {
    if (t4 == 0) {
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt) {
        sm.red_max[tl.wn][warp_row + mt * 16 + g] = mx[mt][0];
        sm.red_max[tl.wn][warp_row + mt * 16 + g + 8] = mx[mt][1];
      }
    }
    __syncthreads();  // every key-split warp's partial row max is visible before the row max is formed
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt) {
#pragma unroll
      for (int w = 0; w < C::kWN; ++w) {
        mx[mt][0] = fmaxf(mx[mt][0], sm.red_max[w][warp_row + mt * 16 + g]);
        mx[mt][1] = fmaxf(mx[mt][1], sm.red_max[w][warp_row + mt * 16 + g + 8]);
      }
    }
  }
}

// ---- stage 4c: online softmax: p = 2^(s * exp_mult - m), O and l rescaled by 2^(m_old - m_new) -------------------
template <class C>
__device__ __forceinline__ void online_softmax(ChunkScratch<C>& scr, float exp_mult, float (&o)[C::kMT][C::kNTO][4],
                                               float (&m_run)[C::kMT][2], float (&l_run)[C::kMT][2]) {
  constexpr int kMT = C::kMT, kNTS = C::kNTS, kNTO = C::kNTO;
  float(&s)[kMT][kNTS][4] = scr.s;
  float(&alpha)[kMT][2] = scr.alpha;
  bool rescale = false;
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt) {
    float(&m_scaled)[2] = scr.m_scaled;
#pragma unroll
    for (int hf = 0; hf < 2; ++hf) {
      const float m_new = fmaxf(m_run[mt][hf], scr.mx[mt][hf]);
      m_scaled[hf] = (m_new == neg_inf()) ? 0.0f : m_new * exp_mult;  // a row with nothing visible yet stays 0
      alpha[mt][hf] = (m_new == m_run[mt][hf]) ? 1.0f : fast_exp2(fmaf(m_run[mt][hf], exp_mult, -m_scaled[hf]));
      rescale |= alpha[mt][hf] != 1.0f;
      m_run[mt][hf] = m_new;
      l_run[mt][hf] *= alpha[mt][hf];
    }
#pragma unroll
    for (int nt = 0; nt < kNTS; ++nt) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float p = fast_exp2(fmaf(s[mt][nt][e], exp_mult, -m_scaled[e >> 1]));
        s[mt][nt][e] = p;
        l_run[mt][e >> 1] += p;
      }
    }
  }
  if (__any_sync(0xffffffffu, rescale)) {  // once the row maxima settle, most tiles skip the O rescale
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt) {
#pragma unroll
      for (int nt = 0; nt < kNTO; ++nt) {
        o[mt][nt][0] *= alpha[mt][0];
        o[mt][nt][1] *= alpha[mt][0];
        o[mt][nt][2] *= alpha[mt][1];
        o[mt][nt][3] *= alpha[mt][1];
      }
    }
  }
}

// ---- stage 4: the split's key tiles through the cp.async ring; per chunk: stages 4a-4c, then O += P V --------------
template <class C>
__device__ __forceinline__ void kv_main_loop(SharedStorage<C>& sm, const AttentionProblem& pr, const CtaWork& cta,
                                             const SoftmaxScales& sc, const KvSource& src, const ThreadLayout& tl,
                                             ChunkScratch<C>& scr, float (&o)[C::kMT][C::kNTO][4],
                                             float (&m_run)[C::kMT][2], float (&l_run)[C::kMT][2]) {
  constexpr int kMT = C::kMT, kNTS = C::kNTS, kNTO = C::kNTO, kS = C::kStages;
  constexpr bool kF16 = C::kMmaF16;
  for (int j = 0; j < cta.my_count; ++j) {
    const int slot = j % kS;
    if (j + kS - 1 < cta.my_count)
      issue_kv_tile(sm, (j + kS - 1) % kS, src.kb, src.vb, pr.head_dim, pr.head_dim_v, src.vec);
    cp_async_commit();
    const bool fetch_ahead =
        j + kS < cta.my_count;  // the row table of tile j + kS is fetched now, stored after the MMAs
    const int fetched = fetch_ahead ? fetch_tile_row<C>(cta.my_first + j + kS, pr, cta.b, cta.sk, cta.k_start) : -1;
    cp_async_wait<kS - 1>();
    __syncthreads();  // tile j (and Q) copied by every thread is visible to every warp
    int buf = slot;
    if constexpr (C::kFp8) {
      widen_kv_tile(sm, slot);
      buf = 0;
      __syncthreads();  // the widened fp16 tile is complete before any warp reads it
    }
    const int tile = cta.my_first + j;
    const int n0 = tile * C::kBN;
#pragma unroll 1
    for (int ch = 0; ch < C::kBN / C::kBNC; ++ch) {
      const int c0 = ch * C::kBNC;  // first key of this chunk within the tile
      const int nc = n0 + c0;       // and within the sequence
      ChunkPos at;
      at.buf = buf;
      at.c0 = c0;
      at.nc = nc;
      compute_scores(sm, at, sc.has_qv, tl, scr);
      mask_and_row_max(sm, pr, cta, sc, tl, at, scr);
      online_softmax(scr, sc.exp_mult, o, m_run, l_run);

      // ---- O += P V ----------------------------------------------------------------------------------------------
      const float(&s)[kMT][kNTS][4] = scr.s;
      const u32 v_addr4 = smem_u32(&sm.v[buf][c0 + tl.bv_row][tl.warp_ch + tl.bv_col4]);
      const u32 v_addr2 = smem_u32(&sm.v[buf][c0 + tl.bv_row][tl.warp_ch]);
      if constexpr (C::kWN == 1) {
        // P stays in registers: the accumulator layout of two adjacent n-tiles is the A layout of one k-step.
#pragma unroll
        for (int kk = 0; kk < C::kBNC / 16; ++kk) {
          u32 a[kMT][4];
#pragma unroll
          for (int mt = 0; mt < kMT; ++mt) {
            a[mt][0] = pack_half2<kF16>(s[mt][2 * kk][0], s[mt][2 * kk][1]);
            a[mt][1] = pack_half2<kF16>(s[mt][2 * kk][2], s[mt][2 * kk][3]);
            a[mt][2] = pack_half2<kF16>(s[mt][2 * kk + 1][0], s[mt][2 * kk + 1][1]);
            a[mt][3] = pack_half2<kF16>(s[mt][2 * kk + 1][2], s[mt][2 * kk + 1][3]);
          }
#pragma unroll
          for (int cp = 0; cp < kNTO / 2; ++cp) {
            u32 b0, b1, b2, b3;
            ldsm_x4_t(v_addr4 + (kk * 16 * C::kLdV + cp * 16) * 2, b0, b1, b2, b3);
#pragma unroll
            for (int mt = 0; mt < kMT; ++mt) {
              mma_16816<kF16>(o[mt][2 * cp], a[mt], b0, b1);
              mma_16816<kF16>(o[mt][2 * cp + 1], a[mt], b2, b3);
            }
          }
          if constexpr (kNTO % 2 == 1) {
            u32 b0, b1;
            ldsm_x2_t(v_addr2 + (kk * 16 * C::kLdV + (kNTO - 1) * 8) * 2, b0, b1);
#pragma unroll
            for (int mt = 0; mt < kMT; ++mt) mma_16816<kF16>(o[mt][kNTO - 1], a[mt], b0, b1);
          }
        }
      } else {
        // Key-split warps: each writes its P columns, then every warp multiplies the whole P row block by its channels.
        const int g = tl.g, warp_row = tl.warp_row;
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt) {
#pragma unroll
          for (int nt = 0; nt < kNTS; ++nt) {
            const int col = tl.warp_key + nt * 8 + 2 * tl.t4;
            *reinterpret_cast<u32*>(&sm.p[warp_row + mt * 16 + g][col]) = pack_half2<kF16>(s[mt][nt][0], s[mt][nt][1]);
            *reinterpret_cast<u32*>(&sm.p[warp_row + mt * 16 + g + 8][col]) =
                pack_half2<kF16>(s[mt][nt][2], s[mt][nt][3]);
          }
        }
        __syncthreads();  // every warp's probabilities are in smem before any warp multiplies the full row by V
        const u32 p_addr = smem_u32(&sm.p[warp_row + tl.a_row][tl.a_col]);
#pragma unroll
        for (int kk = 0; kk < C::kBNC / 16; ++kk) {
          u32 a[kMT][4];
#pragma unroll
          for (int mt = 0; mt < kMT; ++mt)
            ldsm_x4(p_addr + (mt * 16 * C::kLdP + kk * 16) * 2, a[mt][0], a[mt][1], a[mt][2], a[mt][3]);
#pragma unroll
          for (int cp = 0; cp < kNTO / 2; ++cp) {
            u32 b0, b1, b2, b3;
            ldsm_x4_t(v_addr4 + (kk * 16 * C::kLdV + cp * 16) * 2, b0, b1, b2, b3);
#pragma unroll
            for (int mt = 0; mt < kMT; ++mt) {
              mma_16816<kF16>(o[mt][2 * cp], a[mt], b0, b1);
              mma_16816<kF16>(o[mt][2 * cp + 1], a[mt], b2, b3);
            }
          }
          if constexpr (kNTO % 2 == 1) {
            u32 b0, b1;
            ldsm_x2_t(v_addr2 + (kk * 16 * C::kLdV + (kNTO - 1) * 8) * 2, b0, b1);
#pragma unroll
            for (int mt = 0; mt < kMT; ++mt) mma_16816<kF16>(o[mt][kNTO - 1], a[mt], b0, b1);
          }
        }
      }
    }

    if (fetch_ahead) store_tile_offsets(sm, slot, tile + kS, fetched, pr, cta.kvh);
    __syncthreads();  // every warp is done with ring slot j (K, V, P, row maxima) before it is refilled; offsets seen
  }
  cp_async_wait<0>();  // nothing may still land in shared memory after the CTA retires (empty groups, or no tiles)
}

// ---- stage 5a: full row sums l (over the quad, then over the key-split warps) -------------------------------------
template <class C>
__device__ __forceinline__ void reduce_row_sums(SharedStorage<C>& sm, const ThreadLayout& tl,
                                                const float (&l_run)[C::kMT][2], float (&l_row)[C::kMT][2]) {
  constexpr int kMT = C::kMT;
  const int g = tl.g, warp_row = tl.warp_row;
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt) {
#pragma unroll
    for (int hf = 0; hf < 2; ++hf) {
      float l = l_run[mt][hf];
      l += __shfl_xor_sync(0xffffffffu, l, 1);
      l += __shfl_xor_sync(0xffffffffu, l, 2);
      l_row[mt][hf] = l;
    }
  }
  if constexpr (C::kWN > 1) {
    if (tl.t4 == 0) {
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt) {
        sm.red_sum[tl.wn][warp_row + mt * 16 + g] = l_row[mt][0];
        sm.red_sum[tl.wn][warp_row + mt * 16 + g + 8] = l_row[mt][1];
      }
    }
    __syncthreads();  // every key-split warp's partial row sum is visible before the full sum is formed
#pragma unroll
    for (int mt = 0; mt < kMT; ++mt) {
      l_row[mt][0] = l_row[mt][1] = 0.0f;
#pragma unroll
      for (int w = 0; w < C::kWN; ++w) {
        l_row[mt][0] += sm.red_sum[w][warp_row + mt * 16 + g];
        l_row[mt][1] += sm.red_sum[w][warp_row + mt * 16 + g + 8];
      }
    }
  }
}

// ---- stage 5b: normalise and store O and the LSE; with several splits, this split's partial O and its LSE (log2) --
template <class C>
__device__ __forceinline__ void store_output(const Args& args, const CtaWork& cta, const SoftmaxScales& sc,
                                             const ThreadLayout& tl, const float (&o)[C::kMT][C::kNTO][4],
                                             const float (&m_run)[C::kMT][2], const float (&l_row)[C::kMT][2]) {
  const AttentionProblem& pr = args.problem;
  constexpr int kMT = C::kMT, kNTO = C::kNTO;
  const int g = tl.g, t4 = tl.t4, wn = tl.wn;
  const int num_splits = cta.num_splits;
  const bool pair_ok =
      aligned_to(pr.o, pr.o_row_stride, pr.o_head_stride, 0, pr.dtype_o == attention::kDTypeFP32 ? 4 : 2,
                 pr.dtype_o == attention::kDTypeFP32 ? 8 : 4);
  float* lse_part = num_splits > 1 ? lse_part_ptr(args.workspace) : nullptr;
  float* o_part = num_splits > 1 ? o_part_ptr(args.workspace, num_splits, pr) : nullptr;
  const int dv = pr.head_dim_v, hq = pr.num_heads_q;

#pragma unroll
  for (int mt = 0; mt < kMT; ++mt) {
#pragma unroll
    for (int hf = 0; hf < 2; ++hf) {
      const int R = cta.row0 + tl.warp_row + mt * 16 + hf * 8 + g;
      if (R >= cta.rows) continue;
      const int tok = R / cta.group;
      const int head = cta.kvh * cta.group + (R - tok * cta.group);
      const i64 qrow = cta.q_start + tok;
      const float l = l_row[mt][hf];
      const float m_post = (m_run[mt][hf] == neg_inf()) ? neg_inf() : m_run[mt][hf] * sc.exp_mult;
      float factor, lse2;  // output multiplier and log2-sum-exp of the row
      if (num_splits > 1) {
        factor = l > 0.0f ? sc.v_scale * fast_rcp(l) : 0.0f;
        lse2 = l > 0.0f ? m_post + fast_log2(l) : neg_inf();
      } else {
        float big = m_post, sum = l, o_mult = 1.0f;
        if (pr.has_sinks) {
          const float sink2 = pr.sinks[head] * kLog2e;
          big = fmaxf(m_post, sink2);
          o_mult = fast_exp2(m_post - big);
          sum = l * o_mult + fast_exp2(sink2 - big);
        }
        factor = sum > 0.0f ? o_mult * sc.v_scale * fast_rcp(sum) : 0.0f;
        lse2 = sum > 0.0f ? big + fast_log2(sum) : neg_inf();
      }
      if (num_splits > 1) {
        float* dst = o_part + ((static_cast<i64>(cta.split) * pr.total_q + qrow) * hq + head) * dv;
#pragma unroll
        for (int nt = 0; nt < kNTO; ++nt) {
          const int c = tl.warp_ch + nt * 8 + 2 * t4;
          if (c < dv) {
            *reinterpret_cast<float2*>(dst + c) =
                make_float2(o[mt][nt][2 * hf] * factor, o[mt][nt][2 * hf + 1] * factor);
          }
        }
        if (wn == 0 && t4 == 0) lse_part[(static_cast<i64>(cta.split) * pr.total_q + qrow) * hq + head] = lse2;
      } else {
        const i64 base = qrow * pr.o_row_stride + static_cast<i64>(head) * pr.o_head_stride;
#pragma unroll
        for (int nt = 0; nt < kNTO; ++nt) {
          const int c = tl.warp_ch + nt * 8 + 2 * t4;
          if (c < dv) {
            store_out_pair(pr.o, base + c, o[mt][nt][2 * hf] * factor, o[mt][nt][2 * hf + 1] * factor, pr.dtype_o,
                           pair_ok);
          }
        }
        if (pr.return_lse && wn == 0 && t4 == 0) {
          pr.lse[static_cast<i64>(head) * pr.lse_head_stride + qrow] = lse2 == neg_inf() ? neg_inf() : lse2 * kLn2;
        }
      }
    }
  }
}

template <class C>
__device__ __forceinline__ void attention_forward(const Args& args) {
  const AttentionProblem& pr = args.problem;
  SharedStorage<C>& sm = *reinterpret_cast<SharedStorage<C>*>(kseek_fa3_smem);
  WarpRole role;
  init_warp_role<C>(role);

  CtaWork cta;
  locate_cta<C>(args, role, cta);
  if (cta.b >= pr.batch) return;
  locate_rows<C>(pr, cta);
  if (cta.row0 >= cta.rows) return;  // CTA-uniform: no barrier is skipped by part of the CTA
  plan_key_tiles<C>(pr, cta);
  SoftmaxScales sc;
  init_scales<C>(pr, cta, sc);
  KvSource src;
  start_pipeline(sm, pr, cta, sc.has_qv, src);

  float o[C::kMT][C::kNTO][4];  // O accumulators (MMA C layout), scaled to the running max, not yet divided by l
  float m_run[C::kMT][2];       // running row max in the units of s; -inf until a key is visible
  float l_run[C::kMT][2];       // this thread's share of the running row sum
  clear_running_rows<C>(o, m_run, l_run);
  ChunkScratch<C> scr;
  ThreadLayout tl;
  init_thread_layout<C>(role, tl);
  kv_main_loop(sm, pr, cta, sc, src, tl, scr, o, m_run, l_run);

  float l_row[C::kMT][2];
  reduce_row_sums(sm, tl, l_run, l_row);
  store_output<C>(args, cta, sc, tl, o, m_run, l_row);
}

// =====================================================================================================================
// Split combine: one warp per (query token, head); O = sum_s 2^(lse_s - M) O_s / (sum_s 2^(lse_s - M) + sink term).
// =====================================================================================================================
__device__ __forceinline__ void combine_splits(const Args& args) {
  const AttentionProblem& pr = args.problem;
  __shared__ float weight[kWarps][kMaxSplits];  // per warp: 2^(lse_s - M) of every split
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const i64 idx = static_cast<i64>(blockIdx.x) * kWarps + warp;
  const int hq = pr.num_heads_q, dv = pr.head_dim_v;
  if (idx >= static_cast<i64>(pr.total_q) * hq) return;  // warp-uniform; this kernel has no block barrier
  const int splits = *static_cast<const int*>(args.workspace);
  const i64 qrow = idx / hq;
  const int head = static_cast<int>(idx - qrow * hq);
  const float* lse_part = lse_part_ptr(args.workspace);
  const float* o_part = o_part_ptr(args.workspace, splits, pr);

  float big = neg_inf();
  for (int s = lane; s < splits; s += 32)
    big = fmaxf(big, lse_part[(static_cast<i64>(s) * pr.total_q + qrow) * hq + head]);
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) big = fmaxf(big, __shfl_xor_sync(0xffffffffu, big, off));
  float sink2 = neg_inf();
  if (pr.has_sinks) {
    sink2 = pr.sinks[head] * kLog2e;
    big = fmaxf(big, sink2);
  }
  float sum = 0.0f;
  for (int s = lane; s < splits; s += 32) {
    const float w =
        big == neg_inf() ? 0.0f : fast_exp2(lse_part[(static_cast<i64>(s) * pr.total_q + qrow) * hq + head] - big);
    weight[warp][s] = w;
    sum += w;
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  if (pr.has_sinks && big != neg_inf()) sum += fast_exp2(sink2 - big);
  __syncwarp();  // every lane's split weights are in smem before any lane reads all of them
  const float inv = sum > 0.0f ? fast_rcp(sum) : 0.0f;

  const bool pair_ok =
      aligned_to(pr.o, pr.o_row_stride, pr.o_head_stride, 0, pr.dtype_o == attention::kDTypeFP32 ? 4 : 2,
                 pr.dtype_o == attention::kDTypeFP32 ? 8 : 4);
  const i64 out_base = qrow * pr.o_row_stride + static_cast<i64>(head) * pr.o_head_stride;
  for (int c = 2 * lane; c < dv; c += 64) {
    float a0 = 0.0f, a1 = 0.0f;
    for (int s = 0; s < splits; ++s) {
      const float w = weight[warp][s];
      if (w != 0.0f) {
        const float2 v =
            *reinterpret_cast<const float2*>(o_part + ((static_cast<i64>(s) * pr.total_q + qrow) * hq + head) * dv + c);
        a0 += w * v.x;
        a1 += w * v.y;
      }
    }
    store_out_pair(pr.o, out_base + c, a0 * inv, a1 * inv, pr.dtype_o, pair_ok);
  }
  if (pr.return_lse && lane == 0) {
    pr.lse[static_cast<i64>(head) * pr.lse_head_stride + qrow] = sum > 0.0f ? (big + fast_log2(sum)) * kLn2 : neg_inf();
  }
}

}  // namespace seed
}  // namespace attention_fa3
}  // namespace plugins
}  // namespace kseek

// =====================================================================================================================
// Kernel list, the one place tilings are chosen: variant, element kind, padded d, padded dv, key-split warps (WN),
// 16-row tiles per warp (MT), keys per tile (BN), keys per compute chunk (BNC), ring stages. prefill: 4 warps own 16*MT
// rows each; decode: 4 warps share 16 rows and split keys (S) and channels (PV). Each line is also a plan choice (see
// choose_kernel). There is no fp8 line with dv 512: that shape is MLA with q_v, which fp8 never reaches.
// =====================================================================================================================
#define KSEEK_FA3_SEED_KERNELS(X)                        \
  X(prefill, bf16, kElemBF16, 64, 64, 1, 2, 64, 64, 2)   \
  X(prefill, fp16, kElemFP16, 64, 64, 1, 2, 64, 64, 2)   \
  X(prefill, fp8, kElemFP8, 64, 64, 1, 2, 64, 64, 2)     \
  X(prefill, bf16, kElemBF16, 96, 96, 1, 2, 64, 32, 2)   \
  X(prefill, fp16, kElemFP16, 96, 96, 1, 2, 64, 32, 2)   \
  X(prefill, fp8, kElemFP8, 96, 96, 1, 2, 64, 32, 2)     \
  X(prefill, bf16, kElemBF16, 128, 128, 1, 2, 64, 32, 2) \
  X(prefill, fp16, kElemFP16, 128, 128, 1, 2, 64, 32, 2) \
  X(prefill, fp8, kElemFP8, 128, 128, 1, 2, 64, 32, 2)   \
  X(prefill, bf16, kElemBF16, 192, 128, 1, 2, 32, 16, 2) \
  X(prefill, fp16, kElemFP16, 192, 128, 1, 2, 32, 16, 2) \
  X(prefill, fp8, kElemFP8, 192, 128, 1, 2, 32, 16, 2)   \
  X(prefill, bf16, kElemBF16, 256, 256, 1, 1, 32, 32, 2) \
  X(prefill, fp16, kElemFP16, 256, 256, 1, 1, 32, 32, 2) \
  X(prefill, fp8, kElemFP8, 256, 256, 1, 1, 32, 32, 2)   \
  X(decode, bf16, kElemBF16, 64, 64, 4, 1, 64, 64, 3)    \
  X(decode, fp16, kElemFP16, 64, 64, 4, 1, 64, 64, 3)    \
  X(decode, fp8, kElemFP8, 64, 64, 4, 1, 64, 64, 3)      \
  X(decode, bf16, kElemBF16, 96, 96, 4, 1, 64, 64, 3)    \
  X(decode, fp16, kElemFP16, 96, 96, 4, 1, 64, 64, 3)    \
  X(decode, fp8, kElemFP8, 96, 96, 4, 1, 64, 64, 3)      \
  X(decode, bf16, kElemBF16, 128, 128, 4, 1, 64, 64, 3)  \
  X(decode, fp16, kElemFP16, 128, 128, 4, 1, 64, 64, 3)  \
  X(decode, fp8, kElemFP8, 128, 128, 4, 1, 64, 64, 3)    \
  X(decode, bf16, kElemBF16, 192, 128, 4, 1, 64, 64, 2)  \
  X(decode, fp16, kElemFP16, 192, 128, 4, 1, 64, 64, 2)  \
  X(decode, fp8, kElemFP8, 192, 128, 4, 1, 64, 64, 2)    \
  X(decode, bf16, kElemBF16, 256, 256, 4, 1, 32, 32, 3)  \
  X(decode, fp16, kElemFP16, 256, 256, 4, 1, 32, 32, 3)  \
  X(decode, fp8, kElemFP8, 256, 256, 4, 1, 32, 32, 3)    \
  X(decode, bf16, kElemBF16, 64, 512, 4, 1, 32, 32, 2)   \
  X(decode, fp16, kElemFP16, 64, 512, 4, 1, 32, 32, 2)

#define KSEEK_FA3_SEED_CFG(D, DV, WN, MT, BN, BNC, ST, ELEM)                    \
  ::kseek::plugins::attention_fa3::seed::TileConfig<D, DV, WN, MT, BN, BNC, ST, \
                                                    ::kseek::plugins::attention_fa3::seed::ELEM>

#define KSEEK_FA3_SEED_DEFINE_KERNEL(variant, ename, ELEM, D, DV, WN, MT, BN, BNC, ST)                              \
  extern "C" __global__ void __launch_bounds__(128) kseek_fa3_seed_##variant##_##ename##_d##D##_dv##DV(             \
      const __grid_constant__ ::kseek::KernelArgs<::kseek::attention::AttentionProblem> args) {                     \
    ::kseek::plugins::attention_fa3::seed::attention_forward<KSEEK_FA3_SEED_CFG(D, DV, WN, MT, BN, BNC, ST, ELEM)>( \
        args);                                                                                                      \
  }

KSEEK_FA3_SEED_KERNELS(KSEEK_FA3_SEED_DEFINE_KERNEL)

extern "C" __global__ void __launch_bounds__(128)
    kseek_fa3_seed_combine(const __grid_constant__ ::kseek::KernelArgs<::kseek::attention::AttentionProblem> args) {
  ::kseek::plugins::attention_fa3::seed::combine_splits(args);
}

// =====================================================================================================================
// Plan: picks the tiling from sizes alone, then the split count, the workspace and the launches.
// =====================================================================================================================
namespace kseek {
namespace plugins {
namespace attention_fa3 {
namespace seed {

constexpr bool kIsDecode_prefill = false;
constexpr bool kIsDecode_decode = true;

struct KernelChoice {
  const char* name;
  int bm;
  int bn;
  unsigned smem;
};

__device__ __forceinline__ int padded_head_dim(int d) {
  if (d <= 0 || d % 8 != 0) return 0;
  if (d <= 64) return 64;
  if (d <= 96) return 96;
  if (d <= 128) return 128;
  if (d <= 192) return 192;
  if (d <= 256) return 256;
  return 0;
}

__device__ __forceinline__ bool choose_kernel(bool decode, int elem, int dp, int dvp, KernelChoice& out) {
#define KSEEK_FA3_SEED_MATCH(variant, ename, ELEM, D, DV, WN, MT, BN, BNC, ST) \
  if (decode == kIsDecode_##variant && elem == ELEM && dp == D && dvp == DV) { \
    using Cfg = KSEEK_FA3_SEED_CFG(D, DV, WN, MT, BN, BNC, ST, ELEM);          \
    out.name = "kseek_fa3_seed_" #variant "_" #ename "_d" #D "_dv" #DV;        \
    out.bm = Cfg::kBM;                                                         \
    out.bn = Cfg::kBN;                                                         \
    out.smem = static_cast<unsigned>(sizeof(SharedStorage<Cfg>));              \
    return true;                                                               \
  }
  KSEEK_FA3_SEED_KERNELS(KSEEK_FA3_SEED_MATCH)
#undef KSEEK_FA3_SEED_MATCH
  return false;
}

__device__ __forceinline__ void set_launch(PlannedLaunch& l, const char* name, unsigned gx, unsigned gy, unsigned gz,
                                           unsigned smem) {
  int i = 0;
  for (; name[i] != 0 && i < kKernelNameBytes - 1; ++i) l.kernel[i] = name[i];
  for (; i < kKernelNameBytes; ++i) l.kernel[i] = 0;
  l.grid = PlanDim3{gx, gy, gz};
  l.block = PlanDim3{static_cast<unsigned>(kThreads), 1u, 1u};
  l.cluster = PlanDim3{1u, 1u, 1u};
  l.dynamic_smem_bytes = smem;
  l.reserved = 0;
}

// Fills `plan`; an unsupported problem gets num_launches == 0.
__device__ void make_plan(const AttentionProblem& pr, LaunchPlan* plan) {
  u8* raw = reinterpret_cast<u8*>(plan);
  for (unsigned i = 0; i < sizeof(LaunchPlan); ++i) raw[i] = 0;
  plan->abi_version = kLaunchPlanAbiVersion;

  const int hq = pr.num_heads_q, hkv = pr.num_heads_kv;
  if (hkv <= 0 || hq <= 0 || hq % hkv != 0 || pr.batch < 0 || pr.total_q < 0) return;
  const int dp = padded_head_dim(pr.head_dim);
  int dvp = 0;
  if (pr.head_dim_v == pr.head_dim)
    dvp = dp;
  else if (pr.head_dim == 192 && pr.head_dim_v == 128)
    dvp = 128;
  else if (pr.head_dim == 64 && pr.head_dim_v == 512)
    dvp = 512;
  if (dp == 0 || dvp == 0) return;
  int elem = -1;
  if (pr.dtype_qkv == attention::kDTypeBF16) elem = kElemBF16;
  if (pr.dtype_qkv == attention::kDTypeFP16) elem = kElemFP16;
  if (pr.dtype_qkv == attention::kDTypeFP8E4M3) elem = kElemFP8;
  if (elem < 0) return;
  if (pr.dtype_o != attention::kDTypeBF16 && pr.dtype_o != attention::kDTypeFP16 && pr.dtype_o != attention::kDTypeFP32)
    return;
  if (pr.has_q_v && (dvp != 512 || elem == kElemFP8)) return;
  if (!(pr.softmax_scale > 0.0f) || pr.softcap < 0.0f) return;
  if (pr.paged && (pr.block_size <= 0 || pr.max_blocks_per_seq <= 0)) return;

  const int group = hq / hkv;
  const long long max_rows = static_cast<long long>(pr.max_seqlen_q > 0 ? pr.max_seqlen_q : 1) * group;
  const bool decode = dvp == 512 || max_rows <= kMaxRowsForDecode;
  KernelChoice kc{};
  if (!choose_kernel(decode, elem, dp, dvp, kc)) return;

  const long long m_blocks = (max_rows + kc.bm - 1) / kc.bm;
  const long long heads_x_batch = static_cast<long long>(pr.batch > 0 ? pr.batch : 1) * hkv;
  if (m_blocks > 65535 || heads_x_batch > 0x7fffffffLL) return;

  // Split only when the unsplit grid cannot fill the machine, and keep every split a few tiles long.
  const long long ctas = m_blocks * heads_x_batch;
  const long long key_tiles = (static_cast<long long>(pr.max_seqlen_k > 0 ? pr.max_seqlen_k : 0) + kc.bn - 1) / kc.bn;
  long long splits = 1;
  if (pr.num_splits != 1) {
    u32 sms = sm_count();
    if (sms == 0) sms = 132;
    const long long cap = pr.num_splits > 1 ? pr.num_splits : kMaxSplits;
    if (ctas < 2LL * sms) splits = (3LL * sms + ctas - 1) / ctas;
    const long long by_length = key_tiles / kMinTilesPerSplit;
    if (splits > by_length) splits = by_length;
    if (splits > cap) splits = cap;
    if (splits > kMaxSplits) splits = kMaxSplits;
    if (splits > 65535) splits = 65535;
    if (splits < 1) splits = 1;
  }

  set_launch(plan->launches[0], kc.name, static_cast<unsigned>(heads_x_batch), static_cast<unsigned>(m_blocks),
             static_cast<unsigned>(splits), kc.smem);
  plan->num_launches = 1;
  if (splits > 1) {
    const u64 tq = static_cast<u64>(pr.total_q);
    const u64 lse_bytes = (static_cast<u64>(splits) * tq * hq * 4u + 255u) / 256u * 256u;
    plan->workspace_bytes =
        kWorkspaceHeaderBytes + lse_bytes + static_cast<u64>(splits) * tq * hq * static_cast<u64>(pr.head_dim_v) * 4u;
    const u64 pairs = tq * static_cast<u64>(hq);
    const u64 combine_ctas = (pairs + kWarps - 1) / kWarps;
    set_launch(plan->launches[1], "kseek_fa3_seed_combine", static_cast<unsigned>(combine_ctas > 0 ? combine_ctas : 1),
               1u, 1u, 0u);
    plan->num_launches = 2;
  }
}

}  // namespace seed
}  // namespace attention_fa3
}  // namespace plugins
}  // namespace kseek

// The plan kernel (one thread): problem carries sizes only (its pointers are null here); plan: one LaunchPlan in
// device memory, fully overwritten.
extern "C" __global__ void kseek_plan(const ::kseek::attention::AttentionProblem problem, ::kseek::LaunchPlan* plan) {
  if (threadIdx.x == 0 && blockIdx.x == 0) ::kseek::plugins::attention_fa3::seed::make_plan(problem, plan);
}
