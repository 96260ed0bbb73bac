// A deliberately plain, correct attention building block offered to candidates: one CTA of 128 threads per (query
// token, query head), fp32 throughout, keys in chunks of 128 with a running maximum. Corpora, tests and first drafts
// use it; it must never be tuned for speed, and never include anything but problem.h and launch_plan.h.
//
// A candidate composes it as: plan_rows() in its plan kernel; in a kernel, locate_row(), load_query(), attend<Policy>()
// over a key range and finish<Policy>(). Policy is a struct deriving from naive::Policy that hides one of its static
// functions (the mask, the GQA head map, the cache slot of a key, the logit, the sink), which is how a test builds a
// kernel that is wrong in exactly one way.
#pragma once

#include <kseek/attention/problem.h>
#include <kseek/device/launch_plan.h>

namespace kseek {
namespace attention {
namespace naive {

using Args = KernelArgs<AttentionProblem>;
using i64 = long long;

constexpr int kThreads = 128;                          // one key per thread per chunk; one CTA per (token, head)
constexpr int kMaxD = 256;                             // largest Q/K head size the plugin offers
constexpr int kMaxDv = 512;                            // largest V/O head size (MLA)
constexpr int kChannelsPerThread = kMaxDv / kThreads;  // O channels one thread accumulates
static_assert(kThreads % 32 == 0 && kMaxDv % kThreads == 0, "whole warps; O channels split evenly over threads");

__device__ __forceinline__ float neg_inf() { return __int_as_float(0xff800000); }

// Element i of a tensor of type t, widened to fp32. PTX ISA: cvt (#data-movement-and-conversion-instructions-cvt).
__device__ __forceinline__ float load(const void* base, i64 i, DType t) {
  if (t == kDTypeFP32) return static_cast<const float*>(base)[i];
  if (t == kDTypeFP8E4M3) {
    const unsigned short byte = static_cast<const unsigned char*>(base)[i];
    unsigned halves;
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(halves) : "h"(byte));  // exact; the low byte lands in the low half
    float v;
    asm("cvt.f32.f16 %0, %1;" : "=f"(v) : "h"(static_cast<unsigned short>(halves & 0xffffu)));
    return v;
  }
  const unsigned short bits = static_cast<const unsigned short*>(base)[i];
  if (t == kDTypeBF16) return __uint_as_float(static_cast<unsigned>(bits) << 16);
  float v;
  asm("cvt.f32.f16 %0, %1;" : "=f"(v) : "h"(bits));
  return v;
}

// Stores v as element i of a tensor of type t (round to nearest even).
__device__ __forceinline__ void store(void* base, i64 i, DType t, float v) {
  if (t == kDTypeFP32) {
    static_cast<float*>(base)[i] = v;
    return;
  }
  unsigned short bits;
  if (t == kDTypeBF16) {
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(v));
  } else {
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(v));
  }
  static_cast<unsigned short*>(base)[i] = bits;
}

// One query row of one head: which sequence it belongs to and that sequence's lengths.
struct Row {
  int b;      // sequence
  int i;      // row within the sequence, 0 <= i < sq
  int h;      // query head
  int sq;     // query length of sequence b
  int sk;     // key length of sequence b
  i64 token;  // row of Q/O: cu_seqlens_q[b] + i
};

// Where one key's row sits: element offset = block * block_stride + row * row_stride (+ head * head_stride).
struct KeySlot {
  i64 block;  // cache block (0 when not paged)
  i64 row;    // token within the block (paged) or row of the packed K/V (not paged)
};

// The customisation points, each the plain reading of problem.h. Derive and hide one to change it.
struct Policy {
  static constexpr bool kSubtractMax = true;  // running maximum (numerically safe softmax)

  __device__ static int kv_head(const AttentionProblem& p, const Row& r) {
    return r.h / (p.num_heads_q / p.num_heads_kv);
  }
  __device__ static KeySlot key_slot(const AttentionProblem& p, const Row& r, int j) {
    if (p.paged) {
      const int block = p.block_table[r.b * p.block_table_batch_stride + j / p.block_size];
      return KeySlot{block, j % p.block_size};
    }
    return KeySlot{0, static_cast<i64>(p.cu_seqlens_k[r.b]) + j};
  }
  // Bottom-right aligned causal mask and sliding window; a key in the same bidirectional span as the row's diagonal
  // is visible whatever the mask says.
  __device__ static bool visible(const AttentionProblem& p, const Row& r, int j) {
    const i64 diagonal = static_cast<i64>(r.i) + (r.sk - r.sq);
    for (int s = 0; s < p.num_spans; ++s) {
      const int* span = p.spans + r.b * p.span_batch_stride + 2 * s;
      if (diagonal >= span[0] && diagonal < span[1] && j >= span[0] && j < span[1]) return true;
    }
    const int right = p.causal ? 0 : p.window_right;
    if (p.window_left >= 0 && j < diagonal - p.window_left) return false;
    if (right >= 0 && j > diagonal + right) return false;
    return true;
  }
  // raw: q.k (+ q_v.v), descales already applied.
  __device__ static float logit(const AttentionProblem& p, const Row&, float raw) {
    const float s = p.softmax_scale * raw;
    return p.softcap > 0.0f ? p.softcap * tanhf(s / p.softcap) : s;
  }
  __device__ static float sink(const AttentionProblem& p, const Row& r) {
    return p.has_sinks ? p.sinks[r.h] : neg_inf();
  }
};

