// Candidate of the fa3-h200 campaign (issue 17), stages (a) to (d): today's seed plus a warp-specialised Hopper main
// loop (wgmma + TMA + mbarrier ring + setmaxnreg, two consumer warpgroups in ping-pong, persistent CTAs) for prefill.
// Device code only, NVRTC for sm_90a: it must never include a toolkit header or CUTLASS/CuTe, launch from the device,
// or touch memory outside the buffers AttentionProblem describes.
//
// STATUS (H200, 2026-12-02): every case-study row it takes PASSED (evaluations 2 and 3 of the campaign, and the
// drafts' runs in NOTES.md); the d192/dv128 and fp8 kernels are new since evaluation 3. Every scenario the new path
// declines takes the seed's kernels and plan unchanged.
//
// Case-study scenarios (kseek scenarios --plugin attention.fa3 --set case-study) that take the new path, by
// ws::make_ws_plan's rules (16-bit; (d, dv) held by a kernel's padded dims with less than 64 columns to spare, d and
// dv >= 64 and multiples of 8; no q_v or spans; softcap only on the d256 kernels; max_seqlen_q >= 128, >= 64 query
// rows per sequence on average, a grid of at least one CTA per SM, TMA-legal strides and pages):
//   H01-H04, H26  bf16/fp16 d128 causal, paged, GQA/MHA/MQA, varlen (H02) -> kseek_fa3_ws_{bf16,fp16}_d128
//   H05, H06      bf16 d64 causal with sinks; H06 with a 128-key window  -> kseek_fa3_ws_bf16_d64
//   H07, H08      bf16 d256 causal, softcap 50; H08 with a 4096-key window -> kseek_fa3_ws_bf16_d256
//   H09           bf16 d128 causal, 4096-key window                       -> kseek_fa3_ws_bf16_d128
//   H10, H23      bf16 d96 causal / d80 non-causal varlen: the d128 layout (TMA zero-fills the padded channels) with
//                 S reduced over 96 / 80 channels only -> kseek_fa3_ws_bf16_d96, kseek_fa3_ws_bf16_d80
//   H11           bf16 d192 / dv128 causal (MLA-style), non-paged           -> kseek_fa3_ws_bf16_d192_dv128
//   H12, H13      fp8 d128 causal, GQA 4; fp8 d256 causal with softcap: TMA brings raw e4m3 K/V rows, three
//                 producer-side warps widen them (and Q, from global memory) exactly to fp16 slabs, and the fp16
//                 main loop runs with the descales folded in -> kseek_fa3_ws_fp8_d128, kseek_fa3_ws_fp8_d256
//   H24           fp16 d64 non-causal, non-paged, 64 x 1500                -> kseek_fa3_ws_fp16_d64 (OOB tail)
//   H22           cascade: 256 decode rows sharing 32768 keys of pages -> kseek_fa3_cascade_{detect,prefix,suffix}
//                 + the combine: the shared pages found in block_table at run time, run once for the whole batch
//                 (see kCascadePrefix); taken when sizes say pages are shared (16-bit d64/d128 decode, no window)
// Declined (seed unchanged): H14-H21 and H25 decode/mixed (few rows per sequence).
//
// Assumptions the GPU runs confirmed (keep them in mind when changing the layouts): the P V wgmma reads V MN-major
// with LBO = bytes between 64-column slabs; TMA's 128B swizzle on 1024-byte-aligned slabs is wgmma's K-major
// layout, paged boxes of 16 rows included; out-of-bounds TMA rows and columns are zero-filled and counted in
// complete_tx; setmaxnreg 240/24 with 168 launch registers; wgmma.wait_group 1 retires the S group first.
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
  kElemFP8 = 2,   // e4m3 inputs, fp16 MMA: Q widened exactly to fp16 in shared memory; K/V stay raw e4m3 in the ring
                  // and each MMA fragment is widened in registers (k_fragment_e4m3, v_fragment_e4m3)
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
  // 16-bit only: fp8 reads its K/V fragments from the raw ring below (k_fragment_e4m3, v_fragment_e4m3).
  alignas(16) u16 k[C::kFp8 ? 1 : C::kStages][C::kFp8 ? 1 : C::kBN][C::kFp8 ? 8 : C::kLdK];  // [slots, BN keys, D] K
  alignas(16) u16 v[C::kFp8 ? 1 : C::kStages][C::kFp8 ? 1 : C::kBN][C::kFp8 ? 8 : C::kLdV];  // [slots, BN keys, DV] V
  static_assert(!(C::kFp8 && C::kQv), "q_v's logits read V as 16-bit K-like rows, which fp8 collapses (the plan "
                                      "declines fp8 with q_v)");
  // fp8 only: [stages, BN keys, D bytes] and [stages, BN keys, DV bytes] raw e4m3 ring, read by the MMAs' fragments.
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
// fp8 seed kernels: one m16n8k16 step's B fragment read from the raw e4m3 ring and widened in registers (exactly), so
// no tile is widened into shared memory first. K rows (S = Q K^T): `k` points at this lane's key row (g of the n-tile)
// and channel pair 2t4 of the k-step; b1 is channels + 8. V columns (P V): `v` points at this lane's channel (g of the
// n-tile) in key row 2t4 of the k-step; b0 holds keys 2t4 and 2t4 + 1, b1 keys + 8 and + 9 (the .trans ldmatrix layout).
__device__ __forceinline__ void k_fragment_e4m3(const u8* k, u32& b0, u32& b1) {
  b0 = e4m3x2_to_f16x2(*reinterpret_cast<const u16*>(k));
  b1 = e4m3x2_to_f16x2(*reinterpret_cast<const u16*>(k + 8));
}
template <int kLd>
__device__ __forceinline__ void v_fragment_e4m3(const u8* v, u32& b0, u32& b1) {
  b0 = e4m3x2_to_f16x2(static_cast<u16>(v[0] | (static_cast<u32>(v[kLd]) << 8)));
  b1 = e4m3x2_to_f16x2(static_cast<u16>(v[8 * kLd] | (static_cast<u32>(v[9 * kLd]) << 8)));
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

// PTX ISA: tanh (#floating-point-instructions-tanh): one MUFU op (max relative error about 2^-11 by the ISA). The d256
// prefill kernels' softcap uses it: against tanh_abs_accurate below (two MUFU ops, ex2 and rcp) H07 ran 1.12x and H08
// 1.14x; max errors against the fp32 reference 0.021 / 0.018 (H13: 0.032) where the seed's on the same inputs were
// 0.019 / 0.020 (0.032), mean errors equal to three digits (A/B, H200, 2026-12-03).
__device__ __forceinline__ float fast_tanh(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

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

// ---- cascade: a key prefix whose pages every sequence of the batch shares ------------------------------------------
// Decode batches that share a long prefix (one system prompt, beam or parallel sampling: H22) read the same pages once
// per sequence on the split-KV decode path: 256 sequences x 32768 shared keys streamed 256 times. The cascade plan
// finds the shared prefix at run time from block_table (the plan sees sizes only), runs it once for every query row
// of the batch as one dense prefill (kCascadePrefix: all query rows of a kv head against the prefix pages, no mask,
// tensor cores on 128-row tiles), runs each sequence's own keys after it on the decode tiling (kCascadeSuffix), and
// merges both as splits in the combine. Any batch is still exact: with no shared page the prefix is empty (its splits
// write a -inf LSE, weighed 0) and the suffix covers every key.
enum KernelMode : int { kPlain = 0, kCascadePrefix = 1, kCascadeSuffix = 2 };
constexpr int kCascadePagesSlot = 2;     // header int: 0x7fffffff - shared prefix pages (atomicMax; 0 = not run)
constexpr int kCascadeAlign = 128;       // prefix tokens: whole key tiles of the prefill (64) and decode (64) tilings
constexpr int kCascadePrefixRows = 128;  // query rows per prefix CTA (the prefill d128 tiling's kBM)
constexpr int kCascadeMaxSplits = 64;

struct CascadeSplits {
  int prefix;  // splits of the shared prefix (slots 0 .. prefix - 1 of the partials)
  int suffix;  // splits of each sequence's own keys (the slots after them)
};

// Deterministic in the problem's sizes and the GPU: the plan and every cascade kernel compute the same counts.
__device__ __forceinline__ CascadeSplits cascade_splits(const AttentionProblem& pr) {
  u32 sms = sm_count();
  if (sms == 0) sms = 132;
  const long long slots = 2LL * sms;  // every cascade tiling fits two CTAs per SM at least (d128: ~105 and ~113 KiB)
  const long long group = pr.num_heads_q / pr.num_heads_kv;
  const long long rows = static_cast<long long>(pr.total_q) * group;
  const long long prefix_ctas = pr.num_heads_kv * ((rows + kCascadePrefixRows - 1) / kCascadePrefixRows);
  long long sp = prefix_ctas > 0 ? 2 * slots / prefix_ctas : 1;  // about two whole waves, the last one full
  const long long max_tiles = pr.max_seqlen_k / kCascadeAlign;
  if (sp > max_tiles / 2) sp = max_tiles / 2;  // a split of the longest possible prefix keeps >= 4 key tiles
  sp = sp < 1 ? 1 : (sp > kCascadeMaxSplits ? kCascadeMaxSplits : sp);
  const long long decode_blocks = (static_cast<long long>(pr.max_seqlen_q) * group + 15) / 16;
  const long long suffix_ctas = static_cast<long long>(pr.batch) * pr.num_heads_kv * decode_blocks;
  long long ss = suffix_ctas >= 2 * slots ? 1 : (3 * slots + suffix_ctas - 1) / suffix_ctas;
  ss = ss < 1 ? 1 : (ss > kCascadeMaxSplits ? kCascadeMaxSplits : ss);
  return CascadeSplits{static_cast<int>(sp), static_cast<int>(ss)};
}

// Keys [0, result) of every sequence are the same pages and visible to every query row of the batch (written by
// kseek_fa3_cascade_detect, the plan's first launch), rounded down to whole kCascadeAlign tiles.
__device__ __forceinline__ int cascade_prefix_tokens(const void* ws, const AttentionProblem& pr) {
  const int enc = static_cast<const volatile int*>(ws)[kCascadePagesSlot];
  if (enc <= 0) return 0;
  const long long pages = 0x7fffffffLL - enc;
  const long long tokens = pages * pr.block_size;
  return static_cast<int>(tokens / kCascadeAlign * kCascadeAlign);
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

// O += P V for k-step kk (16 keys of the chunk): this warp's kNTO channel tiles of V as B fragments against the P
// fragments `a` (from registers or from sm.p). fp8: each fragment widened from the raw ring at v_lane; 16-bit: ldmatrix
// .trans at v_addr4 (channel tiles in pairs) and v_addr2 (an odd last one).
template <class C>
__device__ __forceinline__ void pv_step(float (&o)[C::kMT][C::kNTO][4], const u32 (&a)[C::kMT][4], int kk,
                                        const u8* v_lane, u32 v_addr4, u32 v_addr2) {
  constexpr int kMT = C::kMT, kNTO = C::kNTO;
  constexpr bool kF16 = C::kMmaF16;
  if constexpr (C::kFp8) {
#pragma unroll
    for (int nt = 0; nt < kNTO; ++nt) {
      u32 b0, b1;
      v_fragment_e4m3<C::kRawLdV>(v_lane + kk * 16 * C::kRawLdV + nt * 8, b0, b1);
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt) mma_16816<kF16>(o[mt][nt], a[mt], b0, b1);
    }
  } else {
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

// =====================================================================================================================
// The attention kernel: one CTA = one (sequence, kv head, block of kBM packed query rows, key split).
// Per key tile: S = Q K^T (+ Qv V^T)  ->  mask, softcap  ->  online softmax in base 2  ->  O += P V.
// =====================================================================================================================
template <class C, int kMode = kPlain>
__device__ __forceinline__ void attention_forward(const Args& args) {
  const AttentionProblem& pr = args.problem;
  SharedStorage<C>& sm = *reinterpret_cast<SharedStorage<C>*>(kseek_fa3_smem);
  constexpr int kMT = C::kMT, kNTS = C::kNTS, kNTO = C::kNTO, kBN = C::kBN, kS = C::kStages;
  constexpr bool kF16 = C::kMmaF16;

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp / C::kWN, wn = warp - (warp / C::kWN) * C::kWN;
  const int g = lane >> 2, t4 = lane & 3;  // MMA fragment row and column pair

  const int hkv = pr.num_heads_kv;
  const int group = pr.num_heads_q / hkv;
  // The cascade prefix: one CTA per (kv head, block of the whole batch's packed query rows, split); its keys are
  // sequence 0's pages, which every sequence shares up to prefix_tok.
  constexpr bool kPrefix = kMode == kCascadePrefix;
  const int b = kPrefix ? 0 : blockIdx.x / hkv;
  const int kvh = kPrefix ? blockIdx.x : blockIdx.x - (blockIdx.x / hkv) * hkv;
  const int m_block = gridDim.y - 1 - blockIdx.y;  // the heaviest causal row blocks start first
  const int split = blockIdx.z, num_splits = gridDim.z;
  const int prefix_tok = kMode == kPlain ? 0 : cascade_prefix_tokens(args.workspace, pr);

  if (kMode == kPlain && num_splits > 1 && blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0 && tid == 0) {
    *static_cast<int*>(args.workspace) = num_splits;  // read by the combine kernel, ordered by the stream
  }
  if (b >= pr.batch) return;

  const int q_start = kPrefix ? 0 : pr.cu_seqlens_q[b];
  const int sq = kPrefix ? pr.total_q : pr.cu_seqlens_q[b + 1] - q_start;
  const int rows = sq * group;
  const int row0 = m_block * C::kBM;
  if (row0 >= rows) return;  // CTA-uniform: no barrier is skipped by part of the CTA
  // A sequence this launch's row blocks cannot cover belongs to another launch (a mixed batch's prefill chunks run on
  // the persistent kernel); in every other plan the grid covers the longest sequence.
  if (static_cast<i64>(rows) > static_cast<i64>(gridDim.y) * C::kBM) return;
  const int sk = kPrefix ? prefix_tok : (pr.seqused_k ? pr.seqused_k[b] : pr.cu_seqlens_k[b + 1] - pr.cu_seqlens_k[b]);
  const int k_start = pr.paged ? 0 : pr.cu_seqlens_k[b];

  // ---- visible key range of this row block (edge tiles recompute each row's own range) ---------------------------
  // The prefix is visible to every query row (the detector made sure), so its rows have no mask at all.
  const int shift = kPrefix ? 0 : sk - sq;
  const int wl = kPrefix ? -1 : pr.window_left;
  const int wr = kPrefix ? -1 : (pr.causal ? 0 : pr.window_right);
  const int i_first = row0 / group;
  const int i_last = (imin(row0 + C::kBM, rows) - 1) / group;
  // Bidirectional spans (causal only) extend a row's right edge to its span's end; edges stay monotone in the row.
  // Compiled in only for a plugin whose problems can carry spans (problem_features.h): even unused, the span code
  // costs the decode kernels ~25 registers and up to 8% of their speed on the H200 (measured 2026-11-30).
  const auto row_hi = [&](int i) {
    const int hi = visible_hi(i, shift, wr, sk);
    if constexpr (kseek::attention::kProblemsHaveSpans) {
      if (pr.num_spans == 0) return hi;
      const int* spans = pr.spans + static_cast<i64>(b) * pr.span_batch_stride;
      return imax(hi, imin(span_end_at(spans, pr.num_spans, static_cast<i64>(i) + shift), sk));
    } else {
      return hi;
    }
  };
  // The suffix starts after the shared prefix, a whole number of key tiles.
  const int k_begin =
      kMode == kCascadeSuffix ? imax(visible_lo(i_first, shift, wl), prefix_tok) : visible_lo(i_first, shift, wl);
  const int k_end = row_hi(i_last);
  const int unmasked_from = visible_lo(i_last, shift, wl);  // a tile starting here needs no left-edge mask
  const int unmasked_to = row_hi(i_first);                  // a tile ending here needs no right/sk mask
  const int t_begin = k_begin / kBN;
  const int t_end = k_end > k_begin ? (k_end + kBN - 1) / kBN : t_begin;
  // Splits of a fixed length: the longest sequence's tiles / splits (no window), so a ragged batch's long sequences get
  // many splits and its short ones few, and every CTA carries about the same work (splits past a short sequence's end
  // are empty: they write a -inf LSE, which the combine weighs 0). Under a window every sequence's visible range is
  // divided, as before (the plan does not split for skew there).
  const int tiles_per_split = kPrefix ? (t_end - t_begin + num_splits - 1) / num_splits
                              : wl < 0
                                  ? ((pr.max_seqlen_k + kBN - 1) / kBN - prefix_tok / kBN + num_splits - 1) / num_splits
                                  : (t_end - t_begin + num_splits - 1) / num_splits;
  const int my_first = t_begin + split * tiles_per_split;
  const int my_count = imax(0, imin(tiles_per_split, t_end - my_first));

  // ---- scales: logits in base 2; m is tracked in the units of s (raw or tanh), exp_mult > 0 maps them ----------
  float qk_descale = 1.0f, v_scale = 1.0f;
  if constexpr (C::kFp8) {
    const i64 di = static_cast<i64>(b) * pr.descale_batch_stride + static_cast<i64>(kvh) * pr.descale_head_stride;
    if (pr.q_descale) qk_descale *= pr.q_descale[di];
    if (pr.k_descale) qk_descale *= pr.k_descale[di];
    if (pr.v_descale) v_scale = pr.v_descale[di];
  }
  const float scale = pr.softmax_scale * qk_descale;
  const bool use_softcap = pr.softcap > 0.0f;
  const float cap_in = use_softcap ? scale / pr.softcap : 0.0f;
  const float exp_mult = use_softcap ? pr.softcap * kLog2e : scale * kLog2e;
  const bool has_qv = C::kQv && pr.has_q_v;

  // ---- vector-copy eligibility (uniform); misaligned tensors take the synchronous element path ------------------
  constexpr int kEs = C::kElemBytes;
  constexpr int kVecBytes = C::kFp8 ? 8 : 16;
  const bool kv_vec =
      aligned_to(pr.k, pr.k_row_stride, pr.k_head_stride, pr.paged ? pr.k_block_stride : 0, kEs, kVecBytes) &&
      aligned_to(pr.v, pr.v_row_stride, pr.v_head_stride, pr.paged ? pr.v_block_stride : 0, kEs, kVecBytes);
  const bool q_vec = aligned_to(pr.q, pr.q_row_stride, pr.q_head_stride, 0, kEs, kVecBytes);

  // ---- prologue: Q (+ q_v), offsets of the first kS tiles, copies of the first kS - 1 tiles ----------------------
  load_query_rows<C, C::kChunksK, C::kLdK>(sm.q, pr.q, pr.q_row_stride, pr.q_head_stride, pr.head_dim, q_start, row0,
                                           rows, group, kvh, q_vec);
  if constexpr (C::kQv) {
    if (has_qv) {
      const bool qv_vec = aligned_to(pr.q_v, pr.qv_row_stride, pr.qv_head_stride, 0, kEs, kVecBytes);
      load_query_rows<C, C::kChunksV, C::kLdV>(sm.qv, pr.q_v, pr.qv_row_stride, pr.qv_head_stride, pr.head_dim_v,
                                               q_start, row0, rows, group, kvh, qv_vec);
    }
  }
#pragma unroll
  for (int j = 0; j < kS; ++j) {
    if (j < my_count) {
      store_tile_offsets(sm, j, my_first + j, fetch_tile_row<C>(my_first + j, pr, b, sk, k_start), pr, kvh);
    }
  }
  __syncthreads();  // tile offsets written by some threads are read by every thread's copies
  const u8* kb = static_cast<const u8*>(pr.k);
  const u8* vb = static_cast<const u8*>(pr.v);
#pragma unroll
  for (int j = 0; j < kS - 1; ++j) {
    if (j < my_count) issue_kv_tile(sm, j, kb, vb, pr.head_dim, pr.head_dim_v, kv_vec);
    cp_async_commit();  // one group per ring slot, empty or not, so wait_group counts stay uniform
  }

  // ---- per-thread running state -----------------------------------------------------------------------------------
  float o[kMT][kNTO][4];
  float m_run[kMT][2], l_run[kMT][2];
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt) {
#pragma unroll
    for (int nt = 0; nt < kNTO; ++nt) {
#pragma unroll
      for (int e = 0; e < 4; ++e) o[mt][nt][e] = 0.0f;
    }
    m_run[mt][0] = m_run[mt][1] = neg_inf();
    l_run[mt][0] = l_run[mt][1] = 0.0f;
  }

  // ldmatrix lane addresses (bytes in the shared window). A operands: row lane%16, column half lane/16.
  const int a_row = lane & 15, a_col = (lane >> 4) * 8;
  // B from row-major K-like tiles (x4: two n-tiles; x2: one): key row and k-column half of this lane.
  const int bk_row4 = (lane & 7) + ((lane >> 4) << 3), bk_col4 = ((lane >> 3) & 1) * 8;
  const int bk_row2 = lane & 7, bk_col2 = ((lane >> 3) & 1) * 8;
  // B from V for PV (.trans; x4: two channel tiles; x2: one).
  const int bv_row = (lane & 7) + (((lane >> 3) & 1) << 3), bv_col4 = (lane >> 4) * 8;
  const int warp_row = wm * kMT * 16;  // first local row of this warp
  const int warp_key = wn * C::kKeysPerWarp;
  const int warp_ch = wn * C::kChPerWarp;

  // ================================================ main loop =======================================================
  for (int j = 0; j < my_count; ++j) {
    const int slot = j % kS;
    if (j + kS - 1 < my_count) issue_kv_tile(sm, (j + kS - 1) % kS, kb, vb, pr.head_dim, pr.head_dim_v, kv_vec);
    cp_async_commit();
    const bool fetch_ahead = j + kS < my_count;  // the row table of tile j + kS is fetched now, stored after the MMAs
    const int fetched = fetch_ahead ? fetch_tile_row<C>(my_first + j + kS, pr, b, sk, k_start) : -1;
    cp_async_wait<kS - 1>();
    __syncthreads();  // tile j (and Q) copied by every thread is visible to every warp
    const int tile = my_first + j;
    const int n0 = tile * kBN;
#pragma unroll 1
    for (int ch = 0; ch < kBN / C::kBNC; ++ch) {
      const int c0 = ch * C::kBNC;  // first key of this chunk within the tile
      const int nc = n0 + c0;       // and within the sequence

      // ---- S = Q K^T (+ Qv V^T) --------------------------------------------------------------------------------
      float sacc[C::kSAcc][kMT][kNTS][4];
#pragma unroll
      for (int x = 0; x < C::kSAcc; ++x)
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
          for (int nt = 0; nt < kNTS; ++nt)
#pragma unroll
            for (int e = 0; e < 4; ++e) sacc[x][mt][nt][e] = 0.0f;

      if constexpr (C::kFp8) {
        const u32 q_addr = smem_u32(&sm.q[warp_row + a_row][a_col]);
        const u8* k_lane = &sm.k_raw[slot][c0 + warp_key + g][2 * t4];
#pragma unroll
        for (int kk = 0; kk < C::kD / 16; ++kk) {
          u32 a[kMT][4];
#pragma unroll
          for (int mt = 0; mt < kMT; ++mt)
            ldsm_x4(q_addr + (mt * 16 * C::kLdK + kk * 16) * 2, a[mt][0], a[mt][1], a[mt][2], a[mt][3]);
#pragma unroll
          for (int nt = 0; nt < kNTS; ++nt) {
            u32 b0, b1;
            k_fragment_e4m3(k_lane + nt * 8 * C::kRawLdK + kk * 16, b0, b1);
#pragma unroll
            for (int mt = 0; mt < kMT; ++mt) mma_16816<kF16>(sacc[kk % C::kSAcc][mt][nt], a[mt], b0, b1);
          }
        }
      } else {
        const u32 q_addr = smem_u32(&sm.q[warp_row + a_row][a_col]);
        const u32 k_addr4 = smem_u32(&sm.k[slot][c0 + warp_key + bk_row4][bk_col4]);
        const u32 k_addr2 = smem_u32(&sm.k[slot][c0 + warp_key + bk_row2][bk_col2]);
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
      if constexpr (C::kQv) {
        if (has_qv) {  // MLA: the latent part of every logit, q_v . v, from the V tile read as K-like rows
          const u32 qv_addr = smem_u32(&sm.qv[warp_row + a_row][a_col]);
          const u32 v_addr4 = smem_u32(&sm.v[slot][c0 + warp_key + bk_row4][bk_col4]);
          const u32 v_addr2 = smem_u32(&sm.v[slot][c0 + warp_key + bk_row2][bk_col2]);
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
      float s[kMT][kNTS][4];
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
        for (int nt = 0; nt < kNTS; ++nt)
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            float x = sacc[0][mt][nt][e];
#pragma unroll
            for (int y = 1; y < C::kSAcc; ++y) x += sacc[y][mt][nt][e];
            s[mt][nt][e] = x;
          }

      // ---- softcap, mask, row max (each feature is one CTA-uniform branch around the whole tile) -------------------
      if (use_softcap) {
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
          for (int nt = 0; nt < kNTS; ++nt)
#pragma unroll
            for (int e = 0; e < 4; ++e) s[mt][nt][e] = tanh_abs_accurate(s[mt][nt][e] * cap_in);
      }
      if (!(nc >= unmasked_from && nc + C::kBNC <= unmasked_to)) {
        // Rare edge tiles: each row's visible range, recomputed here to keep it out of the registers of the hot path.
        // Rows past the last valid one behave like it (their results are never stored).
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
          for (int hf = 0; hf < 2; ++hf) {
            const int tok = imin(row0 + warp_row + mt * 16 + hf * 8 + g, rows - 1) / group;
            const int lo = visible_lo(tok, shift, wl), hi = row_hi(tok);
#pragma unroll
            for (int nt = 0; nt < kNTS; ++nt)
#pragma unroll
              for (int e = 0; e < 2; ++e) {
                const int key = nc + warp_key + nt * 8 + 2 * t4 + e;
                if (key < lo || key >= hi) s[mt][nt][2 * hf + e] = neg_inf();
              }
          }
      }
      float mx[kMT][2];
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
            sm.red_max[wn][warp_row + mt * 16 + g] = mx[mt][0];
            sm.red_max[wn][warp_row + mt * 16 + g + 8] = mx[mt][1];
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

      // ---- online softmax: p = 2^(s * exp_mult - m), O and l rescaled by 2^(m_old - m_new) -----------------------
      bool rescale = false;
      float alpha[kMT][2];
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt) {
        float m_scaled[2];
#pragma unroll
        for (int hf = 0; hf < 2; ++hf) {
          const float m_new = fmaxf(m_run[mt][hf], mx[mt][hf]);
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

      // ---- O += P V ----------------------------------------------------------------------------------------------
      // fp8: this lane's channel (g of each n-tile) in key row 2t4 of the chunk, in the raw ring (v_fragment_e4m3).
      const u32 v_addr4 = C::kFp8 ? 0u : smem_u32(&sm.v[slot][c0 + bv_row][warp_ch + bv_col4]);
      const u32 v_addr2 = C::kFp8 ? 0u : smem_u32(&sm.v[slot][c0 + bv_row][warp_ch]);
      const u8* v_lane = C::kFp8 ? &sm.v_raw[slot][c0 + 2 * t4][warp_ch + g] : nullptr;
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
          pv_step<C>(o, a, kk, v_lane, v_addr4, v_addr2);
        }
      } else {
        // Key-split warps: each writes its P columns, then every warp multiplies the whole P row block by its channels.
#pragma unroll
        for (int mt = 0; mt < kMT; ++mt) {
#pragma unroll
          for (int nt = 0; nt < kNTS; ++nt) {
            const int col = warp_key + nt * 8 + 2 * t4;
            *reinterpret_cast<u32*>(&sm.p[warp_row + mt * 16 + g][col]) = pack_half2<kF16>(s[mt][nt][0], s[mt][nt][1]);
            *reinterpret_cast<u32*>(&sm.p[warp_row + mt * 16 + g + 8][col]) =
                pack_half2<kF16>(s[mt][nt][2], s[mt][nt][3]);
          }
        }
        __syncthreads();  // every warp's probabilities are in smem before any warp multiplies the full row by V
        const u32 p_addr = smem_u32(&sm.p[warp_row + a_row][a_col]);
#pragma unroll
        for (int kk = 0; kk < C::kBNC / 16; ++kk) {
          u32 a[kMT][4];
#pragma unroll
          for (int mt = 0; mt < kMT; ++mt)
            ldsm_x4(p_addr + (mt * 16 * C::kLdP + kk * 16) * 2, a[mt][0], a[mt][1], a[mt][2], a[mt][3]);
          pv_step<C>(o, a, kk, v_lane, v_addr4, v_addr2);
        }
      }
    }

    if (fetch_ahead) store_tile_offsets(sm, slot, tile + kS, fetched, pr, kvh);
    __syncthreads();  // every warp is done with ring slot j (K, V, P, row maxima) before it is refilled; offsets seen
  }
  cp_async_wait<0>();  // nothing may still land in shared memory after the CTA retires (empty groups, or no tiles)

  // ================================================ epilogue ========================================================
  float l_row[kMT][2];
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
    if (t4 == 0) {
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt) {
        sm.red_sum[wn][warp_row + mt * 16 + g] = l_row[mt][0];
        sm.red_sum[wn][warp_row + mt * 16 + g + 8] = l_row[mt][1];
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

  const bool pair_ok =
      aligned_to(pr.o, pr.o_row_stride, pr.o_head_stride, 0, pr.dtype_o == attention::kDTypeFP32 ? 4 : 2,
                 pr.dtype_o == attention::kDTypeFP32 ? 8 : 4);
  // Partials (normalised O and LSE per split, merged by the combine) for a split launch and for both cascade parts.
  const bool partial = kMode != kPlain || num_splits > 1;
  int total_splits = num_splits, slot_of_split = split;
  if constexpr (kMode != kPlain) {
    const CascadeSplits cs = cascade_splits(pr);
    total_splits = cs.prefix + cs.suffix;
    slot_of_split = kMode == kCascadeSuffix ? cs.prefix + split : split;
  }
  float* lse_part = partial ? lse_part_ptr(args.workspace) : nullptr;
  float* o_part = partial ? o_part_ptr(args.workspace, total_splits, pr) : nullptr;
  const int dv = pr.head_dim_v, hq = pr.num_heads_q;

#pragma unroll
  for (int mt = 0; mt < kMT; ++mt) {
#pragma unroll
    for (int hf = 0; hf < 2; ++hf) {
      const int R = row0 + warp_row + mt * 16 + hf * 8 + g;
      if (R >= rows) continue;
      const int tok = R / group;
      const int head = kvh * group + (R - tok * group);
      const i64 qrow = q_start + tok;
      const float l = l_row[mt][hf];
      const float m_post = (m_run[mt][hf] == neg_inf()) ? neg_inf() : m_run[mt][hf] * exp_mult;
      float factor, lse2;  // output multiplier and log2-sum-exp of the row
      if (partial) {
        factor = l > 0.0f ? v_scale * fast_rcp(l) : 0.0f;
        lse2 = l > 0.0f ? m_post + fast_log2(l) : neg_inf();
      } else {
        float big = m_post, sum = l, o_mult = 1.0f;
        if (pr.has_sinks) {
          const float sink2 = pr.sinks[head] * kLog2e;
          big = fmaxf(m_post, sink2);
          o_mult = fast_exp2(m_post - big);
          sum = l * o_mult + fast_exp2(sink2 - big);
        }
        factor = sum > 0.0f ? o_mult * v_scale * fast_rcp(sum) : 0.0f;
        lse2 = sum > 0.0f ? big + fast_log2(sum) : neg_inf();
      }
      if (partial) {
        float* dst = o_part + ((static_cast<i64>(slot_of_split) * pr.total_q + qrow) * hq + head) * dv;
#pragma unroll
        for (int nt = 0; nt < kNTO; ++nt) {
          const int c = warp_ch + nt * 8 + 2 * t4;
          if (c < dv) {
            *reinterpret_cast<float2*>(dst + c) =
                make_float2(o[mt][nt][2 * hf] * factor, o[mt][nt][2 * hf + 1] * factor);
          }
        }
        if (wn == 0 && t4 == 0) lse_part[(static_cast<i64>(slot_of_split) * pr.total_q + qrow) * hq + head] = lse2;
      } else {
        const i64 base = qrow * pr.o_row_stride + static_cast<i64>(head) * pr.o_head_stride;
#pragma unroll
        for (int nt = 0; nt < kNTO; ++nt) {
          const int c = warp_ch + nt * 8 + 2 * t4;
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

// =====================================================================================================================
// Stage (a) main loop: warp-specialised Hopper attention for dense 16-bit prefill (namespace ws).
// One CTA = 128 query rows of one (sequence, query head). Warpgroup 0 produces (TMA into a K/V ring guarded by
// mbarriers), warpgroups 1 and 2 consume 64 rows each: S = Q K^T (wgmma, both operands in shared memory), online
// softmax in registers, O += P V (wgmma with P in registers as the A operand, V read MN-major). Key tiles are
// visited from the last one down, so only the first few (diagonal / sk edge) need a mask.
// =====================================================================================================================
namespace ws {

constexpr int kConsumerWGs = 2;
constexpr int kWGThreads = 128;
constexpr int kThreads = kWGThreads * (1 + kConsumerWGs);  // 384: producer warpgroup + two consumer warpgroups
constexpr int kRowsPerWG = 64;                             // wgmma M
constexpr int kBM = kRowsPerWG * kConsumerWGs;             // query rows per CTA
// setmaxnreg budgets (the producer warpgroup's dec must cover the consumers' inc, see Config). The persistent
// producer keeps its schedule state (item, ring position, work bounds) in registers: at 24 it spilled 48 bytes
// (ptxas, d128), at 40 none, which leaves the consumers 232. The d192 and d256 consumers spill at 232 (52 and more
// bytes), so their producer stays at 24 and spills instead (local memory, once per item, off the consumers' path).
// fp8 d128 splits 56/224 instead (Config picks it): its producer warpgroup also holds the three converter warps, whose
// row loop is unrolled four deep at 56 (kConvUnroll; H12 1.027x against 40/232 and two deep, NOTES.md 2026-12-04), and
// 224 is the most the dec of 56 covers (ptxas: 8 bytes spilled). fp8 d256 takes the d192/d256 split.
constexpr int kProducerRegs = 40;       // the TMA warp's warpgroup, 16-bit d <= 128 (fp8 d128: 56, see above)
constexpr int kConsumerRegs = 232;      // 16-bit d <= 128 (fp8 d128: 224)
constexpr int kProducerRegsWide = 24;   // d192, d256
constexpr int kConsumerRegsWide = 240;  // d192, d256
constexpr int kLaunchRegs = 168;        // per thread at launch: 65536 / 384 rounded down to a multiple of 8
constexpr int kConverterThreads = 96;   // fp8: warps 1-3 of the producer warpgroup widen the TMA'd bytes into the slabs
constexpr int kConsumerWarps = kConsumerWGs * kWGThreads / 32;  // arrivals that release a ring slot
constexpr int kSwizzleCols = 64;                                // 16-bit elements in one 128-byte swizzle row
constexpr int kSwizzleAtomBytes = 1024;                         // 8 rows x 128 B: the 128B-swizzle repeat
static_assert(kLaunchRegs * kThreads <= 65536 && kLaunchRegs % 8 == 0, "the launch register count of 384 threads");
static_assert(kProducerRegs % 8 == 0 && kConsumerRegs % 8 == 0 && kProducerRegs >= 24 && kConsumerRegs <= 256,
              "setmaxnreg counts are multiples of 8 in [24, 256]");
static_assert(65536 / kThreads >= 168, "the launch register count (<= 65536 / 384) must cover the producer's dec");

// Debug switch for the first GPU run: O += P V as one m64n{d}k16 wgmma per k-step (LBO walks the 64-column
// halves of V) or as d/64 m64n64k16 wgmmas (no LBO). Both are compiled the same way; flip if d > 64 fails.
constexpr bool kPvPerHalf = false;

// Ping-pong (FlashAttention-3 paper, section 3.1): the two consumer warpgroups take turns issuing their wgmmas, so one
// warpgroup's softmax runs while the other's GEMMs hold the tensor cores. Named barrier kTurnBarrier + wg means "wg
// may issue": each issue is bracketed by a sync on the warpgroup's own barrier and an arrive on the other's.
constexpr bool kPingPong = true;

// 16-bit kernels: the producer warpgroup's warps share the K/V loads. Warp 2p + q (p = 0: K, 1: V) issues part q of
// that tensor's 64-column slabs (kLoaderParts parts, fewer when the tensor has fewer slabs); warp 0 also draws the
// items and loads Q. Measured on H03 (paged, 16-row pages: 8 boxes per slab, each issued by its own lane through a
// uniform-register loop): one warp issuing all 32 boxes of a d128 tile was busy ~72 % of the kernel and the
// consumers' largest stall was the wait for K (ncu source counters, H200, 2026-12-03).
#ifndef KSEEK_FA3_LOADER_PARTS
#define KSEEK_FA3_LOADER_PARTS 1
#endif
constexpr int kLoaderParts = KSEEK_FA3_LOADER_PARTS;
static_assert(kLoaderParts == 1 || kLoaderParts == 2, "two warps per tensor at most: the warpgroup has four");
constexpr u32 kTurnBarrier = 1;  // ids 1 and 2 (0 is __syncthreads)

// kD_: Q/K head dim. kDV_: V/O head dim. kBN_: keys per tile (the S wgmma N). kStages_: K/V ring depth. kF16_: fp16
// (else bf16). kCap_: the kernel applies a softcap when the problem has one (else the plan declines softcapped
// problems for it): the tanh in the d128 loop cost 8-16 bytes of spills (ptxas, 168/240 registers), so only the d256
// kernels carry it.
// kFp8_: Q/K/V are e4m3 with descales; TMA brings the raw bytes and three producer-side warps widen them (exactly)
// into the fp16 slabs the wgmmas read, so the main loop is the fp16 one (kF16_ must be 1).
// kDqk_: the Q K^T channels the S wgmmas reduce over (<= kD_, a multiple of 16): a d80/d96 problem on the d128 layout
// has zeros (TMA's fill) in channels d..127, so its S steps past d add nothing and are skipped. kDVpv_: the P V wgmma's
// N (<= kDV_): the O columns past it are V's zero fill, never stored.
template <int kD_, int kDV_, int kBN_, int kStages_, bool kF16_, bool kCap_, bool kFp8_, int kDqk_ = kD_,
          int kDVpv_ = kDV_>
struct Config {
  static constexpr bool kCap = kCap_;
  static constexpr bool kFp8 = kFp8_;
  static constexpr bool kWide = kD_ > 128;
  static constexpr int kProducerRegs = kWide ? ::kseek::plugins::attention_fa3::seed::ws::kProducerRegsWide
                                      : kFp8_ ? 56
                                              : ::kseek::plugins::attention_fa3::seed::ws::kProducerRegs;
  static constexpr int kConsumerRegs = kWide ? ::kseek::plugins::attention_fa3::seed::ws::kConsumerRegsWide
                                      : kFp8_ ? 224
                                              : ::kseek::plugins::attention_fa3::seed::ws::kConsumerRegs;
  // setmaxnreg.inc draws on the registers the CTA's dec released, not on the SM's free registers: the CTA keeps the
  // 384 x kLaunchRegs it launched with. The first fp8 draft (converters at 32, consumers at 240) asked 1,024 registers
  // more than the dec released, and its consumers waited in inc forever (H200, 2026-12-02: H12 TIMEOUT).
  static_assert(kWGThreads * (kLaunchRegs - kProducerRegs) >= kConsumerWGs * kWGThreads * (kConsumerRegs - kLaunchRegs),
                "setmaxnreg: the consumers' inc must be covered by the producer warpgroup's dec");
  static constexpr int kD = kD_;
  static constexpr int kDqk = kDqk_;
  static constexpr int kDVpv = kDVpv_;
  static constexpr int kDV = kDV_;
  static constexpr int kBN = kBN_;
  static constexpr int kStages = kStages_;
  static constexpr bool kF16 = kF16_;
  static constexpr int kHalves = kD_ / kSwizzleCols;    // 64-column slabs of Q and K (one TMA box column each)
  static constexpr int kHalvesV = kDV_ / kSwizzleCols;  // 64-column slabs of V
  // Loader warps of K and of V (16-bit kernels; fp8: one warp loads both raw tiles).
  static constexpr int kPartsK = kHalves < kLoaderParts ? kHalves : kLoaderParts;
  static constexpr int kPartsV = kHalvesV < kLoaderParts ? kHalvesV : kLoaderParts;
  static constexpr int kSRegs = kBN_ / 2;          // f32 S accumulator registers per thread (m64 x kBN)
  static constexpr int kORegs = kDV_ / 2;          // f32 O accumulator registers per thread (m64 x dv)
  static constexpr int kPSteps = kBN_ / 16;        // k16 steps of P V (each holds 4 packed registers of P)
  // The 16-bit epilogue goes through shared memory (stmatrix, then 16-byte row pieces) where the staging fits: 16 rows
  // of dv + 8 columns per consumer warp (the 8 keep stmatrix's eight row addresses on eight bank groups).
  static constexpr bool kStageO = !kFp8_ && kD_ <= 128;
  static constexpr int kStagePitch = kDV_ + 8;
  static constexpr u32 kQBytes = kBM * kD_ * 2;    // one Q tile, every byte counted by complete_tx
  static constexpr u32 kKBytes = kBN_ * kD_ * 2;   // one K tile
  static constexpr u32 kVBytes = kBN_ * kDV_ * 2;  // one V tile
  static_assert(kD_ % kSwizzleCols == 0 && kD_ <= 256, "Q/K in whole 64-column slabs");
  static_assert(kDqk_ % 16 == 0 && kDqk_ <= kD_ && kD_ - kDqk_ < kSwizzleCols, "S steps of 16 within the last slab");
  static_assert(kDVpv_ == kDV_ || (kDVpv_ % 16 == 0 && kDVpv_ < kDV_ && kDV_ - kDVpv_ < kSwizzleCols && !kPvPerHalf),
                "P V's N within the last slab of V, one wgmma per k step");
  static_assert(kDV_ == 64 || kDV_ == 128 || kDV_ == 256, "wgmma N for P V is dv: the wrappers cover 64, 128, 256");
  static_assert(kBN_ == 64 || kBN_ == 128 || kBN_ == 192 || kBN_ == 256,
                "wgmma N for Q K^T is kBN: the wrappers cover 64, 128, 192, 256");
  static_assert(kBN_ % 8 == 0 && kBN_ <= 256, "a TMA box is at most 256 rows; 8-row swizzle atoms");
  static_assert(kStages_ >= 2, "one tile lands while another is consumed");
  static_assert(!kFp8_ || kF16_, "fp8 widens exactly to fp16");
  static_assert(!kFp8_ || (kD_ % 16 == 0 && kDV_ % 16 == 0), "fp8 rows widen 16 bytes at a time");
  // fp8: raw K and V tiles TMA may land ahead of the converters. Two where shared memory holds them (d128: Q 32 KiB,
  // K/V 128 KiB, raw 64 KiB); one at d256 (its fp16 slabs alone take 192 KiB). What two buys is measured, not
  // explained (H12, NOTES.md 2026-12-04): alone, with the first converters, 0.998, so TMA's latency was not their
  // bound; with the per-unit converters, 1.131 against 1.106 for one.
  static constexpr int kRawStages = kFp8_ && kD_ <= 128 ? 2 : 1;
  // fp8: how deep widen_tile's row loop is unrolled (a row: one 16-byte load, two conversions, two stores) and how many
  // Q loads widen_q batches: four where the producer warpgroup has 56 registers (d128), two at d256's 24 (four spilled
  // 456 bytes there).
  static constexpr int kConvUnroll = kWide ? 2 : 4;
};

struct Work {
  int b, h, kvh;    // sequence, query head, its kv head (h / group)
  int q_start, sq;  // first row of the sequence in Q/O, and its query count
  int sk, k_start;  // keys of the sequence; its first row in K/V (packed layout only, 0 when paged)
  int row0;         // first query row (within the sequence) of this CTA
  int shift;        // sk - sq: bottom-right causal alignment
  int wl, wr;       // window edges as problem.h states them (-1: none); wr is 0 under causal
  int t_first;      // first key tile this CTA visits (window: the tile of the first row's first key)
  int n_tiles;      // key tiles this CTA visits: t_first .. t_first + n_tiles - 1, processed from the last one down
  // Key tile of visit t (0 = the first visited, the last tile).
  __device__ __forceinline__ int tile_of(int t) const { return t_first + n_tiles - 1 - t; }
};

// One CTA's shared memory. Every operand slab is [rows][64] 16-bit elements written by TMA with 128B swizzle
// (16-byte chunk c of row r lands at chunk c ^ (r % 8)), so each slab starts on a 1024-byte swizzle atom.
template <class C>
struct alignas(1024) Smem {
  alignas(1024) u16 q[C::kHalves][kBM][kSwizzleCols];                  // [d/64, BM rows, 64] Q of one head
  alignas(1024) u16 k[C::kStages][C::kHalves][C::kBN][kSwizzleCols];   // [stages, d/64, BN keys, 64] K ring
  alignas(1024) u16 v[C::kStages][C::kHalvesV][C::kBN][kSwizzleCols];  // [stages, dv/64, BN keys, 64] V ring
  alignas(128) u16 o_stage[C::kStageO ? kConsumerWarps : 1][16][C::kStageO ? C::kStagePitch : 8];  // per warp
  alignas(8) u64 full_q;               // Q landed (tx-count barrier, one producer arrival)
  alignas(8) u64 full_k[C::kStages];   // K tile of a slot landed
  alignas(8) u64 full_v[C::kStages];   // V tile of a slot landed
  alignas(8) u64 empty_k[C::kStages];  // every consumer warp's S wgmma finished reading a slot's K
  alignas(8) u64 empty_v[C::kStages];  // every consumer warp's P V wgmma finished reading a slot's V
  // fp8 only (one row otherwise): the raw K/V bytes TMA writes, row-major and unswizzled, kRawStages tiles deep; the
  // converter threads widen them into k / v above (and Q straight from global memory into q: no room for a raw Q at
  // d256).
  alignas(128) u8 k_raw[C::kRawStages][C::kFp8 ? C::kBN : 1][C::kD];
  alignas(128) u8 v_raw[C::kRawStages][C::kFp8 ? C::kBN : 1][C::kDV];
  alignas(8) u64 raw_k_full[C::kRawStages], raw_v_full[C::kRawStages];    // TMA landed raw bytes (tx, one arrival)
  alignas(8) u64 raw_k_empty[C::kRawStages], raw_v_empty[C::kRawStages];  // every converter thread read a raw tile
  // Persistent schedule: Q is reloaded per work item once every consumer warp's last S wgmma of the previous item
  // retired; the producer publishes item numbers through a two-slot ring.
  alignas(8) u64 empty_q;        // every consumer warp's last S wgmma of an item retired: Q may be replaced
  alignas(8) u64 work_full[2];   // the producer published work[slot]
  alignas(8) u64 work_empty[2];  // every reader (consumer warps; fp8: converter warps) took work[slot]
  Work work[2];                  // published items, whole (readers load no sequence data); b = -1: no more work
};

// ---------------------------------------------------------------------------------------------------------------------
// PTX wrappers (Hopper). Sections by title and anchor of docs.nvidia.com/cuda/parallel-thread-execution/.
// ---------------------------------------------------------------------------------------------------------------------

// PTX ISA: mbarrier.init (#parallel-synchronization-and-communication-instructions-mbarrier-init).
__device__ __forceinline__ void mbar_init(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
// PTX ISA: fence.proxy.async (#parallel-synchronization-and-communication-instructions-membar): the initialised
// barriers become visible to the async proxy (TMA complete_tx) before any copy is issued.
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
// PTX ISA: mbarrier.arrive with .expect_tx (#parallel-synchronization-and-communication-instructions-mbarrier-arrive):
// one arrival, and the phase also waits for `bytes` of complete_tx.
__device__ __forceinline__ void mbar_arrive_expect_tx(u32 bar, u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
// PTX ISA: mbarrier.arrive (#parallel-synchronization-and-communication-instructions-mbarrier-arrive).
__device__ __forceinline__ void mbar_arrive(u32 bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// PTX ISA: mbarrier.try_wait.parity (#parallel-synchronization-and-communication-instructions-mbarrier-test-wait):
// returns once the phase with parity `parity` has completed.
__device__ __forceinline__ void mbar_wait(u32 bar, u32 parity) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}
// PTX ISA: prefetch.tensormap (#data-movement-and-conversion-instructions-prefetch-prefetchu).
__device__ __forceinline__ void prefetch_tensor_map(const void* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<u64>(map)) : "memory");
}
// PTX ISA: cp.async.bulk.tensor (#data-movement-and-conversion-instructions-cp-async-bulk-tensor), tile mode,
// completion through the mbarrier's tx-count. Coordinates innermost first, in elements; out-of-bounds elements are
// zero-filled (and, to be checked on the GPU, still counted in the transaction bytes).
__device__ __forceinline__ void tma_load_3d(u32 dst, const void* map, u32 bar, int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
      "[%5];\n" ::"r"(dst),
      "l"(reinterpret_cast<u64>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
      : "memory");
}
__device__ __forceinline__ void tma_load_4d(u32 dst, const void* map, u32 bar, int c0, int c1, int c2, int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], "
      "[%6];\n" ::"r"(dst),
      "l"(reinterpret_cast<u64>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar)
      : "memory");
}
// PTX ISA: stmatrix (#warp-level-matrix-instructions-stmatrix): four 8x8 16-bit matrices, register j of each lane
// holding row lane / 4, columns 2 (lane % 4) and + 1 of matrix j (the mma accumulator layout); lane l gives the
// address of row l % 8 of matrix l / 8.
__device__ __forceinline__ void stmatrix_x4(u32 addr, u32 r0, u32 r1, u32 r2, u32 r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(r0), "r"(r1),
               "r"(r2), "r"(r3)
               : "memory");
}

// PTX ISA: setmaxnreg (#miscellaneous-instructions-setmaxnreg): warpgroup-wide register reallocation; needs
// __launch_bounds__(threads, 1) and no relocatable device code, or ptxas ignores it (C7508 / C7504).
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}
// PTX ISA: bar.sync / bar.arrive (#parallel-synchronization-and-communication-instructions-bar-barrier): named
// barrier `id` completes once `count` threads arrived; bar.arrive counts without waiting. Id 0 is __syncthreads.
__device__ __forceinline__ void named_bar_sync(u32 id, u32 count) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void named_bar_arrive(u32 id, u32 count) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

// PTX ISA: atom (#parallel-synchronization-and-communication-instructions-atom): add 1, return the old value (relaxed,
// gpu scope: the counter only hands out numbers; the items' data are ordered by the mbarriers).
__device__ __forceinline__ int atomic_take(int* counter) {
  int old;
  asm volatile("atom.global.add.s32 %0, [%1], 1;\n" : "=r"(old) : "l"(reinterpret_cast<u64>(counter)) : "memory");
  return old;
}

// PTX ISA: fence.proxy.async (#parallel-synchronization-and-communication-instructions-membar): this thread's
// generic-proxy shared-memory writes become visible to the async proxy (the wgmmas that read the widened fp8 slabs).
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// PTX ISA: wgmma.fence (#asynchronous-warpgroup-level-matrix-instructions-wgmma-fence): orders this warpgroup's
// register writes (O rescale, P packing) before the wgmma that reads them.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
// PTX ISA: wgmma.commit_group (#asynchronous-warpgroup-level-matrix-instructions-wgmma-commit-group).
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
// PTX ISA: wgmma.wait_group (#asynchronous-warpgroup-level-matrix-instructions-wgmma-wait-group): at most kPending
// of this warpgroup's committed groups are still in flight afterwards (groups retire in order).
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}
// The compiler sees a wgmma's registers as written at issue; this empty asm re-defines them after the matching
// wait, so no read of an accumulator is hoisted above the wait and no A-operand register is reused while in flight
// (the CUTLASS warpgroup_fence_operand idea, written here for plain arrays).
template <int kN>
__device__ __forceinline__ void fence_regs(float (&r)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(r[i])::"memory");
}
template <int kN>
__device__ __forceinline__ void fence_regs(u32 (&r)[kN][4]) {
#pragma unroll
  for (int i = 0; i < kN; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e) asm volatile("" : "+r"(r[i][e])::"memory");
}

// PTX ISA: matrix descriptor (#asynchronous-warpgroup-level-matrix-shared-memory-layout-matrix-descriptor):
// bits 0-13 start address >> 4, 16-29 leading-dimension byte offset >> 4, 32-45 stride-dimension byte offset >> 4,
// 49-51 base offset (0: every slab starts on a 1024-byte atom), 62-63 swizzle (1 = 128B).
// K-major, 128B swizzle (Q, K): SBO = 1024 (next 8 rows); LBO unused (the k16 step stays inside one 128-byte row),
// encoded as 1. MN-major, 128B swizzle (V read as B with imm-trans-b = 1): SBO = 1024 (next 8 keys, i.e. k rows),
// LBO = bytes from one 64-column slab of N to the next.
__device__ __forceinline__ u64 make_desc(u32 smem_addr, u32 lbo_bytes, u32 sbo_bytes) {
  u64 d = 0;
  d |= static_cast<u64>((smem_addr >> 4) & 0x3fffu);
  d |= static_cast<u64>((lbo_bytes >> 4) & 0x3fffu) << 16;
  d |= static_cast<u64>((sbo_bytes >> 4) & 0x3fffu) << 32;
  d |= static_cast<u64>(1) << 62;
  return d;
}

// m64n64k16, f32 accumulator: 32 registers per thread (PTX ISA
// #asynchronous-warpgroup-level-matrix-instructions-wgmma-mma-async).
#define KSEEK_WG_D64                                                                                                \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, " \
  "%24, %25, %26, %27, %28, %29, %30, %31}"
// m64n128k16, f32 accumulator: 64 registers per thread (PTX ISA
// #asynchronous-warpgroup-level-matrix-instructions-wgmma-mma-async).
#define KSEEK_WG_D128                                                                                               \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, " \
  "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, "  \
  "%46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
// m64n80k16 and m64n96k16 (P V of the d80/d96 kernels), f32 accumulator: 40 and 48 registers per thread, the first
// of the m64n128 layout's (register 4i + 2hf + e holds column 8i + 2t + e).
#define KSEEK_WG_D80                                                                                                \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, " \
  "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39}"
#define KSEEK_WG_D96                                                                                                \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, " \
  "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, "  \
  "%46, %47}"
// m64n192k16 (S of the d64 kernels' 192-key tiles), f32 accumulator: 96 registers per thread.
#define KSEEK_WG_D192 \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, " \
  "%23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, " \
  "%44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, " \
  "%65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, " \
  "%86, %87, %88, %89, %90, %91, %92, %93, %94, %95}"
// m64n256k16, f32 accumulator: 128 registers per thread (PTX ISA
// #asynchronous-warpgroup-level-matrix-instructions-wgmma-mma-async).
#define KSEEK_WG_D256                                                                                               \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, " \
  "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, "  \
  "%46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, "  \
  "%68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, "  \
  "%90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, "  \
  "%110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}"
#define KSEEK_WG_F8(d, i)                                                                                     \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), \
      "+f"(d[i + 7])
#define KSEEK_WG_F32(d, i) KSEEK_WG_F8(d, i), KSEEK_WG_F8(d, i + 8), KSEEK_WG_F8(d, i + 16), KSEEK_WG_F8(d, i + 24)
#define KSEEK_WG_OPS64(d) KSEEK_WG_F32(d, 0)
#define KSEEK_WG_OPS80(d) KSEEK_WG_F32(d, 0), KSEEK_WG_F8(d, 32)
#define KSEEK_WG_OPS96(d) KSEEK_WG_F32(d, 0), KSEEK_WG_F8(d, 32), KSEEK_WG_F8(d, 40)
#define KSEEK_WG_OPS128(d) KSEEK_WG_F32(d, 0), KSEEK_WG_F32(d, 32)
#define KSEEK_WG_OPS192(d) KSEEK_WG_F32(d, 0), KSEEK_WG_F32(d, 32), KSEEK_WG_F32(d, 64)
#define KSEEK_WG_OPS256(d) KSEEK_WG_F32(d, 0), KSEEK_WG_F32(d, 32), KSEEK_WG_F32(d, 64), KSEEK_WG_F32(d, 96)
#define KSEEK_WG_SS64(TYPES)                   \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n64k16.f32." TYPES " " KSEEK_WG_D64 ", %32, %33, p, 1, 1, 0, 0;\n}\n"
#define KSEEK_WG_RS64(TYPES)                   \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n64k16.f32." TYPES " " KSEEK_WG_D64 ", {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
#define KSEEK_WG_RS80(TYPES)                   \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %45, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n80k16.f32." TYPES " " KSEEK_WG_D80 ", {%40, %41, %42, %43}, %44, p, 1, 1, 1;\n}\n"
#define KSEEK_WG_RS96(TYPES)                   \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %53, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n96k16.f32." TYPES " " KSEEK_WG_D96 ", {%48, %49, %50, %51}, %52, p, 1, 1, 1;\n}\n"
#define KSEEK_WG_SS128(TYPES)                  \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPES " " KSEEK_WG_D128 ", %64, %65, p, 1, 1, 0, 0;\n}\n"
#define KSEEK_WG_RS128(TYPES)                                            \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"                           \
  "wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPES " " KSEEK_WG_D128 \
  ", {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
#define KSEEK_WG_SS192(TYPES)                  \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n192k16.f32." TYPES " " KSEEK_WG_D192 ", %96, %97, p, 1, 1, 0, 0;\n}\n"
#define KSEEK_WG_SS256(TYPES)                   \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n" \
  "wgmma.mma_async.sync.aligned.m64n256k16.f32." TYPES " " KSEEK_WG_D256 ", %128, %129, p, 1, 1, 0, 0;\n}\n"
#define KSEEK_WG_RS256(TYPES)                                            \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"                          \
  "wgmma.mma_async.sync.aligned.m64n256k16.f32." TYPES " " KSEEK_WG_D256 \
  ", {%128, %129, %130, %131}, %132, p, 1, 1, 1;\n}\n"

// PTX ISA: wgmma.mma_async (#asynchronous-warpgroup-level-matrix-instructions-wgmma-mma-async), both operands from
// shared-memory descriptors, K-major (imm-trans-a = imm-trans-b = 0): d (+)= A[64 x 16] B[16 x N]. accumulate == 0
// ignores d's old value (scale-d false), so no zeroing of an accumulator is ever needed.
template <int kN, bool kF16>
__device__ __forceinline__ void wgmma_ss(float (&d)[kN / 2], u64 desc_a, u64 desc_b, u32 accumulate) {
  if constexpr (kN == 64) {
    if constexpr (kF16)
      asm volatile(KSEEK_WG_SS64("f16.f16") : KSEEK_WG_OPS64(d) : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    else
      asm volatile(KSEEK_WG_SS64("bf16.bf16") : KSEEK_WG_OPS64(d) : "l"(desc_a), "l"(desc_b), "r"(accumulate));
  } else if constexpr (kN == 128) {
    if constexpr (kF16)
      asm volatile(KSEEK_WG_SS128("f16.f16") : KSEEK_WG_OPS128(d) : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    else
      asm volatile(KSEEK_WG_SS128("bf16.bf16") : KSEEK_WG_OPS128(d) : "l"(desc_a), "l"(desc_b), "r"(accumulate));
  } else if constexpr (kN == 192) {
    if constexpr (kF16)
      asm volatile(KSEEK_WG_SS192("f16.f16") : KSEEK_WG_OPS192(d) : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    else
      asm volatile(KSEEK_WG_SS192("bf16.bf16") : KSEEK_WG_OPS192(d) : "l"(desc_a), "l"(desc_b), "r"(accumulate));
  } else {
    static_assert(kN == 256, "wgmma_ss covers N = 64, 128, 192, 256");
    if constexpr (kF16)
      asm volatile(KSEEK_WG_SS256("f16.f16") : KSEEK_WG_OPS256(d) : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    else
      asm volatile(KSEEK_WG_SS256("bf16.bf16") : KSEEK_WG_OPS256(d) : "l"(desc_a), "l"(desc_b), "r"(accumulate));
  }
}

// PTX ISA: wgmma.mma_async, A from registers (#asynchronous-warpgroup-level-matrix-register-fragment-wgmma-64n16:
// a0 = (row g, k 2t..2t+1), a1 = (g + 8, 2t..), a2 = (g, 2t + 8..), a3 = (g + 8, 2t + 8..) within the warp's 16
// rows), B from a descriptor read MN-major (imm-trans-b = 1): d += A[64 x 16] B[16 x N].
template <int kN, bool kF16>
__device__ __forceinline__ void wgmma_rs(float (&d)[kN / 2], const u32 (&a)[4], u64 desc_b, u32 accumulate) {
  if constexpr (kN == 64) {
    if constexpr (kF16)
      asm volatile(KSEEK_WG_RS64("f16.f16")
                   : KSEEK_WG_OPS64(d)
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
    else
      asm volatile(KSEEK_WG_RS64("bf16.bf16")
                   : KSEEK_WG_OPS64(d)
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
  } else if constexpr (kN == 80) {
    if constexpr (kF16)
      asm volatile(KSEEK_WG_RS80("f16.f16")
                   : KSEEK_WG_OPS80(d)
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
    else
      asm volatile(KSEEK_WG_RS80("bf16.bf16")
                   : KSEEK_WG_OPS80(d)
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
  } else if constexpr (kN == 96) {
    if constexpr (kF16)
      asm volatile(KSEEK_WG_RS96("f16.f16")
                   : KSEEK_WG_OPS96(d)
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
    else
      asm volatile(KSEEK_WG_RS96("bf16.bf16")
                   : KSEEK_WG_OPS96(d)
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
  } else if constexpr (kN == 128) {
    if constexpr (kF16)
      asm volatile(KSEEK_WG_RS128("f16.f16")
                   : KSEEK_WG_OPS128(d)
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
    else
      asm volatile(KSEEK_WG_RS128("bf16.bf16")
                   : KSEEK_WG_OPS128(d)
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
  } else {
    static_assert(kN == 256, "wgmma_rs covers N = 64, 80, 96, 128, 256");
    if constexpr (kF16)
      asm volatile(KSEEK_WG_RS256("f16.f16")
                   : KSEEK_WG_OPS256(d)
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
    else
      asm volatile(KSEEK_WG_RS256("bf16.bf16")
                   : KSEEK_WG_OPS256(d)
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Geometry shared by the producer and the consumers (both must agree on every tile count).
// ---------------------------------------------------------------------------------------------------------------------

// First key row i may see, and one past the last (problem.h's mask: bottom-right aligned window, causal = window
// right edge 0); both clamped to [0, sk]. Both are non-decreasing in i, which the tile bounds below rely on.
__device__ __forceinline__ int row_key_begin(int i, const Work& w) { return visible_lo(i, w.shift, w.wl); }
__device__ __forceinline__ int row_key_end(int i, const Work& w) { return visible_hi(i, w.shift, w.wr, w.sk); }

// The persistent schedule (FlashAttention-3, section 3.1's persistent kernel): one CTA per SM takes work items (128
// query rows of one head of one sequence) until none is left, so one item's Q load, first K/V tiles and pipeline
// fill run under the previous item's last P V and epilogue, and the CTA's launch, barrier set-up and register
// reallocation are paid once. Items are numbered as the earlier one-CTA-per-item grid was: m blocks fastest,
// heaviest (longest causal key range) first, then query heads, then sequences. The ~one item per SM in flight at a time
// are then the m blocks of a few heads, which read the same K/V tiles (L2 reuse; ordering the heaviest blocks of
// all heads first would put 132 different heads' K/V in flight, more than HBM can feed at full rate for MHA).
// Numbers come from an atomic counter in the zeroed workspace, so the hardware's dynamic balance is kept: a CTA that
// finishes early takes the next number.
//
// Ragged and mixed batches use a compact numbering instead (kseek_fa3_ws_schedule, the plan's first launch, writes it
// to the workspace): sequence b owns m_start[b + 1] - m_start[b] row blocks (0 for a sequence the decode kernel takes),
// so no number is drawn for a block past a sequence's end; H21's 250 decodes in a batch with a 2048-row chunk would
// otherwise cost ~128 draws of the counter each.
struct Schedule {
  int m_blocks;        // dense: 128-row blocks of the longest sequence
  int items;           // dense: m_blocks x heads x sequences; compact: total blocks x heads
  const int* m_start;  // compact: [batch + 1] prefix sums of each sequence's row blocks (null: dense)
};

// Workspace of the persistent kernel: [0] the item counter; [1] 1 when the compact numbering follows at kMStartOffset.
constexpr int kWsCounter = 0;
constexpr int kWsCompactFlag = 1;
constexpr int kMStartOffset = 64;  // ints: m_start[] begins 256 bytes in

__device__ __forceinline__ Schedule schedule_of(const Args& args) {
  const AttentionProblem& pr = args.problem;
  const int* ws = static_cast<const int*>(args.workspace);
  Schedule s;
  if (ws[kWsCompactFlag] != 0) {
    s.m_start = ws + kMStartOffset;
    s.m_blocks = 0;
    s.items = s.m_start[pr.batch] * pr.num_heads_q;
  } else {
    s.m_start = nullptr;
    s.m_blocks = (pr.max_seqlen_q + kBM - 1) / kBM;
    s.items = s.m_blocks * pr.num_heads_q * pr.batch;
  }
  return s;
}

// Sequences of a mixed batch (decode-like: fewer than kBM / 2 query tokens per sequence on average) that the decode
// kernel takes instead: GQA-packed rows within one decode launch's reach (the seed's kMaxRowsForDecode).
__device__ __forceinline__ bool mixed_batch(const AttentionProblem& pr) {
  return static_cast<i64>(pr.total_q) < static_cast<i64>(pr.batch) * (kBM / 2);
}

template <class C>
__device__ __forceinline__ bool fill_work(const AttentionProblem& pr, int b, int h, int row0, Work& w);

// The work of item `idx`; false when its rows lie past its sequence (varlen), which the producer skips.
template <class C>
__device__ __forceinline__ bool make_work(const AttentionProblem& pr, const Schedule& sc, int idx, Work& w) {
  int m_blocks = sc.m_blocks, m_rank;
  if (sc.m_start != nullptr) {  // compact: the sequence whose range holds idx (binary search), then head, m block
    int lo = 0, hi = pr.batch - 1;
    while (lo < hi) {
      const int mid = (lo + hi + 1) >> 1;
      if (sc.m_start[mid] * pr.num_heads_q <= idx)
        lo = mid;
      else
        hi = mid - 1;
    }
    const int first = sc.m_start[lo];
    m_blocks = sc.m_start[lo + 1] - first;
    const int local = idx - first * pr.num_heads_q;
    w.b = lo;
    w.h = local / m_blocks;
    m_rank = local - w.h * m_blocks;
  } else {
    const int hb = idx / m_blocks;
    m_rank = idx - hb * m_blocks;
    w.b = hb / pr.num_heads_q;
    w.h = hb - w.b * pr.num_heads_q;
  }
  return fill_work<C>(pr, w.b, w.h, (m_blocks - 1 - m_rank) * kBM, w);  // causal: the longest key ranges first
}

// The work of sequence b, query head h, rows row0 .. row0 + kBM - 1; false when row0 lies past the sequence. The
// producer publishes (b, h, row0) of each item, so its readers never decode an item number (one code path for the
// dense and the compact numbering).
template <class C>
__device__ __forceinline__ bool fill_work(const AttentionProblem& pr, int b, int h, int row0, Work& w) {
  w.b = b;
  w.h = h;
  const int group = pr.num_heads_q / pr.num_heads_kv;
  w.kvh = w.h / group;
  w.q_start = pr.cu_seqlens_q[w.b];
  w.sq = pr.cu_seqlens_q[w.b + 1] - w.q_start;
  w.row0 = row0;
  if (w.row0 >= w.sq) return false;
  w.sk = pr.seqused_k ? pr.seqused_k[w.b] : pr.cu_seqlens_k[w.b + 1] - pr.cu_seqlens_k[w.b];
  w.k_start = pr.paged ? 0 : pr.cu_seqlens_k[w.b];
  w.shift = w.sk - w.sq;
  w.wl = pr.window_left;
  w.wr = pr.causal ? 0 : pr.window_right;
  const int last_row = (w.row0 + kBM < w.sq ? w.row0 + kBM : w.sq) - 1;
  // Block skipping: nothing past the last row's end (causal) or before the first row's begin (window).
  const int key_begin = row_key_begin(w.row0, w);
  const int key_end = row_key_end(last_row, w);
  w.t_first = key_begin / C::kBN;
  w.n_tiles = key_end > key_begin ? (key_end + C::kBN - 1) / C::kBN - w.t_first : 0;
  return true;
}

// ---------------------------------------------------------------------------------------------------------------------
// Producer: one warp. Lane 0 arms each barrier with the bytes of its tile; the lanes then issue the boxes (paged: one
// lane per page slice of the tile, each looking up its own block_table entry).
// ---------------------------------------------------------------------------------------------------------------------
// Slabs kFirst .. kFirst + kCount - 1 of one tile (one loader warp's part; its own arrival and bytes on `full`).
template <class C, int kSlabs, int kFirst, int kCount>
__device__ __forceinline__ void load_kv_tile(u16 (&dst)[kSlabs][C::kBN][kSwizzleCols], const void* map, u32 full,
                                             u32 empty, int t, int round, const Work& w, bool paged, int row, int boxes,
                                             int rpb, int in_page, int page) {
  static_assert(kFirst + kCount <= kSlabs, "a part within the tile's slabs");
  constexpr u32 kBytes = static_cast<u32>(kCount) * C::kBN * kSwizzleCols * 2;
  const int lane = threadIdx.x & 31;
  // WAR on the ring slot: every consumer warp has finished reading round - 1 of this slot before TMA overwrites it
  // (their releases completed phase round - 1 of `empty`).
  if (t >= C::kStages) mbar_wait(empty, static_cast<u32>((round - 1) & 1));
  if (lane == 0) mbar_arrive_expect_tx(full, kBytes);
  __syncwarp();  // the barrier is armed (arrival + expected bytes) before any lane's box can complete on it
  if (paged) {   // one lane per page slice of the tile
    if (lane < boxes) {
#pragma unroll
      for (int hf = kFirst; hf < kFirst + kCount; ++hf) {
        tma_load_4d(smem_u32(&dst[hf][lane * rpb][0]), map, full, hf * kSwizzleCols, w.kvh, in_page, page);
      }
    }
  } else if (lane == 0) {
#pragma unroll
    for (int hf = kFirst; hf < kFirst + kCount; ++hf) {
      tma_load_3d(smem_u32(&dst[hf][0][0]), map, full, hf * kSwizzleCols, w.kvh, row);
    }
  }
}

// The producer warp draws item numbers until one has rows (lane 0 draws, the warp agrees) and publishes it in slot
// j % 2 once every reader took the item two before; a number >= items tells every reader to stop.
template <class C>
__device__ __forceinline__ int next_item(const Args& args, const Schedule& sc, Smem<C>& sm, int j, Work& w) {
  const int lane = threadIdx.x & 31;
  int idx = 0;
  do {
    if (lane == 0) idx = atomic_take(static_cast<int*>(args.workspace));
    idx = __shfl_sync(0xffffffffu, idx, 0);
  } while (idx < sc.items && !make_work<C>(args.problem, sc, idx, w));
  const int slot = j & 1;
  if (j >= 2) mbar_wait(smem_u32(&sm.work_empty[slot]), static_cast<u32>(((j >> 1) - 1) & 1));
  if (lane == 0) {
    const bool more = idx < sc.items;
    Work published = w;
    if (!more) published.b = -1;
    sm.work[slot] = published;
    mbar_arrive(smem_u32(&sm.work_full[slot]));  // release: the stores above are seen by whoever waits on the phase
  }
  __syncwarp();
  return idx;
}

// A reader warp (consumer, converter or loader) takes item j: every lane copies the published Work out of the slot,
// then lane 0 releases it. False when the producer said there is no more work. Publishing the whole Work spares each
// reader fill_work's dependent loads of cu_seqlens / seqused_k at every item boundary.
template <class C>
__device__ __forceinline__ bool take_item(Smem<C>& sm, int j, Work& w) {
  const int slot = j & 1;
  mbar_wait(smem_u32(&sm.work_full[slot]), static_cast<u32>((j >> 1) & 1));
  static_assert(sizeof(Work) % sizeof(int) == 0, "Work is a run of ints");
  const volatile int* src = reinterpret_cast<const volatile int*>(&sm.work[slot]);
  int* dst = reinterpret_cast<int*>(&w);
#pragma unroll
  for (int i = 0; i < static_cast<int>(sizeof(Work) / sizeof(int)); ++i) dst[i] = src[i];
  __syncwarp();
  if ((threadIdx.x & 31) == 0) mbar_arrive(smem_u32(&sm.work_empty[slot]));
  return w.b >= 0;
}

// fp8: TMA brings the raw rows of K or V tile t (box {d, 1, rows}, no swizzle) into raw slot t % kRawStages once the
// converter warps have read tile t - kRawStages out of it.
template <class C, int kCols>
__device__ __forceinline__ void load_raw_tile(u8 (&raw)[C::kRawStages][C::kBN][kCols], const void* map,
                                              const u64 (&fulls)[C::kRawStages], const u64 (&empties)[C::kRawStages],
                                              int t, const Work& w, bool paged, int row, int boxes, int rpb,
                                              int in_page, int page) {
  const int lane = threadIdx.x & 31;
  const int slot = t % C::kRawStages, round = t / C::kRawStages;
  u8(&dst)[C::kBN][kCols] = raw[slot];
  const u32 full = smem_u32(&fulls[slot]), empty = smem_u32(&empties[slot]);
  if (round >= 1) mbar_wait(empty, static_cast<u32>((round - 1) & 1));  // WAR: tile t - kRawStages was read
  if (lane == 0) mbar_arrive_expect_tx(full, static_cast<u32>(C::kBN * kCols));
  __syncwarp();
  if (paged) {
    if (lane < boxes) tma_load_4d(smem_u32(&dst[lane * rpb][0]), map, full, 0, w.kvh, in_page, page);
  } else if (lane == 0) {
    tma_load_3d(smem_u32(&dst[0][0]), map, full, 0, w.kvh, row);
  }
}

// fp8: 16 e4m3 bytes of row r (16-column unit u of the raw row) -> 16 fp16 in the 128B-swizzled slab layout the TMA of
// the 16-bit kernels writes (16-byte chunk c of a slab row r lands at chunk c ^ (r % 8)). e4m3 -> fp16 is exact.
// Each converter thread keeps one 16-byte column unit and walks the rows kConverterThreads / units apart, so its loop
// is a pointer step and a two-value swizzle (ncu on H12, 2026-12-04: the first version's per-unit division and index
// math made the converters the bound, the consumers waiting on widened K in 18 % of all samples). kUnroll unrolls the
// row loop, which does not put the loads ahead of the previous row's stores: the SASS of ws_fp8_d128 (nvdisasm,
// 2026-12-04) loads each row after the row before it is stored, one load in flight (widen_q batches its loads).
// The last step leaves src and dst past the tile, never dereferenced: the five forms tried that compute them from r
// each changed the fp8 kernels' SASS and spills (ptxas, fp8 d256: 424 to 516 bytes loaded against 432).
template <int kUnroll, int kRows, int kCols, int kSlabs>
__device__ __forceinline__ void widen_tile(const u8 (&raw)[kRows][kCols], u16 (&slabs)[kSlabs][kRows][kSwizzleCols],
                                           int ct) {
  constexpr int kUnitsPerRow = kCols / 16;
  static_assert(kConverterThreads % kUnitsPerRow == 0, "every converter thread keeps one column unit");
  constexpr int kRowStep = kConverterThreads / kUnitsPerRow;
  const int u = ct % kUnitsPerRow, r0 = ct / kUnitsPerRow;
  const int chunk = ((16 * u) % kSwizzleCols) / 8;  // the first of the unit's two 16-byte chunks
  const u8* src = &raw[r0][16 * u];
  u8* dst = reinterpret_cast<u8*>(&slabs[(16 * u) / kSwizzleCols][r0][0]);
#pragma unroll kUnroll
  for (int r = r0; r < kRows; r += kRowStep, src += kRowStep * kCols, dst += kRowStep * kSwizzleCols * 2) {
    const uint4 bytes = *reinterpret_cast<const uint4*>(src);
    *reinterpret_cast<uint4*>(dst + 16 * (chunk ^ (r & 7))) = widen_e4m3x8(bytes.x, bytes.y);
    *reinterpret_cast<uint4*>(dst + 16 * ((chunk + 1) ^ (r & 7))) = widen_e4m3x8(bytes.z, bytes.w);
  }
}

// fp8: the CTA's kBM query rows of head w.h, 16 bytes per load, widened into the q slabs; rows past the sequence are
// zeros (never stored). A Q base that is not 16-byte aligned takes byte loads.
template <class C>
__device__ __forceinline__ void widen_q(Smem<C>& sm, const AttentionProblem& pr, const Work& w, int ct) {
  constexpr int kUnitsPerRow = C::kD / 16;
  static_assert(kConverterThreads % kUnitsPerRow == 0, "every converter thread keeps one column unit");
  constexpr int kRowStep = kConverterThreads / kUnitsPerRow;
  // Loads in flight per thread: the first version had one, and its global-load latency, paid once per row, kept the
  // converters from the item's first K/V tiles (ncu on H12, 2026-12-04: the largest converter stall).
  constexpr int kBatch = C::kConvUnroll;
  const u8* q = static_cast<const u8*>(pr.q);
  const bool vec = (reinterpret_cast<unsigned long long>(q) & 15ull) == 0;
  const int u = ct % kUnitsPerRow, r0 = ct / kUnitsPerRow;
  const int slab = (16 * u) / kSwizzleCols, chunk = ((16 * u) % kSwizzleCols) / 8;
#pragma unroll 1
  for (int rb = r0; rb < kBM; rb += kBatch * kRowStep) {
    uint4 bytes[kBatch];
#pragma unroll
    for (int i = 0; i < kBatch; ++i) {
      const int r = rb + i * kRowStep, tok = w.row0 + r;
      bytes[i] = make_uint4(0u, 0u, 0u, 0u);
      if (r >= kBM || tok >= w.sq) continue;
      const u8* src =
          q + static_cast<i64>(w.q_start + tok) * pr.q_row_stride + static_cast<i64>(w.h) * pr.q_head_stride + 16 * u;
      if (vec) {
        bytes[i] = *reinterpret_cast<const uint4*>(src);
      } else {
        u32 word[4];
#pragma unroll
        for (int j = 0; j < 4; ++j)
          word[j] =
              u32(src[4 * j]) | (u32(src[4 * j + 1]) << 8) | (u32(src[4 * j + 2]) << 16) | (u32(src[4 * j + 3]) << 24);
        bytes[i] = make_uint4(word[0], word[1], word[2], word[3]);
      }
    }
#pragma unroll
    for (int i = 0; i < kBatch; ++i) {
      const int r = rb + i * kRowStep;
      if (r >= kBM) break;
      u8* dst_row = reinterpret_cast<u8*>(&sm.q[slab][r][0]);
      *reinterpret_cast<uint4*>(dst_row + 16 * (chunk ^ (r & 7))) = widen_e4m3x8(bytes[i].x, bytes[i].y);
      *reinterpret_cast<uint4*>(dst_row + 16 * ((chunk + 1) ^ (r & 7))) = widen_e4m3x8(bytes[i].z, bytes[i].w);
    }
  }
}

// fp8: the converter threads (warps 1-3 of the producer warpgroup). Per tile: wait for the raw bytes and for the slab
// to be free, widen, make this thread's writes visible to the async proxy (the wgmmas), then release the raw buffer
// and publish the slab on the same full barriers the 16-bit kernels' TMA completes: every converter thread arrives
// (kConverterThreads arrivals instead of a tx count), so no thread's writes rely on another thread's release.
template <class C>
__device__ __forceinline__ void convert(Smem<C>& sm, const AttentionProblem& pr) {
  const int ct = threadIdx.x - 32;  // 0 .. kConverterThreads - 1
  int it = 0;                       // tiles widened so far, over all items: the ring's slot and phase
  for (int j = 0;; ++j) {
    Work w;
    if (!take_item(sm, j, w)) break;
    if (j >= 1) mbar_wait(smem_u32(&sm.empty_q), static_cast<u32>((j - 1) & 1));  // WAR on Q: item j - 1's S retired
    widen_q(sm, pr, w, ct);
    fence_proxy_async();
    mbar_arrive(smem_u32(&sm.full_q));
    for (int t = 0; t < w.n_tiles; ++t, ++it) {
      const int stage = it % C::kStages, round = it / C::kStages;
      const int slot = it % C::kRawStages;
      const u32 raw_phase = static_cast<u32>((it / C::kRawStages) & 1);
      mbar_wait(smem_u32(&sm.raw_k_full[slot]), raw_phase);
      if (it >= C::kStages) mbar_wait(smem_u32(&sm.empty_k[stage]), static_cast<u32>((round - 1) & 1));
      widen_tile<C::kConvUnroll>(sm.k_raw[slot], sm.k[stage], ct);
      fence_proxy_async();
      mbar_arrive(smem_u32(&sm.raw_k_empty[slot]));
      mbar_arrive(smem_u32(&sm.full_k[stage]));
      mbar_wait(smem_u32(&sm.raw_v_full[slot]), raw_phase);
      if (it >= C::kStages) mbar_wait(smem_u32(&sm.empty_v[stage]), static_cast<u32>((round - 1) & 1));
      widen_tile<C::kConvUnroll>(sm.v_raw[slot], sm.v[stage], ct);
      fence_proxy_async();
      mbar_arrive(smem_u32(&sm.raw_v_empty[slot]));
      mbar_arrive(smem_u32(&sm.full_v[stage]));
    }
  }
}

// One loader warp's share of an item's tiles: 16-bit, part kPart of K (kTensor 0) or of V (1); fp8 (kTensor 0), both
// raw tiles. `it0` counts the tiles loaded before it.
template <class C, int kTensor, int kPart>
__device__ __forceinline__ void produce_item(Smem<C>& sm, const Work& w, const AttentionProblem& pr, const void* map_k,
                                             const void* map_v, int rpb, int boxes, int last_box_key,
                                             const int* table_row, int it0, bool also_v = false) {
  const int lane = threadIdx.x & 31;
  for (int t = 0; t < w.n_tiles; ++t) {
    const int it = it0 + t;
    const int stage = it % C::kStages;
    const int round = it / C::kStages;
    const int n = w.tile_of(t);
    int page = 0, in_page = 0;
    if (pr.paged && lane < boxes) {
      int key = n * C::kBN + lane * rpb;
      key = key < last_box_key ? key : last_box_key;
      const int col = key / pr.block_size;
      in_page = key - col * pr.block_size;
      page = table_row[col];
    }
    // K and V of a slot are released apart: K when the S wgmma that read it retired (mid-iteration), V when its P V
    // did (end of the next iteration). One joint release made every K load wait for the P V of two tiles back, which
    // left the consumers waiting on K at the top of each iteration with a 2-deep ring.
    const int row = w.k_start + n * C::kBN;
    if constexpr (C::kFp8) {
      load_raw_tile<C>(sm.k_raw, map_k, sm.raw_k_full, sm.raw_k_empty, it, w, pr.paged, row, boxes, rpb, in_page, page);
      load_raw_tile<C>(sm.v_raw, map_v, sm.raw_v_full, sm.raw_v_empty, it, w, pr.paged, row, boxes, rpb, in_page, page);
      continue;
    }
    if constexpr (kTensor == 0) {
      constexpr int kPer = C::kHalves / C::kPartsK;
      load_kv_tile<C, C::kHalves, kPart * kPer, kPer>(sm.k[stage], map_k, smem_u32(&sm.full_k[stage]),
                                                      smem_u32(&sm.empty_k[stage]), it, round, w, pr.paged, row, boxes,
                                                      rpb, in_page, page);
      if (also_v) {  // no V warp (unpaged problems): this warp loads the whole V tile as well
        static_assert(kLoaderParts == 1, "also_v loads V whole: one loader part per tensor");
        load_kv_tile<C, C::kHalvesV, 0, C::kHalvesV>(sm.v[stage], map_v, smem_u32(&sm.full_v[stage]),
                                                     smem_u32(&sm.empty_v[stage]), it, round, w, pr.paged, row, boxes,
                                                     rpb, in_page, page);
      }
    } else {
      constexpr int kPer = C::kHalvesV / C::kPartsV;
      load_kv_tile<C, C::kHalvesV, kPart * kPer, kPer>(sm.v[stage], map_v, smem_u32(&sm.full_v[stage]),
                                                       smem_u32(&sm.empty_v[stage]), it, round, w, pr.paged, row, boxes,
                                                       rpb, in_page, page);
    }
  }
}

template <class C>
__device__ __forceinline__ void produce(const Args& args, Smem<C>& sm, const Schedule& sc, bool v_warp) {
  const AttentionProblem& pr = args.problem;
  const int lane = threadIdx.x & 31;
  const void* map_q = &args.tensor_maps[0];  // Q [d, hq, total_q], box {64, 1, BM}
  const void* map_k =
      &args.tensor_maps[1];  // K [d, hkv, total_k] box {64, 1, BN}, or [d, hkv, bs, nb] box {64, 1, rpb, 1}
  const void* map_v = &args.tensor_maps[2];  // V, as K
  if (lane == 0) {
    prefetch_tensor_map(map_q);
    prefetch_tensor_map(map_k);
    prefetch_tensor_map(map_v);
  }
  // Paged: rows per box (a page, or a tile-sized slice of a larger page) and boxes per tile; the plan asked for
  // exactly this box.
  const int rpb = pr.paged ? (pr.block_size < C::kBN ? pr.block_size : C::kBN) : C::kBN;
  const int boxes = C::kBN / rpb;
  int it = 0;  // tiles loaded so far, over all items: the ring's slot and phase
  for (int j = 0;; ++j) {
    Work w;
    if (next_item<C>(args, sc, sm, j, w) >= sc.items) break;
    if constexpr (!C::kFp8) {  // fp8: the converter threads widen Q from global memory
      if (lane == 0) {
        // WAR on Q: every consumer warp's last S wgmma of item j - 1 retired (its P V and epilogue may still run).
        if (j >= 1) mbar_wait(smem_u32(&sm.empty_q), static_cast<u32>((j - 1) & 1));
        mbar_arrive_expect_tx(smem_u32(&sm.full_q), C::kQBytes);
#pragma unroll
        for (int hf = 0; hf < C::kHalves; ++hf) {
          tma_load_3d(smem_u32(&sm.q[hf][0][0]), map_q, smem_u32(&sm.full_q), hf * kSwizzleCols, w.h,
                      w.q_start + w.row0);
        }
      }
      __syncwarp();
    }
    // The last box that holds a key of the sequence bounds every lookup: slices past sk reload that box (finite
    // data, masked to -inf / zero weight) instead of reading block_table past the sequence's row.
    const int last_box_key = w.sk > 0 ? (w.sk - 1) / rpb * rpb : 0;
    const int* table_row = pr.paged ? pr.block_table + static_cast<i64>(w.b) * pr.block_table_batch_stride : nullptr;
    produce_item<C, 0, 0>(sm, w, pr, map_k, map_v, rpb, boxes, last_box_key, table_row, it, !v_warp);
    it += w.n_tiles;
  }
}

// The producer warpgroup's other loader warps (16-bit kernels): part kPart of K (kTensor 0) or V (1) of every item the
// work ring publishes.
template <class C, int kTensor, int kPart>
__device__ __forceinline__ void load_parts(const Args& args, Smem<C>& sm) {
  const AttentionProblem& pr = args.problem;
  const int rpb = pr.paged ? (pr.block_size < C::kBN ? pr.block_size : C::kBN) : C::kBN;
  const int boxes = C::kBN / rpb;
  int it = 0;
  for (int j = 0;; ++j) {
    Work w;
    if (!take_item(sm, j, w)) break;
    const int last_box_key = w.sk > 0 ? (w.sk - 1) / rpb * rpb : 0;
    const int* table_row = pr.paged ? pr.block_table + static_cast<i64>(w.b) * pr.block_table_batch_stride : nullptr;
    produce_item<C, kTensor, kPart>(sm, w, pr, &args.tensor_maps[1], &args.tensor_maps[2], rpb, boxes, last_box_key,
                                    table_row, it);
    it += w.n_tiles;
  }
}

// Loader warps besides warp 0 that read the work ring (16-bit kernels): K's second part, V's parts.
template <class C>
__device__ constexpr int extra_loader_warps() {
  return (C::kPartsK - 1) + C::kPartsV;
}

// ---------------------------------------------------------------------------------------------------------------------
// Consumer pieces. Fragment layout of an m64nN f32 accumulator (PTX ISA #wgmma-64n16-d): warp q of the warpgroup owns
// rows 16q..16q+15; register 4i + 2hf + e holds row 16q + g + 8hf, column 8i + 2t + e (g = lane / 4, t = lane % 4).
// ---------------------------------------------------------------------------------------------------------------------

// S = Q K^T over d in k16 steps: step kk reads 32 bytes into 64-column slab kk / 4 of Q and of K. Only the kDqk
// channels that can hold data are reduced over (d96: 6 of the layout's 8 steps).
template <class C>
__device__ __forceinline__ void issue_qk(float (&s)[C::kSRegs], const Smem<C>& sm, int stage, int wgc) {
#pragma unroll
  for (int kk = 0; kk < C::kDqk / 16; ++kk) {
    const int slab = kk / 4, within = (kk % 4) * 32;
    const u64 da = make_desc(smem_u32(&sm.q[slab][wgc * kRowsPerWG][0]) + within, 16, kSwizzleAtomBytes);
    const u64 db = make_desc(smem_u32(&sm.k[stage][slab][0][0]) + within, 16, kSwizzleAtomBytes);
    wgmma_ss<C::kBN, C::kF16>(s, da, db, kk > 0 ? 1u : 0u);
  }
}

// O += P V over the tile's keys in k16 steps: step kk starts 16 key rows (2048 bytes) into V's slabs.
template <class C>
__device__ __forceinline__ void issue_pv(float (&o)[C::kORegs], const u32 (&p)[C::kPSteps][4], const Smem<C>& sm,
                                         int stage) {
  constexpr u32 kSlabBytes = C::kBN * kSwizzleCols * 2;  // LBO: from columns 64j.. to 64(j+1).. of V
#pragma unroll
  for (int kk = 0; kk < C::kPSteps; ++kk) {
    if constexpr (kPvPerHalf) {
#pragma unroll
      for (int hf = 0; hf < C::kHalvesV; ++hf) {
        const u64 db = make_desc(smem_u32(&sm.v[stage][hf][kk * 16][0]), kSlabBytes, kSwizzleAtomBytes);
        wgmma_rs<kSwizzleCols, C::kF16>(*reinterpret_cast<float(*)[kSwizzleCols / 2]>(&o[hf * (kSwizzleCols / 2)]),
                                        p[kk], db, 1u);
      }
    } else {
      const u64 db = make_desc(smem_u32(&sm.v[stage][0][kk * 16][0]), kSlabBytes, kSwizzleAtomBytes);
      wgmma_rs<C::kDVpv, C::kF16>(*reinterpret_cast<float(*)[C::kDVpv / 2]>(&o[0]), p[kk], db, 1u);
    }
  }
}

// Masks S (keys outside each row's [begin, end) become -inf) for a tile that crosses some row's edge.
template <class C>
__device__ __forceinline__ void mask_tile(float (&s)[C::kSRegs], int n, int tok0, const Work& w) {
  const int t4 = threadIdx.x & 3;
#pragma unroll
  for (int hf = 0; hf < 2; ++hf) {
    const int begin = row_key_begin(tok0 + 8 * hf, w), end = row_key_end(tok0 + 8 * hf, w);
#pragma unroll
    for (int i = 0; i < C::kBN / 8; ++i)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int key = n * C::kBN + 8 * i + 2 * t4 + e;
        if (key < begin || key >= end) s[4 * i + 2 * hf + e] = neg_inf();
      }
  }
}

// Softcap (problem.h: logit = cap * tanh(scale * s / cap)): s becomes tanh(s * cap_in); exp_mult (cap * log2 e)
// then maps it to base-2 logits, as scale * log2 e does without a cap.
template <class C>
__device__ __forceinline__ void softcap_tile(float (&s)[C::kSRegs], float cap_in) {
#pragma unroll
  for (int i = 0; i < C::kSRegs; ++i) s[i] = fast_tanh(s[i] * cap_in);
}

// S of one tile after its wgmma retired: softcap (a CTA-uniform branch), then the edge mask where the tile crosses a
// row's visible range.
template <class C>
__device__ __forceinline__ void shape_scores(float (&s)[C::kSRegs], int n, int tok0, const Work& w, float cap_in,
                                             int unmasked_from, int unmasked_to) {
  if constexpr (C::kCap) {
    if (cap_in != 0.0f) softcap_tile<C>(s, cap_in);
  }
  if (n * C::kBN < unmasked_from || n * C::kBN + C::kBN > unmasked_to) mask_tile<C>(s, n, tok0, w);
}

// Online softmax on one S tile, in place (S becomes P): m and l per row (2 rows per thread, a row spread over a quad),
// alpha = 2^((m_old - m_new) * exp_mult) returned for the O rescale. p = 2^(s * exp_mult - m * exp_mult); exp_mult
// maps the units of s (raw dot products, or tanh values under a softcap) to base-2 logits.
template <class C>
__device__ __forceinline__ void softmax_tile(float (&s)[C::kSRegs], float (&m_run)[2], float (&l_run)[2],
                                             float (&alpha)[2], float exp_mult) {
  const float scale_log2 = exp_mult;
#pragma unroll
  for (int hf = 0; hf < 2; ++hf) {
    // Four partial maxima and four partial sums: a tile's row reductions as four short dependency chains, not one
    // long one (ncu on H24, evaluation 14: fixed-latency dependency stalls were 38 % of the samples).
    static_assert(C::kBN % 32 == 0, "four partial chains over BN / 8 column pairs");
    float mx4[4] = {neg_inf(), neg_inf(), neg_inf(), neg_inf()};
#pragma unroll
    for (int i = 0; i < C::kBN / 8; ++i) mx4[i & 3] = fmaxf(mx4[i & 3], fmaxf(s[4 * i + 2 * hf], s[4 * i + 2 * hf + 1]));
    float mx = fmaxf(fmaxf(mx4[0], mx4[1]), fmaxf(mx4[2], mx4[3]));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
    const float m_new = fmaxf(m_run[hf], mx);
    const float m_scaled = m_new == neg_inf() ? 0.0f : m_new * scale_log2;  // a row with nothing visible stays at 0
    alpha[hf] = m_new == m_run[hf] ? 1.0f : fast_exp2(fmaf(m_run[hf], scale_log2, -m_scaled));
    m_run[hf] = m_new;
    float sum4[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int i = 0; i < C::kBN / 8; ++i)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float p = fast_exp2(fmaf(s[4 * i + 2 * hf + e], scale_log2, -m_scaled));
        s[4 * i + 2 * hf + e] = p;
        sum4[(2 * i + e) & 3] += p;
      }
    l_run[hf] = l_run[hf] * alpha[hf] + ((sum4[0] + sum4[1]) + (sum4[2] + sum4[3]));
  }
}

// P (f32 accumulator layout of m64 x BN) -> A fragments of BN/16 k16 steps: step kk packs accumulator n-tiles 2kk and
// 2kk + 1, which is exactly the A layout (PTX ISA #wgmma-64n16-a), so no shuffle is needed.
template <class C>
__device__ __forceinline__ void pack_p(const float (&s)[C::kSRegs], u32 (&p)[C::kPSteps][4]) {
#pragma unroll
  for (int kk = 0; kk < C::kPSteps; ++kk) {
    p[kk][0] = pack_half2<C::kF16>(s[8 * kk + 0], s[8 * kk + 1]);
    p[kk][1] = pack_half2<C::kF16>(s[8 * kk + 2], s[8 * kk + 3]);
    p[kk][2] = pack_half2<C::kF16>(s[8 * kk + 4], s[8 * kk + 5]);
    p[kk][3] = pack_half2<C::kF16>(s[8 * kk + 6], s[8 * kk + 7]);
  }
}

// Turn taking for ping-pong: wait for this warpgroup's turn to issue, and hand the turn to the other one. Both
// warpgroups of a CTA take the same items and issue the same number of batches (n_tiles + 1 per item with keys), each
// followed by a hand-over; warpgroup 1 also hands over once before its first batch, and warpgroup 0 takes that extra
// turn after its last item, so every barrier phase is complete when the CTA exits.
__device__ __forceinline__ void turn_wait(int wgc) {
  if constexpr (kPingPong) named_bar_sync(kTurnBarrier + wgc, 2 * kWGThreads);
}
__device__ __forceinline__ void turn_pass(int wgc) {
  if constexpr (kPingPong) named_bar_arrive(kTurnBarrier + (wgc ^ 1), 2 * kWGThreads);
}

// A 4 x 4 transpose of 32-bit words inside each quad of lanes (t4 = lane % 4): thread t's a[k] goes to thread k's
// word t. In the epilogue a[k] is this thread's column pair of 8-column chunk k of a row; afterwards each thread holds
// one whole chunk (16 bytes), so a quad writes 64 contiguous bytes of the row in one 16-byte store per thread
// instead of 16 four-byte stores. Two butterfly steps (xor 2, then xor 1), two shuffles each.
__device__ __forceinline__ uint4 quad_transpose(u32 a0, u32 a1, u32 a2, u32 a3, int t4) {
  const bool hi = (t4 & 2) != 0, odd = (t4 & 1) != 0;
  const u32 own0 = hi ? a2 : a0, own1 = hi ? a3 : a1;            // the words of this half's chunks
  const u32 r0 = __shfl_xor_sync(0xffffffffu, hi ? a0 : a2, 2);  // the partner's words of this half's chunks
  const u32 r1 = __shfl_xor_sync(0xffffffffu, hi ? a1 : a3, 2);
  const u32 keep_own = odd ? own1 : own0, keep_par = odd ? r1 : r0;      // chunk t4, from threads t4 and t4 ^ 2
  const u32 q_own = __shfl_xor_sync(0xffffffffu, odd ? own0 : own1, 1);  // chunk t4, from thread t4 ^ 1
  const u32 q_par = __shfl_xor_sync(0xffffffffu, odd ? r0 : r1, 1);      // chunk t4, from thread t4 ^ 3
  // Word s of the chunk came from thread s: x = s ^ t4 picks own (0), t4^1 (1), t4^2 (2) or t4^3 (3).
  auto pick = [&](int x) { return x == 0 ? keep_own : x == 1 ? q_own : x == 2 ? keep_par : q_par; };
  return make_uint4(pick(t4), pick(t4 ^ 1), pick(t4 ^ 2), pick(t4 ^ 3));
}

// One output row's normaliser: the quad's share of l summed, the row's m in base-2 logits, and a sink (problem.h: one
// more logit per head, no value row) joined to the denominator only. O is multiplied by `factor`; `big` and `sum` give
// the row's LSE (base 2: big + log2 sum).
struct RowNorm {
  float factor, big, sum;
};
__device__ __forceinline__ RowNorm row_norm(const AttentionProblem& pr, const Work& w, float m_run, float l_part,
                                            float exp_mult, float v_scale) {
  float l = l_part;
  l += __shfl_xor_sync(0xffffffffu, l, 1);
  l += __shfl_xor_sync(0xffffffffu, l, 2);
  const float m_post = m_run == neg_inf() ? neg_inf() : m_run * exp_mult;
  RowNorm r{0.0f, m_post, l};
  float o_mult = 1.0f;
  if (pr.has_sinks) {
    const float sink2 = pr.sinks[w.h] * kLog2e;
    r.big = fmaxf(m_post, sink2);
    o_mult = fast_exp2(m_post - r.big);
    r.sum = l * o_mult + fast_exp2(sink2 - r.big);
  }
  r.factor = r.sum > 0.0f ? o_mult * v_scale * fast_rcp(r.sum) : 0.0f;
  return r;
}

// The 16-bit epilogue through shared memory: each warp scales and packs its 16 rows of O, writes them with stmatrix
// into its own staging rows (the accumulator layout is stmatrix's), then every lane copies 16-byte pieces of whole rows
// to global memory. Fewer instructions per item than the quad transpose (a per-item cost: ncu, H01 against H03).
template <class C>
__device__ __forceinline__ void store_staged(const AttentionProblem& pr, Smem<C>& sm, const Work& w, int wgc,
                                             const float (&o)[C::kORegs], const float (&m_run)[2],
                                             const float (&l_run)[2], float exp_mult, float v_scale) {
  const int lane = threadIdx.x & 31, warp_in_wg = (threadIdx.x >> 5) & 3;
  const float factor[2] = {row_norm(pr, w, m_run[0], l_run[0], exp_mult, v_scale).factor,
                           row_norm(pr, w, m_run[1], l_run[1], exp_mult, v_scale).factor};
  const bool f16 = pr.dtype_o == attention::kDTypeFP16;
  u16(*stage)[C::kStagePitch] = sm.o_stage[wgc * 4 + warp_in_wg];
  const int mi = lane >> 3, rr = lane & 7;  // this lane's stmatrix address: row rr of matrix mi
#pragma unroll
  for (int k = 0; k < C::kDV / 16; ++k) {  // 16 columns: n-tiles 2k (matrices 0, 1) and 2k + 1 (2, 3)
    u32 r[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float a = o[8 * k + 2 * j] * factor[j & 1], b = o[8 * k + 2 * j + 1] * factor[j & 1];
      r[j] = f16 ? pack_half2<true>(a, b) : pack_half2<false>(a, b);
    }
    stmatrix_x4(smem_u32(&stage[rr + 8 * (mi & 1)][16 * k + 8 * (mi >> 1)]), r[0], r[1], r[2], r[3]);
  }
  __syncwarp();
  constexpr int kChunks = C::kDV / 8;      // 16-byte pieces per row
  constexpr int kRowsPerPass = 32 / kChunks;
  const int chunk = lane % kChunks;
  const int row0 = w.row0 + wgc * kRowsPerWG + warp_in_wg * 16;
#pragma unroll
  for (int pass = 0; pass < 16 / kRowsPerPass; ++pass) {
    const int row = pass * kRowsPerPass + lane / kChunks;
    const int tok = row0 + row;
    if (tok < w.sq && 8 * chunk < pr.head_dim_v) {
      const uint4 piece = *reinterpret_cast<const uint4*>(&stage[row][8 * chunk]);
      u16* dst = static_cast<u16*>(pr.o) + (static_cast<i64>(w.q_start) + tok) * pr.o_row_stride +
                 static_cast<i64>(w.h) * pr.o_head_stride + 8 * chunk;
      *reinterpret_cast<uint4*>(dst) = piece;
    }
  }
  __syncwarp();  // every lane read the staging rows before this warp's next epilogue writes them
}

// Consumer warpgroup wgc (0 or 1), item j: rows row0 + 64 wgc .. + 63 of the item; `it0` counts the K/V tiles of the
// CTA's earlier items (the ring's slot and phase go on from there).
template <class C>
__device__ __forceinline__ void consume_item(const Args& args, Smem<C>& sm, const Work& w, int wgc, int j, int it0) {
  const AttentionProblem& pr = args.problem;
  const int lane = threadIdx.x & 31, warp_in_wg = (threadIdx.x >> 5) & 3;
  const int g = lane >> 2, t4 = lane & 3;
  const int tok0 = w.row0 + wgc * kRowsPerWG + warp_in_wg * 16 + g;  // this thread's rows: tok0 and tok0 + 8
  // fp8: s carries q_descale * k_descale, O v_descale (problem.h), per (sequence, kv head).
  float qk_descale = 1.0f, v_scale = 1.0f;
  if constexpr (C::kFp8) {
    const i64 di = static_cast<i64>(w.b) * pr.descale_batch_stride + static_cast<i64>(w.kvh) * pr.descale_head_stride;
    if (pr.q_descale) qk_descale *= pr.q_descale[di];
    if (pr.k_descale) qk_descale *= pr.k_descale[di];
    if (pr.v_descale) v_scale = pr.v_descale[di];
  }
  const float scale = pr.softmax_scale * qk_descale;
  const bool use_softcap = pr.softcap > 0.0f;
  const float cap_in = use_softcap ? scale / pr.softcap : 0.0f;
  const float exp_mult = use_softcap ? pr.softcap * kLog2e : scale * kLog2e;  // s units -> base-2 logits
  // A tile inside [begin of this warpgroup's last row, end of its first row) needs no mask (both edges grow with the
  // row); rows past the sequence only make the range narrower.
  const int unmasked_from = row_key_begin(w.row0 + wgc * kRowsPerWG + kRowsPerWG - 1, w);
  const int unmasked_to = row_key_end(w.row0 + wgc * kRowsPerWG, w);

  float o[C::kORegs];
#pragma unroll
  for (int i = 0; i < C::kORegs; ++i) o[i] = 0.0f;
  float m_run[2] = {neg_inf(), neg_inf()}, l_run[2] = {0.0f, 0.0f};
  float s[C::kSRegs];
  u32 p[C::kPSteps][4];

  // RAW on Q: item j's Q tile has landed before the first wgmma reads it.
  mbar_wait(smem_u32(&sm.full_q), static_cast<u32>(j & 1));
  if (w.n_tiles == 0 && lane == 0) mbar_arrive(smem_u32(&sm.empty_q));  // no wgmma reads this Q

  if (w.n_tiles > 0) {
    // ---- tile 0 (the last key tile): S, mask, softmax; its P V is issued together with tile 1's S ---------------
    {
      const int n = w.tile_of(0);
      const int stage0 = it0 % C::kStages;
      mbar_wait(smem_u32(&sm.full_k[stage0]), static_cast<u32>((it0 / C::kStages) & 1));  // RAW on K of tile 0
      turn_wait(wgc);
      wgmma_fence();
      issue_qk<C>(s, sm, stage0, wgc);
      wgmma_commit();
      turn_pass(wgc);
      wgmma_wait<0>();
      fence_regs(s);
      __syncwarp();
      if (lane == 0) {
        mbar_arrive(smem_u32(&sm.empty_k[stage0]));  // WAR on K of tile 0's slot: this warp's S wgmma is done
        if (w.n_tiles == 1) mbar_arrive(smem_u32(&sm.empty_q));  // WAR on Q: the item's last S retired
      }
      shape_scores<C>(s, n, tok0, w, cap_in, unmasked_from, unmasked_to);
      float alpha[2];
      softmax_tile<C>(s, m_run, l_run, alpha, exp_mult);
      pack_p<C>(s, p);
    }
    // ---- steady state: S_t and P_{t-1} V_{t-1} in flight together; softmax of S_t overlaps the P V ----------------
#pragma unroll 1
    for (int t = 1; t < w.n_tiles; ++t) {
      const int it = it0 + t;
      const int stage = it % C::kStages, prev = (it - 1) % C::kStages;
      const int n = w.tile_of(t);
      mbar_wait(smem_u32(&sm.full_k[stage]), static_cast<u32>((it / C::kStages) & 1));       // RAW on K of tile t
      mbar_wait(smem_u32(&sm.full_v[prev]), static_cast<u32>(((it - 1) / C::kStages) & 1));  // RAW on V of tile t - 1
      turn_wait(wgc);  // both operands have landed: a turn is never held waiting for memory
      wgmma_fence();   // P packing and the O rescale (plain register writes) are ordered before these wgmmas
      issue_qk<C>(s, sm, stage, wgc);
      wgmma_commit();
      wgmma_fence();  // ptxas injected this itself (C7519) when only the fence above S was written
      issue_pv<C>(o, p, sm, prev);
      wgmma_commit();
      turn_pass(wgc);
      wgmma_wait<1>();  // S_t is complete (groups retire in order); P V may still run
      fence_regs(s);
      __syncwarp();
      // WAR on K of slot `stage`: this warp's S wgmma no longer reads it (8 warp arrivals complete the phase); on the
      // item's last tile, the same for Q.
      if (lane == 0) {
        mbar_arrive(smem_u32(&sm.empty_k[stage]));
        if (t == w.n_tiles - 1) mbar_arrive(smem_u32(&sm.empty_q));
      }
      shape_scores<C>(s, n, tok0, w, cap_in, unmasked_from, unmasked_to);
      float alpha[2];
      softmax_tile<C>(s, m_run, l_run, alpha, exp_mult);
      wgmma_wait<0>();  // P_{t-1} V_{t-1} complete: O may be read, P's registers reused
      fence_regs(o);
      fence_regs(p);
      __syncwarp();
      // WAR on V of slot prev: this warp's P V wgmma no longer reads it.
      if (lane == 0) mbar_arrive(smem_u32(&sm.empty_v[prev]));
#pragma unroll
      for (int i = 0; i < C::kDV / 8; ++i) {
        o[4 * i + 0] *= alpha[0];
        o[4 * i + 1] *= alpha[0];
        o[4 * i + 2] *= alpha[1];
        o[4 * i + 3] *= alpha[1];
      }
      pack_p<C>(s, p);
    }
    // ---- the last P V --------------------------------------------------------------------------------------------
    {
      const int it = it0 + w.n_tiles - 1;
      const int stage = it % C::kStages;
      mbar_wait(smem_u32(&sm.full_v[stage]), static_cast<u32>((it / C::kStages) & 1));  // RAW on V of the last tile
      turn_wait(wgc);
      wgmma_fence();
      issue_pv<C>(o, p, sm, stage);
      wgmma_commit();
      turn_pass(wgc);
      wgmma_wait<0>();
      fence_regs(o);
      fence_regs(p);
      __syncwarp();
      if (lane == 0) mbar_arrive(smem_u32(&sm.empty_v[stage]));  // WAR on V: the next item's tiles reuse the slot
    }
  }

  // ---- epilogue: O / l in the output dtype, lse = ln(l) + m * scale
  // --------------------------------------------------
  const bool pair_ok =
      aligned_to(pr.o, pr.o_row_stride, pr.o_head_stride, 0, pr.dtype_o == attention::kDTypeFP32 ? 4 : 2,
                 pr.dtype_o == attention::kDTypeFP32 ? 8 : 4);
  // 16-bit O in whole 32-column groups on 16-byte boundaries: quads write 64-byte row pieces (quad_transpose). Not at
  // dv 256: the d256 kernels ran 17 % slower with it (A/B 2026-12-03, H07/H08), their registers being the tightest.
  const bool wide_ok = C::kDV <= 128 && pr.dtype_o != attention::kDTypeFP32 && pr.head_dim_v % 32 == 0 &&
                       aligned_to(pr.o, pr.o_row_stride, pr.o_head_stride, 0, 2, 16);
  if constexpr (C::kStageO) {
    if (wide_ok) store_staged<C>(pr, sm, w, wgc, o, m_run, l_run, exp_mult, v_scale);
  }
#pragma unroll
  for (int hf = 0; hf < 2; ++hf) {
    const RowNorm norm = row_norm(pr, w, m_run[hf], l_run[hf], exp_mult, v_scale);  // every lane: it shuffles
    const float factor = norm.factor;
    const int tok = tok0 + 8 * hf;
    if (!C::kStageO && wide_ok) {  // rows past the sequence skip only the store
      const bool f16 = pr.dtype_o == attention::kDTypeFP16;
      const i64 qrow = static_cast<i64>(w.q_start) + tok;
      u16* row = static_cast<u16*>(pr.o) + qrow * pr.o_row_stride + static_cast<i64>(w.h) * pr.o_head_stride;
#pragma unroll
      for (int q = 0; q < C::kDV / 32; ++q) {
        if (32 * q >= pr.head_dim_v) break;  // uniform: padded channel groups (d 96 on the d128 kernel)
        u32 v[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          const float a = o[4 * (4 * q + k) + 2 * hf] * factor, b = o[4 * (4 * q + k) + 2 * hf + 1] * factor;
          v[k] = f16 ? pack_half2<true>(a, b) : pack_half2<false>(a, b);
        }
        const uint4 chunk = quad_transpose(v[0], v[1], v[2], v[3], t4);
        if (tok < w.sq) *reinterpret_cast<uint4*>(row + 8 * (4 * q + t4)) = chunk;
      }
    }
    if (tok >= w.sq) continue;  // rows past the sequence (or Q) were computed on other or zero rows: never stored
    const i64 qrow = static_cast<i64>(w.q_start) + tok;
    const i64 base = qrow * pr.o_row_stride + static_cast<i64>(w.h) * pr.o_head_stride;
#pragma unroll
    for (int i = 0; i < C::kDV / 8; ++i) {
      if (wide_ok) break;                             // stored above
      if (8 * i + 2 * t4 >= pr.head_dim_v) continue;  // padded channels (d 80, 96 on the d128 kernel) are zeros
      store_out_pair(pr.o, base + 8 * i + 2 * t4, o[4 * i + 2 * hf] * factor, o[4 * i + 2 * hf + 1] * factor,
                     pr.dtype_o, pair_ok);
    }
    if (pr.return_lse && t4 == 0) {
      const float lse2 = norm.sum > 0.0f ? norm.big + fast_log2(norm.sum) : neg_inf();
      pr.lse[static_cast<i64>(w.h) * pr.lse_head_stride + qrow] = lse2 == neg_inf() ? neg_inf() : lse2 * kLn2;
    }
  }
}

// Consumer warpgroup wgc: the items the producer publishes, in order, until it says there are no more.
template <class C>
__device__ __forceinline__ void consume(const Args& args, Smem<C>& sm, int wgc) {
  if (wgc == 1) turn_pass(wgc);  // warpgroup 0 issues first
  int it = 0;                    // K/V tiles of the items done so far
  for (int j = 0;; ++j) {
    Work w;
    if (!take_item(sm, j, w)) break;
    consume_item<C>(args, sm, w, wgc, j, it);
    it += w.n_tiles;
  }
  if (wgc == 0) turn_wait(wgc);  // warpgroup 1's hand-over after its last batch (or its first one, if none)
}

// The kernel body: one CTA per SM (grid = min(SMs, items)), 384 threads, items from the persistent schedule.
template <class C>
__device__ __forceinline__ void forward(const Args& args) {
  const AttentionProblem& pr = args.problem;
  // The dynamic window is 16-byte aligned at least; the plan adds 1024 bytes so the swizzle atoms can be aligned here.
  const u32 raw = smem_u32(kseek_fa3_smem);
  static_assert(sizeof(Smem<C>) + 1024u <= 232448u, "sm_90's 227 KiB of dynamic shared memory per block");
  Smem<C>& sm = *reinterpret_cast<Smem<C>*>(kseek_fa3_smem + (((raw + 1023u) & ~1023u) - raw));

  const Schedule sc = schedule_of(args);

  // 16-bit paged problems: the V warp loads V (a page slice per box makes one warp's issue the bound, measured on H03);
  // unpaged ones issue one box per slab, where a second loader only adds its lag at every item (H11, H24: -2 %).
  const bool v_warp = !C::kFp8 && pr.paged;
  if (threadIdx.x == 0) {
    // 16-bit: TMA completes the slabs' full barriers (one arrival + tx); fp8: every converter thread arrives.
    const u32 slab_arrivals = C::kFp8 ? kConverterThreads : 1;
    const u32 k_arrivals = C::kFp8 ? kConverterThreads : C::kPartsK;  // one per loader warp of the tensor
    const u32 v_arrivals = C::kFp8 ? kConverterThreads : C::kPartsV;
    mbar_init(smem_u32(&sm.full_q), slab_arrivals);
    if constexpr (C::kFp8) {
#pragma unroll
      for (int st = 0; st < C::kRawStages; ++st) {
        mbar_init(smem_u32(&sm.raw_k_full[st]), 1);
        mbar_init(smem_u32(&sm.raw_v_full[st]), 1);
        mbar_init(smem_u32(&sm.raw_k_empty[st]), kConverterThreads);
        mbar_init(smem_u32(&sm.raw_v_empty[st]), kConverterThreads);
      }
    }
#pragma unroll
    for (int st = 0; st < C::kStages; ++st) {
      mbar_init(smem_u32(&sm.full_k[st]), k_arrivals);
      mbar_init(smem_u32(&sm.full_v[st]), v_arrivals);
      mbar_init(smem_u32(&sm.empty_k[st]), kConsumerWarps);
      mbar_init(smem_u32(&sm.empty_v[st]), kConsumerWarps);
    }
    mbar_init(smem_u32(&sm.empty_q), kConsumerWarps);
    for (int slot = 0; slot < 2; ++slot) {
      mbar_init(smem_u32(&sm.work_full[slot]), 1);
      // Readers of the work ring: the consumer warps, and the converter warps (fp8) or the other loader warps.
      mbar_init(smem_u32(&sm.work_empty[slot]),
                kConsumerWarps + (C::kFp8 ? kConverterThreads / 32 : (v_warp ? extra_loader_warps<C>() : 0)));
    }
    fence_barrier_init();
  }
  __syncthreads();  // every barrier is initialised before any thread arms, waits on or completes it

  const int wg = threadIdx.x / kWGThreads;
  if (wg == 0) {
    setmaxnreg_dec<C::kProducerRegs>();
    const int warp = threadIdx.x / 32;
    if (warp == 0) {
      produce<C>(args, sm, sc, v_warp);
    } else if constexpr (C::kFp8) {
      convert<C>(sm, args.problem);
    } else {
      if constexpr (C::kPartsK > 1) {
        if (warp == 1) load_parts<C, 0, 1>(args, sm);
      }
      if (warp == 2 && v_warp) load_parts<C, 1, 0>(args, sm);
      if constexpr (C::kPartsV > 1) {
        if (warp == 3) load_parts<C, 1, 1>(args, sm);
      }
    }
    return;
  }
  setmaxnreg_inc<C::kConsumerRegs>();
  consume<C>(args, sm, wg - 1);
}

}  // namespace ws

}  // namespace seed
}  // namespace attention_fa3
}  // namespace plugins
}  // namespace kseek

// =====================================================================================================================
// Kernel list, the one place tilings are chosen: variant, element kind, padded d, padded dv, key-split warps (WN),
// 16-row tiles per warp (MT), keys per tile (BN), keys per compute chunk (BNC), ring stages. prefill: 4 warps own 16*MT
// rows each; decode: 4 warps share 16 rows and split keys (S) and channels (PV). Each line is also a plan choice (see
// choose_kernel). There is no fp8 line with dv 512: that shape is MLA with q_v, which fp8 never reaches.
// fp8 d128 decode takes 128-key tiles and chunks in two stages (the same ring bytes as 64 keys in four): a tile's
// barriers and the warps' S exchange come half as often per key, and its Nsight Compute profile waited most at those
// barriers. H17 1.101x (54.3 -> 59.9 % of the copy bandwidth; H200, 2026-12-04), where 128-key tiles with 64-key
// chunks gave 0.999: the chunk's exchange, not the tile's wait, was the cost.
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
  X(decode, fp8, kElemFP8, 128, 128, 4, 1, 128, 128, 2)  \
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

// The cascade plan's first launch (see kCascadePrefix): one CTA per sequence finds how many leading pages of its
// block_table row are sequence 0's and visible to all of its query rows; the batch's minimum goes into the header as
// an atomicMax of its complement (the workspace starts zeroed). CTA 0 also writes the partials' split count.
extern "C" __global__ void __launch_bounds__(128)
    kseek_fa3_cascade_detect(const __grid_constant__ ::kseek::KernelArgs<::kseek::attention::AttentionProblem> args) {
  using namespace ::kseek::plugins::attention_fa3::seed;
  const ::kseek::attention::AttentionProblem& pr = args.problem;
  int* header = static_cast<int*>(args.workspace);
  __shared__ int first_mismatch;
  const int b = blockIdx.x;
  if (b == 0 && threadIdx.x == 0) {
    const CascadeSplits cs = cascade_splits(pr);
    header[0] = cs.prefix + cs.suffix;  // read by the combine
  }
  if (b >= pr.batch) return;
  const int sq = pr.cu_seqlens_q[b + 1] - pr.cu_seqlens_q[b];
  const int sk = pr.seqused_k[b];
  // Bottom-right causal: query row i sees keys up to i + sk - sq, so the first row bounds what all of them see.
  const int visible = imin(pr.causal ? sk - sq + 1 : sk, sk);
  const int pages = visible > 0 ? visible / pr.block_size : 0;
  const int* row = pr.block_table + static_cast<i64>(b) * pr.block_table_batch_stride;
  const int* first_row = pr.block_table;
  if (threadIdx.x == 0) first_mismatch = pages;
  __syncthreads();
  // Each thread stops at its first mismatch: the smallest over the threads is the row's first.
  for (int p = threadIdx.x; p < pages; p += blockDim.x) {
    if (row[p] != first_row[p]) {
      atomicMin(&first_mismatch, p);
      break;
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(header + kCascadePagesSlot, 0x7fffffff - first_mismatch);
}

// The cascade's two parts for 16-bit d64 and d128: the prefix on the prefill tiling (128 query rows, 64 keys per
// tile), each sequence's own keys on the decode one (64 keys per tile); kCascadeAlign is a whole tile of both.
#define KSEEK_FA3_CASCADE_KERNELS(X) \
  X(bf16, kElemBF16, 64, 64)         \
  X(fp16, kElemFP16, 64, 64)         \
  X(bf16, kElemBF16, 128, 32)        \
  X(fp16, kElemFP16, 128, 32)
#define KSEEK_FA3_CASCADE_PREFIX_CFG(ELEM, D, BNC) KSEEK_FA3_SEED_CFG(D, D, 1, 2, 64, BNC, 2, ELEM)
#define KSEEK_FA3_CASCADE_SUFFIX_CFG(ELEM, D) KSEEK_FA3_SEED_CFG(D, D, 4, 1, 64, 64, 3, ELEM)
#define KSEEK_FA3_CASCADE_DEFINE_KERNELS(ename, ELEM, D, BNC)                                                        \
  extern "C" __global__ void __launch_bounds__(128) kseek_fa3_cascade_prefix_##ename##_d##D(                         \
      const __grid_constant__ ::kseek::KernelArgs<::kseek::attention::AttentionProblem> args) {                      \
    ::kseek::plugins::attention_fa3::seed::attention_forward<KSEEK_FA3_CASCADE_PREFIX_CFG(ELEM, D, BNC),             \
                                                             ::kseek::plugins::attention_fa3::seed::kCascadePrefix>( \
        args);                                                                                                       \
  }                                                                                                                  \
  extern "C" __global__ void __launch_bounds__(128) kseek_fa3_cascade_suffix_##ename##_d##D(                         \
      const __grid_constant__ ::kseek::KernelArgs<::kseek::attention::AttentionProblem> args) {                      \
    ::kseek::plugins::attention_fa3::seed::attention_forward<KSEEK_FA3_CASCADE_SUFFIX_CFG(ELEM, D),                  \
                                                             ::kseek::plugins::attention_fa3::seed::kCascadeSuffix>( \
        args);                                                                                                       \
  }
KSEEK_FA3_CASCADE_KERNELS(KSEEK_FA3_CASCADE_DEFINE_KERNELS)

// =====================================================================================================================
// Hopper kernels: name suffix, head dim (== dv), keys per tile, ring stages, fp16 (1) or bf16 (0), softcap (1), fp8
// (1), and the channels S reduces over (d80/d96: the d128 layout, whose S steps past d would only add TMA's zeros).
// d128: 2 x 64 query rows x 128 keys, 2 stages (Q 32 KiB + K/V 128 KiB; a third stage measured 0.7-1.1 % slower on
// the d80-d128 rows, 2026-12-04). d64: 192 or 128 keys, 3 stages (choose_ws_kernel says which). d256: 64 keys,
// 2 stages (Q 64 KiB + K/V 128 KiB); only the d256 kernels apply a softcap (both softcapped case-study rows are d256).
// =====================================================================================================================
#define KSEEK_FA3_WS_KERNELS(X)                           \
  X(bf16_d64_n192, 64, 64, 192, 3, 0, 0, 0, 64, 64)       \
  X(fp16_d64_n192, 64, 64, 192, 3, 1, 0, 0, 64, 64)       \
  X(bf16_d64, 64, 64, 128, 3, 0, 0, 0, 64, 64)            \
  X(fp16_d64, 64, 64, 128, 3, 1, 0, 0, 64, 64)            \
  X(bf16_d80, 128, 128, 128, 2, 0, 0, 0, 80, 80)          \
  X(fp16_d80, 128, 128, 128, 2, 1, 0, 0, 80, 80)          \
  X(bf16_d96, 128, 128, 128, 2, 0, 0, 0, 96, 96)          \
  X(fp16_d96, 128, 128, 128, 2, 1, 0, 0, 96, 96)          \
  X(bf16_d128, 128, 128, 128, 2, 0, 0, 0, 128, 128)       \
  X(fp16_d128, 128, 128, 128, 2, 1, 0, 0, 128, 128)       \
  X(fp8_d128, 128, 128, 128, 2, 1, 0, 1, 128, 128)        \
  X(bf16_d192_dv128, 192, 128, 128, 2, 0, 0, 0, 192, 128) \
  X(fp16_d192_dv128, 192, 128, 128, 2, 1, 0, 0, 192, 128) \
  X(bf16_d256, 256, 256, 64, 2, 0, 1, 0, 256, 256)        \
  X(fp16_d256, 256, 256, 64, 2, 1, 1, 0, 256, 256)        \
  X(fp8_d256, 256, 256, 64, 2, 1, 1, 1, 256, 256)

#define KSEEK_FA3_WS_CFG(D, DV, BN, ST, F16, CAP, FP8, DQK, DVPV) \
  ::kseek::plugins::attention_fa3::seed::ws::Config<D, DV, BN, ST, (F16) != 0, (CAP) != 0, (FP8) != 0, DQK, DVPV>

#define KSEEK_FA3_WS_DEFINE_KERNEL(ename, D, DV, BN, ST, F16, CAP, FP8, DQK, DVPV)                                   \
  extern "C" __global__ void __launch_bounds__(::kseek::plugins::attention_fa3::seed::ws::kThreads, 1)               \
      kseek_fa3_ws_##ename(const __grid_constant__ ::kseek::KernelArgs<::kseek::attention::AttentionProblem> args) { \
    ::kseek::plugins::attention_fa3::seed::ws::forward<KSEEK_FA3_WS_CFG(D, DV, BN, ST, F16, CAP, FP8, DQK, DVPV)>(   \
        args);                                                                                                       \
  }

KSEEK_FA3_WS_KERNELS(KSEEK_FA3_WS_DEFINE_KERNEL)

// The compact schedule of a ragged or mixed batch (ws::Schedule), the plan's first launch: one CTA of 1024 threads
// writes m_start[0..batch] (exclusive prefix sums of each sequence's 128-row blocks) and the flag the persistent kernel
// reads. In a mixed batch the sequences the decode kernel takes (GQA-packed rows <= kMaxRowsForDecode) own no block.
extern "C" __global__ void __launch_bounds__(1024)
    kseek_fa3_ws_schedule(const __grid_constant__ ::kseek::KernelArgs<::kseek::attention::AttentionProblem> args) {
  using namespace ::kseek::plugins::attention_fa3::seed;
  const ::kseek::attention::AttentionProblem& pr = args.problem;
  int* out = static_cast<int*>(args.workspace);
  __shared__ int warp_total[32];
  __shared__ int carry;
  const bool mixed = ws::mixed_batch(pr);
  const int group = pr.num_heads_q / pr.num_heads_kv;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (threadIdx.x == 0) carry = 0;
  __syncthreads();
  for (int base = 0; base < pr.batch; base += 1024) {
    const int b = base + threadIdx.x;
    int m = 0;
    if (b < pr.batch) {
      const int sq = pr.cu_seqlens_q[b + 1] - pr.cu_seqlens_q[b];
      const bool decode = mixed && static_cast<long long>(sq) * group <= kMaxRowsForDecode;
      m = decode ? 0 : (sq + ws::kBM - 1) / ws::kBM;
    }
    int incl = m;  // inclusive scan: within the warp, then over the warps' totals
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      const int v = __shfl_up_sync(0xffffffffu, incl, off);
      if (lane >= off) incl += v;
    }
    if (lane == 31) warp_total[warp] = incl;
    __syncthreads();
    int before = carry;
    for (int w = 0; w < warp; ++w) before += warp_total[w];
    if (b < pr.batch) out[ws::kMStartOffset + b] = before + incl - m;
    __syncthreads();  // every thread has read carry and warp_total before they change
    if (threadIdx.x == 1023) carry = before + incl;
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    out[ws::kMStartOffset + pr.batch] = carry;
    out[ws::kWsCompactFlag] = 1;
  }
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

// ---------------------------------------------------------------------------------------------------------------------
// Stage (a) plan: the warp-specialised kernels take dense 16-bit prefill with no window, softcap, sinks, q_v or spans,
// d == dv in {64, 128} (and 256 with KSEEK_FA3_WS_WITH_D256), TMA-legal strides and (paged) page sizes that tile a key
// tile or are tiled by it. Anything else returns false and the seed's plan runs unchanged.
// ---------------------------------------------------------------------------------------------------------------------
namespace ws {

struct WsChoice {
  const char* name;
  int bn;
  unsigned smem;
  bool fp8;  // raw e4m3 boxes without swizzle, widened in the kernel
};

// The kernel for head dims (d, dv): the first of the list whose S channels and P V columns hold them, and whose layout
// has less than one 64-column slab to spare. A d between two layouts (80, 96: the d128 layout) reads its Q/K/V boxes
// past d, which TMA fills with zeros (bytes still counted by complete_tx), so S and O are exact and the padded channels
// are never stored; the d80/d96 kernels skip S's zero steps and run P V at N = 80/96, so what is left is the boxes'
// zero fill in shared memory. Kernels whose key tile exceeds `max_bn` are passed over (d64: the 192-key tiles).
__device__ __forceinline__ bool choose_ws_kernel(int d, int dv, bool f16, bool fp8, bool softcap, int max_bn,
                                                 WsChoice& out) {
  // d or dv below 64 would ask for a box wider than the tensor.
  if (d < 64 || dv < 64 || d % 8 != 0 || dv % 8 != 0) return false;
#define KSEEK_FA3_WS_MATCH(ename, D, DV, BN, ST, F16, CAP, FP8, DQK, DVPV)                                             \
  if (d <= DQK && D < d + 64 && dv <= DVPV && DV < dv + 64 && fp8 == ((FP8) != 0) && (fp8 || f16 == ((F16) != 0)) &&   \
      (!softcap || (CAP) != 0) && (!fp8 || (d == D && dv == DV)) && (BN) <= max_bn) {                                  \
    out.name = "kseek_fa3_ws_" #ename;                                                                                 \
    out.bn = BN;                                                                                                       \
    out.smem = static_cast<unsigned>(sizeof(Smem<KSEEK_FA3_WS_CFG(D, DV, BN, ST, F16, CAP, FP8, DQK, DVPV)>)) + 1024u; \
    out.fp8 = (FP8) != 0;                                                                                              \
    return true;                                                                                                       \
  }
  KSEEK_FA3_WS_KERNELS(KSEEK_FA3_WS_MATCH)
#undef KSEEK_FA3_WS_MATCH
  return false;
}

__device__ __forceinline__ bool strides_16B(i64 a, i64 b, i64 c, int per16) {
  return a % per16 == 0 && b % per16 == 0 && c % per16 == 0;
}

__device__ __forceinline__ void request_map(TensorMapRequest& m, unsigned tensor, unsigned rank, unsigned b0,
                                            unsigned b1, unsigned b2, unsigned b3, unsigned l2, unsigned swizzle) {
  m.tensor = tensor;
  m.box_rank = rank;
  m.box[0] = b0;
  m.box[1] = b1;
  m.box[2] = b2;
  m.box[3] = b3;
  m.box[4] = 0;
  m.swizzle = swizzle;  // 16-bit: 128B, the layout the wgmma descriptors read; fp8: none (the converters swizzle)
  m.l2_promotion_bytes = l2;
  m.reserved = 0;
}

// The d64 kernels' 192-key tiles (A/B 2026-12-04 against 128 keys, H200, one input seed): H05 (causal, 4 x 8192 keys)
// 1.019x; H24 (64 x 1500 keys) 0.978x and H06 (a 128-key window) 0.815x lost. Fewer, longer tiles pay where sequences
// are long: a short one spends more of its time filling and draining the pipeline, and a narrow window masks most of a
// wide tile. So: at least 4096 keys per sequence on average (total_k / batch: a paged cache counts its pages), no
// window narrower than 4096 keys, and pages that tile a 192-key tile (else the 128-key kernel, which they do tile, takes
// the problem rather than the seed).
__device__ __forceinline__ bool wide_key_tiles_pay(const AttentionProblem& pr) {
  constexpr int kWide = 192;
  if (pr.batch <= 0 || pr.total_k / pr.batch < 4096) return false;
  if ((pr.window_left >= 0 && pr.window_left < 4096) || (!pr.causal && pr.window_right >= 0 && pr.window_right < 4096))
    return false;
  if (pr.paged) {
    const int bs = pr.block_size;
    if (bs <= 0 || (bs < kWide ? kWide % bs != 0 : bs % kWide != 0) || kWide / (bs < kWide ? bs : kWide) > 32) return false;
  }
  return true;
}

// Fills `plan` (already zeroed, abi_version set) and returns true when the stage (a) path takes the problem.
__device__ bool make_ws_plan(const AttentionProblem& pr, LaunchPlan* plan) {
  const int hq = pr.num_heads_q, hkv = pr.num_heads_kv;
  if (hkv <= 0 || hq <= 0 || hq % hkv != 0 || pr.batch <= 0 || pr.batch > 65535 || hq > 65535) return false;
  if (pr.total_q <= 0 || pr.total_k <= 0) return false;
  const bool fp8 = pr.dtype_qkv == attention::kDTypeFP8E4M3;
  if (pr.dtype_qkv != attention::kDTypeBF16 && pr.dtype_qkv != attention::kDTypeFP16 && !fp8) return false;
  if (pr.dtype_o != attention::kDTypeBF16 && pr.dtype_o != attention::kDTypeFP16 && pr.dtype_o != attention::kDTypeFP32)
    return false;
  if (pr.has_q_v || pr.num_spans != 0) return false;  // q_v (MLA) and bidirectional spans stay on the seed
  if (!(pr.softmax_scale > 0.0f) || pr.softcap < 0.0f) return false;
  // Prefill only: a batch with no sequence of kBM query rows stays on the seed's split-KV decode tilings. A mixed batch
  // (few rows per sequence on average, some long chunks: H21) runs its long sequences here and its short ones on the
  // seed's decode kernel, a second launch that make_plan adds.
  if (pr.max_seqlen_q < kBM) return false;
  const bool mixed = mixed_batch(pr);
  WsChoice wc{};
  if (!choose_ws_kernel(pr.head_dim, pr.head_dim_v, pr.dtype_qkv == attention::kDTypeFP16, fp8, pr.softcap > 0.0f,
                        wide_key_tiles_pay(pr) ? 192 : 128, wc)) {
    return false;
  }
  // TMA: every global stride a multiple of 16 bytes; boxes of at most 256 rows.
  const int per16 = fp8 ? 16 : 8;  // elements in 16 bytes
  if (!strides_16B(pr.q_row_stride, pr.q_head_stride, 0, per16)) return false;
  if (!strides_16B(pr.k_row_stride, pr.k_head_stride, pr.paged ? pr.k_block_stride : 0, per16)) return false;
  if (!strides_16B(pr.v_row_stride, pr.v_head_stride, pr.paged ? pr.v_block_stride : 0, per16)) return false;
  // A box never exceeds its tensor: Q needs a full 128-row box of tokens, packed K/V a full key tile.
  if (pr.total_q < kBM || (!pr.paged && pr.total_k < wc.bn)) return false;
  int rpb = wc.bn;
  if (pr.paged) {
    const int bs = pr.block_size;
    if (bs <= 0 || bs % 8 != 0 || pr.max_blocks_per_seq <= 0 || pr.num_blocks <= 0) return false;
    if (bs < wc.bn && wc.bn % bs != 0) return false;   // pages tile a key tile ...
    if (bs >= wc.bn && bs % wc.bn != 0) return false;  // ... or a key tile tiles a page
    rpb = bs < wc.bn ? bs : wc.bn;
    if (wc.bn / rpb > 32) return false;  // one producer lane per box
  }
  const long long m_blocks = (static_cast<long long>(pr.max_seqlen_q) + kBM - 1) / kBM;
  // Item numbers (and the counter, which overshoots by one draw per CTA) stay in int.
  if (m_blocks * hq * pr.batch > 0x7fffffffLL - 65536) return false;
  // No split-KV here: a grid that cannot cover the SMs once (H22's cascade prefix call: 256 rows x 32768 keys, 64
  // CTAs) is left to the seed, which splits the keys.
  u32 sms = sm_count();
  if (sms == 0) sms = 132;
  if (m_blocks * hq * pr.batch < static_cast<long long>(sms)) return false;

  // Persistent: one CTA per SM, the items handed out by a counter in the workspace (zeroed before every launch). A
  // ragged batch (max_seqlen_q x batch over 1.125 x total_q) or a mixed one numbers its items compactly (Schedule):
  // kseek_fa3_ws_schedule runs first and writes the numbering after the counter.
  const long long items = m_blocks * hq * pr.batch;
  const unsigned ctas = static_cast<unsigned>(items < static_cast<long long>(sms) ? items : sms);
  const bool compact = mixed || static_cast<i64>(pr.max_seqlen_q) * pr.batch * 8 > static_cast<i64>(pr.total_q) * 9;
  int l = 0;
  if (compact) {
    set_launch(plan->launches[l], "kseek_fa3_ws_schedule", 1u, 1u, 1u, 0u);
    plan->launches[l].block = PlanDim3{1024u, 1u, 1u};
    ++l;
  }
  set_launch(plan->launches[l], wc.name, ctas, 1u, 1u, wc.smem);
  plan->launches[l].block = PlanDim3{static_cast<unsigned>(kThreads), 1u, 1u};
  plan->num_launches = l + 1;
  // The counter, then (compact) m_start[batch + 1] from byte 256.
  plan->workspace_bytes = compact ? (256u + 4u * (static_cast<u64>(pr.batch) + 1u) + 255u) / 256u * 256u : 256u;
  plan->num_tensor_maps = 3;
  // Box columns: 16-bit, one 64-column slab per box (the kernel issues d / 64 of them); fp8, whole raw rows.
  const unsigned q_cols = wc.fp8 ? static_cast<unsigned>(pr.head_dim) : kSwizzleCols;
  const unsigned v_cols = wc.fp8 ? static_cast<unsigned>(pr.head_dim_v) : kSwizzleCols;
  const unsigned swz = wc.fp8 ? kSwizzleNone : kSwizzle128B;
  const unsigned rows = static_cast<unsigned>(pr.paged ? rpb : wc.bn);
  request_map(plan->tensor_maps[0], attention::kTensorQ, 3, q_cols, 1, kBM, 0, 0, swz);
  if (pr.paged) {
    request_map(plan->tensor_maps[1], attention::kTensorK, 4, q_cols, 1, rows, 1, 256, swz);
    request_map(plan->tensor_maps[2], attention::kTensorV, 4, v_cols, 1, rows, 1, 256, swz);
  } else {
    request_map(plan->tensor_maps[1], attention::kTensorK, 3, q_cols, 1, rows, 0, 256, swz);
    request_map(plan->tensor_maps[2], attention::kTensorV, 3, v_cols, 1, rows, 0, 256, swz);
  }
  return true;
}

}  // namespace ws

// The cascade plan (see kCascadePrefix) for a 16-bit d64 or d128 decode batch whose sizes say its pages are shared:
// detect, prefix, suffix, combine. False leaves the plan to the split-KV decode path.
__device__ __forceinline__ bool cascade_plan(const AttentionProblem& pr, int elem, int dp, int dvp, long long max_rows,
                                             LaunchPlan* plan) {
  if (!pr.paged || pr.batch < 8 || dp != dvp || (elem != kElemBF16 && elem != kElemFP16)) return false;
  if (pr.has_q_v || pr.window_left >= 0 || (!pr.causal && pr.window_right >= 0) || pr.num_splits == 1) return false;
  if constexpr (kseek::attention::kProblemsHaveSpans) {
    if (pr.num_spans != 0) return false;
  }
  if (max_rows > kMaxRowsForDecode || pr.total_q <= 0) return false;
  // Sizes alone say when pages must be shared: the cache holds under a twelfth of the keys the batch could read at most
  // (a ragged batch without sharing, H16's, holds about a fifth).
  if (pr.max_seqlen_k < 4096 ||
      static_cast<long long>(pr.total_k) * 12 > static_cast<long long>(pr.batch) * pr.max_seqlen_k)
    return false;
  const CascadeSplits cs = cascade_splits(pr);
  const int total = cs.prefix + cs.suffix;
  if (pr.num_splits > 1 && total > pr.num_splits) return false;
  const long long group = pr.num_heads_q / pr.num_heads_kv;
  const long long prefix_blocks =
      (static_cast<long long>(pr.total_q) * group + kCascadePrefixRows - 1) / kCascadePrefixRows;
  const long long suffix_blocks = (max_rows + 15) / 16;
  if (prefix_blocks > 65535 || static_cast<long long>(pr.batch) * pr.num_heads_kv > 0x7fffffffLL) return false;
  const char* prefix_name = nullptr;
  const char* suffix_name = nullptr;
  unsigned prefix_smem = 0, suffix_smem = 0;
#define KSEEK_FA3_CASCADE_MATCH(ename, ELEM, D, BNC)                                                             \
  if (elem == ELEM && dp == D) {                                                                                 \
    prefix_name = "kseek_fa3_cascade_prefix_" #ename "_d" #D;                                                    \
    suffix_name = "kseek_fa3_cascade_suffix_" #ename "_d" #D;                                                    \
    prefix_smem = static_cast<unsigned>(sizeof(SharedStorage<KSEEK_FA3_CASCADE_PREFIX_CFG(ELEM, D, BNC)>));      \
    suffix_smem = static_cast<unsigned>(sizeof(SharedStorage<KSEEK_FA3_CASCADE_SUFFIX_CFG(ELEM, D)>));           \
    static_assert(KSEEK_FA3_CASCADE_PREFIX_CFG(ELEM, D, BNC)::kBM == kCascadePrefixRows, "prefix rows per CTA"); \
    static_assert(kCascadeAlign % KSEEK_FA3_CASCADE_PREFIX_CFG(ELEM, D, BNC)::kBN == 0 &&                        \
                      kCascadeAlign % KSEEK_FA3_CASCADE_SUFFIX_CFG(ELEM, D)::kBN == 0,                           \
                  "the prefix is whole key tiles of both parts");                                                \
  }
  KSEEK_FA3_CASCADE_KERNELS(KSEEK_FA3_CASCADE_MATCH)
#undef KSEEK_FA3_CASCADE_MATCH
  if (prefix_name == nullptr) return false;
  set_launch(plan->launches[0], "kseek_fa3_cascade_detect", static_cast<unsigned>(pr.batch), 1u, 1u, 0u);
  set_launch(plan->launches[1], prefix_name, static_cast<unsigned>(pr.num_heads_kv),
             static_cast<unsigned>(prefix_blocks), static_cast<unsigned>(cs.prefix), prefix_smem);
  set_launch(plan->launches[2], suffix_name, static_cast<unsigned>(static_cast<long long>(pr.batch) * pr.num_heads_kv),
             static_cast<unsigned>(suffix_blocks), static_cast<unsigned>(cs.suffix), suffix_smem);
  const u64 tq = static_cast<u64>(pr.total_q);
  const u64 pairs = tq * static_cast<u64>(pr.num_heads_q);
  const u64 combine_ctas = (pairs + kWarps - 1) / kWarps;
  set_launch(plan->launches[3], "kseek_fa3_seed_combine", static_cast<unsigned>(combine_ctas > 0 ? combine_ctas : 1),
             1u, 1u, 0u);
  plan->num_launches = 4;
  const u64 lse_bytes = (static_cast<u64>(total) * pairs * 4u + 255u) / 256u * 256u;
  plan->workspace_bytes =
      kWorkspaceHeaderBytes + lse_bytes + static_cast<u64>(total) * pairs * static_cast<u64>(pr.head_dim_v) * 4u;
  return true;
}

// Fills `plan`; an unsupported problem gets num_launches == 0.
__device__ void make_plan(const AttentionProblem& pr, LaunchPlan* plan) {
  u8* raw = reinterpret_cast<u8*>(plan);
  for (unsigned i = 0; i < sizeof(LaunchPlan); ++i) raw[i] = 0;
  plan->abi_version = kLaunchPlanAbiVersion;
  const bool ws_taken = ws::make_ws_plan(pr, plan);  // stages (a)-(e): the warp-specialised Hopper path
  if (ws_taken && !ws::mixed_batch(pr)) return;

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
  if (ws_taken) {
    // Mixed batch: the persistent kernel took the long sequences; the decode tiling takes those whose packed rows fit
    // kMaxRowsForDecode (its grid covers no more, so the kernel skips the rest), unsplit, after the persistent launch.
    KernelChoice kc{};
    const int l = static_cast<int>(plan->num_launches);
    if (!choose_kernel(true, elem, dp, dvp, kc) || pr.batch <= 0 || l >= static_cast<int>(kMaxPlanLaunches)) {
      plan->num_launches = 0;  // unsupported: no launch at all rather than half the batch
      return;
    }
    const long long cover = (kMaxRowsForDecode + kc.bm - 1) / kc.bm;
    set_launch(plan->launches[l], kc.name, static_cast<unsigned>(static_cast<long long>(pr.batch) * hkv),
               static_cast<unsigned>(cover), 1u, kc.smem);
    plan->num_launches = l + 1;
    return;
  }
  if (cascade_plan(pr, elem, dp, dvp, max_rows, plan)) return;
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
    if (decode && pr.window_left < 0 && pr.batch > 0) {
      // Decode: splits of a fixed number of tiles (see the kernel), no longer than a quarter of what each CTA slot of
      // the GPU has to stream, so by Graham's bound for greedy scheduling the last CTA ends within 1.25x the ideal time
      // however ragged the batch (H16: keys from 256 to 32768). Slots: the CTAs one SM holds by shared memory (228 KiB
      // per SM, 1 KiB reserved per CTA; at most 3 by registers for these tilings).
      long long per_sm = 233472LL / (static_cast<long long>(kc.smem) + 1024LL);
      per_sm = per_sm < 1 ? 1 : (per_sm > 3 ? 3 : per_sm);
      const long long slots = static_cast<long long>(sms) * per_sm;
      // Mean keys per sequence (paged: total_k counts the cache's spare pages too, a slight overestimate).
      const long long mean_tiles = (static_cast<long long>(pr.total_k) / pr.batch + kc.bn - 1) / kc.bn;
      const long long per_slot = ctas * (mean_tiles > 0 ? mean_tiles : 1) / slots;
      // A split's partial O (rows x dv fp32, written then read by the combine) stays under 2% of the K/V bytes it
      // streams: MLA's dv 512 at 8 splits instead of 4 lost 5% (H25, H200, 2026-12-02), H16/H15's dv 128 gained.
      const long long elem_bytes = elem == kElemFP8 ? 1 : 2;
      const long long rows = max_rows < kc.bm ? max_rows : kc.bm;
      const long long tile_bytes = static_cast<long long>(kc.bn) * (pr.head_dim + pr.head_dim_v) * elem_bytes;
      long long chunk = per_slot / 4;
      const long long chunk_min = (50LL * rows * pr.head_dim_v * 8 + tile_bytes - 1) / tile_bytes;
      if (chunk < chunk_min) chunk = chunk_min;
      if (chunk < 16) chunk = 16;  // and at least 16 tiles: the CTA's start is paid once per split
      const long long by_skew = (key_tiles + chunk - 1) / chunk;
      if (by_skew > splits) splits = by_skew;  // the wave rule above stays the floor (H25's 4 splits)
    }
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
