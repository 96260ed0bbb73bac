// The candidate-facing description of one varlen forward-attention call (what vLLM's FlashAttention call reaches).
// A plain POD shared by NVRTC device code and host C++: it must never include a header or depend on anything else.
#pragma once

namespace kseek {
namespace attention {

// Bumped whenever the layout of AttentionProblem or the meaning of a field changes.
// v2 (2026-11-30): bidirectional spans (num_spans, span_batch_stride, spans) for FA4's PrefixLM mask_mod.
inline constexpr unsigned kAttentionProblemVersion = 2;

// Element types of the tensors below (the dtype field says which of Q/K/V/O uses which).
enum DType : unsigned {
  kDTypeBF16 = 0,
  kDTypeFP16 = 1,
  kDTypeFP8E4M3 = 2,  // OCP e4m3 ("e4m3fn": no infinities, max 448); only for Q/K/V, never for O
  kDTypeFP32 = 3,     // only for O (and the fixed-fp32 tensors: LSE, sinks, descales)
};

// Which tensor a TensorMapRequest (launch_plan.h) refers to. The tensor-map views the harness encodes, innermost
// dimension first, element type as in the problem:
//   kTensorQ          rank 3  [d,  hq, total_q]                         (strides q_head_stride, q_row_stride)
//   kTensorK (paged)  rank 4  [d,  hkv, block_size, num_blocks]         (k_head_stride, k_row_stride, k_block_stride)
//   kTensorK (flat)   rank 3  [d,  hkv, total_k]                        (k_head_stride, k_row_stride)
//   kTensorV          as K with dv and the v_* strides
//   kTensorO          rank 3  [dv, hq, total_q]                         (o_head_stride, o_row_stride)
//   kTensorQv         rank 3  [dv, hq, total_q]                         (qv_head_stride, qv_row_stride)
//   kTensorLse        rank 2  [total_q, hq] fp32                        (lse_head_stride)
enum TensorId : unsigned {
  kTensorQ = 0,
  kTensorK = 1,
  kTensorV = 2,
  kTensorO = 3,
  kTensorQv = 4,
  kTensorLse = 5,
  kTensorCount = 6,
};

// Semantics (every kernel must implement exactly this):
//   For sequence b: sq = cu_seqlens_q[b+1] - cu_seqlens_q[b]; sk = seqused_k[b] if seqused_k is non-null, else
//   cu_seqlens_k[b+1] - cu_seqlens_k[b] (paged problems always pass seqused_k). Query row i (0 <= i < sq) of
//   query head h reads kv head h / (hq / hkv). Key j (0 <= j < sk) is visible to row i iff, with
//   shift = sk - sq (bottom-right alignment),
//       (window_left  < 0 || j >= i + shift - window_left) &&
//       (right        < 0 || j <= i + shift + right),      right = causal ? 0 : window_right.
//   raw_j    = q_i . k_j  (+ q_v_i . v_j when has_q_v)                       [fp8: times q_descale * k_descale]
//   s_j      = softcap > 0 ? softcap * tanh(softmax_scale * raw_j / softcap) : softmax_scale * raw_j
//   Z        = sum over visible j of exp(s_j)  (+ exp(sinks[h]) when has_sinks; the sink has no value row)
//   o_i      = sum over visible j of exp(s_j) / Z * v_j                      [fp8: times v_descale]
//   lse_i    = log(Z) (natural log, the sink included when has_sinks)
//   A row that sees no key gets o_i = 0 and lse_i = -inf (or sinks[h] when has_sinks).
// Bidirectional spans (num_spans > 0; FA4's PrefixLM mask_mod, e.g. image tokens): sequence b has num_spans key
//   ranges [begin_s, end_s) at spans[b * span_batch_stride + 2 s] and [... + 2 s + 1], sorted, disjoint and inside
//   [0, sk). Key j is then also visible to row i when i + shift and j lie in the same span. Spans come only with
//   causal = 1 and no window, so a row still sees one range of keys: [0, hi) with hi = i + shift + 1, or end_s when
//   i + shift lies in span s (0 <= begin_s <= i + shift < end_s).
// Every tensor's innermost (head-dim) stride is 1 element; the other strides are non-negative and in elements, not
// bytes. max_seqlen_q / max_seqlen_k must bound every sq / sk (a kernel may size its grid from them alone).
struct AttentionProblem {
  // ---- sizes -----------------------------------------------------------------------------------------------
  int batch;               // number of sequences
  int num_heads_q;         // hq; a multiple of num_heads_kv (GQA group = hq / hkv; hkv == 1 is MQA)
  int num_heads_kv;        // hkv
  int head_dim;            // d, Q/K head size: one of 40, 64, 72, 80, 96, 128, 192, 256
  int head_dim_v;          // dv, V/O head size: d, except 128 when d == 192 and 512 when d == 64 (MLA)
  int total_q;             // rows of Q/O: cu_seqlens_q[batch]
  int total_k;             // non-paged: rows of K/V (cu_seqlens_k[batch]); paged: num_blocks * block_size
  int max_seqlen_q;        // upper bound of every sq (sizes the grid; a plan sees only this)
  int max_seqlen_k;        // upper bound of every sk
  int paged;               // 1: K/V are a paged cache read through block_table; 0: packed by cu_seqlens_k
  int block_size;          // paged only: tokens per cache block, 16..256
  int num_blocks;          // paged only: blocks in the K/V cache
  int max_blocks_per_seq;  // paged only: columns of block_table

