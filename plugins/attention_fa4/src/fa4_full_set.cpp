// The Blackwell (FA4) full campaign: the seven construction blocks of SCENARIOS.md 5d under FA4 legality, 2x budget.
// It must never emit a cell FA4 on sm_100 cannot run (those 5d lists as routing checks or unverified are left out).
#include <algorithm>

#include <fmt/format.h>

#include "fa4_sets.hpp"
#include "kseek/attention/scenario_set_builder.hpp"

namespace kseek::plugins::fa4 {

using namespace attention;
using namespace attention::sets;

namespace {

const Shape kFamilies[] = {Shape::uniform_prefill, Shape::ragged_prefill, Shape::chunked_prefill, Shape::uniform_decode,
                           Shape::ragged_decode,   Shape::long_decode,    Shape::spec_decode,     Shape::mixed_step};

// Geometries only this family's set uses: the hd256 kernel's (page 128 and one split are all it accepts) and the
// softcap model's.
const Geometry kG256Hd256{"G256-hd256 8/4 d256", 8, 4, 256, 256, false, 128, 1};
const Geometry kG128Softcap{"G128-softcap 48/8 d128", 48, 8, 128, 128, false, std::nullopt, std::nullopt};
// Dense calibration anchors (5c): B*S = 32k, hq*d = 2048, non-paged. A non-varlen batch of equal lengths has the
// packed layout of a uniform varlen call, so the anchors are uniform non-paged calls.
const Geometry kDense128{"dense MHA 16/16 d128", 16, 16, 128, 128, false, 0, std::nullopt};
const Geometry kDense64{"dense MHA 32/32 d64", 32, 32, 64, 64, false, 0, std::nullopt};
// The split-policy block needs a geometry absent from block 1, or its heuristic (0) cells would repeat baseline cells.
const Geometry kG48{"48/8 d128", 48, 8, 128, 128, false, std::nullopt, std::nullopt};

}  // namespace

Result<std::vector<NamedScenario>> fa4_full_set(const AttentionFamily& family) {
  SetBuilder builder(family, "BF");
  const auto add = [&](int block, std::string_view block_name, const Cell& cell) {
    builder.add_to_block(block, fmt::format("{}: {}", block_name, describe_cell(cell)), build_cell(cell, family));
  };
  const SizeFloor budget = family.size_floor();

  // Block 1 (48): 8 families x 6 geometries; the d256 cells use the hd256 kernel (page 128, forced 1 split).
  const Geometry core[] = {kG64, kG96, kG128a, kG128b, kG128c, kG256Hd256};
  for (std::size_t g = 0; g < std::size(core); ++g) {
    for (Shape shape : kFamilies) add(1, "baseline", Cell(shape, core[g]).with_spec_q(2 << (g % 3)));
  }

  // Block 2 (13): MLA prefill x 3, encoders x 3, MQA x 2, q_v MLA decode x 2 (FA4 supports it; vLLM's FA backend
  // does not use it on Blackwell), dense 2-CTA anchors x 3.
  add(2, "special", Cell(Shape::uniform_prefill, kMlaPrefill));
  add(2, "special", Cell(Shape::ragged_prefill, kMlaPrefill));
  add(2, "special", Cell(Shape::context_chunk, kMlaPrefill).non_causal().with_lse());
  add(2, "special", Cell(Shape::audio_encoder, kEncoder64).non_causal());
  add(2, "special", Cell(Shape::vision_encoder, kEncoder80).non_causal());
  add(2, "special", Cell(Shape::patch_encoder, kEncoder128).non_causal());
  add(2, "special", Cell(Shape::uniform_prefill, kMqa).with_length(8192).with_page(128));
  add(2, "special", Cell(Shape::uniform_decode, kMqa).with_length(32768));
  add(2, "special", Cell(Shape::uniform_decode, kMlaDecode16));
  add(2, "special", Cell(Shape::ragged_decode, kMlaDecode128));
  add(2, "anchor", Cell(Shape::uniform_prefill, kDense128).with_length(8192).with_batch(4));
  add(2, "anchor", Cell(Shape::uniform_prefill, kDense128).non_causal().with_length(8192).with_batch(4));
  add(2, "anchor", Cell(Shape::uniform_prefill, kDense64).non_causal().with_length(8192).with_batch(4));

  // Block 3 (32): fp16 x 9; fp8 (sm_100) on 7 families (ragged prefill left out, as on Hopper) x {G64, G128a, G128b};
  // fp8 MLA prefill x 2. No fp8 on hd256.
  for (const Geometry& g : {kG64, kG128a, kG256Hd256}) {
    for (Shape shape : {Shape::uniform_prefill, Shape::uniform_decode, Shape::mixed_step}) {
      add(3, "dtype", Cell(shape, g).with_dtype(Precision::fp16));
    }
  }
  for (const Geometry& g : {kG64, kG128a, kG128b}) {
    for (Shape shape : kFamilies) {
      if (shape != Shape::ragged_prefill) add(3, "dtype", Cell(shape, g).with_dtype(Precision::fp8));
    }
  }
  add(3, "dtype", Cell(Shape::uniform_prefill, kMlaPrefill).with_dtype(Precision::fp8));
  add(3, "dtype", Cell(Shape::ragged_prefill, kMlaPrefill).with_dtype(Precision::fp8));

  // Block 4 (32 of 5d's 36): sinks (+ window 128), window 4096, window 1024, softcap 30 at 48/8 (+ window), PrefixLM.
  // Left out: R-SWA x 2 (SCENARIOS.md does not define its mask) and dynamic causal x 2 (conditional on an FA4 fork
  // feature verified only on SM90).
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
  for (Shape shape : {Shape::uniform_prefill, Shape::ragged_prefill, Shape::chunked_prefill, Shape::uniform_decode,
                      Shape::spec_decode, Shape::mixed_step}) {
    add(4, "feature", Cell(shape, kG128Softcap).with_softcap(30));
  }
  for (Shape shape : {Shape::uniform_prefill, Shape::uniform_decode, Shape::mixed_step}) {
    add(4, "feature", Cell(shape, kG128Softcap).with_softcap(30).with_window(4095));
  }
  add(4, "feature", Cell(Shape::uniform_prefill, kGemma3).with_length(8192).with_prefix_lm(4, 1024));
  add(4, "feature", Cell(Shape::chunked_prefill, kGemma3).with_prefix_lm(8, 1024));
  add(4, "feature", Cell(Shape::uniform_prefill, kGemma3).with_length(4096).with_prefix_lm(1, 2048));

  // Block 5 (24): page sizes on G128a; split policies on 48/8 decode/spec families.
  for (int page : {32, 64, 128, 256}) {
    for (Shape shape : {Shape::uniform_prefill, Shape::uniform_decode, Shape::mixed_step}) {
      add(5, "paging", Cell(shape, kG128a).with_page(page));
    }
  }
  for (Shape shape : {Shape::uniform_decode, Shape::long_decode, Shape::ragged_decode, Shape::spec_decode}) {
    for (int splits : {32, 1, 0}) add(5, "splits", Cell(shape, kG48).with_splits(splits));
  }

  // Block 6 (17): G128a ladders at twice the Hopper sizes: prefill 1k..128k at 64k tokens, decode context 1k..128k at
  // 4 GiB of KV, decode batch 8..1024 at 8192 context (batch 8 sits below the time floor on purpose).
  for (std::int64_t length = 1024; length <= 131072; length *= 2) {
    add(6, "scale",
        Cell(Shape::uniform_prefill, kG128a).with_length(length).with_batch(std::max<std::int64_t>(1, 65536 / length)));
  }
  const std::int64_t kv_bytes_per_token = std::int64_t{kG128a.hkv} * (kG128a.d + kG128a.dv) * 2;
  for (std::int64_t context : {1024, 4096, 16384, 65536, 131072}) {
    add(6, "scale",
        Cell(Shape::uniform_decode, kG128a)
            .with_length(context)
            .with_batch((std::int64_t{1} << 32) / (context * kv_bytes_per_token)));
  }
  for (std::int64_t batch : {8, 64, 256, 1024}) add(6, "scale", Cell(Shape::uniform_decode, kG128a).with_batch(batch));

  // Block 7 (6 of 5d's 8): cascade x 3 and three edges. The FA2-fallback routing checks (d256 + softcap, ALiBi) are
  // not FA4 calls, so they are not scenarios here.
  const auto cascade = [&](const Geometry& g, std::int64_t prefix, std::int64_t decodes, bool sinks) {
    AttentionConfig c = geometry_config(g, builder.seqs(fmt::format("{}x(1,LIN(512,2048))", decodes)));
    c.cascade_prefix = prefix;
    c.sinks = sinks;
    builder.add_to_block(7, fmt::format("cascade: {}, shared prefix {}{}", g.tag, prefix, sinks ? ", sinks" : ""), c);
  };
  cascade(kG128a, 65536, 512, false);
  cascade(kG128b, 65536, 2048, false);
  cascade(kG64, 65536, 1024, true);
  const auto unaligned_hd256 = [&](std::int64_t n) {
    return geometry_config(kG256Hd256, builder.seqs(fmt::format("{}x(1,LIN(129,8191))", n)));
  };
  const auto zero_rows_with_sinks = [&](std::int64_t n) {
    AttentionConfig c = geometry_config(kG64, builder.seqs(fmt::format("4x(1,0)+{}x(1,16384)+4x(0,0)+(0,16384)", n)));
    c.sinks = true;
    c.lse = true;
    return c;
  };
  builder.add_to_block(7, "edge: hd256 with contexts that are not page multiples (vLLM rounds max_seqlen_k up)",
                       sized(unaligned_hd256, 8, 1024, budget));
  builder.add_to_block(7, "edge: zero-length rows with sinks (lse = sink), G64",
                       sized(zero_rows_with_sinks, 8, 1024, budget));
  add(7, "edge", Cell(Shape::long_decode, kG128a).with_splits(128));

  return std::move(builder).finish();
}

}  // namespace kseek::plugins::fa4
