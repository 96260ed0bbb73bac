// The attention plugins' own device code: input generation and the two references (fp32 gold, same precision),
// launched by the plugins through DeviceHost. It must never be offered to a candidate, never include a system or
// toolkit header (kseek's NVRTC offers none), and never trade what the references compute for speed: the tiling may
// change summation orders (stated where it does), never which values are summed or how they are rounded.
#include <kseek/attention/problem.h>
#include <kseek/device/convert.h>
#include <kseek/device/ptx.h>

#include "attention_device_params.h"

namespace kseek {
namespace attention {
namespace device {

using u8 = unsigned char;
using u16 = unsigned short;
using u32 = unsigned int;
using u64 = unsigned long long;
using i64 = long long;

constexpr int kThreads = kReferenceThreads;
constexpr int kWarps = kThreads / 32;
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;
// fp8 inputs are stored as e4m3(real * kFp8Unit / u) with descale u / kFp8Unit, u in [0.5, 1.5): typical stored
// magnitudes sit well inside e4m3's normal range (2^-6 .. 448), the largest (the outlier channels) just below 448.
constexpr float kFp8Unit = 8.0f;
constexpr float kFp16Limit = 60000.0f;  // generated values stay finite in fp16 whatever the draw

static_assert(kThreads % 32 == 0 && kMaxQueries % kPvTileQueries == 0, "whole warps, whole P.V tiles");
static_assert(kWarps == kReferenceWarps && kMaxQueries == 4 * kMmaRows && kWarps % 4 == 0,
              "1, 2 or 4 MMA row tiles divide the warps");
static_assert(kPvTileQueries % kScoreTileQueries == 0, "padded queries are whole score tiles too");
static_assert(kScoreTileKeys == 4 && kPvTileChannels == 4, "tiles are read as float4");

__device__ __forceinline__ float neg_inf() { return __int_as_float(0xff800000); }

// =====================================================================================================================
// Element conversions. No cuda_bf16.h / cuda_fp16.h / cuda_fp8.h under NVRTC: PTX cvt (PTX ISA, "Data Movement and
// Conversion Instructions: cvt"), round to nearest even, as a careful kernel writing these types would.
// =====================================================================================================================

__device__ __forceinline__ float bf16_to_float(u16 bits) { return __uint_as_float(static_cast<u32>(bits) << 16); }

__device__ __forceinline__ float f16_to_float(u16 bits) {
  float value;
  asm("cvt.f32.f16 %0, %1;" : "=f"(value) : "h"(bits));
  return value;
}

// PTX ISA cvt .f16x2.e4m3x2 (sm_89+): the low byte becomes the low half; e4m3 -> fp16 is exact.
__device__ __forceinline__ float e4m3_to_float(u8 bits) {
  u32 halves;
  const u16 pair = bits;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(halves) : "h"(pair));
  return f16_to_float(static_cast<u16>(halves & 0xFFFFu));
}

__device__ __forceinline__ u16 float_to_bf16(float value) {
  u16 bits;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(value));
  return bits;
}

__device__ __forceinline__ u16 float_to_f16(float value) {
  u16 bits;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(value));
  return bits;
}

// PTX ISA cvt .satfinite.e4m3x2.f32: a goes to the upper byte, b to the lower; out-of-range values saturate to
// +-448 (e4m3 "fn" has no infinity), so a generated input is never NaN.
__device__ __forceinline__ u8 float_to_e4m3(float value) {
  u16 pair;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(pair) : "f"(0.0f), "f"(value));
  return static_cast<u8>(pair & 0xFFu);
}

__device__ __forceinline__ float load_element(const void* base, i64 index, int dtype) {
  switch (dtype) {
    case kDTypeBF16: return bf16_to_float(static_cast<const u16*>(base)[index]);
    case kDTypeFP16: return f16_to_float(static_cast<const u16*>(base)[index]);
    case kDTypeFP8E4M3: return e4m3_to_float(static_cast<const u8*>(base)[index]);
    default: return static_cast<const float*>(base)[index];
  }
}

__device__ __forceinline__ void store_element(void* base, i64 index, int dtype, float value) {
  switch (dtype) {
    case kDTypeBF16: static_cast<u16*>(base)[index] = float_to_bf16(value); break;
    case kDTypeFP16: static_cast<u16*>(base)[index] = float_to_f16(value); break;
    case kDTypeFP8E4M3: static_cast<u8*>(base)[index] = float_to_e4m3(value); break;
    default: static_cast<float*>(base)[index] = value; break;
  }
}

// The value `value` takes once stored in `dtype` (16-bit types only; anything else stays fp32).
__device__ __forceinline__ float round_to(int dtype, float value) {
  if (dtype == kDTypeBF16) return bf16_to_float(float_to_bf16(value));
  if (dtype == kDTypeFP16) return f16_to_float(float_to_f16(value));
  return value;
}

// PTX ISA ex2.approx / lg2.approx: the base-2 exponent and logarithm a FlashAttention-style kernel uses.
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ float fast_log2(float x) {
  float y;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// =====================================================================================================================
// Input generation: every element is a pure function of (seed, tensor kind, element index), so a seed gives the same
// bytes on every GPU. The distributions are built to make wrong kernels fail (ADVERSARIAL.md W3-W9):
//   * per-head scales 0.5..2 for Q, K and V, per-(kv head, channel) means for V: heads differ, so a wrong GQA map (W7)
//     or a V average (W4) is far off; logits range from flat to peaked rows;
//   * in every kv head two K channels carry a large mean M = (0.8..1) * B and the matching two Q channels an amplitude
//     B * a, a uniform in [-1, 1) per (token, head), with B = sqrt(100 / softmax_scale): row offsets of up to
//     +-(160..200) logits, so exp(s) without subtracting the row maximum overflows (s > 88.7) or underflows to 0 / 0
//     (s < -104) in about half of the rows (W9), while rows with small |a| keep flat softmaxes. B stays below 41 for
//     every head size, so fp8 (x 8) stays inside e4m3's 448;
//   * one key row in 256 has a K noise six times larger: a few keys dominate the rows that align with them, so a
//     kernel that skips keys or tails (W5) or misplaces a page (W7) moves those rows by O(1);
//   * descales are uniform in [0.5, 1.5) / 8 per [sequence, kv head] and tensor (W8), sinks uniform in [-2, 10).
// An element's noise is Irwin-Hall of four 16-bit uniforms: steps of 2.6e-5, finer than fp16's rounding step above
// 0.03 in magnitude and bf16's above 0.004, so the stored mantissas are random to their last bit for most elements and
// a kernel that drops low bits cannot pass by luck.
//
// Cost: the fills run for every timed launch (fresh inputs), so they are written for throughput. Per-head values
// (scales, outlier channels) come from 64-bit splitmix64 once per head and block; per-element bits from a 32-bit
// finaliser, two rounds for 64 bits (about 16 integer instructions where two 64-bit splitmix64 rounds took about 90:
// 64-bit multiplies are emulated). A thread writes kFillChunk consecutive elements at once (one 16-byte store for
// 16-bit types, one of 8 bytes for fp8), its position moved by FillCursor without divisions. On an H200 the 64-bit
// version filled H19's K and V (4.3 G elements, 8.6 GB each) in 19.4 and 26.1 ms, compute-bound at 7-10 % of the
// memory bandwidth; this one in 12.4 and 14.0 ms (Nsight Compute, 2026-12-04; docs/benchmarks.md).
// =====================================================================================================================

__device__ __forceinline__ u64 splitmix64(u64 z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

__device__ __forceinline__ u64 hash3(u64 seed, u64 tag, u64 index) {
  return splitmix64(seed ^ splitmix64(tag * 0xD1B54A32D192ED03ull + index));
}

__device__ __forceinline__ float unit_float(u64 bits) {  // [0, 1) from the top 24 bits
  return static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);
}

__device__ __forceinline__ float log_uniform_scale(u64 h) { return exp2f(-1.0f + 2.0f * unit_float(h)); }  // 0.5..2

// A 32-bit finaliser: xor-shifts around two odd multiplies, a bijection of 32-bit words whose outputs for
// neighbouring inputs pass as independent (shifts and multipliers of the published "lowbias32" family found by the
// hash-prospector search). Two rounds make a keyed counter hash.
__device__ __forceinline__ u32 mix32(u32 x) {
  x ^= x >> 16;
  x *= 0x21F0AAADu;
  x ^= x >> 15;
  x *= 0x735A2D97u;
  x ^= x >> 15;
  return x;
}

// The per-word key of counter `i` in the stream keyed `key`: the counter's high word folded in once, so the low word
// alone varies within any 2^32 aligned counters (a kFillChunk never crosses one).
__device__ __forceinline__ u32 high_key(u32 key, u64 i) { return mix32(static_cast<u32>(i >> 32) ^ key); }

// 32 random bits of counter `i` in the stream keyed `key`.
__device__ __forceinline__ u32 bits32(u32 key, u64 i) { return mix32(static_cast<u32>(i) ^ high_key(key, i)); }

__device__ __forceinline__ float unit_float32(u32 bits) {  // [0, 1) from the top 24 bits: every value an exact fp32
  return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f);
}

__device__ __forceinline__ float gaussian(u32 a, u32 b) {  // mean 0, variance 1 (Irwin-Hall of four 16-bit uniforms)
  const u32 sum4 = (a & 0xFFFFu) + (a >> 16) + (b & 0xFFFFu) + (b >> 16);
  return (static_cast<float>(sum4) * (1.0f / 65536.0f) - 2.0f) * 1.7320508f;
}