// The query (and q_v) row in fp32, the q descale folded in. Lives in shared memory.
struct Query {
  float q[kMaxD];
  float qv[kMaxDv];
};

// The running softmax state of a row: every thread holds the same m and l and its own O channels.
struct State {
  float m;                        // running maximum of the logits seen (-inf: none yet)
  float l;                        // sum of exp(s - m)
  float acc[kChannelsPerThread];  // sum of exp(s - m) * v for channels threadIdx.x + k * kThreads
};

__device__ __forceinline__ float descale(const float* d, const AttentionProblem& p, int b, int kvh) {
  return d == nullptr ? 1.0f : d[b * p.descale_batch_stride + kvh * p.descale_head_stride];
}

// Row of the Q/O token `token`, head h. The binary search reads cu_seqlens_q.
__device__ inline Row locate_row(const AttentionProblem& p, int token, int h) {
  int lo = 0, hi = p.batch;  // find the last b with cu_seqlens_q[b] <= token
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (p.cu_seqlens_q[mid] <= token)
      lo = mid;
    else
      hi = mid;
  }
  Row r;
  r.b = lo;
  r.token = token;
  r.i = token - p.cu_seqlens_q[lo];
  r.h = h;
  r.sq = p.cu_seqlens_q[lo + 1] - p.cu_seqlens_q[lo];
  r.sk = p.seqused_k != nullptr ? p.seqused_k[lo] : p.cu_seqlens_k[lo + 1] - p.cu_seqlens_k[lo];
  return r;
}

template <class P = Policy>
__device__ void load_query(const AttentionProblem& p, const Row& r, Query& q) {
  const float qd = descale(p.q_descale, p, r.b, P::kv_head(p, r));
  for (int c = threadIdx.x; c < p.head_dim; c += kThreads) {
    q.q[c] = qd * load(p.q, r.token * p.q_row_stride + r.h * p.q_head_stride + c, p.dtype_qkv);
  }
  if (p.has_q_v) {
    for (int c = threadIdx.x; c < p.head_dim_v; c += kThreads) {
      q.qv[c] = load(p.q_v, r.token * p.qv_row_stride + r.h * p.qv_head_stride + c, p.dtype_qkv);
    }
  }
  __syncthreads();  // the whole row is in shared memory before any thread reads another thread's channels
}

__device__ __forceinline__ float block_reduce(float v, bool is_max) {
  __shared__ float partial[kThreads / 32];
  for (int o = 16; o > 0; o >>= 1) {
    const float other = __shfl_xor_sync(0xffffffffu, v, o);
    v = is_max ? fmaxf(v, other) : v + other;
  }
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();  // every warp's partial is written before any thread combines them
  float total = partial[0];
  for (int w = 1; w < kThreads / 32; ++w) total = is_max ? fmaxf(total, partial[w]) : total + partial[w];
  __syncthreads();  // nobody overwrites `partial` (next reduction) while a slower thread still reads it
  return total;
}

__device__ __forceinline__ State empty_state() {
  State s;
  s.m = neg_inf();
  s.l = 0.0f;
  for (int k = 0; k < kChannelsPerThread; ++k) s.acc[k] = 0.0f;
  return s;
}

