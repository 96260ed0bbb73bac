// The vocabulary every family writes its scenario sets in: a collecting builder, geometries, shapes, sizing to a floor.
// It must never hold a family's own set or rule, and a set must never reach a caller without passing finish().
#pragma once

#include <functional>
#include <map>
#include <optional>

#include "kseek/attention/attention_family.hpp"

namespace kseek::attention::sets {

// Collects members, keeps the first construction error, and checks the whole set once at the end.
class SetBuilder {
 public:
  // The family outlives the builder: it validates every member in finish().
  SetBuilder(const AttentionFamily& family, std::string id_prefix)
      : family_(family), id_prefix_(std::move(id_prefix)) {}

  // Parses a seqs value written in a set table; a typo is remembered and reported by finish().
  SeqSpec seqs(std::string_view text);
  void add(std::string id, std::string purpose, AttentionConfig config);
  // A member written as its canonical name (the case-study tables); a parse error is remembered for finish().
  void add_named(std::string id, std::string purpose, std::string_view scenario_name);
  // Full sets: id = <prefix><block>-<nn>, numbered within the block so that one block's edits never renumber another.
  void add_to_block(int block, std::string purpose, AttentionConfig config);
  // Every member passes family.validate(); ids and names are unique.
  Result<std::vector<NamedScenario>> finish() &&;

 private:
  const AttentionFamily& family_;
  std::string id_prefix_;
  std::map<int, int> block_counts_;
  std::vector<NamedScenario> members_;
  std::optional<Error> first_error_;
};

// Fills dv = d when left 0, so tables only spell dv for MLA shapes.
AttentionConfig with_default_dv(AttentionConfig config);

struct Geometry {
  std::string_view tag;  // e.g. "G128a 32/8 d128"
  int hq = 0;
  int hkv = 0;
  int d = 0;
  int dv = 0;
  bool qv = false;
  std::optional<int> page;    // forced by the geometry (MLA decode: 64; encoders, MLA prefill: 0)
  std::optional<int> splits;  // forced by the geometry, where a family's kernel for it allows one value only
};

// SCENARIOS.md 5b axis F, plus the special shapes of block 2.
enum class Shape {
  uniform_prefill,  // N x L (L = 4096, 16384 with a window >= 1024)
  ragged_prefill,   // N copies of RP (24 N sequences)
  chunked_prefill,  // N x (2048, 16384): sq < sk continuation
  uniform_decode,   // N x (1, 8192) (16384 with a window >= 1024)
  ragged_decode,    // N x (1, GEO(256, 32768)): long-tail contexts
  long_decode,      // N x (1, 131072): split-heavy small batch
  spec_decode,      // N x (q, 8192), q = 2/4/8
  mixed_step,       // 2048 + (2048, 8192) + N x (1, GEO(2048, 16384)): chunked prefill riding with decodes
  context_chunk,    // N x (2048, 8192): MLA chunked-context prefill (non-causal + LSE)
  audio_encoder,    // N x 1500 (Whisper)
  vision_encoder,   // N copies of the 8-image ViT list of H23
  patch_encoder,    // N x 1024
};

std::string_view shape_name(Shape shape);
bool is_decode_like(Shape shape);  // vLLM passes ahead-of-time scheduler metadata for these where it has it (5a)

// One cell of a construction block; the batch is sized to the family's floor unless given. Built fluently:
//   Cell(Shape::uniform_decode, kG64).with_sinks().with_window(127)
struct Cell {
  Cell(Shape s, Geometry g) : shape(s), geometry(std::move(g)) {}

