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

// ---- references ----------------------------------------------------------------------------------------------------

inline constexpr int kReferenceThreads = 256;    // every reference CTA
inline constexpr int kQueriesPerGroup = 4;       // query vectors one thread carries through Q.K and P.V
// Query vectors per CTA (rows x heads of one kv head). Every key row a CTA loads from global memory (scalar loads,
// converted to fp32) serves this many queries (within kMaxUnitsPerThread's P.V sums: 64 at d64, 32 at d128, 16 at
// d256). Measured on an H200 with 6 units per thread (1.3-3.4x faster per scenario, 2.0x over the case-study set,
// docs/benchmarks.md "Where an evaluation's time goes"); 6 spilled in the output pass, so 4 is what ships.
inline constexpr int kMaxQueries = 64;
inline constexpr int kMaxUnitsPerThread = 4;     // P.V units (channel, query group) per thread: 32 fp32 sums
// 96 KiB of dynamic shared memory: two CTAs per SM on Hopper (228 KiB); above the 48 KiB launch default, so the
// worker raises the kernels' limit (DeviceHost::launch).
inline constexpr int kSmemFloats = 24576;
inline constexpr int kMaxChunkKeys = 256;

// The shared-memory plan of a reference CTA, in floats (host and device compute it with the same function):
//   q      [queries][q_pitch]        Q (and q_v) of the CTA's query vectors, fp32
//   kv     [chunk][kv_pitch]         one chunk of keys: K (and V) rows, then V rows for P.V
//   p      [queries][chunk]          fp32 probabilities exp(s - m) of the chunk (-inf scores while pass 1 reduces)
//   p_low  [queries][chunk]          the same rounded to the P precision (pass 2)
//   offsets[chunk][2] (8-byte)       element offsets of each key's K and V row
//   stats  [queries][4]              running (m, z, m2, l2) in pass 1; the row's final (m, Z) in pass 2
//   range  [queries][2] (8-byte)     visible keys [begin, end) of each query vector
// Pitches are 4 floats past a multiple of 8, so 16-byte loads of consecutive rows hit distinct banks.
struct SmemPlan {
  int q_pitch;
  int kv_pitch;
  int chunk;  // keys per chunk, a multiple of 4; 0 when nothing fits
  int q_offset, kv_offset, p_offset, p_low_offset, offsets_offset, stats_offset, range_offset;
  int floats;
};

KSEEK_ATTENTION_HOST_DEVICE inline constexpr SmemPlan make_smem_plan(int queries, int qk_dim, int dv) {
  SmemPlan plan{};
  plan.q_pitch = qk_dim + 4;
  plan.kv_pitch = (qk_dim > dv ? qk_dim : dv) + 4;
  const int fixed = queries * plan.q_pitch + queries * 4 + queries * 4;  // q, stats, range
  const int per_key = plan.kv_pitch + 2 * queries + 4;                   // kv row, p and p_low columns, offsets
  int chunk = (kSmemFloats - fixed) / per_key;
  chunk = chunk > kMaxChunkKeys ? kMaxChunkKeys : chunk;
  chunk = chunk < 0 ? 0 : chunk / 4 * 4;
  plan.chunk = chunk;
  plan.q_offset = 0;
  plan.kv_offset = plan.q_offset + queries * plan.q_pitch;
  plan.p_offset = plan.kv_offset + chunk * plan.kv_pitch;
  plan.p_low_offset = plan.p_offset + queries * chunk;
  plan.offsets_offset = plan.p_low_offset + queries * chunk;  // even: every term above is a multiple of 4
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