enum Tag : u64 {
  kTagQHead = 1,
  kTagQAmplitude,
  kTagQElement,
  kTagKHead,
  kTagKRow,
  kTagKElement,
  kTagVHead,
  kTagVMean,
  kTagVElement,
  kTagQvHead,
  kTagQvElement,
  kTagDescale,
  kTagSink,
};

// The character of kv head g's keys: a noise scale and two outlier channels with a large mean.
struct KHead {
  float sigma;
  float mean;
  int c0, c1;
};

__device__ __forceinline__ float outlier_amplitude(float logit_scale) { return sqrtf(100.0f / logit_scale); }

__device__ KHead k_head(u64 seed, int g, int head_dim, float logit_scale) {
  const u64 h = hash3(seed, kTagKHead, static_cast<u64>(g));
  KHead k;
  k.sigma = log_uniform_scale(h);
  k.mean = outlier_amplitude(logit_scale) * (0.8f + 0.2f * unit_float(splitmix64(h ^ 2)));
  k.c0 = static_cast<int>(splitmix64(h ^ 3) % static_cast<u64>(head_dim));
  k.c1 = (k.c0 + 1 + static_cast<int>(splitmix64(h ^ 4) % static_cast<u64>(head_dim - 1))) % head_dim;
  return k;
}

// What every element of one head shares (its scales, its kv head's outlier channels): computed once per head and
// block (head_character), not once per element.
struct HeadCharacter {
  float scale;  // Q, V, q_v: the head's log-uniform scale; K: the kv head's noise scale (KHead::sigma)
  float mean;   // K: the outlier channels' mean
  int c0, c1;   // Q and K: the (kv) head's two outlier channels
};

__device__ HeadCharacter head_character(const FillParams& p, int head) {
  HeadCharacter h{1.0f, 0.0f, -1, -1};
  switch (p.kind) {
    case kFillQ: {
      const KHead kh = k_head(p.seed, head / p.group, p.head_dim, p.logit_scale);
      h.scale = log_uniform_scale(hash3(p.seed, kTagQHead, head));
      h.c0 = kh.c0;
      h.c1 = kh.c1;
      break;
    }
    case kFillK: {
      const KHead kh = k_head(p.seed, head, p.head_dim, p.logit_scale);
      h.scale = kh.sigma;
      h.mean = kh.mean;
      h.c0 = kh.c0;
      h.c1 = kh.c1;
      break;
    }
    case kFillV: h.scale = log_uniform_scale(hash3(p.seed, kTagVHead, head)); break;
    default: h.scale = log_uniform_scale(hash3(p.seed, kTagQvHead, head)); break;
  }
  return h;
}

// The keys of one fill's counter streams, drawn from the seed once per thread: an element's noise (two streams, 64
// bits), a vector's row bits (Q: the outlier amplitude, counter = vector; K: the outlier row, counter = row) and
// V's per-(kv head, channel) mean.
struct FillKeys {
  u32 noise_a, noise_b;
  u32 row;
  u32 mean_low;  // high_key(V's mean key, 0): the key of every counter below 2^32
};

__device__ FillKeys fill_keys(const FillParams& p) {
  u64 noise_tag = kTagQvElement;
  if (p.kind == kFillQ) noise_tag = kTagQElement;
  if (p.kind == kFillK) noise_tag = kTagKElement;
  if (p.kind == kFillV) noise_tag = kTagVElement;
  const u64 noise = hash3(p.seed, noise_tag, 0);
  FillKeys k;
  k.noise_a = static_cast<u32>(noise);
  k.noise_b = static_cast<u32>(noise >> 32);
  k.row = static_cast<u32>(hash3(p.seed, p.kind == kFillQ ? kTagQAmplitude : kTagKRow, 0));
  k.mean_low = high_key(static_cast<u32>(hash3(p.seed, kTagVMean, 0)), 0);
  return k;
}

// The one row hash per vector its kind needs (Q: the outlier amplitude's, per vector; K: the outlier row's, per row
// of `heads` vectors).
__device__ __forceinline__ u32 row_bits(const FillParams& p, const FillKeys& k, u64 vector, u64 row) {
  if (p.kind == kFillQ) return bits32(k.row, vector);
  if (p.kind == kFillK) return bits32(k.row, row);
  return 0;
}

// Element c of a vector of head `head`, given its head's character, its vector's row bits and its 64 noise bits.
__device__ __forceinline__ float generate(const FillParams& p, const FillKeys& k, const HeadCharacter& h, u32 row,
                                          int head, int c, u32 noise_a, u32 noise_b) {
  switch (p.kind) {
    case kFillQ: {
      float value = h.scale * gaussian(noise_a, noise_b);
      if (c == h.c0 || c == h.c1) value += outlier_amplitude(p.logit_scale) * (2.0f * unit_float32(row) - 1.0f);
      return value;
    }
    case kFillK: {
      const bool outlier_row = (row & 255u) == 0;
      float value = h.scale * (outlier_row ? 6.0f : 1.0f) * gaussian(noise_a, noise_b);
      if (c == h.c0 || c == h.c1) value += h.mean;
      return value;
    }
    case kFillV: {
      // head * dim + c < 2^32: the stream's high key is its key for counter 0, one finaliser round per element.
      const u32 counter = static_cast<u32>(head) * static_cast<u32>(p.dim) + static_cast<u32>(c);
      const float mean = 2.0f * unit_float32(mix32(counter ^ k.mean_low)) - 1.0f;
      return mean + h.scale * gaussian(noise_a, noise_b);
    }
    default: return h.scale * gaussian(noise_a, noise_b);  // kFillQv
  }
}

__device__ __forceinline__ float finish_value(const FillParams& p, float value) {
  if (p.dtype == kDTypeFP8E4M3) value *= kFp8Unit;
  if (p.dtype == kDTypeFP16) value = fminf(fmaxf(value, -kFp16Limit), kFp16Limit);
  return value;
}

// PTX ISA cvt .bf16x2 / .f16x2 / .e4m3x2 from two f32: a goes to the upper half, b to the lower (round to nearest
// even, as store_element rounds one element: a chunk's bytes equal the element-by-element ones).
__device__ __forceinline__ u32 pack_pair(int dtype, float low, float high) {
  u32 packed;
  if (dtype == kDTypeBF16) {
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(high), "f"(low));
  } else if (dtype == kDTypeFP16) {
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(high), "f"(low));
  } else {
    u16 pair;
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(pair) : "f"(high), "f"(low));
    packed = pair;
  }
  return packed;
}

// Elements first .. first + kFillChunk - 1 with one store (16 bytes for 16-bit types, 8 for fp8, two of 16 for fp32).
__device__ __forceinline__ void store_chunk(void* base, u64 first, int dtype, const float (&v)[kFillChunk]) {
  static_assert(kFillChunk == 8, "a chunk is four pairs");
  if (dtype == kDTypeBF16 || dtype == kDTypeFP16) {
    uint4 word;
    word.x = pack_pair(dtype, v[0], v[1]);
    word.y = pack_pair(dtype, v[2], v[3]);
    word.z = pack_pair(dtype, v[4], v[5]);
    word.w = pack_pair(dtype, v[6], v[7]);
    reinterpret_cast<uint4*>(static_cast<u16*>(base) + first)[0] = word;
  } else if (dtype == kDTypeFP8E4M3) {
    uint2 word;
    word.x = pack_pair(dtype, v[0], v[1]) | pack_pair(dtype, v[2], v[3]) << 16;
    word.y = pack_pair(dtype, v[4], v[5]) | pack_pair(dtype, v[6], v[7]) << 16;
    reinterpret_cast<uint2*>(static_cast<u8*>(base) + first)[0] = word;
  } else {
    float4* out = reinterpret_cast<float4*>(static_cast<float*>(base) + first);
    out[0] = make_float4(v[0], v[1], v[2], v[3]);
    out[1] = make_float4(v[4], v[5], v[6], v[7]);
  }
}

constexpr int kFillHeadTable = 256;  // heads whose character a block keeps in shared memory
static_assert(kFillHeadTable * sizeof(HeadCharacter) == kFillHeadTableBytes, "the fill launch asks for this table");

// =====================================================================================================================
// Reference helpers
// =====================================================================================================================

// Keys [begin, end) visible to query row `row` of sequence b, (sq, sk), exactly as problem.h states the mask.
__device__ void visible_range(const AttentionProblem& p, int b, i64 sq, i64 sk, i64 row, i64& begin, i64& end) {
  const i64 diagonal = row + sk - sq;  // bottom-right alignment
  const int right = p.causal ? 0 : p.window_right;
  begin = 0;
  end = sk;
  if (right >= 0 && diagonal + right + 1 < end) end = diagonal + right + 1;
  if (p.window_left >= 0 && diagonal - p.window_left > begin) begin = diagonal - p.window_left;
  // A row whose diagonal lies in a bidirectional span also sees the rest of that span.
  for (int s = 0; s < p.num_spans; ++s) {
    const int* span = p.spans + static_cast<i64>(b) * p.span_batch_stride + 2 * s;
    if (diagonal >= span[0] && diagonal < span[1] && span[1] > end) end = span[1];
  }
  if (end > sk) end = sk;
  if (begin > sk) begin = sk;
  if (end < begin) end = begin;
}

