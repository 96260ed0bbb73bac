// The attention plugins' GPU references (fp32 gold and same precision) against a plain fp64 CPU computation on small,
// awkward scenarios, one feature or two each: odd lengths, d 80/96/192/256, GQA 7, paged K/V (pages of 16 and 256),
// windows, prefix spans, softcap, sinks, q_v, fp8 with descales, key splits, LSE. The inputs are the plugin's own
// (attention_fill), read back; the CPU side follows problem.h's semantics directly, one query vector at a time. The
// tolerances come from fp32 rounding (see `bounds`), so a wrong mask, page, head, descale or rescaling fails by orders
// of magnitude. Without a GPU every case skips, saying why; it must never need one to compile.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "attention_gpu.hpp"
#include "kseek/attention/attention_workload.hpp"
#include "kseek/attention/scenario_config.hpp"

namespace kseek::attention {
namespace {

constexpr std::uint64_t kInputSeed = 20261203;  // printed with every failure
constexpr double kEps32 = 1.0 / (1 << 24);      // fp32 unit roundoff

// ---- the fp64 CPU reference ----------------------------------------------------------------------------------------

struct CpuRow {
  std::vector<double> o;        // [dv]
  std::vector<double> o_bound;  // [dv]: fp32 rounding bound of the GPU's gold o
  std::vector<double> pv_abs;   // [dv]: sum_j p_j |v_j c| v_descale / Z, the scale of the same-precision error
  double lse = 0.0;
  double lse_bound = 0.0;
  bool empty = true;  // no visible key and no sink
};

class CpuReference {
 public:
  CpuReference(const AttentionProblem& p, std::vector<HostTensor> tensors, const WorkloadLayout& layout)
      : p_(p), layout_(layout), t_(std::move(tensors)) {}

  const HostTensor& tensor(std::string_view name) const {
    static const HostTensor kNone{};
    for (std::size_t i = 0; i < layout_.tensors.size(); ++i) {
      if (layout_.tensors[i].name == name) return t_[i];
    }
    return kNone;
  }

  // Keys [begin, end) of row `row` of sequence b, written from problem.h's semantics (not from the device code).
  void visible(int b, std::int64_t sq, std::int64_t sk, std::int64_t row, std::int64_t& begin,
               std::int64_t& end) const {
    const std::int64_t diagonal = row + sk - sq;
    begin = 0;
    end = sk;
    const int right = p_.causal ? 0 : p_.window_right;
    if (right >= 0) end = std::min(end, diagonal + right + 1);
    if (p_.window_left >= 0) begin = std::max(begin, diagonal - p_.window_left);
    const HostTensor& spans = tensor(kNameSpans);
    for (int s = 0; s < p_.num_spans; ++s) {
      const std::int64_t s0 = spans.integer(b * p_.span_batch_stride + 2 * s);
      const std::int64_t s1 = spans.integer(b * p_.span_batch_stride + 2 * s + 1);
      if (diagonal >= s0 && diagonal < s1) end = std::max(end, s1);
    }
    end = std::clamp<std::int64_t>(end, 0, sk);
    begin = std::clamp<std::int64_t>(begin, 0, sk);
    end = std::max(end, begin);
  }

