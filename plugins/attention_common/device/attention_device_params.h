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
// Register tiles (attention_device.cu, "Reference tiles"): for the scores each thread owns 4 query vectors x 4 keys
// of the chunk (16 dot products; several threads split one tile's channels when the tiles are fewer than the
// threads); for P.V each thread owns 4 query vectors x 4 channels, gold and same precision (32 fp32 sums: 8 query
// vectors spilled under __launch_bounds__(256, 2) with the score tile's registers live beside them).
inline constexpr int kScoreTileQueries = 4;
inline constexpr int kScoreTileKeys = 4;
inline constexpr int kPvTileQueries = 4;
inline constexpr int kPvTileChannels = 4;
inline constexpr int kMaxScoreSplit = 4;  // threads that share one score tile's channels, at most
// Query vectors per CTA (rows x heads of one kv head), padded to whole P.V tiles. Every key row a CTA loads from
// global memory serves this many queries; one P.V tile per thread bounds them by dv: 64 at d64, 32 at d128, 16 at
// d256, 8 at dv 512.
inline constexpr int kMaxQueries = 64;
// 112 KiB of dynamic shared memory at most: two CTAs per SM on Hopper (228 KiB, 1 KiB of it reserved per CTA);
// above the 48 KiB launch default, so the worker raises the kernels' limit (DeviceHost::launch).
inline constexpr int kSmemFloats = 28672;
inline constexpr int kMaxChunkKeys = 256;

KSEEK_ATTENTION_HOST_DEVICE inline constexpr int padded_queries(int queries) {
  return (queries + kPvTileQueries - 1) / kPvTileQueries * kPvTileQueries;
}

// Whether one P.V tile per thread covers `padded` query vectors x dv channels.
KSEEK_ATTENTION_HOST_DEVICE inline constexpr bool pv_tiles_fit(int padded, int dv) {
  return (padded / kPvTileQueries) * ((dv + kPvTileChannels - 1) / kPvTileChannels) <= kReferenceThreads;
}

// The shared-memory plan of a reference CTA, in floats (host and device compute it with the same function):
//   q      [queries][q_pitch]        Q (and q_v) of the CTA's query vectors, fp32
//   kv     [chunk][kv_pitch]         one chunk of keys: K (and V) rows, then V rows for P.V
//   p      [queries][p_pitch]        fp32 scores of the chunk (pass 1, -inf where masked); p = exp(s - m) (pass 2)
//   p_low  [queries][p_pitch]        p rounded to the P precision (pass 2)
//   offsets[chunk][2] (8-byte)       element offsets of each key's K and V row
//   stats  [queries][4]              running (m, z, m2, l2) in pass 1; the row's final (m, Z) in pass 2
//   range  [queries][2] (8-byte)     visible keys [begin, end) of each query vector
// Pitches are 4 floats past a multiple of 8, so 16-byte loads of eight consecutive rows hit distinct banks. The chunk
// is at most one score tile per thread (queries x chunk <= 16 x threads): more keys would not fit the registers.
struct SmemPlan {
  int q_pitch;
  int kv_pitch;
  int p_pitch;
  int chunk;  // keys per chunk, a multiple of 4; 0 when nothing fits
  int q_offset, kv_offset, p_offset, p_low_offset, offsets_offset, stats_offset, range_offset;
  int floats;
};

KSEEK_ATTENTION_HOST_DEVICE inline constexpr int pitch_of(int width) {  // width + 4, rounded to 4 past a multiple of 8
  return (width + 3) / 4 * 4 % 8 == 0 ? (width + 3) / 4 * 4 + 4 : (width + 3) / 4 * 4 + 8;
}

KSEEK_ATTENTION_HOST_DEVICE inline constexpr SmemPlan make_smem_plan(int queries, int qk_dim, int dv) {
  SmemPlan plan{};
  plan.q_pitch = pitch_of(qk_dim);
  plan.kv_pitch = pitch_of(qk_dim > dv ? qk_dim : dv);
  const int fixed = queries * plan.q_pitch + queries * 4 + queries * 4 + 2 * queries * 8;  // q, stats, range, p pads
  const int per_key = plan.kv_pitch + 2 * queries + 4;  // kv row, p and p_low columns, offsets
  int chunk = (kSmemFloats - fixed) / per_key;
  const int tile_limit = queries > 0 ? kScoreTileQueries * kScoreTileKeys * kReferenceThreads / queries : 0;
  chunk = chunk > tile_limit ? tile_limit : chunk;
  chunk = chunk > kMaxChunkKeys ? kMaxChunkKeys : chunk;
  chunk = chunk < 0 ? 0 : chunk / 4 * 4;
  plan.chunk = chunk;
  plan.p_pitch = pitch_of(chunk);
  plan.q_offset = 0;
  plan.kv_offset = plan.q_offset + queries * plan.q_pitch;
  plan.p_offset = plan.kv_offset + chunk * plan.kv_pitch;
  plan.p_low_offset = plan.p_offset + queries * plan.p_pitch;
  plan.offsets_offset = plan.p_low_offset + queries * plan.p_pitch;  // even: every term above is a multiple of 4
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