  // ---- types -----------------------------------------------------------------------------------------------
  DType dtype_qkv;  // Q, K, V (and q_v) element type: bf16, fp16 or fp8 e4m3
  DType dtype_o;    // O element type: bf16 or fp16 (== dtype_qkv for 16-bit inputs, bf16 for fp8) or fp32

  // ---- masking and softmax ---------------------------------------------------------------------------------
  int causal;           // 1: bottom-right causal (forces the right window edge to 0)
  int window_left;      // keys allowed left of the diagonal; -1 = unbounded
  int window_right;     // keys allowed right of the diagonal; -1 = unbounded (ignored when causal)
  float softcap;        // tanh soft-capping of scaled logits; 0 = off
  float softmax_scale;  // > 0; usually 1/sqrt(d) (MLA: 1/sqrt(d_qk of the unabsorbed model))

  // ---- optional features (flags, because a plan kernel sees null pointers) --------------------------------
  int has_q_v;     // 1: q_v is present and its dot product with v joins every logit (MLA decode)
  int has_sinks;   // 1: sinks is present
  int return_lse;  // 1: lse must be written
  int num_splits;  // split-KV policy: 0 = kernel decides, 1 = never split, N > 1 = at most N splits

  // ---- strides, in elements (innermost stride is 1) --------------------------------------------------------
  long long q_row_stride;              // between consecutive query tokens of Q
  long long q_head_stride;             // between query heads of Q
  long long k_block_stride;            // paged only: between cache blocks of K
  long long k_row_stride;              // between tokens of K (within a block when paged)
  long long k_head_stride;             // between kv heads of K
  long long v_block_stride;            // paged only: between cache blocks of V
  long long v_row_stride;              // between tokens of V (within a block when paged)
  long long v_head_stride;             // between kv heads of V
  long long o_row_stride;              // between query tokens of O
  long long o_head_stride;             // between query heads of O
  long long qv_row_stride;             // between query tokens of q_v
  long long qv_head_stride;            // between query heads of q_v
  long long lse_head_stride;           // between heads of lse (token stride is 1); total_q when contiguous
  long long block_table_batch_stride;  // between sequences' rows of block_table; max_blocks_per_seq when contiguous
  long long descale_batch_stride;      // between sequences of q/k/v_descale (0 when broadcast, as vLLM passes it)
  long long descale_head_stride;       // between kv heads of q/k/v_descale (0 when broadcast)

  // ---- device pointers (null in the plan kernel) -----------------------------------------------------------
  const void* q;            // [total_q, hq, d]          dtype_qkv
  const void* k;            // paged [num_blocks, block_size, hkv, d]; flat [total_k, hkv, d]     dtype_qkv
  const void* v;            // paged [num_blocks, block_size, hkv, dv]; flat [total_k, hkv, dv]   dtype_qkv
  void* o;                  // [total_q, hq, dv]         dtype_o
  const void* q_v;          // [total_q, hq, dv]         dtype_qkv; only when has_q_v (never fp8)
  const int* cu_seqlens_q;  // [batch + 1] int32, prefix sums of sq, cu_seqlens_q[0] == 0
  const int* cu_seqlens_k;  // [batch + 1] int32, prefix sums of sk; non-paged only (null when paged)
  const int* seqused_k;     // [batch] int32, sk per sequence; required when paged, optional otherwise
  const int* block_table;   // [batch, max_blocks_per_seq] int32 block ids into the cache; paged only
  const float* q_descale;   // [batch, hkv] fp32 (strides descale_*); fp8 only; null = 1
  const float* k_descale;   // [batch, hkv] fp32 (strides descale_*); fp8 only; null = 1
  const float* v_descale;   // [batch, hkv] fp32 (strides descale_*); fp8 only; null = 1
  const float* sinks;       // [hq] fp32, natural-log units like s_j; only when has_sinks
  float* lse;               // [hq, total_q] fp32 natural log; only when return_lse

  // ---- bidirectional spans (v2; see Semantics) ---------------------------------------------------------------
  int num_spans;                // spans per sequence; 0 = none (spans is then null)
  int reserved_v2;              // 0; an explicit field where padding would be (problems are compared bytewise)
  long long span_batch_stride;  // in int32 elements, between sequences' span lists; 2 * num_spans when contiguous
  const int* spans;             // [batch, num_spans, 2] int32 (begin, end) key positions; only when num_spans > 0
};

}  // namespace attention
}  // namespace kseek