  CpuRow row(int b, std::int64_t token, std::int64_t row_in_seq, int head) const {
    const HostTensor& q = tensor(kNameQ);
    const HostTensor& k = tensor(kNameK);
    const HostTensor& v = tensor(kNameV);
    const HostTensor& qv = tensor(kNameQv);
    const HostTensor& cu_q = tensor(kNameCuSeqlensQ);
    const int group = p_.num_heads_q / p_.num_heads_kv;
    const int g = head / group;
    const std::int64_t sq = cu_q.integer(b + 1) - cu_q.integer(b);
    std::int64_t sk, k_start = 0;
    if (p_.paged) {
      sk = tensor(kNameSequsedK).integer(b);
    } else {
      const HostTensor& cu_k = tensor(kNameCuSeqlensK);
      k_start = cu_k.integer(b);
      sk = cu_k.integer(b + 1) - k_start;
    }
    double qk_descale = 1.0, v_descale = 1.0;
    if (p_.dtype_qkv == kDTypeFP8E4M3) {
      const std::int64_t di = b * p_.descale_batch_stride + g * p_.descale_head_stride;
      for (std::string_view name : {kNameQDescale, kNameKDescale}) {
        if (!tensor(name).empty()) qk_descale *= tensor(name).at(di);
      }
      if (!tensor(kNameVDescale).empty()) v_descale = tensor(kNameVDescale).at(di);
    }
    std::int64_t begin, end;
    visible(b, sq, sk, row_in_seq, begin, end);
    const auto k_row = [&](std::int64_t key) {
      if (!p_.paged) return (k_start + key) * p_.k_row_stride + g * p_.k_head_stride;
      const std::int64_t page = tensor(kNameBlockTable).integer(b * p_.block_table_batch_stride + key / p_.block_size);
      return page * p_.k_block_stride + (key % p_.block_size) * p_.k_row_stride + g * p_.k_head_stride;
    };
    const auto v_row = [&](std::int64_t key) {
      if (!p_.paged) return (k_start + key) * p_.v_row_stride + g * p_.v_head_stride;
      const std::int64_t page = tensor(kNameBlockTable).integer(b * p_.block_table_batch_stride + key / p_.block_size);
      return page * p_.v_block_stride + (key % p_.block_size) * p_.v_row_stride + g * p_.v_head_stride;
    };
    const int d = p_.head_dim, dv = p_.head_dim_v;
    const std::int64_t q_at = token * p_.q_row_stride + head * p_.q_head_stride;
    const std::int64_t qv_at = token * p_.qv_row_stride + head * p_.qv_head_stride;
    const int qk_width = d + (p_.has_q_v ? dv : 0);
    std::vector<double> s, s_err;
    for (std::int64_t key = begin; key < end; ++key) {
      double dot = 0.0, dot_abs = 0.0;
      for (int c = 0; c < d; ++c) {
        const double term = q.at(q_at + c) * k.at(k_row(key) + c);
        dot += term;
        dot_abs += std::fabs(term);
      }
      if (p_.has_q_v) {
        for (int c = 0; c < dv; ++c) {
          const double term = qv.at(qv_at + c) * v.at(v_row(key) + c);
          dot += term;
          dot_abs += std::fabs(term);
        }
      }
      double x = p_.softmax_scale * qk_descale * dot;
      // fp32: the dot product's rounding (at most qk_width + 2 roundings of partial sums bounded by dot_abs), the two
      // scalings, and tanhf's few ulps when capped (its slope is at most 1).
      double err = (qk_width + 4) * kEps32 * p_.softmax_scale * qk_descale * dot_abs;
      if (p_.softcap > 0.0f) {
        x = p_.softcap * std::tanh(x / p_.softcap);
        err += 8 * kEps32 * std::fabs(x) + 4 * kEps32 * p_.softcap;
      }
      s.push_back(x);
      s_err.push_back(err + 2 * kEps32 * std::fabs(x));
    }
    CpuRow out;
    out.o.assign(dv, 0.0);
    out.o_bound.assign(dv, 0.0);
    out.pv_abs.assign(dv, 0.0);
    const bool sink = p_.has_sinks != 0;
    const double sink_value = sink ? tensor(kNameSinks).at(head) : 0.0;
    if (s.empty() && !sink) {
      out.lse = -std::numeric_limits<double>::infinity();
      return out;
    }
    out.empty = false;
    double m = sink ? sink_value : -std::numeric_limits<double>::infinity();
    for (double x : s) m = std::max(m, x);
    double z = sink ? std::exp(sink_value - m) : 0.0;
    double max_err = 0.0;
    for (std::size_t j = 0; j < s.size(); ++j) {
      z += std::exp(s[j] - m);
      max_err = std::max(max_err, s_err[j]);
    }
    const double n = static_cast<double>(s.size()) + 2;
    for (int c = 0; c < dv; ++c) {
      double sum = 0.0, sum_abs = 0.0;
      for (std::size_t j = 0; j < s.size(); ++j) {
        const double prob = std::exp(s[j] - m);
        const double value = v.at(v_row(begin + static_cast<std::int64_t>(j)) + c);
        sum += prob * value;
        sum_abs += prob * std::fabs(value);
      }
      out.o[c] = sum * v_descale / z;
      out.pv_abs[c] = sum_abs * v_descale / z;
      // Each p_j is off by its score's error (twice: p and Z) plus expf's and the rescalings' few ulps; the P.V sum
      // and Z add n roundings each, the descale and the division two more.
      out.o_bound[c] = (2 * max_err + (2 * n + 16) * kEps32) * out.pv_abs[c] + 4 * kEps32 * std::fabs(out.o[c]);
    }
    out.lse = m + std::log(z);
    out.lse_bound = 2 * max_err + (n + 16) * kEps32 * (1 + std::fabs(out.lse));
    return out;
  }