__device__ __forceinline__ float warp_max(float value) {
  for (int offset = 16; offset > 0; offset >>= 1) value = fmaxf(value, __shfl_xor_sync(0xFFFFFFFFu, value, offset));
  return value;
}
__device__ __forceinline__ float warp_sum(float value) {
  for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_xor_sync(0xFFFFFFFFu, value, offset);
  return value;
}

__device__ __forceinline__ int round_up4(int value) { return (value + 3) & ~3; }

// One CTA's share of the problem: a tile of query rows of one sequence, a tile of the query heads of one kv head,
// and one split of the keys those rows see.
struct TileWork {
  int b, g, row0, head0, queries, padded_queries;
  int heads_here;  // heads of this head tile (the last tile of a group may hold fewer than heads_per_tile)
  i64 q_start, sq, sk, k_start;
  i64 key_begin, key_end;  // this split's keys
  float qk_descale, v_descale;
};

template <int kEngine>
__device__ TileWork tile_work(const ReferenceParams& rp) {
  const AttentionProblem& p = rp.problem;
  const int2 tile = reinterpret_cast<const int2*>(rp.tiles)[blockIdx.x];
  TileWork w;
  w.b = tile.x;
  w.row0 = tile.y;
  const int group = p.num_heads_q / p.num_heads_kv;
  const int head_tile = static_cast<int>(blockIdx.y) % rp.head_tiles;
  w.g = static_cast<int>(blockIdx.y) / rp.head_tiles;
  w.head0 = w.g * group + head_tile * rp.heads_per_tile;
  w.heads_here = group - head_tile * rp.heads_per_tile < rp.heads_per_tile ? group - head_tile * rp.heads_per_tile
                                                                           : rp.heads_per_tile;
  w.queries = rp.rows_per_tile * rp.heads_per_tile;
  w.padded_queries = padded_queries(w.queries, kEngine);
  w.q_start = p.cu_seqlens_q[w.b];
  w.sq = p.cu_seqlens_q[w.b + 1] - w.q_start;
  w.sk = p.seqused_k != nullptr ? p.seqused_k[w.b] : p.cu_seqlens_k[w.b + 1] - p.cu_seqlens_k[w.b];
  w.k_start = p.paged ? 0 : p.cu_seqlens_k[w.b];
  // Visible ranges move right monotonically with the row (spans too: they are sorted and disjoint), so the first and
  // last rows of the tile bound the union.
  i64 last_row = w.row0 + rp.rows_per_tile - 1;
  if (last_row > w.sq - 1) last_row = w.sq - 1;
  i64 begin, end, unused;
  visible_range(p, w.b, w.sq, w.sk, w.row0, begin, unused);
  visible_range(p, w.b, w.sq, w.sk, last_row, unused, end);
  if (end < begin) end = begin;
  const i64 per_split = (end - begin + rp.splits - 1) / rp.splits;
  w.key_begin = begin + per_split * blockIdx.z;
  w.key_end = w.key_begin + per_split < end ? w.key_begin + per_split : end;
  if (w.key_begin > w.key_end) w.key_begin = w.key_end;
  w.qk_descale = 1.0f;
  w.v_descale = 1.0f;
  if (p.dtype_qkv == kDTypeFP8E4M3) {
    const i64 d = static_cast<i64>(w.b) * p.descale_batch_stride + static_cast<i64>(w.g) * p.descale_head_stride;
    if (p.q_descale != nullptr) w.qk_descale *= p.q_descale[d];
    if (p.k_descale != nullptr) w.qk_descale *= p.k_descale[d];
    if (p.v_descale != nullptr) w.v_descale = p.v_descale[d];
  }
  return w;
}

// Query vector q of a tile: row row0 + q / heads_per_tile of the sequence, head head0 + q % heads_per_tile.
__device__ __forceinline__ i64 query_row(const ReferenceParams& rp, const TileWork& w, int q) {
  return w.row0 + q / rp.heads_per_tile;
}
__device__ __forceinline__ int query_head(const ReferenceParams& rp, const TileWork& w, int q) {
  return w.head0 + q % rp.heads_per_tile;
}
// False for padding: past the tile's query vectors, the head tile's heads, or the sequence's rows.
__device__ __forceinline__ bool query_valid(const ReferenceParams& rp, const TileWork& w, int q) {
  return q < w.queries && q % rp.heads_per_tile < w.heads_here && query_row(rp, w, q) < w.sq;
}

__device__ __forceinline__ float logit(const AttentionProblem& p, float raw, float qk_descale) {
  const float x = p.softmax_scale * (raw * qk_descale);
  return p.softcap > 0.0f ? p.softcap * tanhf(x / p.softcap) : x;
}

// Shared memory of a reference CTA, carved by make_smem_plan (attention_device_params.h).
struct Smem {
  float* q;      // [padded queries][q_pitch]
  float* kv;     // [chunk][kv_pitch]
  float* p;      // [padded queries][chunk]
  float* p_low;  // [padded queries][chunk] (FMA engine)
  i64* offsets;  // [chunk][2]: K row, V row
  float* stats;  // [padded queries][4]
  i64* range;    // [padded queries][2]
  SmemPlan plan;
};

extern __shared__ __align__(16) float kseek_attention_reference_smem[];

// The engine is the kernel's template argument (the host launches that engine's kernels): a plan folded for one engine
// keeps fewer registers live through the chunk loop.
template <int kEngine>
__device__ Smem carve_smem(const ReferenceParams& rp, const TileWork& w) {
  Smem s;
  s.plan = make_smem_plan(w.padded_queries, rp.qk_dim, rp.problem.head_dim_v, kEngine);
  float* base = kseek_attention_reference_smem;
  s.q = base + s.plan.q_offset;
  s.kv = base + s.plan.kv_offset;
  s.p = base + s.plan.p_offset;
  s.p_low = kEngine == kReferenceTensorCores ? nullptr : base + s.plan.p_low_offset;  // MMAs round P themselves
  s.offsets = reinterpret_cast<i64*>(base + s.plan.offsets_offset);
  s.stats = base + s.plan.stats_offset;
  s.range = reinterpret_cast<i64*>(base + s.plan.range_offset);
  return s;
}

// Loads the tile's query vectors (Q, then q_v when present; zero rows past the sequence or the tile, zero channels
// from qk_dim to the plan's qk_width) and their visible key ranges.
__device__ void load_queries(const ReferenceParams& rp, const TileWork& w, const Smem& s) {
  const AttentionProblem& p = rp.problem;
  const int d = p.head_dim;
  for (int q = threadIdx.x; q < w.padded_queries; q += kThreads) {
    i64 begin = 0, end = 0;
    if (query_valid(rp, w, q)) visible_range(p, w.b, w.sq, w.sk, query_row(rp, w, q), begin, end);
    s.range[2 * q] = begin;
    s.range[2 * q + 1] = end;
  }
  const int width = s.plan.qk_width;
  for (int idx = threadIdx.x; idx < w.padded_queries * width; idx += kThreads) {
    const int q = idx / width;
    const int dd = idx - q * width;
    float value = 0.0f;
    if (dd < rp.qk_dim && query_valid(rp, w, q)) {
      const i64 token = w.q_start + query_row(rp, w, q);
      const i64 h = query_head(rp, w, q);
      value = dd < d ? load_element(p.q, token * p.q_row_stride + h * p.q_head_stride + dd, p.dtype_qkv)
                     : load_element(p.q_v, token * p.qv_row_stride + h * p.qv_head_stride + (dd - d), p.dtype_qkv);
    }
    s.q[q * s.plan.q_pitch + dd] = value;
  }
}

// Element offsets of the chunk's K and V rows (through the block table when paged).
__device__ void chunk_offsets(const ReferenceParams& rp, const TileWork& w, const Smem& s, i64 first_key, int count) {
  const AttentionProblem& p = rp.problem;
  for (int j = threadIdx.x; j < count; j += kThreads) {
    const i64 key = first_key + j;
    i64 k_row, v_row;
    if (p.paged) {
      const i64 page = p.block_table[static_cast<i64>(w.b) * p.block_table_batch_stride + key / p.block_size];
      const i64 slot = key % p.block_size;
      k_row = page * p.k_block_stride + slot * p.k_row_stride;
      v_row = page * p.v_block_stride + slot * p.v_row_stride;
    } else {
      k_row = (w.k_start + key) * p.k_row_stride;
      v_row = (w.k_start + key) * p.v_row_stride;
    }
    s.offsets[2 * j] = k_row + static_cast<i64>(w.g) * p.k_head_stride;
    s.offsets[2 * j + 1] = v_row + static_cast<i64>(w.g) * p.v_head_stride;
  }
}

// Whether every K and V row of this problem starts on a 4-element boundary of a suitably aligned tensor, so that
// load_chunk_rows may read 4 elements at once. Uniform over the grid; false falls back to one element per load.
__device__ bool rows_vectorizable(const AttentionProblem& p) {
  const u64 bytes4 =
      p.dtype_qkv == kDTypeFP8E4M3 ? 4 : (p.dtype_qkv == kDTypeBF16 || p.dtype_qkv == kDTypeFP16 ? 8 : 16);
  bool ok = reinterpret_cast<u64>(p.k) % bytes4 == 0 && reinterpret_cast<u64>(p.v) % bytes4 == 0;
  ok = ok && p.k_row_stride % 4 == 0 && p.k_head_stride % 4 == 0 && p.v_row_stride % 4 == 0 && p.v_head_stride % 4 == 0;
  if (p.paged) ok = ok && p.k_block_stride % 4 == 0 && p.v_block_stride % 4 == 0;
  return ok && p.head_dim % 4 == 0 && p.head_dim_v % 4 == 0;
}

