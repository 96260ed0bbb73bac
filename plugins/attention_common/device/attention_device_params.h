// The by-value parameter blocks of the attention plugins' device library (input generation and references), shared
// by the plugins' host C++ and by NVRTC. It must never hold a type whose layout differs between host and device.
#pragma once

#include <kseek/attention/problem.h>

// The smem plan below is computed by both sides; NVRTC compiles only device functions.
#if defined(__CUDACC__)
#define KSEEK_ATTENTION_HOST_DEVICE __host__ __device__
#else
#define KSEEK_ATTENTION_HOST_DEVICE
#endif

namespace kseek {
namespace attention {
namespace device {

// ---- input generation ----------------------------------------------------------------------------------------------

// What one fill launch writes; each kind has its own distribution (attention_device.cu, "input generation").
enum FillKind : int {
  kFillQ = 0,        // [rows = total_q, heads = hq, dim = d]
  kFillK = 1,        // [rows = cache rows or total_k, heads = hkv, dim = d]
  kFillV = 2,        // [rows, heads = hkv, dim = dv]
  kFillQv = 3,       // [rows = total_q, heads = hq, dim = dv]
  kFillDescale = 4,  // [batch * hkv] fp32, one launch per descale tensor
  kFillSinks = 5,    // [hq] fp32
};

// Device addresses travel as 64-bit integers: DeviceHost hands the plugin addresses, never pointers.
struct FillParams {
  unsigned long long out;    // the tensor, written
  unsigned long long count;  // elements
  unsigned long long seed;   // the input set's seed, already mixed with the scenario's seed
  int kind;                  // FillKind
  int dtype;                 // attention::DType of the elements (kDTypeFP32 for descales and sinks)
  int dim;                   // innermost extent (d or dv)
  int heads;                 // heads per row (hq or hkv)
  int group;                 // hq / hkv: query head h belongs to kv head h / group
  int head_dim;              // d, the width of K (its outlier channels are chosen among these)
  int tensor;                // which descale tensor (0 q, 1 k, 2 v), so the three differ
  float logit_scale;         // the problem's softmax_scale: the outlier channels are sized in logit units
};

inline constexpr int kFillHeadTableBytes = 256 * 16;  // attention_fill's per-head table (kFillHeadTable entries)
// Elements one fill thread writes with one store (16 bytes of a 16-bit tensor) when fill_chunked says it may.
inline constexpr int kFillChunk = 8;

// Whether a Q, K, V or q_v fill may write whole chunks: vectors of whole chunks, and a tensor address aligned for the
// widest chunk store (16 bytes). Host (grid size) and device (loop) decide alike.
KSEEK_ATTENTION_HOST_DEVICE inline constexpr bool fill_chunked(int dim, unsigned long long address) {
  return dim % kFillChunk == 0 && address % 16 == 0;
}

// Where a fill thread's element sits (token row, head, channel of its vector), moved along the grid-stride loop by
// additions only: the per-chunk divisions by dim and heads (64-bit ones above 2^32 elements, a long call each) cost
// H19's 4.3-billion-element fills more than their hashing (2026-12-04). Host and device alike, so a unit test steps it
// where the GPU tests' tensors are too small for any thread to step.
struct FillCursor {
  unsigned long long token;
  int head, channel;
  unsigned long long token_step;  // the stride in whole rows, heads and channels
  int head_step, channel_step;

  KSEEK_ATTENTION_HOST_DEVICE FillCursor(int dim, int heads, unsigned long long first, unsigned long long stride) {
    const unsigned long long d = static_cast<unsigned long long>(dim), h = static_cast<unsigned long long>(heads);
    const unsigned long long vector = first / d;
    channel = static_cast<int>(first - vector * d);
    token = vector / h;
    head = static_cast<int>(vector - token * h);
    const unsigned long long vectors = stride / d;
    channel_step = static_cast<int>(stride - vectors * d);
    token_step = vectors / h;
    head_step = static_cast<int>(vectors - token_step * h);
  }

