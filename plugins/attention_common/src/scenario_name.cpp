// Scenario names: `key=value,...` parsed into an AttentionConfig and written back in the one canonical spelling.
// It must never accept a name it cannot write back identically, nor let an unknown, duplicate or missing key pass.
#include <array>
#include <charconv>
#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kseek/attention/scenario_config.hpp"

namespace kseek::attention {
namespace {

struct KeySpec {
  std::string_view name;
  bool required;
};

// Canonical order; the parser lists these in its "known" and "required" messages.
constexpr std::array kKeys = {
    KeySpec{"hq", true},       KeySpec{"hkv", true},    KeySpec{"d", true},          KeySpec{"dv", false},
    KeySpec{"qv", false},      KeySpec{"dtype", true},  KeySpec{"causal", true},     KeySpec{"window", false},
    KeySpec{"softcap", false}, KeySpec{"sinks", false}, KeySpec{"prefix_lm", false}, KeySpec{"page", true},
    KeySpec{"splits", false},  KeySpec{"aot", false},   KeySpec{"lse", false},       KeySpec{"cascade_prefix", false},
    KeySpec{"seqs", true},     KeySpec{"seed", false},
};

std::string known_keys() {
  std::vector<std::string_view> names;
  for (const KeySpec& key : kKeys) names.push_back(key.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string required_keys() {
  std::vector<std::string_view> names;
  for (const KeySpec& key : kKeys) {
    if (key.required) names.push_back(key.name);
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

// Splits at commas outside (...) and [...], so `seqs=256x(1,4096)` and `window=(127,0)` stay whole.
Result<std::vector<std::string_view>> split_pairs(std::string_view name) {
  std::vector<std::string_view> pairs;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= name.size(); ++i) {
    const char c = i < name.size() ? name[i] : ',';
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') {
      if (--depth < 0) return make_error(fmt::format("scenario name '{}': unbalanced '{}' at position {}", name, c, i));
    }
    if (c == ',' && depth == 0) {
      if (i == start)
        return make_error(fmt::format("scenario name '{}': empty key=value pair at position {}", name, i));
      pairs.push_back(name.substr(start, i - start));
      start = i + 1;
    }
  }
  if (depth != 0) return make_error(fmt::format("scenario name '{}': unbalanced brackets", name));
  return pairs;
}

Result<std::int64_t> parse_int(std::string_view key, std::string_view value) {
  std::int64_t out = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (ec != std::errc() || end != value.data() + value.size()) {
    return make_error(fmt::format("{}={} is not an integer", key, value));
  }
  return out;
}

Result<int> parse_int32(std::string_view key, std::string_view value) {
  auto parsed = parse_int(key, value);
  if (!parsed) return parsed.error();
  if (parsed.value() < -2147483647 || parsed.value() > 2147483647) {
    return make_error(fmt::format("{}={} does not fit a 32-bit integer", key, value));
  }
  return static_cast<int>(parsed.value());
}

Result<bool> parse_bool(std::string_view key, std::string_view value) {
  if (value == "0") return false;
  if (value == "1") return true;
  return make_error(fmt::format("{}={} is not a flag (allowed: 0, 1)", key, value));
}

Result<Precision> parse_dtype(std::string_view value) {
  for (Precision p : {Precision::bf16, Precision::fp16, Precision::fp8}) {
    if (value == to_string(p)) return p;
  }
  return make_error(fmt::format("dtype={} is not supported (supported: bf16, fp16, fp8)", value));
}

Result<void> parse_window(std::string_view value, AttentionConfig& config) {
  const auto malformed = [&] {
    return make_error(fmt::format("window={} is not (left,right), e.g. window=(127,0); -1 = unbounded", value));
  };
  if (value.size() < 5 || value.front() != '(' || value.back() != ')') return malformed();
  const std::string_view inner = value.substr(1, value.size() - 2);
  const std::size_t comma = inner.find(',');
  if (comma == std::string_view::npos) return malformed();
  auto left = parse_int32("window", inner.substr(0, comma));
  auto right = parse_int32("window", inner.substr(comma + 1));
  if (!left || !right) return malformed();
  config.window_left = left.value();
  config.window_right = right.value();
  return Ok{};
}

Result<PrefixLm> parse_prefix_lm(std::string_view value) {
  const std::size_t x = value.find('x');
  const auto malformed = [&] {
    return make_error(
        fmt::format("prefix_lm={} is not NxW (N spans of W tokens per sequence), e.g. prefix_lm=4x1024", value));
  };
  if (x == std::string_view::npos) return malformed();
  auto spans = parse_int32("prefix_lm", value.substr(0, x));
  auto width = parse_int32("prefix_lm", value.substr(x + 1));
  if (!spans || !width) return malformed();
  return PrefixLm{spans.value(), width.value()};
}

Result<double> parse_softcap(std::string_view value) {
  double out = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(out)) {
    return make_error(fmt::format("softcap={} is not a finite number", value));
  }
  return out;
}

Result<void> apply(std::string_view key, std::string_view value, AttentionConfig& c) {
  const auto set_int = [&](int& field) -> Result<void> {
    auto v = parse_int32(key, value);
    if (!v) return v.error();
    field = v.value();
    return Ok{};
  };
  const auto set_bool = [&](bool& field) -> Result<void> {
    auto v = parse_bool(key, value);
    if (!v) return v.error();
    field = v.value();
    return Ok{};
  };
  if (key == "hq") return set_int(c.hq);
  if (key == "hkv") return set_int(c.hkv);
  if (key == "d") return set_int(c.d);
  if (key == "dv") return set_int(c.dv);
  if (key == "qv") return set_bool(c.qv);
  if (key == "causal") return set_bool(c.causal);
  if (key == "sinks") return set_bool(c.sinks);
  if (key == "page") return set_int(c.page);
  if (key == "splits") return set_int(c.splits);
  if (key == "aot") return set_bool(c.aot);
  if (key == "lse") return set_bool(c.lse);
  if (key == "window") return parse_window(value, c);
  if (key == "dtype") {
    auto v = parse_dtype(value);
    if (!v) return v.error();
    c.dtype = v.value();
    return Ok{};
  }
  if (key == "softcap") {
    auto v = parse_softcap(value);
    if (!v) return v.error();
    c.softcap = v.value();
    return Ok{};
  }
  if (key == "prefix_lm") {
    auto v = parse_prefix_lm(value);
    if (!v) return v.error();
    c.prefix_lm = v.value();
    return Ok{};
  }
  if (key == "cascade_prefix") {
    auto v = parse_int(key, value);
    if (!v) return v.error();
    c.cascade_prefix = v.value();
    return Ok{};
  }
  if (key == "seqs") {
    auto v = parse_seqs(value);
    if (!v) return v.error();
    c.seqs = std::move(v.value());
    return Ok{};
  }
  if (key == "seed") {
    std::uint64_t seed = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seed);
    if (ec != std::errc() || end != value.data() + value.size()) {
      return make_error(fmt::format("seed={} is not an unsigned 64-bit integer", value));
    }
    c.seed = seed;
    return Ok{};
  }
  return make_error(fmt::format("internal: key '{}' has no parser", key));
}

}  // namespace

std::string_view to_string(Precision dtype) {
  switch (dtype) {
    case Precision::bf16: return "bf16";
    case Precision::fp16: return "fp16";
    case Precision::fp8: return "fp8";
  }
  return "?";
}

Result<AttentionConfig> parse_scenario_name(std::string_view name) {
  auto pairs = split_pairs(name);
  if (!pairs) return pairs.error();

  std::array<std::optional<std::string_view>, kKeys.size()> values;
  for (std::string_view pair : pairs.value()) {
    const std::size_t eq = pair.find('=');
    if (eq == std::string_view::npos) {
      return make_error(fmt::format("'{}' is not key=value (known keys: {})", pair, known_keys()));
    }
    const std::string_view key = pair.substr(0, eq);
    const std::string_view value = pair.substr(eq + 1);
    std::size_t index = 0;
    while (index < kKeys.size() && kKeys[index].name != key) ++index;
    if (index == kKeys.size()) return make_error(fmt::format("unknown key '{}' (known: {})", key, known_keys()));
    if (values[index]) {
      return make_error(fmt::format("duplicate key '{}' ({}={} and {}={})", key, key, *values[index], key, value));
    }
    if (value.empty()) return make_error(fmt::format("key '{}' has an empty value", key));
    values[index] = value;
  }

  AttentionConfig config;
  for (std::size_t i = 0; i < kKeys.size(); ++i) {
    if (!values[i]) {
      if (kKeys[i].required) {
        return make_error(fmt::format("missing required key '{}' (required: {})", kKeys[i].name, required_keys()));
      }
      continue;
    }
    if (auto ok = apply(kKeys[i].name, *values[i], config); !ok) return ok.error();
  }
  if (!values[3]) config.dv = config.d;  // dv defaults to d

  if (auto ok = validate(config); !ok) return ok.error();
  return config;
}

std::string format_scenario_name(const AttentionConfig& c) {
  std::vector<std::string> parts;
  parts.push_back(fmt::format("hq={}", c.hq));
  parts.push_back(fmt::format("hkv={}", c.hkv));
  parts.push_back(fmt::format("d={}", c.d));
  if (c.dv != c.d) parts.push_back(fmt::format("dv={}", c.dv));
  if (c.qv) parts.push_back("qv=1");
  parts.push_back(fmt::format("dtype={}", to_string(c.dtype)));
  parts.push_back(fmt::format("causal={}", c.causal ? 1 : 0));
  if (c.window_left != kUnbounded || c.window_right != kUnbounded) {
    parts.push_back(fmt::format("window=({},{})", c.window_left, c.window_right));
  }
  if (c.softcap != 0.0) parts.push_back(fmt::format("softcap={}", c.softcap));
  if (c.sinks) parts.push_back("sinks=1");
  if (c.prefix_lm != PrefixLm{}) parts.push_back(fmt::format("prefix_lm={}x{}", c.prefix_lm.spans, c.prefix_lm.width));
  parts.push_back(fmt::format("page={}", c.page));
  if (c.splits != 0) parts.push_back(fmt::format("splits={}", c.splits));
  if (c.aot) parts.push_back("aot=1");
  if (c.lse) parts.push_back("lse=1");
  if (c.cascade_prefix != 0) parts.push_back(fmt::format("cascade_prefix={}", c.cascade_prefix));
  parts.push_back(fmt::format("seqs={}", format_seqs(c.seqs)));
  if (c.seed != 0) parts.push_back(fmt::format("seed={}", c.seed));
  return fmt::format("{}", fmt::join(parts, ","));
}

}  // namespace kseek::attention