 private:
  AttentionProblem p_;
  const WorkloadLayout& layout_;
  std::vector<HostTensor> t_;
};

// ---- one case ------------------------------------------------------------------------------------------------------

struct ReferenceCase {
  std::string label;     // what the case covers
  std::string scenario;  // a scenario name the plugin accepts
};

void PrintTo(const ReferenceCase& c, std::ostream* os) { *os << c.label << " (" << c.scenario << ")"; }

class AttentionReferenceGpu : public ::testing::TestWithParam<ReferenceCase> {};

// A scenario name planned as the plugin plans it: its workload and the layout of its tensors.
struct PlannedScenario {
  AttentionWorkload workload;
  WorkloadLayout layout;
};

Result<PlannedScenario> plan_scenario(const std::string& name) {
  auto config = parse_scenario_name(name);
  if (!config) return config.error();
  auto workload = plan_workload(*config);
  if (!workload) return workload.error();
  auto layout = make_workload_layout(*workload);
  if (!layout) return layout.error();
  return PlannedScenario{std::move(*workload), std::move(*layout)};
}

// One reference computation on the GPU, read back: the inputs, then gold and same-precision o (and lse).
struct ReadBack {
  std::vector<HostTensor> inputs;  // by layout tensor; outputs empty
  HostTensor gold_o, same_o, gold_lse, same_lse;
  double seconds = 0.0;  // compute_attention_reference, launches to synchronize
};

// Fills the inputs of `layout` with kInputSeed and computes the references with each engine of `engines` on them.
std::vector<ReadBack> compute_references(kseek::testing::TestDeviceHost& session, const WorkloadLayout& layout,
                                         const AttentionProblem& p, const std::vector<ReferenceEngineChoice>& engines,
                                         bool read_inputs) {
  std::vector<ReadBack> results;
  std::vector<DeviceBuffer> tensors;
  const auto release = [&] {
    for (auto& t : tensors) session.release(t);
  };
  for (const auto& t : layout.tensors) {
    auto buffer = session.allocate(t.name, std::max<std::uint64_t>(16, t.elements * element_bytes(t.type)));
    EXPECT_TRUE(buffer) << buffer.error().message;
    if (!buffer) return release(), results;
    tensors.push_back(*buffer);
  }
  if (!fill_attention_inputs(session, layout, tensors, kInputSeed)) {
    ADD_FAILURE() << "fill_attention_inputs failed";
    return release(), results;
  }
  const std::uint64_t o_elements = layout.tensors[kTensorO].elements;
  const std::uint64_t lse_elements = p.return_lse ? layout.tensors[kTensorLse].elements : 0;
  const auto download = [&](const DeviceBuffer& buffer, ElementType type, std::uint64_t elements) {
    HostTensor h;
    h.type = type;
    h.bytes.resize(elements * element_bytes(type));
    EXPECT_TRUE(session.download(buffer, h.bytes, 0));
    return h;
  };
  for (const ReferenceEngineChoice engine : engines) {
    std::vector<DeviceBuffer> gold, same;
    for (auto [name, bytes_gold, bytes_same] :
         {std::tuple{"o", o_elements * 4, o_elements * element_bytes(layout.tensors[kTensorO].type)},
          std::tuple{"lse", lse_elements * 4, lse_elements * 4}}) {
      if (bytes_gold == 0) continue;
      auto g = session.allocate(std::string("gold ") + name, bytes_gold);
      auto s = session.allocate(std::string("same ") + name, bytes_same);
      EXPECT_TRUE(g && s);
      if (!g || !s) return release(), results;
      gold.push_back(*g);
      same.push_back(*s);
    }
    ReadBack r;
    const auto start = std::chrono::steady_clock::now();
    auto computed = compute_attention_reference(session, layout, tensors, gold, same, engine);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_TRUE(computed) << computed.error().message;
    session.release_scratch();
    r.gold_o = download(gold[0], ElementType::kF32, o_elements);
    r.same_o = download(same[0], layout.tensors[kTensorO].type, o_elements);
    if (p.return_lse) {
      r.gold_lse = download(gold[1], ElementType::kF32, lse_elements);
      r.same_lse = download(same[1], ElementType::kF32, lse_elements);
    }
    for (auto& b : gold) session.release(b);
    for (auto& b : same) session.release(b);
    results.push_back(std::move(r));
  }
  if (read_inputs && !results.empty()) {
    std::vector<HostTensor>& host = results.front().inputs;
    host.resize(layout.tensors.size());
    for (std::size_t i = 0; i < layout.tensors.size(); ++i) {
      const auto& t = layout.tensors[i];
      host[i].type = t.type;
      if (t.role != TensorRole::kInput || t.elements == 0) continue;
      host[i].bytes.resize(t.elements * element_bytes(t.type));
      EXPECT_TRUE(session.download(tensors[i], host[i].bytes, 0));
    }
  }
  release();
  return results;
}

const char* engine_name(ReferenceEngineChoice e) {
  return e == ReferenceEngineChoice::kFma ? "fma" : (e == ReferenceEngineChoice::kTensorCores ? "mma" : "auto");
}

// Both engines, each against fp64 with the same fp32 bounds: the tensor-core engine must be as exact as FMAs.
TEST_P(AttentionReferenceGpu, GoldAndSamePrecisionAgreeWithFp64) {
  AttentionGpu& gpu = the_attention_gpu();
  if (!gpu.session) GTEST_SKIP() << "SKIPPED: " << gpu.problem;
  kseek::testing::TestDeviceHost& session = *gpu.session;
  SCOPED_TRACE("scenario " + GetParam().scenario + ", input seed " + std::to_string(kInputSeed));

  const auto planned = plan_scenario(GetParam().scenario);
  ASSERT_TRUE(planned) << planned.error().message;
  const WorkloadLayout& layout = planned->layout;
  const AttentionProblem& p = planned->workload.problem;
  const std::vector<ReferenceEngineChoice> engines = {ReferenceEngineChoice::kFma, ReferenceEngineChoice::kTensorCores};
  std::vector<ReadBack> results = compute_references(session, layout, p, engines, /*read_inputs=*/true);
  ASSERT_EQ(results.size(), engines.size());

  const CpuReference cpu(p, std::move(results.front().inputs), layout);
  const HostTensor& cu_q = cpu.tensor(kNameCuSeqlensQ);
  // Rounding to nearest in a type of t significant bits moves a value by at most 2^-t relative (the unit roundoff):
  // 2^-8 for bf16 (8 bits with the implicit one), 2^-11 for fp16. The output's own rounding, and P's.
  const double out_u = layout.tensors[kTensorO].type == ElementType::kF16 ? 1.0 / 2048 : 1.0 / 256;
  const double p_u = p.dtype_qkv == kDTypeFP16 ? 1.0 / 2048 : 1.0 / 256;  // P rounded to fp16, else bf16
  for (std::size_t e = 0; e < engines.size(); ++e) {
    SCOPED_TRACE(std::string("engine ") + engine_name(engines[e]));
    const ReadBack& r = results[e];
    int failures = 0, checked_rows = 0, empty_rows = 0;
    double worst_ratio = 0.0, worst_same_ratio = 0.0;
    for (int b = 0; b < p.batch; ++b) {
      for (std::int64_t token = cu_q.integer(b); token < cu_q.integer(b + 1); ++token) {
        for (int head = 0; head < p.num_heads_q; ++head) {
          const CpuRow row = cpu.row(b, token, token - cu_q.integer(b), head);
          ++checked_rows;
          empty_rows += row.empty ? 1 : 0;
          const std::int64_t vector = token * p.num_heads_q + head;
          for (int c = 0; c < p.head_dim_v && failures < 20; ++c) {
            const std::int64_t i = vector * p.head_dim_v + c;
            const double bound = row.o_bound[c] + 1e-30;
            const double err = std::fabs(r.gold_o.at(i) - row.o[c]);
            worst_ratio = std::max(worst_ratio, err / bound);
            if (!(err <= bound)) {
              ++failures;
              ADD_FAILURE() << "gold o[token " << token << ", head " << head << ", channel " << c
                            << "] = " << r.gold_o.at(i) << ", fp64 " << row.o[c] << ": error " << err
                            << " > fp32 bound " << bound;
            }
            // Same precision: P rounded to p_dtype (p_u each, relative) and the output rounded to its type. P's term
            // was half of p_u until 2026-12-04: the inputs of that day's generator found a row that needs all of it.
            const double same_bound = bound + p_u * row.pv_abs[c] + out_u * std::fabs(row.o[c]) + 1e-30;
            const double same_err = std::fabs(r.same_o.at(i) - row.o[c]);
            worst_same_ratio = std::max(worst_same_ratio, same_err / same_bound);
            if (!(same_err <= same_bound)) {
              ++failures;
              ADD_FAILURE() << "same-precision o[token " << token << ", head " << head << ", channel " << c
                            << "] = " << r.same_o.at(i) << ", fp64 " << row.o[c] << ": error " << same_err << " > "
                            << same_bound;
            }
          }
          if (p.return_lse && failures < 20) {
            const std::int64_t li = head * p.lse_head_stride + token;
            const bool inf_ok = row.empty && std::isinf(r.gold_lse.at(li)) && r.gold_lse.at(li) < 0;
            if (!inf_ok && !(std::fabs(r.gold_lse.at(li) - row.lse) <= row.lse_bound)) {
              ++failures;
              ADD_FAILURE() << "gold lse[head " << head << ", token " << token << "] = " << r.gold_lse.at(li)
                            << ", fp64 " << row.lse << " (bound " << row.lse_bound << ")";
            }
            // ex2.approx / lg2.approx: about 2^-22 relative each, over the row's terms.
            const double approx_bound = row.lse_bound + 1e-5 * (1 + std::fabs(row.lse));
            const bool same_inf_ok = row.empty && std::isinf(r.same_lse.at(li)) && r.same_lse.at(li) < 0;
            if (!same_inf_ok && !(std::fabs(r.same_lse.at(li) - row.lse) <= approx_bound)) {
              ++failures;
              ADD_FAILURE() << "same-precision lse[head " << head << ", token " << token << "] = " << r.same_lse.at(li)
                            << ", fp64 " << row.lse << " (bound " << approx_bound << ")";
            }
          }
        }
      }
    }
    EXPECT_GT(checked_rows, 0);
    RecordProperty(std::string("worst_gold_error_over_bound_") + engine_name(engines[e]), std::to_string(worst_ratio));
    std::printf(
        "  %s [%s]: %d query vectors (%d see nothing), worst gold error / fp32 bound %.3g, same-precision "
        "%.3g\n",
        GetParam().label.c_str(), engine_name(engines[e]), checked_rows, empty_rows, worst_ratio, worst_same_ratio);
  }
}

// Small on purpose (the CPU side is O(q x k x d)); lengths odd so that chunks, tiles and pages end part-way.
const ReferenceCase kCases[] = {
    {"bf16_d128_causal_gqa4_paged16", "hq=8,hkv=2,d=128,dtype=bf16,causal=1,page=16,seqs=[37,301]"},
    {"fp16_d96_noncausal_varlen", "hq=4,hkv=4,d=96,dtype=fp16,causal=0,page=0,seqs=[1,77,130]"},
    {"bf16_d80_gqa7_paged256", "hq=14,hkv=2,d=80,dtype=bf16,causal=1,page=256,seqs=[5,263]"},
    {"bf16_d192_dv128_mla_prefill", "hq=4,hkv=4,d=192,dv=128,dtype=bf16,causal=1,page=0,seqs=[131,70]"},
    {"bf16_d256_softcap_window", "hq=4,hkv=2,d=256,dtype=bf16,causal=1,window=(45,0),softcap=50,page=16,seqs=[99,211]"},
    {"bf16_d64_sinks_window_both_sides",
     "hq=8,hkv=1,d=64,dtype=bf16,causal=0,window=(20,13),sinks=1,page=0,seqs=[3,150]"},
    {"fp8_d128_descales_paged16", "hq=8,hkv=4,d=128,dtype=fp8,causal=1,page=16,seqs=[93,200]"},
    {"fp8_d256_softcap", "hq=4,hkv=2,d=256,dtype=fp8,causal=1,softcap=50,page=16,seqs=[150]"},
    {"bf16_qv_mla_decode_dv512", "hq=16,hkv=1,d=64,dv=512,qv=1,dtype=bf16,causal=1,page=64,seqs=3x(1,777)"},
    {"bf16_decode_splits_lse", "hq=8,hkv=2,d=128,dtype=bf16,causal=1,page=16,lse=1,seqs=2x(1,3001)"},
    {"bf16_prefix_lm_spans_lse", "hq=4,hkv=2,d=64,dtype=bf16,causal=1,prefix_lm=1x40,lse=1,page=0,seqs=[150,97]"},
    {"fp16_d40_gqa7_decode_q4", "hq=7,hkv=1,d=40,dtype=fp16,causal=1,page=16,seqs=4x(4,333)"},
};

INSTANTIATE_TEST_SUITE_P(Features, AttentionReferenceGpu, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return info.param.label; });

// ---- the engines at an evaluation's sizes ---------------------------------------------------------------------------

// Both engines on case-study scenarios of attention.fa3 (the sizes an evaluation computes, where fp64 on the CPU would
// take hours): their gold outputs agree to far below anything the acceptance rule can see, their same-precision
// outputs to the output type's last bit, and the time each takes is printed for docs/benchmarks.md (each engine
// twice, the second run timed: the first loads nothing but may meet cold caches). Speed is not asserted.
class AttentionReferenceEngines : public ::testing::TestWithParam<ReferenceCase> {};

TEST_P(AttentionReferenceEngines, AgreeAtEvaluationSizes) {
  AttentionGpu& gpu = the_attention_gpu();
  if (!gpu.session) GTEST_SKIP() << "SKIPPED: " << gpu.problem;
  SCOPED_TRACE("scenario " + GetParam().scenario + ", input seed " + std::to_string(kInputSeed));
  const auto planned = plan_scenario(GetParam().scenario);
  ASSERT_TRUE(planned) << planned.error().message;
  using E = ReferenceEngineChoice;
  const std::vector<ReadBack> r =
      compute_references(*gpu.session, planned->layout, planned->workload.problem,
                         {E::kFma, E::kTensorCores, E::kFma, E::kTensorCores}, /*read_inputs=*/false);
  ASSERT_EQ(r.size(), 4u);
  const ReadBack &fma = r[2], &mma = r[3];
  const std::int64_t n = static_cast<std::int64_t>(fma.gold_o.bytes.size() / 4);
  double scale = 0.0, gold_diff = 0.0, same_diff = 0.0, gold_sum = 0.0;
  std::int64_t same_differs = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double a = fma.gold_o.at(i), b = mma.gold_o.at(i);
    scale = std::max(scale, std::fabs(a));
    gold_diff = std::max(gold_diff, std::fabs(a - b));
    gold_sum += std::fabs(a - b);
    const double sa = fma.same_o.at(i), sb = mma.same_o.at(i);
    same_diff = std::max(same_diff, std::fabs(sa - sb));
    same_differs += sa != sb ? 1 : 0;
  }
  // Both are fp32 computations of the same values: 1e-5 of the output's scale is ~170 fp32 ulps, and a wrong mask,
  // head or channel would differ by the scale itself.
  EXPECT_LE(gold_diff, 1e-5 * scale) << "gold outputs of the two engines differ";
  // The same-precision output may round the other way where the fp32 sums straddle a rounding boundary: one step of
  // the output type (2^-7 relative for bf16, 2^-10 for fp16) at the output's scale, at most.
  const double out_step = planned->workload.problem.dtype_o == kDTypeFP16 ? 1.0 / 1024 : 1.0 / 128;
  EXPECT_LE(same_diff, out_step * scale) << "same-precision outputs of the two engines differ by more than one step";
  std::printf(
      "  %s: references fma %.3f s, mma %.3f s (%.2fx); gold max |diff| %.3g (%.3g of max |o| %.3g), mean "
      "%.3g; same-precision differs in %lld of %lld elements, max %.3g\n",
      GetParam().label.c_str(), fma.seconds, mma.seconds, fma.seconds / std::max(mma.seconds, 1e-9), gold_diff,
      gold_diff / std::max(scale, 1e-30), scale, gold_sum / std::max<std::int64_t>(n, 1),
      static_cast<long long>(same_differs), static_cast<long long>(n), same_diff);
  RecordProperty("fma_seconds", std::to_string(fma.seconds));
  RecordProperty("mma_seconds", std::to_string(mma.seconds));
}

