// Unit tests of the attention plugins' GPU side that need no GPU: layouts of case-study scenarios (sizes, pointer
// offsets, strides, flags, views, tolerances, input sets), the structural tensors (cu_seqlens, shuffled block tables
// with partial last pages, determinism in the seed), the reference tiling, and the launches fill_inputs and
// compute_reference make through a recording DeviceHost. It must never launch anything real.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "attention_device_params.h"  // through kseek_attention_device_params, the launch contract under test
#include "kseek/attention/attention_workload.hpp"
#include "kseek/attention_fa3/fa3_family.hpp"
#include "kseek/attention_fa4/fa4_family.hpp"
#include "scenario_lookup.hpp"

namespace kseek::attention {
namespace {

using test_lookup::find;
using test_lookup::set_or_die;

// The families whose sets supply the scenarios here; the workload planner itself knows neither. Shared code runs only
// inside a family, so these tests of it name both (tests/CMakeLists.txt here links both family libraries).
const AttentionFamily& fa3() { return plugins::fa3::fa3_family(); }
const AttentionFamily& fa4() { return plugins::fa4::fa4_family(); }

AttentionConfig case_study(const AttentionFamily& family, std::string_view id) {
  return find(set_or_die(family, kCaseStudySet), id).config;
}

AttentionWorkload workload_or_die(const AttentionConfig& config) {
  auto w = plan_workload(config);
  EXPECT_TRUE(w.ok()) << format_scenario_name(config) << ": " << (w.ok() ? "" : w.error().message);
  return w.ok() ? w.value() : AttentionWorkload{};
}

WorkloadLayout layout_or_die(const AttentionConfig& config) {
  auto layout = make_workload_layout(workload_or_die(config));
  EXPECT_TRUE(layout.ok()) << (layout.ok() ? "" : layout.error().message);
  return layout.ok() ? layout.value() : WorkloadLayout{};
}

AttentionProblem problem_of(const WorkloadLayout& layout) {
  AttentionProblem p{};
  EXPECT_EQ(layout.problem.size(), sizeof(AttentionProblem));
  if (layout.problem.size() == sizeof(p)) std::memcpy(&p, layout.problem.data(), sizeof(p));
  return p;
}

const TensorSpec* tensor(const WorkloadLayout& layout, std::string_view name) {
  for (const auto& t : layout.tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::uint32_t offset(std::size_t field) { return static_cast<std::uint32_t>(field); }

// What the harness does with a layout: every tensor's address written at its offset, in tensor order.
AttentionProblem problem_with_addresses(const WorkloadLayout& layout, std::uint64_t base) {
  std::vector<std::byte> bytes = layout.problem;
  for (std::size_t i = 0; i < layout.tensors.size(); ++i) {
    const std::uint64_t address = base + (i + 1) * 0x1000;
    if (layout.tensors[i].problem_offset == kNoProblemPointer) continue;  // an absent tensor: no pointer
    std::memcpy(bytes.data() + layout.tensors[i].problem_offset, &address, sizeof(address));
  }
  AttentionProblem p{};
  std::memcpy(&p, bytes.data(), sizeof(p));
  return p;
}

std::uint64_t address_of(const void* pointer) { return reinterpret_cast<std::uint64_t>(pointer); }

// ---- layouts --------------------------------------------------------------------------------------------------------

TEST(AttentionLayout, H01PagedPrefillHasEveryTensorWhereTheProblemSaysAndTheTensorIdsHold) {
  const WorkloadLayout layout = layout_or_die(case_study(fa3(), "H01"));  // 32/8 d128 bf16 causal bs16 8x4096
  const AttentionProblem p = problem_of(layout);
  EXPECT_EQ(p.batch, 8);
  EXPECT_EQ(p.num_heads_q, 32);
  EXPECT_EQ(p.num_heads_kv, 8);
  EXPECT_EQ(p.head_dim, 128);
  EXPECT_EQ(p.head_dim_v, 128);
  EXPECT_EQ(p.total_q, 8 * 4096);
  EXPECT_EQ(p.max_seqlen_q, 4096);
  EXPECT_EQ(p.max_seqlen_k, 4096);
  EXPECT_EQ(p.paged, 1);
  EXPECT_EQ(p.block_size, 16);
  EXPECT_EQ(p.max_blocks_per_seq, 256);
  const int needed = 8 * 256;
  EXPECT_EQ(p.num_blocks, needed + needed / 16);  // spare pages: 1/16 of the needed ones, at least 8
  EXPECT_EQ(p.total_k, p.num_blocks * 16);
  EXPECT_EQ(p.dtype_qkv, kDTypeBF16);
  EXPECT_EQ(p.dtype_o, kDTypeBF16);
  EXPECT_EQ(p.causal, 1);
  EXPECT_EQ(p.window_left, -1);
  EXPECT_EQ(p.window_right, -1);
  EXPECT_EQ(p.softcap, 0.0f);
  EXPECT_FLOAT_EQ(p.softmax_scale, 1.0f / std::sqrt(128.0f));
  EXPECT_EQ(p.has_q_v, 0);
  EXPECT_EQ(p.has_sinks, 0);
  EXPECT_EQ(p.return_lse, 0);
  EXPECT_EQ(p.num_splits, 0);
  EXPECT_EQ(p.q_row_stride, 32 * 128);
  EXPECT_EQ(p.q_head_stride, 128);
  EXPECT_EQ(p.k_block_stride, 16 * 8 * 128);
  EXPECT_EQ(p.k_row_stride, 8 * 128);
  EXPECT_EQ(p.k_head_stride, 128);
  EXPECT_EQ(p.v_block_stride, 16 * 8 * 128);
  EXPECT_EQ(p.o_row_stride, 32 * 128);
  EXPECT_EQ(p.o_head_stride, 128);
  EXPECT_EQ(p.lse_head_stride, 8 * 4096);
  EXPECT_EQ(p.block_table_batch_stride, 256);
  EXPECT_EQ(p.descale_batch_stride, 0);
  for (const void* ptr : {p.q, p.k, p.v, static_cast<const void*>(p.o), p.q_v, static_cast<const void*>(p.sinks)}) {
    EXPECT_EQ(ptr, nullptr);
  }

  ASSERT_EQ(layout.tensors.size(), 9u);  // q k v o q_v(absent) lse(absent) cu_seqlens_q seqused_k block_table
  const std::vector<std::string> names = {"q", "k", "v", "o", "q_v (absent)", "lse (absent)"};
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(layout.tensors[i].name, names[i]);
  EXPECT_EQ(layout.tensors[kTensorCuSeqlensQ].name, "cu_seqlens_q");
  EXPECT_EQ(layout.plugin_context, format_scenario_name(case_study(fa3(), "H01")) + "\nreference engine: " +
                                        reference_engine_setting());
  for (std::size_t i : {std::size_t{kTensorQv}, std::size_t{kTensorLse}}) {
    EXPECT_EQ(layout.tensors[i].problem_offset, kNoProblemPointer) << "an absent tensor gets no pointer";
  }
  EXPECT_EQ(layout.tensors[7].name, "seqused_k");
  EXPECT_EQ(layout.tensors[8].name, "block_table");

  const auto& q = layout.tensors[kTensorQ];
  EXPECT_EQ(q.role, TensorRole::kInput);
  EXPECT_EQ(q.type, ElementType::kBF16);
  EXPECT_EQ(q.elements, 8ull * 4096 * 32 * 128);
  EXPECT_EQ(q.problem_offset, offset(offsetof(AttentionProblem, q)));
  EXPECT_EQ(q.view.rank, 3u);
  EXPECT_EQ(q.view.dims[0], 128u);
  EXPECT_EQ(q.view.dims[1], 32u);
  EXPECT_EQ(q.view.dims[2], 8u * 4096);
  EXPECT_EQ(q.view.strides_bytes[0], 128u * 2);
  EXPECT_EQ(q.view.strides_bytes[1], 32u * 128 * 2);
  const auto& k = layout.tensors[kTensorK];
  EXPECT_EQ(k.elements, static_cast<std::uint64_t>(p.num_blocks) * 16 * 8 * 128);
  EXPECT_EQ(k.problem_offset, offset(offsetof(AttentionProblem, k)));
  ASSERT_EQ(k.view.rank, 4u);
  EXPECT_EQ(k.view.dims[3], static_cast<std::uint64_t>(p.num_blocks));
  EXPECT_EQ(k.view.strides_bytes[2], 16u * 8 * 128 * 2);
  EXPECT_EQ(layout.tensors[kTensorV].problem_offset, offset(offsetof(AttentionProblem, v)));
  const auto& o = layout.tensors[kTensorO];
  EXPECT_EQ(o.role, TensorRole::kOutput);
  EXPECT_TRUE(o.compared);
  EXPECT_EQ(o.type, ElementType::kBF16);
  EXPECT_EQ(o.elements, 8ull * 4096 * 32 * 128);
  EXPECT_EQ(o.problem_offset, offset(offsetof(AttentionProblem, o)));
  EXPECT_EQ(o.view.rank, 3u);
  for (std::size_t absent : {std::size_t{kTensorQv}, std::size_t{kTensorLse}}) {
    EXPECT_EQ(layout.tensors[absent].elements, 0u);
    EXPECT_EQ(layout.tensors[absent].role, TensorRole::kInput);
    EXPECT_EQ(layout.tensors[absent].view.rank, 0u) << "a tensor map over an absent tensor must be refused";
  }
  EXPECT_EQ(tensor(layout, "seqused_k")->elements, 8u);
  EXPECT_EQ(tensor(layout, "seqused_k")->problem_offset, offset(offsetof(AttentionProblem, seqused_k)));
  EXPECT_EQ(tensor(layout, "block_table")->elements, 8u * 256);
  EXPECT_EQ(tensor(layout, "block_table")->problem_offset, offset(offsetof(AttentionProblem, block_table)));
  EXPECT_EQ(layout.tensors[kTensorCuSeqlensQ].elements, 9u);
  EXPECT_EQ(layout.tensors[kTensorCuSeqlensQ].type, ElementType::kI32);
  EXPECT_EQ(layout.tensors[kTensorCuSeqlensQ].problem_offset, offset(offsetof(AttentionProblem, cu_seqlens_q)));

  EXPECT_DOUBLE_EQ(layout.tolerance.max_factor, 2.0);
  EXPECT_DOUBLE_EQ(layout.tolerance.mean_factor, 1.5);
  EXPECT_DOUBLE_EQ(layout.tolerance.atol, 1e-5);
  EXPECT_EQ(layout.input_sets, 3u);
}

TEST(AttentionLayout, AbsentTensorsLeaveTheirPointersNullOnceTheHarnessWritesAddresses) {
  const WorkloadLayout layout = layout_or_die(case_study(fa3(), "H01"));
  const std::uint64_t base = 0x7f0000000000ull;
  const AttentionProblem p = problem_with_addresses(layout, base);
  EXPECT_EQ(p.q_v, nullptr);
  EXPECT_EQ(p.lse, nullptr);
  EXPECT_EQ(p.cu_seqlens_k, nullptr);
  EXPECT_EQ(p.q_descale, nullptr);
  EXPECT_EQ(p.sinks, nullptr);
  EXPECT_EQ(address_of(p.q), base + (kTensorQ + 1) * 0x1000);
  EXPECT_EQ(address_of(p.o), base + (kTensorO + 1) * 0x1000);
  EXPECT_EQ(address_of(p.cu_seqlens_q), base + (kTensorCuSeqlensQ + 1) * 0x1000);
  EXPECT_EQ(address_of(p.block_table), base + 9 * 0x1000);
}

TEST(AttentionLayout, H12Fp8HasDescalesBf16OutputAndTheFp8Tolerance) {
  const WorkloadLayout layout = layout_or_die(case_study(fa3(), "H12"));
  const AttentionProblem p = problem_of(layout);
  EXPECT_EQ(p.dtype_qkv, kDTypeFP8E4M3);
  EXPECT_EQ(p.dtype_o, kDTypeBF16);
  EXPECT_EQ(p.descale_batch_stride, 8);
  EXPECT_EQ(p.descale_head_stride, 1);
  EXPECT_EQ(layout.tensors[kTensorQ].type, ElementType::kFP8E4M3);
  EXPECT_EQ(layout.tensors[kTensorO].type, ElementType::kBF16);
  EXPECT_EQ(layout.tensors[kTensorK].view.strides_bytes[0], 128u);  // fp8 d128: 128-byte heads, still mappable
  for (auto [name, field] : {std::pair{"q_descale", offsetof(AttentionProblem, q_descale)},
                             std::pair{"k_descale", offsetof(AttentionProblem, k_descale)},
                             std::pair{"v_descale", offsetof(AttentionProblem, v_descale)}}) {
    const TensorSpec* t = tensor(layout, name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_EQ(t->type, ElementType::kF32);
    EXPECT_EQ(t->elements, 8u * 8);
    EXPECT_EQ(t->problem_offset, offset(field));
  }
  EXPECT_DOUBLE_EQ(layout.tolerance.max_factor, 4.0);
  EXPECT_DOUBLE_EQ(layout.tolerance.mean_factor, 3.0);
  // fp8 with softcap keeps the fp8 factors; softcap alone raises the max factor to 3.
  EXPECT_DOUBLE_EQ(layout_or_die(case_study(fa3(), "H13")).tolerance.max_factor, 4.0);
  const WorkloadLayout h07 = layout_or_die(case_study(fa3(), "H07"));
  EXPECT_DOUBLE_EQ(h07.tolerance.max_factor, 3.0);
  EXPECT_DOUBLE_EQ(h07.tolerance.mean_factor, 1.5);
  EXPECT_FLOAT_EQ(problem_of(h07).softcap, 50.0f);
}

TEST(AttentionLayout, FlatMlaPrefillUsesCuSeqlensK) {
  const WorkloadLayout layout = layout_or_die(case_study(fa3(), "H11"));  // 16/16 d192 dv128 non-paged 4x8192
  const AttentionProblem p = problem_of(layout);
  EXPECT_EQ(p.paged, 0);
  EXPECT_EQ(p.total_k, 4 * 8192);
  EXPECT_EQ(p.k_block_stride, 0);
  EXPECT_EQ(p.block_table_batch_stride, 0);
  EXPECT_EQ(p.v_row_stride, 16 * 128);
  EXPECT_EQ(p.o_head_stride, 128);
  EXPECT_FLOAT_EQ(p.softmax_scale, 1.0f / std::sqrt(192.0f));
  EXPECT_EQ(tensor(layout, "block_table"), nullptr);
  EXPECT_EQ(tensor(layout, "seqused_k"), nullptr);
  const TensorSpec* cu_k = tensor(layout, "cu_seqlens_k");
  ASSERT_NE(cu_k, nullptr);
  EXPECT_EQ(cu_k->elements, 5u);
  EXPECT_EQ(cu_k->problem_offset, offset(offsetof(AttentionProblem, cu_seqlens_k)));
  EXPECT_EQ(layout.tensors[kTensorK].elements, 4ull * 8192 * 16 * 192);
  EXPECT_EQ(layout.tensors[kTensorV].elements, 4ull * 8192 * 16 * 128);
  EXPECT_EQ(layout.tensors[kTensorK].view.rank, 3u);
  EXPECT_EQ(layout.tensors[kTensorO].elements, 4ull * 8192 * 16 * 128);
}

TEST(AttentionLayout, MlaDecodeCarriesQvAtItsTensorId) {
  const WorkloadLayout layout = layout_or_die(case_study(fa3(), "H25"));  // 16/1 d64 dv512 qv bs64
  const AttentionProblem p = problem_of(layout);
  EXPECT_EQ(p.has_q_v, 1);
  EXPECT_EQ(p.qv_row_stride, 16 * 512);
  EXPECT_EQ(p.qv_head_stride, 512);
  EXPECT_FLOAT_EQ(p.softmax_scale, 1.0f / std::sqrt(192.0f));
  const auto& qv = layout.tensors[kTensorQv];
  EXPECT_EQ(qv.name, "q_v");
  EXPECT_EQ(qv.elements, 128ull * 16 * 512);
  EXPECT_EQ(qv.problem_offset, offset(offsetof(AttentionProblem, q_v)));
  EXPECT_EQ(qv.view.rank, 3u);
}

TEST(AttentionLayout, SinksAndLseAreWhereTheProblemSays) {
  const WorkloadLayout h05 = layout_or_die(case_study(fa3(), "H05"));
  const TensorSpec* sinks = tensor(h05, "sinks");
  ASSERT_NE(sinks, nullptr);
  EXPECT_EQ(sinks->elements, 64u);
  EXPECT_EQ(sinks->type, ElementType::kF32);
  EXPECT_EQ(sinks->problem_offset, offset(offsetof(AttentionProblem, sinks)));
  EXPECT_EQ(problem_of(h05).has_sinks, 1);

  AttentionConfig with_lse = case_study(fa3(), "H01");
  with_lse.lse = true;
  const WorkloadLayout layout = layout_or_die(with_lse);
  const auto& lse = layout.tensors[kTensorLse];
  EXPECT_EQ(lse.name, "lse");
  EXPECT_EQ(lse.role, TensorRole::kOutput);
  EXPECT_TRUE(lse.compared);
  EXPECT_EQ(lse.type, ElementType::kF32);
  EXPECT_EQ(lse.elements, 32ull * 8 * 4096);
  EXPECT_EQ(lse.problem_offset, offset(offsetof(AttentionProblem, lse)));
  EXPECT_EQ(lse.view.rank, 2u);
  EXPECT_EQ(lse.view.strides_bytes[0], 8u * 4096 * 4);
  EXPECT_EQ(problem_of(layout).return_lse, 1);
  EXPECT_DOUBLE_EQ(layout.tolerance.atol, 1e-3);
}

TEST(AttentionLayout, ViewsAreDroppedWhenAStrideIsNotA16ByteMultiple) {
  AttentionConfig c = case_study(fa3(), "H12");  // fp8
  c.hq = 32;
  c.d = 40;
  c.dv = 40;
  const WorkloadLayout layout = layout_or_die(c);  // fp8 d40: 40-byte heads
  EXPECT_EQ(layout.tensors[kTensorQ].view.rank, 0u);
  EXPECT_EQ(layout.tensors[kTensorK].view.rank, 0u);
  EXPECT_EQ(layout.tensors[kTensorO].view.rank, 3u);  // bf16 output: 80-byte heads
}

TEST(AttentionLayout, LargeInputSetsDropToTwo) {
  EXPECT_EQ(layout_or_die(case_study(fa3(), "H18")).input_sets, 2u);  // 256 x 16384 keys, 64/8 d64: 8.6 GB KV
  EXPECT_EQ(layout_or_die(case_study(fa3(), "H14")).input_sets, 3u);  // 4.3 GB
}

TEST(AttentionLayout, CascadeIsEvaluatedAsTheOneCallItEquals) {
  const AttentionConfig c = case_study(fa3(), "H22");  // cascade_prefix 32768, 256x(1,LIN(512,2048))
  const AttentionWorkload w = workload_or_die(c);
  ASSERT_EQ(w.seqs.size(), 256u);
  EXPECT_EQ(w.seqs.front().k, 32768 + 512);
  EXPECT_EQ(w.seqs.back().k, 32768 + 2048);
  EXPECT_EQ(w.shared_pages, 32768 / 16);
  EXPECT_EQ(w.problem.causal, 1);
  EXPECT_EQ(w.problem.max_seqlen_k, 32768 + 2048);
  EXPECT_EQ(w.problem.max_blocks_per_seq, (32768 + 2048) / 16);
  // The fused call's visible pairs are the two calls' pairs: the scenario's FLOPs describe it exactly.
  std::int64_t pairs = 0;
  AttentionConfig call = c;
  call.cascade_prefix = 0;
  for (const SeqLens& s : w.seqs) {
    for (std::int64_t row = 0; row < s.q; ++row) pairs += visible_keys(call, s, row).size();
  }
  EXPECT_EQ(pairs, account(c).visible_pairs);

  const SequenceTensors s = make_sequence_tensors(w, 7);
  const auto mbps = static_cast<std::size_t>(w.problem.max_blocks_per_seq);
  for (std::size_t b = 1; b < w.seqs.size(); ++b) {
    EXPECT_TRUE(
        std::equal(s.block_table.begin(), s.block_table.begin() + w.shared_pages, s.block_table.begin() + b * mbps))
        << "sequence " << b << " does not start with the shared prefix pages";
  }
  EXPECT_EQ(s.seqused_k[0], 32768 + 512);
}

TEST(AttentionLayout, PrefixLmCarriesItsSpansAndFa3RefusesIt) {
  // B25: 8 x 8192 keys, 4 image spans of 1024 per sequence.
  const AttentionConfig b25 = case_study(fa4(), "B25");
  const WorkloadLayout layout = layout_or_die(b25);  // plan_workload does not validate; FA4 (sm100) accepts it
  const AttentionProblem p = problem_of(layout);
  EXPECT_EQ(p.num_spans, 4);
  EXPECT_EQ(p.span_batch_stride, 8);
  EXPECT_EQ(p.reserved_v2, 0);
  EXPECT_EQ(p.causal, 1);
  const TensorSpec* spans = tensor(layout, "spans");
  ASSERT_NE(spans, nullptr);
  EXPECT_EQ(spans->type, ElementType::kI32);
  EXPECT_EQ(spans->role, TensorRole::kInput);
  EXPECT_EQ(spans->elements, 8u * 4 * 2);
  EXPECT_EQ(spans->problem_offset, offset(offsetof(AttentionProblem, spans)));

  // The uploaded list is image_spans() of every sequence: segment 2048, span 1024 centred in it.
  const AttentionWorkload w = workload_or_die(b25);
  const SequenceTensors s = make_sequence_tensors(w, 3);
  ASSERT_EQ(s.spans.size(), 8u * 4 * 2);
  const std::vector<std::int32_t> first(s.spans.begin(), s.spans.begin() + 8);
  EXPECT_EQ(first, (std::vector<std::int32_t>{512, 1536, 2560, 3584, 4608, 5632, 6656, 7680}));
  for (std::size_t b = 0; b < w.seqs.size(); ++b) {
    const auto expected = image_spans(w.config, w.seqs[b].k);
    for (std::size_t k = 0; k < expected.size(); ++k) {
      EXPECT_EQ(s.spans[b * 8 + 2 * k], expected[k].begin) << "sequence " << b << " span " << k;
      EXPECT_EQ(s.spans[b * 8 + 2 * k + 1], expected[k].end) << "sequence " << b << " span " << k;
    }
  }

  // Scenarios without spans keep the v2 fields zero and have no spans tensor.
  const WorkloadLayout h01 = layout_or_die(case_study(fa3(), "H01"));
  EXPECT_EQ(problem_of(h01).num_spans, 0);
  EXPECT_EQ(problem_of(h01).span_batch_stride, 0);
  EXPECT_EQ(tensor(h01, "spans"), nullptr);
  EXPECT_TRUE(make_sequence_tensors(workload_or_die(case_study(fa3(), "H01")), 3).spans.empty());

  const auto on_hopper = make_workload_layout(format_scenario_name(b25), fa3());
  ASSERT_FALSE(on_hopper.ok());
  EXPECT_NE(on_hopper.error().message.find("prefix_lm"), std::string::npos) << on_hopper.error().message;
}

TEST(AttentionLayout, ScenariosWhoseRowsSeeNoKeyLayOut) {
  // Rows that see no key (no sink) have LSE -inf: the harness accepts an infinity exactly where the fp32 reference
  // holds the same one, so these scenarios lay out like any other.
  EXPECT_TRUE(make_workload_layout("hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,lse=1,seqs=(1,0)+(1,5)", fa3()).ok());
  EXPECT_TRUE(make_workload_layout("hq=4,hkv=2,d=64,dtype=bf16,causal=1,page=16,lse=1,seqs=(8,5)", fa3()).ok());
  EXPECT_TRUE(
      make_workload_layout("hq=4,hkv=2,d=64,dtype=bf16,causal=1,sinks=1,page=16,lse=1,seqs=(1,0)+(1,5)", fa3()).ok());
}

TEST(AttentionLayout, EveryScenarioOfEverySetLaysOut) {
  for (const AttentionFamily& family : {std::cref(fa3()), std::cref(fa4())}) {
    for (std::string_view set : {kCaseStudySet, kFullSet}) {
      for (const NamedScenario& s : set_or_die(family, set)) {
        auto layout = make_workload_layout(format_scenario_name(s.config), family);
        ASSERT_TRUE(layout.ok()) << s.id << ": " << layout.error().message;
        auto w = workload_of_layout(*layout);
        ASSERT_TRUE(w.ok()) << s.id << ": " << w.error().message;
        auto tiling = plan_reference(*w, 132);
        ASSERT_TRUE(tiling.ok()) << s.id << ": " << tiling.error().message;
        // Within the plan's budget, which must stay under every supported GPU's opt-in maximum (sm_90, sm_100: 227
        // KiB).
        EXPECT_LE(tiling->smem_bytes, static_cast<unsigned>(device::kSmemFloats) * 4u) << s.id;
        EXPECT_LE(tiling->smem_bytes, 227u * 1024) << s.id;
        EXPECT_GE(tiling->chunk, 4) << s.id;
        EXPECT_GE(tiling->splits, 1) << s.id;
      }
    }
  }
}

// ---- structural tensors ---------------------------------------------------------------------------------------------

TEST(AttentionStructure, BlockTablesArePermutationsWithPartialLastPagesAndSparePadding) {
  const AttentionWorkload w = workload_or_die(case_study(fa3(), "H16"));  // 256x(1,GEO(256,32768)), bs16
  const AttentionProblem& p = w.problem;
  const SequenceTensors s = make_sequence_tensors(w, 42);
  ASSERT_EQ(s.cu_seqlens_q.size(), w.seqs.size() + 1);
  ASSERT_EQ(s.seqused_k.size(), w.seqs.size());
  ASSERT_EQ(s.block_table.size(), w.seqs.size() * static_cast<std::size_t>(p.max_blocks_per_seq));
  EXPECT_TRUE(s.cu_seqlens_k.empty());
  std::set<std::int32_t> used;
  std::set<std::int32_t> padding;
  int partial_last_pages = 0;
  int out_of_order = 0;
  std::int32_t previous = -1;
  for (std::size_t b = 0; b < w.seqs.size(); ++b) {
    EXPECT_EQ(s.cu_seqlens_q[b + 1] - s.cu_seqlens_q[b], w.seqs[b].q);
    EXPECT_EQ(s.seqused_k[b], w.seqs[b].k);
    const std::int64_t pages = (w.seqs[b].k + p.block_size - 1) / p.block_size;
    if (w.seqs[b].k % p.block_size != 0) ++partial_last_pages;
    for (std::int64_t col = 0; col < p.max_blocks_per_seq; ++col) {
      const std::int32_t page = s.block_table[b * p.max_blocks_per_seq + col];
      ASSERT_GE(page, 0);
      ASSERT_LT(page, p.num_blocks);
      if (col < pages) {
        EXPECT_TRUE(used.insert(page).second) << "page " << page << " used twice";
        out_of_order += page != previous + 1;
        previous = page;
      } else {
        padding.insert(page);
      }
    }
  }
  EXPECT_EQ(static_cast<std::int64_t>(used.size()), w.needed_pages);
  EXPECT_GT(partial_last_pages, 100) << "GEO lengths should mostly end inside a page";
  EXPECT_GT(out_of_order, static_cast<int>(used.size()) / 2) << "the pages are not shuffled";
  for (std::int32_t page : padding) EXPECT_FALSE(used.count(page)) << "padding entry names a used page";
  EXPECT_EQ(w.spare_pages, std::max<std::int64_t>(8, w.needed_pages / 16));
  EXPECT_EQ(p.num_blocks, w.needed_pages + w.spare_pages);
}

TEST(AttentionStructure, DeterministicInTheSeedAndOnlyThePagesDependOnIt) {
  const AttentionWorkload w = workload_or_die(case_study(fa3(), "H21"));
  const SequenceTensors a = make_sequence_tensors(w, 5);
  const SequenceTensors b = make_sequence_tensors(w, 5);
  const SequenceTensors c = make_sequence_tensors(w, 6);
  EXPECT_EQ(a.block_table, b.block_table);
  EXPECT_EQ(a.cu_seqlens_q, b.cu_seqlens_q);
  EXPECT_NE(a.block_table, c.block_table);
  EXPECT_EQ(a.cu_seqlens_q, c.cu_seqlens_q);
  EXPECT_EQ(a.seqused_k, c.seqused_k);
  // The scenario's own seed key moves the generator seed too.
  AttentionConfig reseeded = w.config;
  reseeded.seed = 1;
  EXPECT_NE(generator_seed(w.config, 5), generator_seed(reseeded, 5));
  EXPECT_EQ(generator_seed(w.config, 5), generator_seed(w.config, 5));
  EXPECT_NE(generator_seed(w.config, 5), generator_seed(w.config, 6));
}

TEST(AttentionStructure, FlatScenariosGetPrefixSums) {
  const AttentionWorkload w = workload_or_die(case_study(fa3(), "H23"));  // [1024,2048,4096,...] non-causal
  const SequenceTensors s = make_sequence_tensors(w, 0);
  ASSERT_EQ(s.cu_seqlens_k.size(), 9u);
  EXPECT_EQ(s.cu_seqlens_k, s.cu_seqlens_q);
  EXPECT_EQ(s.cu_seqlens_q[1], 1024);
  EXPECT_EQ(s.cu_seqlens_q.back(), w.problem.total_q);
  EXPECT_TRUE(s.block_table.empty());
  EXPECT_TRUE(s.seqused_k.empty());
}

TEST(AttentionStructure, TheLayoutCarriesItsScenario) {
  const AttentionConfig c = case_study(fa3(), "H21");
  WorkloadLayout layout = layout_or_die(c);
  auto w = workload_of_layout(layout);
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->config, c);
  layout.problem[offsetof(AttentionProblem, batch)] = std::byte{1};
  EXPECT_FALSE(workload_of_layout(layout).ok());
  layout = layout_or_die(c);
  layout.plugin_context.clear();
  auto unnamed = workload_of_layout(layout);
  ASSERT_FALSE(unnamed.ok());
  EXPECT_NE(unnamed.error().message.find("plugin_context"), std::string::npos);
}

// ---- reference tiling -----------------------------------------------------------------------------------------------

TEST(AttentionReferenceTiling, PrefillTilesRowsAndDecodeSplitsKeys) {
  const AttentionWorkload h03 = workload_or_die(case_study(fa3(), "H03"));  // 1 x 32768, 32/8
  auto prefill = plan_reference(h03, 132, ReferenceEngineChoice::kFma);
  ASSERT_TRUE(prefill.ok()) << prefill.error().message;
  EXPECT_EQ(prefill->engine, device::kReferenceFma);
  EXPECT_EQ(prefill->heads_per_tile, 4);
  // As many rows as one P.V tile per thread allows: (4 x 8) query vectors x 128 channels / (4 x 4) = 256 threads.
  EXPECT_EQ(prefill->rows_per_tile, 8);
  EXPECT_EQ(prefill->rows_per_tile * prefill->heads_per_tile * 128 / (device::kPvTileQueries * device::kPvTileChannels),
            device::kReferenceThreads);
  // At most one score tile (4 query vectors x 4 keys) per thread, 32 x 128 keys; 112 KiB hold 116 keys at d128.
  EXPECT_EQ(prefill->chunk, 116);
  EXPECT_EQ(prefill->splits, 1);
  EXPECT_EQ(prefill->tiles.size(), 2u * 32768 / 8);

  const AttentionWorkload h15 = workload_or_die(case_study(fa3(), "H15"));  // 4 x (1, 131072), 64/8
  auto decode = plan_reference(h15, 132, ReferenceEngineChoice::kFma);
  ASSERT_TRUE(decode.ok()) << decode.error().message;
  EXPECT_EQ(decode->rows_per_tile, 1);
  EXPECT_EQ(decode->heads_per_tile, 8);
  EXPECT_EQ(decode->tiles.size(), 2u * 4);
  EXPECT_EQ(decode->splits, 17);  // 32 tiles x kv heads; 4 x 132 CTAs wanted

  const AttentionWorkload h25 = workload_or_die(case_study(fa3(), "H25"));  // MLA: q.k 576 wide, dv 512
  auto mla = plan_reference(h25, 132, ReferenceEngineChoice::kFma);
  ASSERT_TRUE(mla.ok()) << mla.error().message;
  EXPECT_EQ(mla->qk_dim, 64 + 512);
  EXPECT_EQ(mla->heads_per_tile * mla->head_tiles, 16);
  EXPECT_GE(mla->chunk, 4);
}

// Sets $KSEEK_REFERENCE_ENGINE for one scope and puts the environment's own value back after it.
class ReferenceEngineVariable {
 public:
  explicit ReferenceEngineVariable(const char* value) {
    if (const char* old = std::getenv(kReferenceEngineVariable)) saved_ = old;
    if (value != nullptr) {
      ::setenv(kReferenceEngineVariable, value, 1);
    } else {
      ::unsetenv(kReferenceEngineVariable);
    }
  }
  ~ReferenceEngineVariable() {
    if (saved_) {
      ::setenv(kReferenceEngineVariable, saved_->c_str(), 1);
    } else {
      ::unsetenv(kReferenceEngineVariable);
    }
  }
  ReferenceEngineVariable(const ReferenceEngineVariable&) = delete;
  ReferenceEngineVariable& operator=(const ReferenceEngineVariable&) = delete;

 private:
  std::optional<std::string> saved_;
};

// The variable decides what kAuto takes on the same build, and the layout's context (which the reference cache keys
// on) changes with it, while the workload still reads back from the context's first line.
TEST(AttentionReferenceTiling, TheEngineVariableChoosesForAutoAndChangesTheReferenceKey) {
  const AttentionConfig h03 = case_study(fa3(), "H03");
  const AttentionWorkload w = workload_or_die(h03);
  std::string fma_context;
  {
    const ReferenceEngineVariable fma("fma");
    auto plan = plan_reference(w, 132);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    EXPECT_EQ(plan->engine, device::kReferenceFma);
    fma_context = make_workload_layout(w)->plugin_context;
    EXPECT_EQ(fma_context, format_scenario_name(h03) + "\nreference engine: fma");
  }
  {
    const ReferenceEngineVariable tensor_cores("tensor-cores");
    auto plan = plan_reference(w, 132);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    EXPECT_EQ(plan->engine, device::kReferenceTensorCores);
    const WorkloadLayout layout = *make_workload_layout(w);
    EXPECT_NE(layout.plugin_context, fma_context) << "one engine's references must never be read back as the other's";
    auto back = workload_of_layout(layout);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(std::memcmp(&back->problem, &w.problem, sizeof(AttentionProblem)), 0);
    // Where tensor cores are not exact (dv not a multiple of 8) kAuto still takes FMAs.
    AttentionWorkload odd = w;
    odd.problem.head_dim_v = 44;
    auto odd_plan = plan_reference(odd, 132);
    ASSERT_TRUE(odd_plan.ok()) << odd_plan.error().message;
    EXPECT_EQ(odd_plan->engine, device::kReferenceFma);
  }
  {
    const ReferenceEngineVariable unset(nullptr);
    auto plan = plan_reference(w, 132);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    EXPECT_EQ(plan->engine, kTensorCoreReferencesByDefault ? device::kReferenceTensorCores : device::kReferenceFma);
    EXPECT_EQ(reference_engine_setting(), kTensorCoreReferencesByDefault ? "tensor-cores" : "fma");
  }
  {
    const ReferenceEngineVariable wrong("tensor_cores");
    auto plan = plan_reference(w, 132);
    ASSERT_FALSE(plan.ok());
    EXPECT_NE(plan.error().message.find("KSEEK_REFERENCE_ENGINE=tensor_cores"), std::string::npos)
        << plan.error().message;
    EXPECT_TRUE(plan_reference(w, 132, ReferenceEngineChoice::kFma).ok()) << "a forced engine does not read it";
  }
}

TEST(AttentionReferenceTiling, TensorCoresTakeWholeMmaTilesWhereTheyAreExact) {
  const AttentionWorkload h03 = workload_or_die(case_study(fa3(), "H03"));  // bf16 d128, 32/8
  auto prefill = plan_reference(h03, 132, ReferenceEngineChoice::kTensorCores);
  ASSERT_TRUE(prefill.ok()) << prefill.error().message;
  EXPECT_EQ(prefill->engine, device::kReferenceTensorCores);
  // 64 query vectors (16 rows x 4 heads): 4 MMA row tiles x 16 channel tiles = 8 tiles for each of the 8 warps.
  EXPECT_EQ(prefill->heads_per_tile, 4);
  EXPECT_EQ(prefill->rows_per_tile, 16);
  EXPECT_EQ((prefill->rows_per_tile * prefill->heads_per_tile / device::kMmaRows) * (128 / device::kMmaCols),
            device::kReferenceWarps * device::kMaxPvMmaTiles);
  // The score tiles' registers bound the chunk: 4 row tiles x 8 key tiles = 4 per warp.
  EXPECT_EQ(prefill->chunk, 64);
  EXPECT_EQ(prefill->chunk % device::kMmaDepth, 0);
  EXPECT_EQ(prefill->tiles.size(), 2u * 32768 / 16);

  // Padding to whole MMA tiles: a decode row of 8 heads is one 16-row tile.
  const AttentionWorkload h15 = workload_or_die(case_study(fa3(), "H15"));
  auto decode = plan_reference(h15, 132, ReferenceEngineChoice::kTensorCores);
  ASSERT_TRUE(decode.ok()) << decode.error().message;
  EXPECT_EQ(decode->engine, device::kReferenceTensorCores);
  EXPECT_EQ(decode->heads_per_tile, 8);
  EXPECT_EQ(device::padded_queries(decode->rows_per_tile * decode->heads_per_tile, decode->engine), 16);

  // MLA (q.k 576 wide, dv 512) fits with 16 query vectors; the plan's Q and K rows are zero-padded to 16 channels.
  const AttentionWorkload h25 = workload_or_die(case_study(fa3(), "H25"));
  auto mla = plan_reference(h25, 132, ReferenceEngineChoice::kTensorCores);
  ASSERT_TRUE(mla.ok()) << mla.error().message;
  EXPECT_EQ(mla->engine, device::kReferenceTensorCores);
  EXPECT_GE(mla->chunk, device::kMmaDepth);
  EXPECT_LE(mla->smem_bytes, static_cast<unsigned>(device::kSmemFloats) * 4u);

  // Channels padded to whole MMA steps on tensor cores only.
  EXPECT_EQ(device::make_smem_plan(16, 40, 40, device::kReferenceTensorCores).qk_width, 48);
  EXPECT_EQ(device::make_smem_plan(16, 40, 40, device::kReferenceFma).qk_width, 40);
}

TEST(AttentionReferenceTiling, TensorCorePitchesKeepAWarpsAccessesOnDistinctBanks) {
  for (int width : {40, 64, 96, 128, 192, 256, 576}) {
    for (int queries : {16, 32, 64}) {
      const device::SmemPlan plan = device::make_smem_plan(queries, width, width, device::kReferenceTensorCores);
      if (plan.chunk == 0) continue;
      EXPECT_EQ(plan.q_pitch % 32, 16) << width;  // a quarter-warp's 16-byte loads: two rows
      EXPECT_EQ(plan.kv_pitch % 32, 16) << width;
      EXPECT_EQ(plan.p_pitch % 32, 8) << width;  // a half-warp's 8-byte accesses: four rows
      EXPECT_EQ(plan.v_pitch % 8, 4) << width;   // a warp's 4-byte loads: 8 channels of keys 2q, 2q + 1
      EXPECT_GE(plan.q_pitch, plan.qk_width);
      EXPECT_GE(plan.p_pitch, plan.chunk);
      EXPECT_LE(plan.floats, device::kSmemFloats) << width << " " << queries;
    }
  }
}

// ---- fill_inputs and compute_reference through a recording DeviceHost -----------------------------------------------

class RecordingHost final : public DeviceHost {
 public:
  struct Launch {
    std::string kernel;
    HostLaunch dims;
    std::vector<std::byte> params;
  };
  std::vector<Launch> launches;
  std::map<std::uint64_t, std::vector<std::byte>> uploads;  // by buffer address
  std::uint64_t next_scratch = 0x900000000000ull;
  int syncs = 0;

  Result<void> launch(std::string_view kernel, const HostLaunch& dims, const void* params, std::size_t bytes) override {
    const auto* b = static_cast<const std::byte*>(params);
    launches.push_back({std::string(kernel), dims, std::vector<std::byte>(b, b + bytes)});
    return Ok{};
  }
  Result<void> upload(const DeviceBuffer& buffer, std::span<const std::byte> data, std::uint64_t offset) override {
    if (offset + data.size() > buffer.bytes) return make_error("upload overruns the buffer");
    uploads[buffer.address].assign(data.begin(), data.end());
    return Ok{};
  }
  Result<void> download(const DeviceBuffer&, std::span<std::byte>, std::uint64_t) override {
    return make_error("no downloads expected");
  }
  Result<DeviceBuffer> scratch(std::string_view, std::uint64_t bytes) override {
    const DeviceBuffer b{next_scratch, bytes};
    next_scratch += (bytes + 0xFFFF) / 0x10000 * 0x10000 + 0x10000;
    return b;
  }
  Result<void> synchronize() override {
    ++syncs;
    return Ok{};
  }
  DeviceProperties properties() const override { return {"recording", 9, 0, 132}; }
};

std::vector<DeviceBuffer> buffers_for(const WorkloadLayout& layout) {
  std::vector<DeviceBuffer> buffers;
  std::uint64_t next = 0x100000000000ull;
  for (const auto& t : layout.tensors) {
    if (t.role == TensorRole::kOutput) {
      buffers.push_back({});
      continue;
    }
    const std::uint64_t bytes = t.elements * element_bytes(t.type);
    buffers.push_back({next, bytes});
    next += (bytes + 0xFFFF) / 0x10000 * 0x10000 + 0x10000;
  }
  return buffers;
}

template <class T>
T params_of(const RecordingHost::Launch& launch) {
  T params{};
  EXPECT_EQ(launch.params.size(), sizeof(T)) << launch.kernel;
  std::memcpy(&params, launch.params.data(), std::min(sizeof(T), launch.params.size()));
  return params;
}

TEST(AttentionFill, FillsEveryInputAndUploadsTheSeededStructure) {
  const AttentionConfig c = case_study(fa3(), "H12");  // fp8: q k v + three descales
  const WorkloadLayout layout = layout_or_die(c);
  const auto buffers = buffers_for(layout);
  RecordingHost host;
  ASSERT_TRUE(fill_attention_inputs(host, layout, buffers, 77).ok());
  std::map<std::string, device::FillParams> fills;
  for (const auto& l : host.launches) {
    EXPECT_EQ(l.kernel, kFillKernel);
    const auto p = params_of<device::FillParams>(l);
    EXPECT_EQ(p.seed, generator_seed(c, 77));
    for (std::size_t i = 0; i < layout.tensors.size(); ++i) {
      if (buffers[i].address == p.out) fills[layout.tensors[i].name] = p;
    }
  }
  ASSERT_EQ(fills.size(), 6u);
  EXPECT_EQ(fills["q"].count, layout.tensors[kTensorQ].elements);
  EXPECT_EQ(fills["q"].dtype, kDTypeFP8E4M3);
  EXPECT_EQ(fills["q"].heads, 32);
  EXPECT_EQ(fills["q"].group, 4);
  EXPECT_EQ(fills["k"].heads, 8);
  EXPECT_EQ(fills["k"].count, layout.tensors[kTensorK].elements);  // spare pages too: every cache byte is defined
  EXPECT_EQ(fills["v"].kind, device::kFillV);
  EXPECT_EQ(fills["q_descale"].tensor, 0);
  EXPECT_EQ(fills["v_descale"].tensor, 2);
  EXPECT_EQ(fills["v_descale"].dtype, kDTypeFP32);

  const AttentionWorkload w = workload_or_die(c);
  const SequenceTensors expected = make_sequence_tensors(w, generator_seed(c, 77));
  const auto as_ints = [](const std::vector<std::byte>& bytes) {
    std::vector<std::int32_t> v(bytes.size() / 4);
    std::memcpy(v.data(), bytes.data(), v.size() * 4);
    return v;
  };
  EXPECT_EQ(as_ints(host.uploads[buffers[kTensorCuSeqlensQ].address]), expected.cu_seqlens_q);
  EXPECT_EQ(as_ints(host.uploads[buffers[7].address]), expected.seqused_k);
  EXPECT_EQ(as_ints(host.uploads[buffers[8].address]), expected.block_table);
  EXPECT_GE(host.syncs, 1);

  auto short_buffers = buffers;
  short_buffers[kTensorK].bytes -= 1;
  const auto refused = fill_attention_inputs(host, layout, short_buffers, 77);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("'k'"), std::string::npos) << refused.error().message;
}

TEST(AttentionReference, LaunchesStatsFinishAndOutputWithTheInputsOfTheProblem) {
  AttentionConfig c = case_study(fa3(), "H05");  // sinks
  c.lse = true;
  const WorkloadLayout layout = layout_or_die(c);
  const auto buffers = buffers_for(layout);
  const DeviceBuffer gold_o{0x500000000000ull, layout.tensors[kTensorO].elements * 4};
  const DeviceBuffer same_o{0x510000000000ull, layout.tensors[kTensorO].elements * 2};
  const DeviceBuffer gold_lse{0x520000000000ull, layout.tensors[kTensorLse].elements * 4};
  const DeviceBuffer same_lse{0x530000000000ull, layout.tensors[kTensorLse].elements * 4};
  RecordingHost host;
  const std::vector<DeviceBuffer> gold = {gold_o, gold_lse}, same = {same_o, same_lse};
  auto ok = compute_attention_reference(host, layout, buffers, gold, same);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  std::vector<std::string> kernels;
  for (const auto& l : host.launches) kernels.push_back(l.kernel);
  // What evaluations launch (kAuto): the tensor-core kernels where they are the default (the build's, or the
  // environment's), the FMA ones elsewhere.
  EXPECT_EQ(kernels,
            (tensor_core_references_by_default() && *tensor_core_references_by_default())
                ? (std::vector<std::string>{"attention_reference_stats_mma", "attention_reference_finish_stats",
                                            "attention_reference_output_mma"})
                : (std::vector<std::string>{"attention_reference_stats", "attention_reference_finish_stats",
                                            "attention_reference_output"}));
  const auto p = params_of<device::ReferenceParams>(host.launches[0]);
  EXPECT_EQ(address_of(p.problem.q), buffers[kTensorQ].address);
  EXPECT_EQ(address_of(p.problem.block_table), buffers[8].address);
  EXPECT_EQ(address_of(p.problem.sinks), buffers[9].address);
  EXPECT_EQ(p.problem.o, nullptr);
  EXPECT_EQ(p.problem.lse, nullptr);
  EXPECT_EQ(p.problem.q_v, nullptr);
  EXPECT_EQ(p.gold_o, gold_o.address);
  EXPECT_EQ(p.same_o, same_o.address);
  EXPECT_EQ(p.gold_lse, gold_lse.address);
  EXPECT_EQ(p.same_lse, same_lse.address);
  EXPECT_EQ(p.p_dtype, kDTypeBF16);
  EXPECT_EQ(p.splits, 1);
  const auto& dims = host.launches[0].dims;
  EXPECT_EQ(dims.grid[0], static_cast<unsigned>(p.num_tiles));
  EXPECT_EQ(dims.grid[1], static_cast<unsigned>(8 * p.head_tiles));
  EXPECT_EQ(dims.block[0], static_cast<unsigned>(device::kReferenceThreads));
  EXPECT_LE(dims.dynamic_smem_bytes, static_cast<unsigned>(device::kSmemFloats) * 4u);
  EXPECT_EQ(host.uploads.size(), 1u);  // the tile list

  // One gold buffer for two compared outputs is an error naming both counts.
  const std::vector<DeviceBuffer> one = {gold_o};
  const auto refused = compute_attention_reference(host, layout, buffers, one, one);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("expected"), std::string::npos);
}

TEST(AttentionReference, EachEngineAndOperandTypeLaunchesItsOwnKernels) {
  const auto kernels_of = [](const AttentionConfig& c, ReferenceEngineChoice choice) {
    const WorkloadLayout layout = layout_or_die(c);
    const auto buffers = buffers_for(layout);
    RecordingHost host;
    const std::vector<DeviceBuffer> gold = {{0x500000000000ull, layout.tensors[kTensorO].elements * 4}};
    const std::vector<DeviceBuffer> same = {{0x510000000000ull, layout.tensors[kTensorO].elements * 4}};
    EXPECT_TRUE(compute_attention_reference(host, layout, buffers, gold, same, choice).ok());
    std::vector<std::string> names;
    for (const auto& l : host.launches) names.push_back(l.kernel);
    return names;
  };
  const AttentionConfig h04 = case_study(fa3(), "H04");  // fp16
  EXPECT_EQ(kernels_of(h04, ReferenceEngineChoice::kTensorCores),
            (std::vector<std::string>{"attention_reference_stats_mma", "attention_reference_finish_stats",
                                      "attention_reference_output_mma_f16"}));
  EXPECT_EQ(kernels_of(h04, ReferenceEngineChoice::kFma),
            (std::vector<std::string>{"attention_reference_stats", "attention_reference_finish_stats",
                                      "attention_reference_output"}));
  const AttentionConfig h12 = case_study(fa3(), "H12");  // fp8: bf16 operands hold e4m3 exactly
  EXPECT_EQ(kernels_of(h12, ReferenceEngineChoice::kTensorCores).back(), "attention_reference_output_mma");
}

TEST(AttentionReferenceTiling, Fp16MlaDoesNotFitTensorCoreRegistersAndKeepsItsFmaTiling) {
  AttentionConfig c = case_study(fa3(), "H25");  // MLA decode: q.k 576 wide, dv 512
  AttentionWorkload w = workload_or_die(c);
  w.problem.dtype_qkv = kDTypeFP16;  // fp16 operands: half the P.V tiles per warp, and 64 channel tiles need 8 each
  const auto forced = plan_reference(w, 132, ReferenceEngineChoice::kTensorCores);
  ASSERT_FALSE(forced.ok());
  EXPECT_NE(forced.error().message.find("P.V tiles of registers"), std::string::npos) << forced.error().message;
  const auto chosen = plan_reference(w, 132);
  ASSERT_TRUE(chosen.ok()) << chosen.error().message;
  EXPECT_EQ(chosen->engine, device::kReferenceFma);
  EXPECT_GE(chosen->chunk, 4);
}

TEST(AttentionReferenceTiling, DvNotAMultipleOfEightStaysOnFmas) {
  AttentionWorkload w = workload_or_die(case_study(fa3(), "H01"));
  w.problem.head_dim_v = 44;  // no scenario has one; the MMA's 8-channel tiles would not cover it
  const auto forced = plan_reference(w, 132, ReferenceEngineChoice::kTensorCores);
  ASSERT_FALSE(forced.ok());
  EXPECT_NE(forced.error().message.find("multiple of 8"), std::string::npos) << forced.error().message;
  EXPECT_EQ(plan_reference(w, 132)->engine, device::kReferenceFma);
}

TEST(AttentionReferenceTiling, TensorCoresAskedForWhereTheyCannotRunIsAnErrorNotAFallback) {
  AttentionConfig c = case_study(fa3(), "H01");
  AttentionWorkload w = workload_or_die(c);
  w.problem.dtype_qkv = kDTypeFP32;  // no scenario has fp32 inputs; the rule must still hold
  EXPECT_EQ(plan_reference(w, 132)->engine, device::kReferenceFma);
  const auto refused = plan_reference(w, 132, ReferenceEngineChoice::kTensorCores);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("tensor-core references need"), std::string::npos);
}

TEST(AttentionReference, FewLongSequencesSplitTheKeysAndCombine) {
  const WorkloadLayout layout = layout_or_die(case_study(fa3(), "H15"));
  const auto buffers = buffers_for(layout);
  RecordingHost host;
  const std::vector<DeviceBuffer> gold = {{0x500000000000ull, layout.tensors[kTensorO].elements * 4}};
  const std::vector<DeviceBuffer> same = {{0x510000000000ull, layout.tensors[kTensorO].elements * 2}};
  ASSERT_TRUE(compute_attention_reference(host, layout, buffers, gold, same).ok());
  ASSERT_EQ(host.launches.size(), 4u);
  EXPECT_EQ(host.launches.back().kernel, kCombineKernel);
  EXPECT_EQ(host.launches[0].dims.grid[2], 17u);
  EXPECT_EQ(params_of<device::ReferenceParams>(host.launches[0]).gold_lse, 0u);
}

}  // namespace
}  // namespace kseek::attention