// PTX ISA ld.global.nc: the inputs are read-only while a reference runs, and without a memory clobber the compiler
// may issue a batch of these before the shared stores that follow them.
__device__ __forceinline__ u32 load_u32(const void* address) {
  u32 value;
  asm("ld.global.nc.u32 %0, [%1];" : "=r"(value) : "l"(address));
  return value;
}
__device__ __forceinline__ uint2 load_u32x2(const void* address) {
  uint2 value;
  asm("ld.global.nc.v2.u32 {%0, %1}, [%2];" : "=r"(value.x), "=r"(value.y) : "l"(address));
  return value;
}
__device__ __forceinline__ uint4 load_u32x4(const void* address) {
  uint4 value;
  asm("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r"(value.x), "=r"(value.y), "=r"(value.z), "=r"(value.w)
      : "l"(address));
  return value;
}

// Elements index .. index + 3 (index a multiple of 4 of a tensor rows_vectorizable accepted), converted exactly as
// load_element converts each.
__device__ __forceinline__ float4 load_element4(const void* base, i64 index, int dtype) {
  switch (dtype) {
    case kDTypeBF16: {
      const uint2 raw = load_u32x2(static_cast<const u16*>(base) + index);
      return make_float4(bf16_to_float(static_cast<u16>(raw.x & 0xFFFFu)), bf16_to_float(static_cast<u16>(raw.x >> 16)),
                         bf16_to_float(static_cast<u16>(raw.y & 0xFFFFu)),
                         bf16_to_float(static_cast<u16>(raw.y >> 16)));
    }
    case kDTypeFP16: {
      const uint2 raw = load_u32x2(static_cast<const u16*>(base) + index);
      return make_float4(f16_to_float(static_cast<u16>(raw.x & 0xFFFFu)), f16_to_float(static_cast<u16>(raw.x >> 16)),
                         f16_to_float(static_cast<u16>(raw.y & 0xFFFFu)), f16_to_float(static_cast<u16>(raw.y >> 16)));
    }
    case kDTypeFP8E4M3: {
      const u32 raw = load_u32(static_cast<const u8*>(base) + index);
      return make_float4(
          e4m3_to_float(static_cast<u8>(raw & 0xFFu)), e4m3_to_float(static_cast<u8>((raw >> 8) & 0xFFu)),
          e4m3_to_float(static_cast<u8>((raw >> 16) & 0xFFu)), e4m3_to_float(static_cast<u8>(raw >> 24)));
    }
    default: {
      const uint4 raw = load_u32x4(static_cast<const float*>(base) + index);
      return make_float4(__uint_as_float(raw.x), __uint_as_float(raw.y), __uint_as_float(raw.z),
                         __uint_as_float(raw.w));
    }
  }
}

// Fills every row j of the chunk: K (then V when q_v joins the logit) into kv[j * kv_pitch + (0, qk_width)], or V
// alone into kv[j * v_pitch + (0, dv)]; rows past `count` and K channels from qk_dim to qk_width are zero, so that
// 0 * row never meets a stale non-finite value. Vectorized: a row is read by a power of two of threads, 4 elements
// each, kRowBatch rows per thread in flight before their shared stores (fewer where registers are scarce).
template <int kRowBatch>
__device__ void load_chunk_rows(const ReferenceParams& rp, const Smem& s, int count, bool keys, bool vectorized) {
  const AttentionProblem& p = rp.problem;
  const int d = p.head_dim;
  const int width = keys ? rp.qk_dim : p.head_dim_v;  // channels read
  const int stored = keys ? s.plan.qk_width : width;  // channels written
  const int pitch = keys ? s.plan.kv_pitch : s.plan.v_pitch;
  if (!vectorized) {
    for (int idx = threadIdx.x; idx < s.plan.chunk * stored; idx += kThreads) {
      const int j = idx / stored;
      const int dd = idx - j * stored;
      float value = 0.0f;
      if (j < count && dd < width) {
        if (keys && dd < d) {
          value = load_element(p.k, s.offsets[2 * j] + dd, p.dtype_qkv);
        } else {
          value = load_element(p.v, s.offsets[2 * j + 1] + (keys ? dd - d : dd), p.dtype_qkv);
        }
      }
      s.kv[j * pitch + dd] = value;
    }
    return;
  }
  const int groups = stored / 4;
  const int lanes = groups > 16 ? 32 : (groups > 8 ? 16 : 8);  // threads per row
  const int rows_at_once = kThreads / lanes;
  for (int j0 = threadIdx.x / lanes; j0 < s.plan.chunk; j0 += kRowBatch * rows_at_once) {
    for (int t = threadIdx.x % lanes; t < groups; t += lanes) {
      const int dd = 4 * t;
      float4 values[kRowBatch];
#pragma unroll
      for (int b = 0; b < kRowBatch; ++b) {
        const int j = j0 + b * rows_at_once;
        values[b] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (j < count && dd < width) {
          values[b] = keys && dd < d ? load_element4(p.k, s.offsets[2 * j] + dd, p.dtype_qkv)
                                     : load_element4(p.v, s.offsets[2 * j + 1] + (keys ? dd - d : dd), p.dtype_qkv);
        }
      }
#pragma unroll
      for (int b = 0; b < kRowBatch; ++b) {
        const int j = j0 + b * rows_at_once;
        if (j < s.plan.chunk) *reinterpret_cast<float4*>(s.kv + j * pitch + dd) = values[b];
      }
    }
  }
}

// =====================================================================================================================
// Reference tiles. Scores: the chunk's (padded queries / 4) x (chunk / 4) tiles of 4 query vectors x 4 keys, one per
// thread; a tile's keys are kg, kg + chunk/4, ... so that a warp's K loads read consecutive rows (distinct banks).
// When the tiles are fewer than half the threads, `split` (2 or 4) adjacent threads share a tile: each sums every
// split-th float4 of channels, then a butterfly of shuffles adds the partial sums. Summation order of a dot product:
// channels in order within each thread's share (with split 1: channels 0, 1, ..., qk_dim - 1, as before the tiling),
// then the partial sums pairwise. P.V: (padded queries / 4) x (dv / 4) tiles of 4 query vectors x 4 channels, one per
// thread, each output summed over the chunk's keys in key order, chunk after chunk.
// =====================================================================================================================

__device__ __forceinline__ int score_split(int tiles) {
  int split = 1;
  while (split < kMaxScoreSplit && tiles * split * 2 <= kThreads) split *= 2;
  return split;
}

// Raw dot products q . k of the chunk from the register tiles, stored into p[q][j] for every padded query and every
// column of the chunk (padding rows and rows past `count` are zero, so these are finite). The logit, the mask and the
// exponentials are applied per row afterwards (row_logit), so that no tile holds its sums while they are computed.
__device__ void chunk_scores(const ReferenceParams& rp, const TileWork& w, const Smem& s) {
  const int key_groups = s.plan.chunk / kScoreTileKeys;
  const int tiles = (w.padded_queries / kScoreTileQueries) * key_groups;
  const int split = score_split(tiles);
  // Tiles are numbered along the threads, so a warp whose first thread has none has none at all (and no shuffle
  // partner in another warp).
  if (static_cast<int>(threadIdx.x & ~31u) / split >= tiles) return;
  const int tile = static_cast<int>(threadIdx.x) / split;
  const int slice = static_cast<int>(threadIdx.x) % split;
  const int my_tile = tile < tiles ? tile : tiles - 1;  // threads past the last tile compute a copy, store nothing
  const int q0 = (my_tile / key_groups) * kScoreTileQueries;
  const int kg = my_tile % key_groups;
  const float* q_rows = s.q + q0 * s.plan.q_pitch;
  const float* k_rows = s.kv + kg * s.plan.kv_pitch;
  const int key_step = key_groups * s.plan.kv_pitch;
  float acc[kScoreTileQueries][kScoreTileKeys];
#pragma unroll
  for (int r = 0; r < kScoreTileQueries; ++r) {
#pragma unroll
    for (int i = 0; i < kScoreTileKeys; ++i) acc[r][i] = 0.0f;
  }
  const int vec = rp.qk_dim / 4;
#pragma unroll 1
  for (int t = slice; t < vec; t += split) {
    float4 a[kScoreTileQueries];
#pragma unroll
    for (int r = 0; r < kScoreTileQueries; ++r) a[r] = reinterpret_cast<const float4*>(q_rows + r * s.plan.q_pitch)[t];
#pragma unroll
    for (int i = 0; i < kScoreTileKeys; ++i) {
      const float4 b = reinterpret_cast<const float4*>(k_rows + i * key_step)[t];
#pragma unroll
      for (int r = 0; r < kScoreTileQueries; ++r) {
        acc[r][i] = fmaf(a[r].x, b.x, acc[r][i]);
        acc[r][i] = fmaf(a[r].y, b.y, acc[r][i]);
        acc[r][i] = fmaf(a[r].z, b.z, acc[r][i]);
        acc[r][i] = fmaf(a[r].w, b.w, acc[r][i]);
      }
    }
  }
  for (int offset = 1; offset < split; offset <<= 1) {
#pragma unroll
    for (int r = 0; r < kScoreTileQueries; ++r) {
#pragma unroll
      for (int i = 0; i < kScoreTileKeys; ++i) acc[r][i] += __shfl_xor_sync(0xFFFFFFFFu, acc[r][i], offset);
    }
  }
  if (tile >= tiles) return;
#pragma unroll
  for (int r = 0; r < kScoreTileQueries; ++r) {
#pragma unroll
    for (int i = 0; i < kScoreTileKeys; ++i) {
      // The tile's threads hold the same sums (the butterfly adds the same pairs): they share the stores.
      if (((r * kScoreTileKeys + i) & (split - 1)) == slice)
        s.p[(q0 + r) * s.plan.p_pitch + kg + i * key_groups] = acc[r][i];
    }
  }
}