  // clang-format off
  Cell& with_dtype(Precision p) { dtype = p; return *this; }
  Cell& non_causal() { causal = false; return *this; }
  Cell& with_window(int left) { window_left = left; return *this; }  // causal (left, 0)
  Cell& with_two_sided_window(int left, int right) { window_left = left; window_right = right; return *this; }
  Cell& with_softcap(double cap) { softcap = cap; return *this; }
  Cell& with_sinks() { sinks = true; return *this; }
  Cell& with_prefix_lm(int spans, int width) { prefix_lm = PrefixLm{spans, width}; return *this; }
  Cell& with_page(int p) { page = p; return *this; }
  Cell& with_splits(int n) { splits = n; return *this; }
  Cell& with_aot(bool on) { aot = on; return *this; }
  Cell& with_lse() { lse = true; return *this; }
  Cell& with_spec_q(int q) { spec_q = q; return *this; }
  Cell& with_length(std::int64_t l) { length = l; return *this; }
  Cell& with_batch(std::int64_t n) { batch = n; return *this; }
  // clang-format on

  Shape shape;
  Geometry geometry;
  Precision dtype = Precision::bf16;
  bool causal = true;
  int window_left = kUnbounded;   // with causal=1 the window is (left, 0)
  int window_right = kUnbounded;  // two-sided windows of non-causal encoders only
  double softcap = 0;
  bool sinks = false;
  PrefixLm prefix_lm;
  std::optional<int> page;    // default 16 unless the geometry forces one
  std::optional<int> splits;  // default 0 unless the geometry forces one
  std::optional<bool> aot;    // default: a decode-like shape, where the family has ahead-of-time metadata
  bool lse = false;
  int spec_q = 4;
  std::int64_t length = 0;  // overrides the shape's prefill length / decode context
  std::int64_t batch = 0;   // 0 = the smallest batch that meets the floor
};

// The smallest batch in [min_batch, max_batch] (rounded up to a multiple of 8 past 8) whose config meets the floor;
// max_batch when none does.
AttentionConfig sized(const std::function<AttentionConfig(std::int64_t)>& make, std::int64_t min_batch,
                      std::int64_t max_batch, SizeFloor floor);
AttentionConfig build_cell(const Cell& cell, const AttentionFamily& family);
// A causal bf16 config of a geometry (page 16 unless the geometry forces one), for hand-written edge and cascade cells.
AttentionConfig geometry_config(const Geometry& g, SeqSpec seqs);
std::string describe_cell(const Cell& cell);

// Geometries both families' sets use (SCENARIOS 5b/5d); a geometry one family alone uses lives with its set.
inline const Geometry kG64{"G64 64/8 d64", 64, 8, 64, 64, false, std::nullopt, std::nullopt};
inline const Geometry kG96{"G96 32/32 d96", 32, 32, 96, 96, false, std::nullopt, std::nullopt};
inline const Geometry kG128a{"G128a 32/8 d128", 32, 8, 128, 128, false, std::nullopt, std::nullopt};
inline const Geometry kG128b{"G128b 16/2 d128", 16, 2, 128, 128, false, std::nullopt, std::nullopt};
inline const Geometry kG128c{"G128c 28/4 d128", 28, 4, 128, 128, false, std::nullopt, std::nullopt};
inline const Geometry kG256{"G256 16/8 d256", 16, 8, 256, 256, false, std::nullopt, std::nullopt};
inline const Geometry kGemma3{"Gemma-3-27B 32/16 d128", 32, 16, 128, 128, false, std::nullopt, std::nullopt};
inline const Geometry kMlaPrefill{"MLA prefill 16/16 d192/128", 16, 16, 192, 128, false, 0, std::nullopt};
inline const Geometry kMlaDecode16{"MLA decode 16/1 d64/512 q_v", 16, 1, 64, 512, true, 64, std::nullopt};
inline const Geometry kMlaDecode128{"MLA decode 128/1 d64/512 q_v", 128, 1, 64, 512, true, 64, std::nullopt};
inline const Geometry kEncoder64{"encoder 20/20 d64", 20, 20, 64, 64, false, 0, std::nullopt};
inline const Geometry kEncoder80{"encoder 16/16 d80", 16, 16, 80, 80, false, 0, std::nullopt};
inline const Geometry kEncoder128{"encoder 16/16 d128", 16, 16, 128, 128, false, 0, std::nullopt};
inline const Geometry kMqa{"MQA 8/1 d128", 8, 1, 128, 128, false, std::nullopt, std::nullopt};

}  // namespace kseek::attention::sets