  // The position `stride` elements further on.
  KSEEK_ATTENTION_HOST_DEVICE void advance(int dim, int heads) {
    channel += channel_step;
    int carry = 0;
    if (channel >= dim) {
      channel -= dim;
      carry = 1;
    }
    head += head_step + carry;
    token += token_step;
    if (head >= heads) {  // head_step + carry <= heads, so one wrap at most
      head -= heads;
      ++token;
    }
  }
};

// ---- references ----------------------------------------------------------------------------------------------------

inline constexpr int kReferenceThreads = 256;  // every reference CTA
inline constexpr int kReferenceWarps = kReferenceThreads / 32;

// How a reference CTA does its dot products (the kernels the host launches; attention_device.cu). Both
// compute the same values from the same inputs and round them alike; they differ in summation order only.
enum ReferenceEngine : int {
  // fp32 FMAs on register tiles: any input type, any width. The fallback, and the yardstick the other is measured by.
  kReferenceFma = 0,
  // mma.sync.m16n8k16 with fp32 accumulators, for 16-bit and fp8 inputs: every product is exact (the inputs are held
  // in their own 16-bit type, or in bf16 for fp8, whose values it holds exactly), and fp32 P enters P.V as three bf16
  // terms whose sum is P to within 2^-27 of it, so the gold reference stays an fp32 computation. Needs dv % 8 == 0.
  kReferenceTensorCores = 1,
};

// FMA engine register tiles: for the scores each thread owns 4 query vectors x 4 keys of the chunk (16 dot products;
// several threads split one tile's channels when the tiles are fewer than the threads); for P.V each thread owns
// 4 query vectors x 4 channels, gold and same precision (32 fp32 sums: 8 query vectors spilled under
// __launch_bounds__(256, 2) with the score tile's registers live beside them).
inline constexpr int kScoreTileQueries = 4;
inline constexpr int kScoreTileKeys = 4;
inline constexpr int kPvTileQueries = 4;
inline constexpr int kPvTileChannels = 4;
inline constexpr int kMaxScoreSplit = 4;  // threads that share one score tile's channels, at most
// Tensor-core engine tiles: m16n8k16, 16 query vectors x 8 keys (scores) or 8 channels (P.V) per MMA tile. A warp
// keeps at most this many tiles' fp32 accumulators (4 registers each) in flight: score tiles for one chunk, P.V tiles
// (gold and same precision) for the whole key range, so that both fit 128 registers together.
inline constexpr int kMmaRows = 16;
inline constexpr int kMmaCols = 8;
inline constexpr int kMmaDepth = 16;
inline constexpr int kMaxScoreMmaTiles = 4;
inline constexpr int kMaxPvMmaTiles = 8;
// With fp16 operands a P.V step holds P in fp16 and as three bf16 terms, and V in two bf16 halves: half the tiles.
KSEEK_ATTENTION_HOST_DEVICE inline constexpr int max_pv_mma_tiles(bool f16_operands) {
  return f16_operands ? kMaxPvMmaTiles / 2 : kMaxPvMmaTiles;
}
// Query vectors per CTA (rows x heads of one kv head), padded to whole P.V tiles. Every key row a CTA loads from
// global memory serves this many queries; the P.V tiles' registers bound them by dv: 64 at d64, 32 at d128, 16 at
// d256, 8 at dv 512 (FMA engine, and tensor cores with fp16 operands; twice that, 64 at most, with bf16 operands).
inline constexpr int kMaxQueries = 64;
// 112 KiB of dynamic shared memory at most: two CTAs per SM on Hopper (228 KiB, 1 KiB of it reserved per CTA);
// above the 48 KiB launch default, so the worker raises the kernels' limit (DeviceHost::launch).
inline constexpr int kSmemFloats = 28672;
inline constexpr int kMaxChunkKeys = 256;

KSEEK_ATTENTION_HOST_DEVICE inline constexpr int round_up(int value, int multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Query vectors a CTA computes, padding included: whole FMA tiles (4), or 16, 32 or 64 with tensor cores so that
// the MMA row tiles divide the CTA's warps evenly.
KSEEK_ATTENTION_HOST_DEVICE inline constexpr int padded_queries(int queries, int engine) {
  if (engine != kReferenceTensorCores) return round_up(queries, kPvTileQueries);
  return queries <= kMmaRows ? kMmaRows : (queries <= 2 * kMmaRows ? 2 * kMmaRows : 4 * kMmaRows);
}

// Whether one CTA's P.V tiles fit its threads' registers for `padded` query vectors x dv channels.
KSEEK_ATTENTION_HOST_DEVICE inline constexpr bool pv_tiles_fit(int padded, int dv, int engine, bool f16_operands) {
  if (engine == kReferenceTensorCores) {
    return dv % kMmaCols == 0 &&
           (padded / kMmaRows) * (dv / kMmaCols) <= kReferenceWarps * max_pv_mma_tiles(f16_operands);
  }
  return (padded / kPvTileQueries) * ((dv + kPvTileChannels - 1) / kPvTileChannels) <= kReferenceThreads;
}

// The shared-memory plan of a reference CTA, in floats (host and device compute it with the same function):
//   q      [queries][q_pitch]        Q (and q_v) of the CTA's query vectors, fp32, zero from qk_dim to qk_width
//   kv     [chunk][kv_pitch]         one chunk of keys: K (and V) rows (kv_pitch), then V rows for P.V (v_pitch)
//   p      [queries][p_pitch]        fp32 scores of the chunk (pass 1, -inf where masked); p = exp(s - m) (pass 2)
//   p_low  [queries][p_pitch]        p rounded to the P precision (pass 2; FMA engine only: MMAs round p themselves)
//   offsets[chunk][2] (8-byte)       element offsets of each key's K and V row
//   stats  [queries][4]              running (m, z, m2, l2) in pass 1; the row's final (m, Z) in pass 2
//   range  [queries][2] (8-byte)     visible keys [begin, end) of each query vector
// Pitches are chosen so that a warp's shared-memory accesses hit distinct banks: FMA engine, 4 floats past a multiple
// of 8 (16-byte loads of eight consecutive rows); tensor cores, 16 past a multiple of 32 for Q and K rows (a
// quarter-warp's 16-byte loads cover two rows), 8 past for p (a half-warp's 8-byte accesses cover four rows), and
// FMA's pitch for V (a warp's 4-byte loads cover 8 keys of 8 channels). The chunk is bounded by the score tiles'
// registers as well as by shared memory.
struct SmemPlan {
  int q_pitch;
  int kv_pitch;  // K rows (the chunk's rows when q_v joins the logit: [k | v])
  int v_pitch;   // V rows loaded for P.V (pass 2 without q_v)
  int p_pitch;
  int qk_width;  // channels of a Q or K row in shared memory: qk_dim, padded with zeros to whole MMA steps
  int chunk;     // keys per chunk, a multiple of 4 (16 with tensor cores); 0 when nothing fits
  int q_offset, kv_offset, p_offset, p_low_offset, offsets_offset, stats_offset, range_offset;
  int floats;
};

KSEEK_ATTENTION_HOST_DEVICE inline constexpr int pitch_of(int width) {  // width + 4, rounded to 4 past a multiple of 8
  return (width + 3) / 4 * 4 % 8 == 0 ? (width + 3) / 4 * 4 + 4 : (width + 3) / 4 * 4 + 8;
}

// The smallest pitch >= width that is `offset` (0 < offset < 32) floats past a multiple of 32.
KSEEK_ATTENTION_HOST_DEVICE inline constexpr int pitch_past(int width, int offset) {
  return (width > offset ? round_up(width - offset, 32) : 0) + offset;
}

KSEEK_ATTENTION_HOST_DEVICE inline constexpr SmemPlan make_smem_plan(int queries, int qk_dim, int dv, int engine) {
  SmemPlan plan{};
  const bool tensor = engine == kReferenceTensorCores;
  plan.qk_width = tensor ? round_up(qk_dim, kMmaDepth) : qk_dim;
  plan.q_pitch = tensor ? pitch_past(plan.qk_width, 16) : pitch_of(qk_dim);
  plan.kv_pitch = tensor ? pitch_past(plan.qk_width, 16) : pitch_of(qk_dim > dv ? qk_dim : dv);
  plan.v_pitch = tensor ? pitch_of(dv) : plan.kv_pitch;
  const int row_floats = plan.kv_pitch > plan.v_pitch ? plan.kv_pitch : plan.v_pitch;
  const int p_buffers = tensor ? 1 : 2;
  const int p_pad = tensor ? 32 : 8;
  const int fixed = queries * plan.q_pitch + queries * 4 + queries * 4 + p_buffers * queries * p_pad;
  const int per_key = row_floats + p_buffers * queries + 4;  // kv row, p (and p_low) columns, offsets
  int chunk = (kSmemFloats - fixed) / per_key;
  const int tile_limit = queries <= 0 ? 0
                         : tensor     ? kMaxScoreMmaTiles * kReferenceWarps * kMmaRows * kMmaCols / queries
                                      : kScoreTileQueries * kScoreTileKeys * kReferenceThreads / queries;
  chunk = chunk > tile_limit ? tile_limit : chunk;
  chunk = chunk > kMaxChunkKeys ? kMaxChunkKeys : chunk;
  const int multiple = tensor ? kMmaDepth : 4;
  chunk = chunk < 0 ? 0 : chunk / multiple * multiple;
  plan.chunk = chunk;
  plan.p_pitch = tensor ? pitch_past(chunk, 8) : pitch_of(chunk);
  plan.q_offset = 0;
  plan.kv_offset = plan.q_offset + queries * plan.q_pitch;
  plan.p_offset = plan.kv_offset + chunk * row_floats;
  plan.p_low_offset = plan.p_offset + queries * plan.p_pitch;
  plan.offsets_offset = plan.p_low_offset + (tensor ? 0 : queries * plan.p_pitch);  // even: all terms are 4-multiples
  plan.stats_offset = plan.offsets_offset + 4 * chunk;
  plan.range_offset = plan.stats_offset + 4 * queries;
  plan.floats = plan.range_offset + 4 * queries;
  return plan;
}

// One launch of the reference kernels. `problem` carries every input's device pointer (o and lse null): the
// references read the inputs exactly as a candidate does, through the same strides and block table.
struct ReferenceParams {
  AttentionProblem problem;
  unsigned long long tiles;        // int2 [num_tiles]: (sequence, first query row) of each row tile
  unsigned long long split_stats;  // float4 [splits, total_q * hq]: per split (m, z, m2, l2)
  unsigned long long final_stats;  // float2 [total_q * hq]: (m, Z) of the whole row, sink included
  unsigned long long partial_o;    // float2 [splits, total_q * hq, dv]: (gold, same precision) sums; splits > 1
  unsigned long long gold_o;       // float [total_q, hq, dv]
  unsigned long long same_o;       // dtype_o [total_q, hq, dv]
  unsigned long long gold_lse;     // float [hq, total_q], 0 when the scenario has no LSE output
  unsigned long long same_lse;     // float [hq, total_q], 0 likewise
  int num_tiles;
  int rows_per_tile;   // query rows of one sequence per CTA
  int heads_per_tile;  // query heads of one kv head per CTA
  int head_tiles;      // (hq / hkv) / heads_per_tile
  int splits;          // key splits per tile (grid z)
  int p_dtype;         // DType P is rounded to before P.V in the same-precision reference
  int qk_dim;          // d, plus dv when has_q_v (q_v . v joins the logit)
  int reserved;
};

}  // namespace device
}  // namespace attention
}  // namespace kseek