// The visible columns [begin, end) of query vector q within the chunk that starts at first_key and holds count keys.
__device__ __forceinline__ void chunk_columns(const Smem& s, int q, i64 first_key, int count, int& begin, int& end) {
  const i64 b = s.range[2 * q] - first_key;
  const i64 e = s.range[2 * q + 1] - first_key;
  begin = static_cast<int>(b < 0 ? 0 : (b > count ? count : b));
  end = static_cast<int>(e < 0 ? 0 : (e > count ? count : e));
}

// One thread's P.V tile over the chunk's first `keys4` keys (rows and p columns past the chunk's count are zero):
// gold[r][c] += p[q0 + r][j] * v[j][c0 + c], same[r][c] likewise with p_low, for j in key order.
__device__ __forceinline__ void chunk_pv(const Smem& s, int v_column, int keys4, int q0, int c0,
                                         float (&gold)[kPvTileQueries][kPvTileChannels],
                                         float (&same)[kPvTileQueries][kPvTileChannels]) {
  const float* v_rows = s.kv + v_column + c0;
#pragma unroll 1
  for (int j = 0; j < keys4; j += 4) {
    float v[4][kPvTileChannels];
#pragma unroll
    for (int jj = 0; jj < 4; ++jj) {
      const float4 row = *reinterpret_cast<const float4*>(v_rows + (j + jj) * s.plan.kv_pitch);
      v[jj][0] = row.x;
      v[jj][1] = row.y;
      v[jj][2] = row.z;
      v[jj][3] = row.w;
    }
#pragma unroll
    for (int r = 0; r < kPvTileQueries; ++r) {
      const float4 pg = *reinterpret_cast<const float4*>(s.p + (q0 + r) * s.plan.p_pitch + j);
      const float4 pl = *reinterpret_cast<const float4*>(s.p_low + (q0 + r) * s.plan.p_pitch + j);
#pragma unroll
      for (int c = 0; c < kPvTileChannels; ++c) {
        gold[r][c] = fmaf(pg.w, v[3][c], fmaf(pg.z, v[2][c], fmaf(pg.y, v[1][c], fmaf(pg.x, v[0][c], gold[r][c]))));
        same[r][c] = fmaf(pl.w, v[3][c], fmaf(pl.z, v[2][c], fmaf(pl.y, v[1][c], fmaf(pl.x, v[0][c], same[r][c]))));
      }
    }
  }
}

// =====================================================================================================================
// Reference tiles on tensor cores (kReferenceTensorCores). PTX ISA mma.sync.aligned.m16n8k16 with fp32 accumulators
// ("Matrix Fragments for mma.m16n8k16": lane = 4 * group + quad; A rows group and group + 8, B column group; a
// fragment's two k positions 2 * quad, 2 * quad + 1 and 2 * quad + 8, 2 * quad + 9). Exactness: an MMA multiplies
// exactly (8- or 11-bit significands, products within fp32's 24 bits) and adds in fp32, which may truncate rather
// than round: a score is the FMA engine's sum in another order, with at most one truncation per 16-channel step in
// place of a rounding (qk_width / 16 of them, 4 for d64 and 36 for MLA's 576: inside the fp32 bound the GPU test holds
// both engines to). The k positions of a fragment are mapped to the summation index
// (channel or key) as position 2q, 2q+1, 2q+8, 2q+9 -> index 4q .. 4q+3 for A and B alike: a thread reads its four
// values with one 16-byte load, and a sum does not depend on the order of its terms.
//   Scores: warp w owns row tile w / (8 / mt) of the CTA's mt = padded / 16 and every (8 / mt)-th key tile of the
//   chunk, its accumulators in registers until the chunk's scores are stored to p.
//   P.V: the same split over dv / 8 channel tiles, accumulators kept across the whole key range and fed by fp32
//   additions (round to nearest) once per 16 keys. Gold: fp32 p as
//   p1 + p2 + p3, each the bf16 rounding of what the earlier terms left (24 significant bits together), against V in
//   bf16 (exact for bf16 and fp8 inputs) or, for fp16 V, against V = vh + vl in bf16 (exact: 11 bits = 8 + 3);
//   p3 * vl (below 2^-24 of p * v) is left out. Same precision: P rounded to p_dtype by the MMA's own operand
//   conversion (cvt.rn, as round_to) against V in its input type.
// =====================================================================================================================

// Two fp32 values into one register of two 16-bit values, `low` in the lower half (kseek/device/convert.h); exact for
// values the type holds.
template <bool kF16>
__device__ __forceinline__ u32 pack2(float low, float high) {
  if constexpr (kF16) {
    return kseek::device::pack_fp16x2(low, high);
  } else {
    return kseek::device::pack_bf16x2(low, high);
  }
}

__device__ __forceinline__ float2 unpack_bf16x2(u32 packed) {
  return make_float2(__uint_as_float(packed << 16), __uint_as_float(packed & 0xFFFF0000u));
}

// d += a b (m16n8k16, fp32 accumulators; kseek/device/ptx.h): kF16 picks fp16 operands, otherwise bf16.
template <bool kF16>
__device__ __forceinline__ void mma16816(float (&d)[4], const u32 (&a)[4], u32 b0, u32 b1) {
  if constexpr (kF16) {
    kseek::device::mma_fp16_16816(d, a, b0, b1);
  } else {
    kseek::device::mma_bf16_16816(d, a, b0, b1);
  }
}

// Which MMA tiles a warp owns: row tile `row` of the CTA's padded queries, and column tiles slot, slot + stride, ...
struct MmaWarpTiles {
  int row, slot, stride;
};

__device__ __forceinline__ MmaWarpTiles mma_warp_tiles(const TileWork& w) {
  const int row_tiles = w.padded_queries / kMmaRows;  // 1, 2 or 4: divides the warps
  const int stride = kWarps / row_tiles;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  return MmaWarpTiles{warp / stride, warp % stride, stride};
}

// Raw dot products q . k of the chunk into p[q][j] for every padded query and every column of the chunk (padding rows
// and keys past `count` give 0).
template <bool kF16>
__device__ void chunk_scores_mma(const TileWork& w, const Smem& s) {
  const MmaWarpTiles t = mma_warp_tiles(w);
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int group = lane / 4, quad = lane % 4;
  const int key_tiles = s.plan.chunk / kMmaCols;
  const float* q_low = s.q + (t.row * kMmaRows + group) * s.plan.q_pitch + 4 * quad;
  const float* q_high = q_low + 8 * s.plan.q_pitch;
  const float* k_rows = s.kv + group * s.plan.kv_pitch + 4 * quad;
  float acc[kMaxScoreMmaTiles][4];
#pragma unroll
  for (int i = 0; i < kMaxScoreMmaTiles; ++i) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.0f;
#pragma unroll 1
  for (int c0 = 0; c0 < s.plan.qk_width; c0 += kMmaDepth) {
    const float4 ql = *reinterpret_cast<const float4*>(q_low + c0);
    const float4 qh = *reinterpret_cast<const float4*>(q_high + c0);
    const u32 a[4] = {pack2<kF16>(ql.x, ql.y), pack2<kF16>(qh.x, qh.y), pack2<kF16>(ql.z, ql.w),
                      pack2<kF16>(qh.z, qh.w)};
#pragma unroll
    for (int i = 0; i < kMaxScoreMmaTiles; ++i) {
      const int n = t.slot + i * t.stride;
      if (n < key_tiles) {  // warp-uniform: mma.sync needs the whole warp
        const float4 k = *reinterpret_cast<const float4*>(k_rows + n * kMmaCols * s.plan.kv_pitch + c0);
        mma16816<kF16>(acc[i], a, pack2<kF16>(k.x, k.y), pack2<kF16>(k.z, k.w));
      }
    }
  }
  float* p_top = s.p + (t.row * kMmaRows + group) * s.plan.p_pitch + 2 * quad;
  float* p_bottom = p_top + 8 * s.plan.p_pitch;
#pragma unroll
  for (int i = 0; i < kMaxScoreMmaTiles; ++i) {
    const int n = t.slot + i * t.stride;
    if (n < key_tiles) {
      *reinterpret_cast<float2*>(p_top + n * kMmaCols) = make_float2(acc[i][0], acc[i][1]);
      *reinterpret_cast<float2*>(p_bottom + n * kMmaCols) = make_float2(acc[i][2], acc[i][3]);
    }
  }
}

