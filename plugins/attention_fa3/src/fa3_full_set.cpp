// The Hopper (FA3) full campaign: the seven construction blocks of SCENARIOS.md 5b, sized to the 5b budget.
// It must never emit a cell FA3 cannot run, nor two cells with one name (finish() checks both).
#include <algorithm>

#include <fmt/format.h>

#include "fa3_sets.hpp"
#include "kseek/attention/scenario_set_builder.hpp"

namespace kseek::plugins::fa3 {

using namespace attention;
using namespace attention::sets;

namespace {

const Shape kFamilies[] = {Shape::uniform_prefill, Shape::ragged_prefill, Shape::chunked_prefill, Shape::uniform_decode,
                           Shape::ragged_decode,   Shape::long_decode,    Shape::spec_decode,     Shape::mixed_step};

// Round-up head sizes of block 7: FA3 runs them in the 64 and 96/128 kernels with padding.
const Geometry kD40{"d40 32/32", 32, 32, 40, 40, false, std::nullopt, std::nullopt};
const Geometry kD72{"d72 32/32", 32, 32, 72, 72, false, std::nullopt, std::nullopt};

}  // namespace

Result<std::vector<NamedScenario>> fa3_full_set(const AttentionFamily& family) {
  SetBuilder builder(family, "HF");
  const auto add = [&](int block, std::string_view block_name, const Cell& cell) {
    builder.add_to_block(block, fmt::format("{}: {}", block_name, describe_cell(cell)), build_cell(cell, family));
  };
  const SizeFloor budget = family.size_floor();

  // Block 1 (48): 8 families x 6 core geometries, bf16, causal, page 16, splits 0. Spec-decode cycles q = 2/4/8.
  const Geometry core[] = {kG64, kG96, kG128a, kG128b, kG128c, kG256};
  for (std::size_t g = 0; g < std::size(core); ++g) {
    for (Shape shape : kFamilies) add(1, "baseline", Cell(shape, core[g]).with_spec_q(2 << (g % 3)));
  }

  // Block 2 (15): MLA prefill x 3, MLA decode {16/1, 128/1} x 3, encoders d64/d80/d128 + a two-sided window, MQA x 2.
  add(2, "special", Cell(Shape::uniform_prefill, kMlaPrefill));
  add(2, "special", Cell(Shape::ragged_prefill, kMlaPrefill));
  add(2, "special", Cell(Shape::context_chunk, kMlaPrefill).non_causal().with_lse());
  for (const Geometry& g : {kMlaDecode16, kMlaDecode128}) {
    for (Shape shape : {Shape::uniform_decode, Shape::ragged_decode, Shape::spec_decode})
      add(2, "special", Cell(shape, g));
  }
  add(2, "special", Cell(Shape::audio_encoder, kEncoder64).non_causal());
  add(2, "special", Cell(Shape::vision_encoder, kEncoder80).non_causal());
  add(2, "special", Cell(Shape::patch_encoder, kEncoder128).non_causal());
  add(2, "special", Cell(Shape::uniform_prefill, kEncoder128).non_causal().with_two_sided_window(256, 256));
  add(2, "special", Cell(Shape::uniform_prefill, kMqa).with_length(8192).with_page(128));
  add(2, "special", Cell(Shape::uniform_decode, kMqa).with_length(32768));

  // Block 3 (39): fp16 on 3 families x 3 geometries; fp8 on 7 families (ragged prefill left out: uniform prefill
  // already covers fp8 prefill compute) x 4 geometries; fp8 MLA prefill x 2.
  for (const Geometry& g : {kG64, kG128a, kG256}) {
    for (Shape shape : {Shape::uniform_prefill, Shape::uniform_decode, Shape::mixed_step}) {
      add(3, "dtype", Cell(shape, g).with_dtype(Precision::fp16));
    }
  }
  for (const Geometry& g : {kG64, kG128a, kG128b, kG256}) {
    for (Shape shape : kFamilies) {
      if (shape != Shape::ragged_prefill) add(3, "dtype", Cell(shape, g).with_dtype(Precision::fp8));
    }
  }
  add(3, "dtype", Cell(Shape::uniform_prefill, kMlaPrefill).with_dtype(Precision::fp8));
  add(3, "dtype", Cell(Shape::ragged_prefill, kMlaPrefill).with_dtype(Precision::fp8));

  // Block 4 (32): GPT-OSS sinks (+ window 128), window 4096, Gemma-3 window 1024, Gemma-2 softcap (+ window), fp8
  // combos.
  const Shape sink_families[] = {Shape::uniform_prefill, Shape::ragged_prefill, Shape::uniform_decode,
                                 Shape::ragged_decode,   Shape::spec_decode,    Shape::mixed_step};
  for (Shape shape : sink_families) add(4, "feature", Cell(shape, kG64).with_sinks());
  for (Shape shape : sink_families) add(4, "feature", Cell(shape, kG64).with_sinks().with_window(127));
  for (Shape shape :
       {Shape::uniform_prefill, Shape::chunked_prefill, Shape::uniform_decode, Shape::spec_decode, Shape::mixed_step}) {
    add(4, "feature", Cell(shape, kG128a).with_window(4095));
  }
  for (Shape shape : {Shape::uniform_prefill, Shape::uniform_decode, Shape::mixed_step}) {
    add(4, "feature", Cell(shape, kGemma3).with_window(1023));
  }
  for (Shape shape :
       {Shape::uniform_prefill, Shape::ragged_prefill, Shape::uniform_decode, Shape::spec_decode, Shape::mixed_step}) {
    add(4, "feature", Cell(shape, kG256).with_softcap(50));
  }
  for (Shape shape : {Shape::uniform_prefill, Shape::uniform_decode, Shape::mixed_step}) {
    add(4, "feature", Cell(shape, kG256).with_softcap(50).with_window(4095));
  }
  for (Shape shape : {Shape::uniform_prefill, Shape::uniform_decode}) {
    add(4, "feature", Cell(shape, kG256).with_softcap(50).with_dtype(Precision::fp8));
  }
  for (Shape shape : {Shape::uniform_prefill, Shape::uniform_decode}) {
    add(4, "feature", Cell(shape, kG64).with_sinks().with_dtype(Precision::fp8));
  }

  // Block 5 (24): page sizes on G128a; split policies cap 32 / forced 1 (both with AOT) and heuristic without AOT.
  for (int page : {32, 64, 128, 256}) {
    for (Shape shape : {Shape::uniform_prefill, Shape::uniform_decode, Shape::mixed_step}) {
      add(5, "paging", Cell(shape, kG128a).with_page(page));
    }
  }
  for (Shape shape : {Shape::uniform_decode, Shape::long_decode, Shape::ragged_decode, Shape::spec_decode}) {
    add(5, "splits", Cell(shape, kG128a).with_splits(32).with_aot(true));
    add(5, "splits", Cell(shape, kG128a).with_splits(1).with_aot(true));
    add(5, "splits", Cell(shape, kG128a).with_splits(0).with_aot(false));
  }

  // Block 6 (17): G128a ladders. Prefill 1k..128k at 32k tokens; decode context 1k..128k at 2 GiB of KV; decode batch
  // 8..1024 at 8192 context (crosses FA3's 992-batch dynamic-split cutoff; batch 8 sits below the time floor on
  // purpose).
  for (std::int64_t length = 1024; length <= 131072; length *= 2) {
    add(6, "scale",
        Cell(Shape::uniform_prefill, kG128a).with_length(length).with_batch(std::max<std::int64_t>(1, 32768 / length)));
  }
  const std::int64_t kv_bytes_per_token = std::int64_t{kG128a.hkv} * (kG128a.d + kG128a.dv) * 2;
  for (std::int64_t context : {1024, 4096, 16384, 65536, 131072}) {
    add(6, "scale",
        Cell(Shape::uniform_decode, kG128a)
            .with_length(context)
            .with_batch((std::int64_t{1} << 31) / (context * kv_bytes_per_token)));
  }
  for (std::int64_t batch : {8, 64, 256, 1024}) add(6, "scale", Cell(Shape::uniform_decode, kG128a).with_batch(batch));

  // Block 7 (9): cascade pairs (decodes sharing a prefix, as vLLM's cascade path sees them), then the edges. "d 40 and
  // 72" are two shapes, so this block has 9 cells where the 5b table counts 8.
  const auto cascade = [&](const Geometry& g, std::int64_t prefix, std::int64_t decodes, bool sinks) {
    AttentionConfig c = geometry_config(g, builder.seqs(fmt::format("{}x(1,LIN(512,2048))", decodes)));
    c.cascade_prefix = prefix;
    c.sinks = sinks;
    builder.add_to_block(7, fmt::format("cascade: {}, shared prefix {}{}", g.tag, prefix, sinks ? ", sinks" : ""), c);
  };
  // Decode counts put the suffix KV at >= 0.8 GB (the decode budget) for each geometry's KV bytes per token.
  cascade(kG128a, 32768, 256, false);
  cascade(kG128b, 65536, 1024, false);
  cascade(kG64, 32768, 512, true);
  const auto zero_rows = [&](std::int64_t n) {
    AttentionConfig c = geometry_config(kG128a, builder.seqs(fmt::format("4x(1,0)+{}x(1,8192)+4x(0,0)+(0,8192)", n)));
    c.aot = true;
    c.lse = true;
    return c;
  };
  const auto odd_contexts = [&](std::int64_t n) {
    AttentionConfig c = geometry_config(kG128a, builder.seqs(fmt::format("{}x(1,LIN(1,8191))", n)));
    c.aot = true;
    c.lse = true;
    return c;
  };
  builder.add_to_block(7, "edge: zero-length sequences and seqused_k = 0 rows (o = 0, lse = -inf), G128a",
                       sized(zero_rows, 8, 1024, budget));
  add(7, "edge", Cell(Shape::uniform_prefill, kD40));
  add(7, "edge", Cell(Shape::uniform_prefill, kD72));
  builder.add_to_block(7, "edge: max_seqlen_q = 1 with the causal flag, odd contexts 1..8191, LSE, G128a",
                       sized(odd_contexts, 8, 1024, budget));
  add(7, "edge", Cell(Shape::long_decode, kG128a).with_splits(256));
  add(7, "edge (window >= seqlen, canonicalised away by FA)",
      Cell(Shape::uniform_prefill, kG128a).with_window(8191).with_length(4096));

  return std::move(builder).finish();
}

}  // namespace kseek::plugins::fa3