// attention.fa3's case-study scenarios by id (kseek scenarios --plugin attention.fa3 --set case-study), one per kind
// of reference work: dense prefill at d128 (bf16, fp16, fp8), d256 with softcap, d192/dv128, MLA q_v, decode with
// splits, a mixed batch, non-causal d64.
const ReferenceCase kEvaluationCases[] = {
    {"H01", "hq=32,hkv=8,d=128,dtype=bf16,causal=1,page=16,seqs=8x4096"},
    {"H03", "hq=32,hkv=8,d=128,dtype=bf16,causal=1,page=16,seqs=32768"},
    {"H04", "hq=32,hkv=32,d=128,dtype=fp16,causal=1,page=16,seqs=4x4096"},
    {"H07", "hq=16,hkv=8,d=256,dtype=bf16,causal=1,softcap=50,page=16,seqs=4x8192"},
    {"H11", "hq=16,hkv=16,d=192,dv=128,dtype=bf16,causal=1,page=0,seqs=4x8192"},
    {"H13", "hq=16,hkv=8,d=256,dtype=fp8,causal=1,softcap=50,page=16,seqs=2x16384"},
    {"H15", "hq=64,hkv=8,d=128,dtype=bf16,causal=1,page=16,splits=32,aot=1,seqs=4x(1,131072)"},
    {"H19", "hq=16,hkv=8,d=256,dtype=bf16,causal=1,window=(4095,0),softcap=50,page=16,aot=1,seqs=128x(1,16384)"},
    {"H21",
     "hq=32,hkv=8,d=128,dtype=bf16,causal=1,page=16,aot=1,seqs=2048+(2048,8192)+(1024,31744)+250x(1,GEO(2048,"
     "16384))"},
    {"H24", "hq=20,hkv=20,d=64,dtype=fp16,causal=0,page=0,seqs=64x1500"},
    {"H25", "hq=16,hkv=1,d=64,dv=512,qv=1,dtype=bf16,causal=1,page=64,aot=1,seqs=128x(1,8192)"},
};

INSTANTIATE_TEST_SUITE_P(CaseStudy, AttentionReferenceEngines, ::testing::ValuesIn(kEvaluationCases),
                         [](const auto& info) { return info.param.label; });

// Needs no GPU: every case is a scenario the plugin accepts and the reference can tile, so that a case never skips or
// fails on a GPU for a reason that has nothing to do with the references.
TEST(AttentionReferenceGpuCases, EveryCaseParsesPlansAndTiles) {
  std::vector<ReferenceCase> cases(std::begin(kCases), std::end(kCases));
  cases.insert(cases.end(), std::begin(kEvaluationCases), std::end(kEvaluationCases));
  for (const ReferenceCase& c : cases) {
    auto config = parse_scenario_name(c.scenario);
    ASSERT_TRUE(config) << c.label << ": " << config.error().message;
    auto workload = plan_workload(*config);
    ASSERT_TRUE(workload) << c.label << ": " << workload.error().message;
    ASSERT_TRUE(make_workload_layout(*workload)) << c.label;
    auto tiling = plan_reference(*workload, 132);
    ASSERT_TRUE(tiling) << c.label << ": " << tiling.error().message;
  }
}

}  // namespace
}  // namespace kseek::attention