// fp32 P as three bf16 terms, a fragment register at a time: hi + mid + lo equals p to within 2^-27 of p.
__device__ __forceinline__ void split_p(float2 p, u32& hi, u32& mid, u32& lo) {
  hi = pack2<false>(p.x, p.y);
  const float2 h = unpack_bf16x2(hi);
  const float2 r1 = make_float2(p.x - h.x, p.y - h.y);  // exact: h is p rounded to 8 bits
  mid = pack2<false>(r1.x, r1.y);
  const float2 m = unpack_bf16x2(mid);
  lo = pack2<false>(r1.x - m.x, r1.y - m.y);
}

// The warp's P.V tiles over the chunk's first `keys16` keys (rows and p columns past the chunk's count are zero).
// V rows sit at `v_rows` (column offset applied) with pitch `pitch`. Each step's 16 keys are summed by the MMAs from
// zero, smallest terms first, and added to the running sums by fp32 additions that round to nearest: an MMA's own
// fp32 addition may truncate, and over thousands of steps into one accumulator that would bias a long row's sum;
// over one step it cannot. With fp16 operands the same-precision and gold sums go in two passes over the tiles (V
// read twice), so that P's fp16 and three bf16 forms are never live together: with both, 128 registers do not hold.
template <bool kF16, int kTiles>
__device__ void chunk_pv_mma(const TileWork& w, const Smem& s, const float* v_rows, int pitch, int keys16,
                             float (&gold)[kTiles][4], float (&same)[kTiles][4], int channel_tiles) {
  const MmaWarpTiles t = mma_warp_tiles(w);
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int group = lane / 4, quad = lane % 4;
  const float* p_top = s.p + (t.row * kMmaRows + group) * s.plan.p_pitch + 2 * quad;
  const float* p_bottom = p_top + 8 * s.plan.p_pitch;
  const float* v_column = v_rows + 2 * quad * pitch + group;
#pragma unroll 1
  for (int k0 = 0; k0 < keys16; k0 += kMmaDepth) {
    // A fragments: rows group / group + 8, keys k0 + 2 quad (+1) and k0 + 2 quad + 8 (+9), in fragment order.
    const auto p_of = [&](float2(&p)[4]) {
      p[0] = *reinterpret_cast<const float2*>(p_top + k0);
      p[1] = *reinterpret_cast<const float2*>(p_bottom + k0);
      p[2] = *reinterpret_cast<const float2*>(p_top + k0 + 8);
      p[3] = *reinterpret_cast<const float2*>(p_bottom + k0 + 8);
    };
    const float* v = v_column + k0 * pitch;
    // B fragment values of channel tile n: keys 2 quad, 2 quad + 1, 2 quad + 8, 2 quad + 9 of channel 8 n + group.
    const auto v_of = [&](int n, float(&values)[4]) {
      const float* vn = v + n * kMmaCols;
      values[0] = vn[0];
      values[1] = vn[pitch];
      values[2] = vn[8 * pitch];
      values[3] = vn[9 * pitch];
    };
    float2 p[4];
    p_of(p);
    if constexpr (kF16) {
      const u32 rounded[4] = {pack2<true>(p[0].x, p[0].y), pack2<true>(p[1].x, p[1].y), pack2<true>(p[2].x, p[2].y),
                              pack2<true>(p[3].x, p[3].y)};  // p_dtype fp16, rounded as round_to does
#pragma unroll
      for (int i = 0; i < kTiles; ++i) {
        const int n = t.slot + i * t.stride;
        if (n >= channel_tiles) continue;  // warp-uniform: mma.sync needs the whole warp
        float vals[4];
        v_of(n, vals);
        float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        mma16816<true>(sum, rounded, pack2<true>(vals[0], vals[1]), pack2<true>(vals[2], vals[3]));
#pragma unroll
        for (int e = 0; e < 4; ++e) same[i][e] += sum[e];
      }
      p_of(p);  // read again rather than held through the pass above
    }
    u32 hi[4], mid[4], lo[4];
#pragma unroll
    for (int r = 0; r < 4; ++r) split_p(p[r], hi[r], mid[r], lo[r]);
#pragma unroll
    for (int i = 0; i < kTiles; ++i) {
      const int n = t.slot + i * t.stride;
      if (n >= channel_tiles) continue;
      float vals[4];
      v_of(n, vals);
      const u32 vh0 = pack2<false>(vals[0], vals[1]), vh1 = pack2<false>(vals[2], vals[3]);
      float g[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      if constexpr (kF16) {  // fp16 V as vh + vl in bf16 (exact: 11 bits = 8 + 3)
        const float2 h0 = unpack_bf16x2(vh0), h1 = unpack_bf16x2(vh1);
        const u32 vl0 = pack2<false>(vals[0] - h0.x, vals[1] - h0.y),
                  vl1 = pack2<false>(vals[2] - h1.x, vals[3] - h1.y);
        mma16816<false>(g, mid, vl0, vl1);
        mma16816<false>(g, lo, vh0, vh1);
        mma16816<false>(g, hi, vl0, vl1);
        mma16816<false>(g, mid, vh0, vh1);
        mma16816<false>(g, hi, vh0, vh1);
      } else {  // bf16 V (bf16 or fp8 inputs): p_dtype is bf16, so P's same-precision form is hi itself
        float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        mma16816<false>(sum, hi, vh0, vh1);
#pragma unroll
        for (int e = 0; e < 4; ++e) same[i][e] += sum[e];
        mma16816<false>(g, lo, vh0, vh1);
        mma16816<false>(g, mid, vh0, vh1);
        mma16816<false>(g, hi, vh0, vh1);
      }
#pragma unroll
      for (int e = 0; e < 4; ++e) gold[i][e] += g[e];
    }
  }
}

// Output channel c of query vector v from its P.V sums and Z: O itself with one split, the scaled partial sums for
// attention_reference_combine with several.
__device__ __forceinline__ void store_output(const ReferenceParams& rp, i64 v, int c, float z, float gold_sum,
                                             float same_sum, float v_descale) {
  const int dv = rp.problem.head_dim_v;
  const float g_sum = gold_sum * v_descale;
  const float s_sum = same_sum * v_descale;
  const i64 index = v * dv + c;
  if (rp.splits == 1) {
    reinterpret_cast<float*>(rp.gold_o)[index] = z > 0.0f ? g_sum / z : 0.0f;
    store_element(reinterpret_cast<void*>(rp.same_o), index, rp.problem.dtype_o, z > 0.0f ? s_sum / z : 0.0f);
  } else {
    const i64 vectors = static_cast<i64>(rp.problem.total_q) * rp.problem.num_heads_q;
    reinterpret_cast<float2*>(rp.partial_o)[blockIdx.z * vectors * dv + index] = make_float2(g_sum, s_sum);
  }
}

// The chunk's raw dot products into p, by the engine the kernel was instantiated for.
template <int kEngine>
__device__ __forceinline__ void chunk_scores_of(const ReferenceParams& rp, const TileWork& w, const Smem& s) {
  if constexpr (kEngine == kReferenceTensorCores) {
    if (rp.problem.dtype_qkv == kDTypeFP16) {
      chunk_scores_mma<true>(w, s);
    } else {
      chunk_scores_mma<false>(w, s);
    }
  } else {
    chunk_scores(rp, w, s);
  }
}

// The global index of query vector q (token * hq + head), or -1 when q is padding.
__device__ __forceinline__ i64 query_vector(const ReferenceParams& rp, const TileWork& w, int q) {
  if (!query_valid(rp, w, q)) return -1;
  return (w.q_start + query_row(rp, w, q)) * rp.problem.num_heads_q + query_head(rp, w, q);
}

}  // namespace device
}  // namespace attention
}  // namespace kseek

using kseek::attention::device::FillParams;
using kseek::attention::device::ReferenceParams;
namespace dev = kseek::attention::device;

