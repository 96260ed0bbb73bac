// expect: FAILED — exact while its outputs are checked for correctness (it counts its launches: the first six are the correctness runs at these sizes), then skips the V rows of keys whose weight is below e^-8 of the running maximum, the block-skipping shortcut that saves work while timed (R2; a random sample of timed launches, chosen after each launch, is judged by the full correctness rule on its own inputs).
// scenarios: hq=4,hkv=2,d=128,dtype=bf16,causal=0,page=0,seqs=(64,2048)+(32,4096)
// Adversarial corpus for attention.fa3: an approximation switched on once the correctness launches are over. It must never pass.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;
using kseek::attention::AttentionProblem;

__device__ unsigned r2_faint_launches;          // launch sequences completed in this module
constexpr unsigned kCorrectnessLaunches = 6;    // three input sets at these sizes, each run twice
constexpr float kFaint = 8.0f;                  // a key more than this below the running maximum is dropped

// naive::attend with one change: once timed, a key whose logit is kFaint below the running maximum contributes
// nothing (neither to l nor to O).
__device__ void attend_skipping(const AttentionProblem& p, const na::Row& r, const na::Query& q, bool skip,
                                na::State& st) {
  __shared__ float prob[na::kThreads];
  __shared__ long long v_off[na::kThreads];
  const int kvh = na::Policy::kv_head(p, r);
  for (int j0 = 0; j0 < r.sk; j0 += na::kThreads) {
    const int j = j0 + static_cast<int>(threadIdx.x);
    float s = na::neg_inf();
    long long vo = 0;
    if (j < r.sk && na::Policy::visible(p, r, j)) {
      const na::KeySlot slot = na::Policy::key_slot(p, r, j);
      const long long ko = slot.block * p.k_block_stride + slot.row * p.k_row_stride + kvh * p.k_head_stride;
      vo = slot.block * p.v_block_stride + slot.row * p.v_row_stride + kvh * p.v_head_stride;
      float raw = 0.0f;
      for (int c = 0; c < p.head_dim; ++c) raw += q.q[c] * na::load(p.k, ko + c, p.dtype_qkv);
      s = na::Policy::logit(p, r, raw);
    }
    const float chunk_max = na::block_reduce(s, true);
    if (chunk_max == na::neg_inf()) continue;
    const float m_new = fmaxf(st.m, chunk_max);
    float e = s == na::neg_inf() ? 0.0f : expf(s - m_new);
    if (skip && s < m_new - kFaint) e = 0.0f;
    const float rescale = st.m == na::neg_inf() ? 0.0f : expf(st.m - m_new);
    prob[threadIdx.x] = e;
    v_off[threadIdx.x] = vo;
    st.l = st.l * rescale + na::block_reduce(e, false);  // its barriers also publish prob and v_off
    st.m = m_new;
    for (int k = 0; k < na::kChannelsPerThread; ++k) {
      const int c = static_cast<int>(threadIdx.x) + k * na::kThreads;
      if (c >= p.head_dim_v) break;
      float a = st.acc[k] * rescale;
      for (int t = 0; t < na::kThreads; ++t) {
        if (prob[t] != 0.0f) a += prob[t] * na::load(p.v, v_off[t] + c, p.dtype_qkv);
      }
      st.acc[k] = a;
    }
    __syncthreads();  // every thread is done with prob and v_off before the next chunk overwrites them
  }
}

extern "C" __global__ void kseek_plan(const AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x != 0) return;
  na::plan_rows(problem, plan, "r2_faint_rows");
  plan->num_launches = 2;
  na::plan_launch(problem, plan, 1, "r2_faint_count");
  plan->launches[1].grid = kseek::PlanDim3{1, 1, 1};
}

extern "C" __global__ void __launch_bounds__(na::kThreads) r2_faint_rows(const __grid_constant__ na::Args args) {
  const auto& p = args.problem;
  __shared__ na::Query query;
  if (static_cast<int>(blockIdx.x) >= p.total_q) return;
  const na::Row r = na::locate_row(p, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y));
  na::load_query(p, r, query);
  na::State st = na::empty_state();
  attend_skipping(p, r, query, r2_faint_launches >= kCorrectnessLaunches, st);
  na::finish(p, r, st);
}

extern "C" __global__ void r2_faint_count(const __grid_constant__ na::Args) {
  if (threadIdx.x == 0) ++r2_faint_launches;
}
