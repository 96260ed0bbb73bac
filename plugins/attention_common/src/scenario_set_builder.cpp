// Building blocks of the scenario sets: the collecting builder, shape families and sizing to a family's floor.
// It must never hand out a set that failed a check: finish() validates every member and checks ids and names.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "kseek/attention/scenario_set_builder.hpp"

namespace kseek::attention::sets {
namespace {

const std::vector<std::int64_t> kVitImages = {1024, 2048, 4096, 4096, 6144, 8192, 3072, 4096};  // H23's 8 images

SeqGroup uniform(std::int64_t count, std::int64_t q, std::int64_t k) {
  return SeqGroup{count, Lengths::fixed(q), Lengths::fixed(k)};
}

SeqSpec shape_seqs(const Cell& cell, std::int64_t n) {
  const bool wide_window = cell.window_left >= 1024;
  const std::int64_t prefill = cell.length > 0 ? cell.length : (wide_window ? 16384 : 4096);
  const std::int64_t context = cell.length > 0 ? cell.length : (wide_window ? 16384 : 8192);
  switch (cell.shape) {
    case Shape::uniform_prefill: return SeqSpec{{uniform(n, prefill, prefill)}};
    case Shape::ragged_prefill: return SeqSpec{{SeqGroup{24 * n, Lengths::rp(), Lengths::rp()}}};
    case Shape::chunked_prefill: return SeqSpec{{uniform(n, 2048, cell.length > 0 ? cell.length : 16384)}};
    case Shape::uniform_decode: return SeqSpec{{uniform(n, 1, context)}};
    case Shape::ragged_decode: return SeqSpec{{SeqGroup{n, Lengths::fixed(1), Lengths::geo(256, 32768)}}};
    case Shape::long_decode: return SeqSpec{{uniform(n, 1, cell.length > 0 ? cell.length : 131072)}};
    case Shape::spec_decode: return SeqSpec{{uniform(n, cell.spec_q, context)}};
    case Shape::mixed_step:
      return SeqSpec{
          {uniform(1, 2048, 2048), uniform(1, 2048, 8192), SeqGroup{n, Lengths::fixed(1), Lengths::geo(2048, 16384)}}};
    case Shape::context_chunk: return SeqSpec{{uniform(n, 2048, 8192)}};
    case Shape::audio_encoder: return SeqSpec{{uniform(n, 1500, 1500)}};
    case Shape::vision_encoder: {
      const auto count = static_cast<std::int64_t>(kVitImages.size()) * n;
      return SeqSpec{{SeqGroup{count, Lengths::list(kVitImages), Lengths::list(kVitImages)}}};
    }
    case Shape::patch_encoder: return SeqSpec{{uniform(n, 1024, 1024)}};
  }
  return {};
}

// Batch bounds per shape. The upper bound is vLLM's usual max_num_seqs (1024) for decodes, so a window-128 decode
// stays a realistic batch (and a cache that fits) even where it cannot reach the budget; prefill bounds keep the
// token count below 256k.
struct BatchBounds {
  std::int64_t min;
  std::int64_t max;
};

BatchBounds batch_bounds(Shape shape) {
  switch (shape) {
    case Shape::uniform_decode:
    case Shape::spec_decode:
    case Shape::long_decode: return {shape == Shape::long_decode ? 1 : 8, 1024};
    case Shape::ragged_decode:
    case Shape::mixed_step: return {64, 1024};
    case Shape::ragged_prefill: return {1, 6};  // copies of RP's 39,040 tokens
    case Shape::vision_encoder: return {1, 8};  // copies of the 8-image list
    case Shape::audio_encoder: return {1, 160};
    case Shape::patch_encoder: return {1, 256};
    default: return {1, 64};
  }
}

}  // namespace

SeqSpec SetBuilder::seqs(std::string_view text) {
  auto parsed = parse_seqs(text);
  if (parsed) return parsed.value();
  if (!first_error_) first_error_ = parsed.error();
  return {};
}

void SetBuilder::add(std::string id, std::string purpose, AttentionConfig config) {
  members_.push_back(NamedScenario{std::move(id), std::move(purpose), std::move(config)});
}

void SetBuilder::add_named(std::string id, std::string purpose, std::string_view scenario_name) {
  auto config = parse_scenario_name(scenario_name);
  if (!config) {
    if (!first_error_) first_error_ = make_error(fmt::format("{}: {}", id, config.error().message));
    return;
  }
  add(std::move(id), std::move(purpose), std::move(config.value()));
}

void SetBuilder::add_to_block(int block, std::string purpose, AttentionConfig config) {
  const int number = ++block_counts_[block];
  add(fmt::format("{}{}-{:02}", id_prefix_, block, number), std::move(purpose), std::move(config));
}

Result<std::vector<NamedScenario>> SetBuilder::finish() && {
  if (first_error_) return make_error(fmt::format("{} set construction: {}", family_.name(), first_error_->message));
  std::set<std::string> ids;
  std::set<std::string> names;
  for (const NamedScenario& s : members_) {
    if (auto ok = family_.validate(s.config); !ok) {
      return make_error(
          fmt::format("{} scenario {} ({}) is illegal: {}", family_.name(), s.id, s.purpose, ok.error().message));
    }
    if (!ids.insert(s.id).second) return make_error(fmt::format("{}: duplicate scenario id {}", family_.name(), s.id));
    const std::string name = format_scenario_name(s.config);
    if (!names.insert(name).second) {
      return make_error(
          fmt::format("{}: scenario {} duplicates the name of an earlier one: {}", family_.name(), s.id, name));
    }
  }
  return std::move(members_);
}

AttentionConfig with_default_dv(AttentionConfig config) {
  if (config.dv == 0) config.dv = config.d;
  return config;
}

std::string_view shape_name(Shape shape) {
  switch (shape) {
    case Shape::uniform_prefill: return "uniform prefill";
    case Shape::ragged_prefill: return "ragged prefill";
    case Shape::chunked_prefill: return "chunked continuation";
    case Shape::uniform_decode: return "uniform decode";
    case Shape::ragged_decode: return "ragged long-tail decode";
    case Shape::long_decode: return "long-context decode";
    case Shape::spec_decode: return "spec-decode";
    case Shape::mixed_step: return "mixed step";
    case Shape::context_chunk: return "context chunk";
    case Shape::audio_encoder: return "audio encoder";
    case Shape::vision_encoder: return "vision encoder";
    case Shape::patch_encoder: return "patch encoder";
  }
  return "?";
}

bool is_decode_like(Shape shape) {
  switch (shape) {
    case Shape::uniform_decode:
    case Shape::ragged_decode:
    case Shape::long_decode:
    case Shape::spec_decode:
    case Shape::mixed_step: return true;
    default: return false;
  }
}

AttentionConfig sized(const std::function<AttentionConfig(std::int64_t)>& make, std::int64_t min_batch,
                      std::int64_t max_batch, SizeFloor floor) {
  const auto meets = [&](std::int64_t n) {
    const Accounting a = account(make(n));
    return static_cast<double>(a.flops) >= floor.flops || static_cast<double>(a.total_bytes()) >= floor.bytes;
  };
  std::int64_t low = min_batch - 1;  // largest batch known to miss the budget
  std::int64_t high = min_batch;
  while (!meets(high)) {
    if (high >= max_batch) return make(max_batch);
    low = high;
    high = std::min(high * 2, max_batch);
  }
  while (high - low > 1) {  // every cost grows with the batch, so bisection finds the smallest
    const std::int64_t mid = low + (high - low) / 2;
    (meets(mid) ? high : low) = mid;
  }
  // Round batches past 8 up to a multiple of 8: readable names, and the budget stays met.
  if (high > 8) high = std::min((high + 7) / 8 * 8, max_batch);
  return make(high);
}

AttentionConfig build_cell(const Cell& cell, const AttentionFamily& family) {
  const Geometry& g = cell.geometry;
  const auto make = [&](std::int64_t n) {
    AttentionConfig c = geometry_config(g, shape_seqs(cell, n));
    c.dtype = cell.dtype;
    c.causal = cell.causal;
    c.window_left = cell.window_left;
    c.window_right = cell.causal && cell.window_left >= 0 ? 0 : cell.window_right;
    c.softcap = cell.softcap;
    c.sinks = cell.sinks;
    c.prefix_lm = cell.prefix_lm;
    c.page = cell.page.value_or(g.page.value_or(16));
    c.splits = cell.splits.value_or(g.splits.value_or(0));
    c.aot = family.has_ahead_of_time_metadata() && cell.aot.value_or(is_decode_like(cell.shape));
    c.lse = cell.lse;
    return c;
  };
  if (cell.batch > 0) return make(cell.batch);
  const BatchBounds bounds = batch_bounds(cell.shape);
  return sized(make, bounds.min, bounds.max, family.size_floor());
}

AttentionConfig geometry_config(const Geometry& g, SeqSpec seqs) {
  AttentionConfig c;
  c.hq = g.hq;
  c.hkv = g.hkv;
  c.d = g.d;
  c.dv = g.dv;
  c.qv = g.qv;
  c.causal = true;
  c.page = g.page.value_or(16);
  c.splits = g.splits.value_or(0);
  c.seqs = std::move(seqs);
  return c;
}

std::string describe_cell(const Cell& cell) {
  std::string text = cell.shape == Shape::spec_decode ? fmt::format("spec-decode q={}", cell.spec_q)
                                                      : std::string(shape_name(cell.shape));
  text += fmt::format(", {}", cell.geometry.tag);
  if (cell.dtype != Precision::bf16) text += fmt::format(", {}", to_string(cell.dtype));
  if (!cell.causal) text += ", non-causal";
  if (cell.window_left >= 0) {
    text += cell.causal ? fmt::format(", window {}", cell.window_left + 1)
                        : fmt::format(", window ({},{})", cell.window_left, cell.window_right);
  }
  if (cell.softcap != 0) text += fmt::format(", softcap {}", cell.softcap);
  if (cell.sinks) text += ", sinks";
  if (cell.prefix_lm != PrefixLm{}) text += fmt::format(", PrefixLM {}x{}", cell.prefix_lm.spans, cell.prefix_lm.width);
  if (cell.page) text += fmt::format(", page {}", *cell.page);
  if (cell.splits) {
    text += *cell.splits == 0   ? std::string(", heuristic splits")
            : *cell.splits == 1 ? std::string(", forced 1 split")
                                : fmt::format(", splits cap {}", *cell.splits);
  }
  if (cell.aot && !*cell.aot) text += ", no AOT metadata";
  if (cell.lse) text += ", LSE";
  return text;
}

}  // namespace kseek::attention::sets