// One tensor (FillKind): values as described under "Input generation", then rounded to the tensor's type (fp8: scaled
// by kFp8Unit first, saturating). Q, K, V and q_v go a chunk of kFillChunk consecutive elements per thread (one
// vector's channels: dim is a multiple of the chunk) with one store, or an element per thread where dim or the
// tensor's alignment does not allow chunks; both give the same bytes. Descales and sinks, a few elements, go one
// element per thread.
extern "C" __global__ void __launch_bounds__(dev::kThreads) attention_fill(const FillParams p) {
  void* out = reinterpret_cast<void*>(p.out);
  const dev::u64 count = p.count;
  const dev::u64 threads = static_cast<dev::u64>(gridDim.x) * blockDim.x;
  const dev::u64 thread = blockIdx.x * static_cast<dev::u64>(blockDim.x) + threadIdx.x;
  if (p.kind == dev::kFillDescale || p.kind == dev::kFillSinks) {
    for (dev::u64 i = thread; i < count; i += threads) {
      const float value =
          p.kind == dev::kFillDescale
              ? (0.5f + dev::unit_float(dev::hash3(p.seed, dev::kTagDescale + 16 * p.tensor, i))) / dev::kFp8Unit
              : -2.0f + 12.0f * dev::unit_float(dev::hash3(p.seed, dev::kTagSink, i));
      dev::store_element(out, static_cast<dev::i64>(i), p.dtype, value);
    }
    return;
  }
  // The table lives in dynamic shared memory (the launch asks for kFillHeadTable entries): the library's kernels keep
  // no static shared buffers.
  dev::HeadCharacter* characters = reinterpret_cast<dev::HeadCharacter*>(dev::kseek_attention_reference_smem);
  const bool tabled = p.heads <= dev::kFillHeadTable;
  if (tabled) {
    for (int h = threadIdx.x; h < p.heads; h += blockDim.x) characters[h] = dev::head_character(p, h);
  }
  __syncthreads();
  const dev::FillKeys keys = dev::fill_keys(p);
  const int width = dev::fill_chunked(p.dim, p.out) ? dev::kFillChunk : 1;
  const dev::u64 units = count / width;
  dev::FillCursor at(p.dim, p.heads, thread * width, threads * width);
  for (dev::u64 u = thread; u < units; u += threads, at.advance(p.dim, p.heads)) {
    const dev::u64 first = u * width;
    const int head = at.head;
    const int c0 = at.channel;
    const dev::u64 vector = at.token * static_cast<dev::u64>(p.heads) + head;
    const dev::HeadCharacter h = tabled ? characters[head] : dev::head_character(p, head);
    const dev::u32 row = dev::row_bits(p, keys, vector, at.token);
    // A chunk never crosses a multiple of 2^32 elements (its first element is a multiple of kFillChunk).
    const dev::u32 key_a = dev::high_key(keys.noise_a, first);
    const dev::u32 key_b = dev::high_key(keys.noise_b, first);
    float values[dev::kFillChunk];
#pragma unroll
    for (int k = 0; k < dev::kFillChunk; ++k) {
      if (k < width) {
        const dev::u32 low = static_cast<dev::u32>(first) + k;
        values[k] = dev::finish_value(
            p, dev::generate(p, keys, h, row, head, c0 + k, dev::mix32(low ^ key_a), dev::mix32(low ^ key_b)));
      }
    }
    if (width == dev::kFillChunk) {
      dev::store_chunk(out, first, p.dtype, values);
    } else {
      dev::store_element(out, static_cast<dev::i64>(first), p.dtype, values[0]);
    }
  }
}

// Pass 1, grid (tiles, kv heads x head tiles, splits): per query vector and split, the maximum logit m and
// z = sum exp(s - m) over the split's visible keys (fp32, accurate expf), and the same in base 2 with the approximate
// ex2 a FlashAttention-style kernel uses (m2, l2), for the same-precision LSE. Writes split_stats for every valid
// query vector, (-inf, 0, -inf, 0) when the split holds none of its keys.
// The same body for both engines; only the dot products differ (dev::chunk_scores_of).
template <int kEngine>
__device__ __forceinline__ void reference_stats(const ReferenceParams& rp) {
  const dev::TileWork w = dev::tile_work<kEngine>(rp);
  const dev::Smem s = dev::carve_smem<kEngine>(rp, w);
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const bool vectorized = dev::rows_vectorizable(rp.problem);
  dev::load_queries(rp, w, s);
  for (int q = threadIdx.x; q < w.padded_queries; q += dev::kThreads) {
    s.stats[4 * q + 0] = dev::neg_inf();
    s.stats[4 * q + 1] = 0.0f;
    s.stats[4 * q + 2] = dev::neg_inf();
    s.stats[4 * q + 3] = 0.0f;
  }
  for (dev::i64 first = w.key_begin; first < w.key_end; first += s.plan.chunk) {
    const int count = static_cast<int>(w.key_end - first < s.plan.chunk ? w.key_end - first : s.plan.chunk);
    dev::chunk_offsets(rp, w, s, first, count);
    __syncthreads();  // offsets written before any row load uses them; queries and ranges loaded (first chunk)
    dev::load_chunk_rows<4>(rp, s, count, /*keys=*/true, vectorized);
    __syncthreads();  // the K chunk is complete before any dot product reads it
    dev::chunk_scores_of<kEngine>(rp, w, s);
    __syncthreads();  // every dot product of the chunk is written before the warps reduce rows
    for (int q = warp; q < w.queries; q += dev::kWarps) {
      float* row = s.p + q * s.plan.p_pitch;
      int begin, end;
      dev::chunk_columns(s, q, first, count, begin, end);
      float chunk_max = dev::neg_inf();
      for (int j = lane; j < count; j += 32) {
        // A lane rereads only the columns it wrote here: no barrier between this loop and the next.
        const float score = j >= begin && j < end ? dev::logit(rp.problem, row[j], w.qk_descale) : dev::neg_inf();
        row[j] = score;
        chunk_max = fmaxf(chunk_max, score);
      }
      chunk_max = dev::warp_max(chunk_max);
      if (chunk_max == dev::neg_inf()) continue;  // warp-uniform: no visible key in this chunk
      const float m_old = s.stats[4 * q + 0];
      const float m2_old = s.stats[4 * q + 2];
      const float m_new = fmaxf(m_old, chunk_max);
      const float m2_new = m_new * dev::kLog2e;
      float z = 0.0f, l2 = 0.0f;
      for (int j = lane; j < count; j += 32) {
        const float score = row[j];
        if (score != dev::neg_inf()) {
          z += expf(score - m_new);
          l2 += dev::fast_exp2(score * dev::kLog2e - m2_new);
        }
      }
      z = dev::warp_sum(z);
      l2 = dev::warp_sum(l2);
      if (lane == 0) {
        s.stats[4 * q + 0] = m_new;
        s.stats[4 * q + 1] = s.stats[4 * q + 1] * expf(m_old - m_new) + z;  // exp(-inf) = 0 for the first chunk
        s.stats[4 * q + 2] = m2_new;
        s.stats[4 * q + 3] = s.stats[4 * q + 3] * dev::fast_exp2(m2_old - m2_new) + l2;
      }
    }
    __syncthreads();  // the reduction has read every score before the next chunk overwrites kv and p
  }
  __syncthreads();  // initial stats visible when the split had no chunk at all
  const dev::i64 vectors = static_cast<dev::i64>(rp.problem.total_q) * rp.problem.num_heads_q;
  float4* out = reinterpret_cast<float4*>(rp.split_stats);
  for (int q = threadIdx.x; q < w.queries; q += dev::kThreads) {
    const dev::i64 v = dev::query_vector(rp, w, q);
    if (v < 0) continue;
    out[blockIdx.z * vectors + v] =
        make_float4(s.stats[4 * q], s.stats[4 * q + 1], s.stats[4 * q + 2], s.stats[4 * q + 3]);
  }
}

extern "C" __global__ void __launch_bounds__(dev::kThreads, 2) attention_reference_stats(const ReferenceParams rp) {
  reference_stats<dev::kReferenceFma>(rp);
}
extern "C" __global__ void __launch_bounds__(dev::kThreads, 2) attention_reference_stats_mma(const ReferenceParams rp) {
  reference_stats<dev::kReferenceTensorCores>(rp);
}

// Grid-stride over query vectors (token * hq + head): merges the splits' statistics in split order, adds the sink,
// writes final_stats (m, Z) and both LSEs: gold m + log Z (accurate logf), same precision (m2 + lg2.approx l2) * ln 2.
// A row with no visible key and no sink keeps Z = 0: LSE -inf.
extern "C" __global__ void __launch_bounds__(dev::kThreads) attention_reference_finish_stats(const ReferenceParams rp) {
  const kseek::attention::AttentionProblem& p = rp.problem;
  const dev::i64 vectors = static_cast<dev::i64>(p.total_q) * p.num_heads_q;
  const float4* stats = reinterpret_cast<const float4*>(rp.split_stats);
  float2* final_stats = reinterpret_cast<float2*>(rp.final_stats);
  for (dev::i64 v = blockIdx.x * static_cast<dev::i64>(blockDim.x) + threadIdx.x; v < vectors;
       v += static_cast<dev::i64>(gridDim.x) * blockDim.x) {
    float m = dev::neg_inf(), m2 = dev::neg_inf();
    for (int split = 0; split < rp.splits; ++split) {
      const float4 st = stats[split * vectors + v];
      m = fmaxf(m, st.x);
      m2 = fmaxf(m2, st.z);
    }
    float z = 0.0f, l2 = 0.0f;
    for (int split = 0; split < rp.splits; ++split) {
      const float4 st = stats[split * vectors + v];
      if (st.x != dev::neg_inf()) {
        z += st.y * expf(st.x - m);
        l2 += st.w * dev::fast_exp2(st.z - m2);
      }
    }
    const int head = static_cast<int>(v % p.num_heads_q);
    const dev::i64 token = v / p.num_heads_q;
    if (p.has_sinks) {
      const float sink = p.sinks[head];
      const float m_all = fmaxf(m, sink);
      z = (m == dev::neg_inf() ? 0.0f : z * expf(m - m_all)) + expf(sink - m_all);
      m = m_all;
      const float sink2 = sink * dev::kLog2e;
      const float m2_all = fmaxf(m2, sink2);
      l2 = (m2 == dev::neg_inf() ? 0.0f : l2 * dev::fast_exp2(m2 - m2_all)) + dev::fast_exp2(sink2 - m2_all);
      m2 = m2_all;
    }
    final_stats[v] = make_float2(m, z);
    const dev::i64 lse_index = static_cast<dev::i64>(head) * p.lse_head_stride + token;
    if (rp.gold_lse != 0) {
      reinterpret_cast<float*>(rp.gold_lse)[lse_index] = z > 0.0f ? m + logf(z) : dev::neg_inf();
    }
    if (rp.same_lse != 0) {
      reinterpret_cast<float*>(rp.same_lse)[lse_index] =
          l2 > 0.0f ? (m2 + dev::fast_log2(l2)) * dev::kLn2 : dev::neg_inf();
    }
  }
}

