// expect: PASSED — an honest control (C3): CTAs launched in clusters of 2 (a CTA that finds itself outside a 2-CTA cluster writes nothing), each query row loaded by a TMA bulk tensor copy through a map the plan requests over Q; shapes TMA cannot box fall back to plain loads.
// scenarios: hq=8,hkv=2,d=64,dtype=bf16,causal=1,page=16,lse=1,seqs=(37,301)+(6,123);hq=4,hkv=4,d=128,dtype=fp16,causal=0,page=0,seqs=(77,200)+(16,1000);hq=4,hkv=2,d=64,dtype=fp8,causal=1,page=32,seqs=(64,500)+(1,333)
// Adversarial corpus for attention.fa3: clusters and tensor maps through the candidate ABI. It must never fail.
#include <kseek/attention/naive_kernel.cuh>

namespace na = kseek::attention::naive;
using kseek::attention::AttentionProblem;

constexpr unsigned kCluster = 2;

__device__ int element_bytes(kseek::attention::DType t) { return t == kseek::attention::kDTypeFP8E4M3 ? 1 : 2; }

// TMA needs the box's inner extent and every global stride in whole 16-byte units.
__device__ bool tma_ok(const AttentionProblem& p) {
  const int e = element_bytes(p.dtype_qkv);
  return !p.has_q_v && p.head_dim * e % 16 == 0 && p.q_head_stride * e % 16 == 0 && p.q_row_stride * e % 16 == 0;
}

__device__ unsigned smem_address(const void* ptr) { return static_cast<unsigned>(__cvta_generic_to_shared(ptr)); }

extern "C" __global__ void kseek_plan(const AttentionProblem problem, kseek::LaunchPlan* plan) {
  if (threadIdx.x != 0) return;
  if (!tma_ok(problem)) {
    na::plan_rows(problem, plan, "c3_plain");
    return;
  }
  na::plan_rows(problem, plan, "c3_tma");
  kseek::PlannedLaunch& l = plan->launches[0];
  l.grid.x = (l.grid.x + kCluster - 1) / kCluster * kCluster;  // whole clusters; the spare CTA has no token
  l.cluster = kseek::PlanDim3{kCluster, 1, 1};
  plan->num_tensor_maps = 1;
  kseek::TensorMapRequest& map = plan->tensor_maps[0];  // Q viewed as [d, hq, total_q]: one box = one row of one head
  map.tensor = kseek::attention::kTensorQ;
  map.box_rank = 3;
  map.box[0] = static_cast<unsigned>(problem.head_dim);
  map.box[1] = 1;
  map.box[2] = 1;
  map.box[3] = map.box[4] = 0;
  map.swizzle = kseek::kSwizzleNone;
  map.l2_promotion_bytes = 0;
  map.reserved = 0;
}

extern "C" __global__ void __launch_bounds__(na::kThreads) c3_tma(const __grid_constant__ na::Args args) {
  __shared__ alignas(128) unsigned char staged[na::kMaxD * 2];  // [d] Q row as stored (bf16/fp16/e4m3)
  __shared__ alignas(8) unsigned long long barrier;
  __shared__ na::Query query;
  const AttentionProblem& p = args.problem;
  unsigned ranks;
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(ranks));  // PTX ISA: special registers, %cluster_nctarank
  if (ranks != kCluster || static_cast<int>(blockIdx.x) >= p.total_q) return;
  const na::Row r = na::locate_row(p, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y));
  const unsigned bytes = static_cast<unsigned>(p.head_dim * element_bytes(p.dtype_qkv));
  const unsigned bar = smem_address(&barrier);
  if (threadIdx.x == 0) {
    // PTX ISA: mbarrier.init, then a proxy fence so the async (TMA) proxy sees the initialised barrier.
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    // PTX ISA: mbarrier.arrive.expect_tx: phase 0 completes when `bytes` have landed.
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
    // PTX ISA: cp.async.bulk.tensor: box at (channel 0, head h, token) of Q into `staged`.
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
        ::"r"(smem_address(staged)), "l"(reinterpret_cast<unsigned long long>(&args.tensor_maps[0])), "r"(0),
        "r"(r.h), "r"(static_cast<int>(r.token)), "r"(bar)
        : "memory");
  }
  __syncthreads();  // the barrier is initialised before any thread waits on it
  for (unsigned done = 0; !done;) {
    // PTX ISA: mbarrier.try_wait.parity: phase 0 done means every byte of the box is in `staged`.
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(bar)
                 : "memory");
  }
  const int kvh = na::Policy::kv_head(p, r);
  const float qd = na::descale(p.q_descale, p, r.b, kvh);
  for (int c = threadIdx.x; c < p.head_dim; c += na::kThreads) query.q[c] = qd * na::load(staged, c, p.dtype_qkv);
  __syncthreads();  // the converted row is complete before attend() reads it
  na::State st = na::empty_state();
  na::attend(p, r, query, 0, r.sk, st);
  na::finish(p, r, st);
}

extern "C" __global__ void __launch_bounds__(na::kThreads) c3_plain(const __grid_constant__ na::Args args) {
  na::attention_row(args.problem);
}