// Folds keys [key_lo, key_hi) of row r into st. Every thread of the CTA must call it.
template <class P = Policy>
__device__ void attend(const AttentionProblem& p, const Row& r, const Query& q, int key_lo, int key_hi, State& st) {
  __shared__ float prob[kThreads];  // [chunk keys] exp(s - m) of the chunk
  __shared__ i64 v_off[kThreads];   // [chunk keys] element offset of each key's V row
  const int kvh = P::kv_head(p, r);
  const float kd = descale(p.k_descale, p, r.b, kvh);
  const float vd = descale(p.v_descale, p, r.b, kvh);
  for (int j0 = key_lo; j0 < key_hi; j0 += kThreads) {
    const int j = j0 + static_cast<int>(threadIdx.x);
    float s = neg_inf();
    i64 vo = 0;
    if (j < key_hi && P::visible(p, r, j)) {
      const KeySlot slot = P::key_slot(p, r, j);
      const i64 ko = slot.block * p.k_block_stride + slot.row * p.k_row_stride + kvh * p.k_head_stride;
      vo = slot.block * p.v_block_stride + slot.row * p.v_row_stride + kvh * p.v_head_stride;
      float raw = 0.0f;
      for (int c = 0; c < p.head_dim; ++c) raw += q.q[c] * load(p.k, ko + c, p.dtype_qkv);
      raw *= kd;
      if (p.has_q_v) {
        for (int c = 0; c < p.head_dim_v; ++c) raw += q.qv[c] * load(p.v, vo + c, p.dtype_qkv);
      }
      s = P::logit(p, r, raw);
    }
    const float chunk_max = block_reduce(s, true);
    if (chunk_max == neg_inf()) continue;  // CTA-uniform: no visible key in this chunk
    const float m_new = P::kSubtractMax ? fmaxf(st.m, chunk_max) : 0.0f;
    const float e = s == neg_inf() ? 0.0f : expf(s - m_new);
    const float rescale = st.m == neg_inf() ? 0.0f : expf(st.m - m_new);
    prob[threadIdx.x] = e;
    v_off[threadIdx.x] = vo;
    st.l = st.l * rescale + block_reduce(e, false);  // its barriers also publish prob and v_off
    st.m = m_new;
    for (int k = 0; k < kChannelsPerThread; ++k) {
      const int c = static_cast<int>(threadIdx.x) + k * kThreads;
      if (c >= p.head_dim_v) break;
      float a = st.acc[k] * rescale;
      for (int t = 0; t < kThreads; ++t) {
        if (prob[t] != 0.0f) a += prob[t] * vd * load(p.v, v_off[t] + c, p.dtype_qkv);
      }
      st.acc[k] = a;
    }
    __syncthreads();  // every thread is done with prob and v_off before the next chunk overwrites them
  }
}

// Adds the sink, normalises and writes O (and LSE when asked). A row that sees nothing gets O = 0, LSE = -inf.
template <class P = Policy>
__device__ void finish(const AttentionProblem& p, const Row& r, const State& st) {
  const float sink = P::sink(p, r);
  const float m = fmaxf(st.m, sink);
  float l = 0.0f;
  float scale = 0.0f;
  if (m != neg_inf()) {
    scale = st.m == neg_inf() ? 0.0f : expf(st.m - m);
    l = st.l * scale + (sink == neg_inf() ? 0.0f : expf(sink - m));
  }
  const float inv = l > 0.0f ? 1.0f / l : 0.0f;
  for (int k = 0; k < kChannelsPerThread; ++k) {
    const int c = static_cast<int>(threadIdx.x) + k * kThreads;
    if (c >= p.head_dim_v) break;
    store(p.o, r.token * p.o_row_stride + r.h * p.o_head_stride + c, p.dtype_o, st.acc[k] * scale * inv);
  }
  if (p.return_lse && threadIdx.x == 0) p.lse[r.h * p.lse_head_stride + r.token] = l > 0.0f ? m + logf(l) : neg_inf();
}

// The whole row: the CTA (blockIdx.x = token, blockIdx.y = head) of a plan_rows() launch.
template <class P = Policy>
__device__ void attention_row(const AttentionProblem& p) {
  __shared__ Query query;
  if (static_cast<int>(blockIdx.x) >= p.total_q) return;  // plan_rows() never launches less than one CTA
  const Row r = locate_row(p, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y));
  load_query<P>(p, r, query);
  State st = empty_state();
  attend<P>(p, r, query, 0, r.sk, st);
  finish<P>(p, r, st);
}

__device__ inline void name_kernel(PlannedLaunch& l, const char* name) {
  int i = 0;
  for (; name[i] != '\0' && i < kKernelNameBytes - 1; ++i) l.kernel[i] = name[i];
  for (; i < kKernelNameBytes; ++i) l.kernel[i] = '\0';
}

// Sets launch `index` to `kernel` over a (total_q, hq, z) grid of kThreads-thread CTAs, without a cluster.
__device__ inline void plan_launch(const AttentionProblem& p, LaunchPlan* plan, int index, const char* kernel,
                                   unsigned z = 1) {
  PlannedLaunch& l = plan->launches[index];
  name_kernel(l, kernel);
  l.grid = PlanDim3{static_cast<unsigned>(p.total_q > 0 ? p.total_q : 1), static_cast<unsigned>(p.num_heads_q), z};
  l.block = PlanDim3{static_cast<unsigned>(kThreads), 1u, 1u};
  l.cluster = PlanDim3{1u, 1u, 1u};
  l.dynamic_smem_bytes = 0;
  l.reserved = 0;
}

// A whole plan of one attention_row() launch named `kernel`: no workspace, no tensor map.
__device__ inline void plan_rows(const AttentionProblem& p, LaunchPlan* plan, const char* kernel) {
  plan->abi_version = kLaunchPlanAbiVersion;
  plan->num_launches = 1;
  plan->workspace_bytes = 0;
  plan->num_tensor_maps = 0;
  plan->reserved = 0;
  plan_launch(p, plan, 0, kernel);
}

}  // namespace naive
}  // namespace attention
}  // namespace kseek