// Pass 2, the grid of pass 1: p = exp(s - m) with the row's final maximum, then two P.V sums per output element:
// gold with p in fp32, same precision with p rounded to rp.p_dtype (what a kernel feeding P to a 16-bit MMA does).
// Each thread keeps its P.V tiles' sums (gold and same precision) in registers over the whole key range: FMA engine,
// one tile of 4 query vectors x 4 channels; tensor cores, the MMA tiles of mma_warp_tiles. With one split the outputs
// are written here: gold O = sum * v_descale / Z in fp32, same-precision O the same rounded to dtype_o; with several,
// the scaled sums go to partial_o for attention_reference_combine.
template <int kEngine, bool kF16 = false>
__device__ __forceinline__ void reference_output(const ReferenceParams& rp) {
  constexpr bool kMma = kEngine == dev::kReferenceTensorCores;
  const kseek::attention::AttentionProblem& p = rp.problem;
  const dev::TileWork w = dev::tile_work<kEngine>(rp);
  const dev::Smem s = dev::carve_smem<kEngine>(rp, w);
  const bool vectorized = dev::rows_vectorizable(p);
  const int dv = p.head_dim_v;
  const int channel_groups = dv / dev::kPvTileChannels;
  // FMA engine: one P.V tile per thread (the host's plan guarantees enough threads); threads past the last tile only
  // load. Tensor cores: every warp owns tiles (pv_tiles_fit).
  const bool pv_thread =
      kMma || static_cast<int>(threadIdx.x) < (w.padded_queries / dev::kPvTileQueries) * channel_groups;
  const int q0 = static_cast<int>(threadIdx.x) / channel_groups * dev::kPvTileQueries;
  const int c0 = static_cast<int>(threadIdx.x) % channel_groups * dev::kPvTileChannels;
  dev::load_queries(rp, w, s);
  const float2* final_stats = reinterpret_cast<const float2*>(rp.final_stats);
  for (int q = threadIdx.x; q < w.padded_queries; q += dev::kThreads) {
    const dev::i64 v = dev::query_vector(rp, w, q);
    const float2 st = v >= 0 ? final_stats[v] : make_float2(0.0f, 0.0f);
    s.stats[4 * q + 0] = st.x;  // m (finite whenever some key of the row is visible)
    s.stats[4 * q + 1] = st.y;  // Z
  }
  constexpr int kTiles = kMma ? dev::max_pv_mma_tiles(kF16) : dev::kPvTileQueries;
  constexpr int kPerTile = kMma ? 4 : dev::kPvTileChannels;
  float gold[kTiles][kPerTile];
  float same[kTiles][kPerTile];
#pragma unroll
  for (int r = 0; r < kTiles; ++r) {
#pragma unroll
    for (int c = 0; c < kPerTile; ++c) {
      gold[r][c] = 0.0f;
      same[r][c] = 0.0f;
    }
  }
  const int v_column = p.has_q_v ? p.head_dim : 0;  // with q_v the chunk rows hold [k | v]
  for (dev::i64 first = w.key_begin; first < w.key_end; first += s.plan.chunk) {
    const int count = static_cast<int>(w.key_end - first < s.plan.chunk ? w.key_end - first : s.plan.chunk);
    dev::chunk_offsets(rp, w, s, first, count);
    __syncthreads();  // offsets written before any row load uses them; queries and stats loaded (first chunk)
    dev::load_chunk_rows<2>(rp, s, count, /*keys=*/true, vectorized);
    __syncthreads();  // the K chunk is complete before any dot product reads it
    if constexpr (kMma) {
      dev::chunk_scores_mma<kF16>(w, s);
    } else {
      dev::chunk_scores(rp, w, s);
    }
    __syncthreads();  // every dot product of the chunk is written (and done with the K rows) before rows read them
    for (int q = static_cast<int>(threadIdx.x) / 32; q < w.padded_queries; q += dev::kWarps) {
      float* row = s.p + q * s.plan.p_pitch;
      float* row_low = kMma ? nullptr : s.p_low + q * s.plan.p_pitch;
      int begin, end;
      dev::chunk_columns(s, q, first, count, begin, end);
      const float m = s.stats[4 * q];
      for (int j = static_cast<int>(threadIdx.x) % 32; j < s.plan.chunk; j += 32) {
        // p = exp(s - m) with the row's final maximum; 0 where masked, past count, or for padding queries.
        const float prob = j >= begin && j < end ? expf(dev::logit(p, row[j], w.qk_descale) - m) : 0.0f;
        row[j] = prob;
        if constexpr (!kMma) row_low[j] = dev::round_to(rp.p_dtype, prob);
      }
    }
    __syncthreads();  // p (and p_low) complete before P.V reads them
    if (!p.has_q_v) {
      dev::load_chunk_rows<2>(rp, s, count, /*keys=*/false, vectorized);
      __syncthreads();  // the V chunk is complete before P.V reads it
    }
    if constexpr (kMma) {
      const int keys16 = dev::round_up(count, dev::kMmaDepth);
      const int v_pitch = p.has_q_v ? s.plan.kv_pitch : s.plan.v_pitch;
      dev::chunk_pv_mma<kF16, kTiles>(w, s, s.kv + v_column, v_pitch, keys16, gold, same, dv / dev::kMmaCols);
    } else {
      if (pv_thread) dev::chunk_pv(s, v_column, dev::round_up4(count), q0, c0, gold, same);
    }
    __syncthreads();  // P.V is done with kv, p and p_low before the next chunk overwrites them
  }
  __syncthreads();  // stats visible when the split had no chunk at all
  if (!pv_thread) return;
  if constexpr (kMma) {
    const dev::MmaWarpTiles t = dev::mma_warp_tiles(w);
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int q = t.row * dev::kMmaRows + lane / 4;  // accumulators 0, 1: row q; 2, 3: row q + 8
    const dev::i64 v_top = dev::query_vector(rp, w, q), v_bottom = dev::query_vector(rp, w, q + 8);
    const float z_top = s.stats[4 * q + 1], z_bottom = s.stats[4 * (q + 8) + 1];
#pragma unroll
    for (int i = 0; i < kTiles; ++i) {
      const int n = t.slot + i * t.stride;
      if (n >= dv / dev::kMmaCols) continue;
      const int c = n * dev::kMmaCols + 2 * (lane % 4);
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const dev::i64 v = e < 2 ? v_top : v_bottom;
        if (v >= 0)
          dev::store_output(rp, v, c + (e & 1), e < 2 ? z_top : z_bottom, gold[i][e], same[i][e], w.v_descale);
      }
    }
  } else {
#pragma unroll
    for (int r = 0; r < dev::kPvTileQueries; ++r) {
      const int q = q0 + r;
      const dev::i64 v = dev::query_vector(rp, w, q);
      if (v < 0) continue;
      const float z = s.stats[4 * q + 1];
#pragma unroll
      for (int c = 0; c < dev::kPvTileChannels; ++c) {
        dev::store_output(rp, v, c0 + c, z, gold[r][c], same[r][c], w.v_descale);
      }
    }
  }
}

extern "C" __global__ void __launch_bounds__(dev::kThreads, 2) attention_reference_output(const ReferenceParams rp) {
  reference_output<dev::kReferenceFma>(rp);
}
// Tensor cores, one kernel per operand type (their P.V steps differ, and either alone fits 128 registers).
extern "C" __global__ void __launch_bounds__(dev::kThreads, 2)
    attention_reference_output_mma(const ReferenceParams rp) {
  reference_output<dev::kReferenceTensorCores, false>(rp);
}
extern "C" __global__ void __launch_bounds__(dev::kThreads, 2)
    attention_reference_output_mma_f16(const ReferenceParams rp) {
  reference_output<dev::kReferenceTensorCores, true>(rp);
}

// Grid-stride over output elements (token, head, channel), only when splits > 1: sums the partial P.V sums in split
// order and divides by Z (0 for a row that sees no key).
extern "C" __global__ void __launch_bounds__(dev::kThreads) attention_reference_combine(const ReferenceParams rp) {
  const kseek::attention::AttentionProblem& p = rp.problem;
  const int dv = p.head_dim_v;
  const dev::i64 vectors = static_cast<dev::i64>(p.total_q) * p.num_heads_q;
  const dev::i64 elements = vectors * dv;
  const float2* partial = reinterpret_cast<const float2*>(rp.partial_o);
  const float2* final_stats = reinterpret_cast<const float2*>(rp.final_stats);
  for (dev::i64 e = blockIdx.x * static_cast<dev::i64>(blockDim.x) + threadIdx.x; e < elements;
       e += static_cast<dev::i64>(gridDim.x) * blockDim.x) {
    float g_sum = 0.0f, s_sum = 0.0f;
    for (int split = 0; split < rp.splits; ++split) {
      const float2 part = partial[split * elements + e];
      g_sum += part.x;
      s_sum += part.y;
    }
    const float z = final_stats[e / dv].y;
    reinterpret_cast<float*>(rp.gold_o)[e] = z > 0.0f ? g_sum / z : 0.0f;
    dev::store_element(reinterpret_cast<void*>(rp.same_o), e, p.dtype_o, z > 0.0f ? s_sum / z : 0.0f);
  }
}
