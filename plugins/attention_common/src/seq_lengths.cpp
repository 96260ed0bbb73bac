// The `seqs` value of a scenario name: its grammar (parse, canonical format) and its expansion into lengths.
// It must never apply mask or architecture rules: it only knows lengths (validate() owns legality).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kseek/attention/scenario_config.hpp"
#include "seq_spec_checks.hpp"

namespace kseek::attention {
namespace {

using Kind = Lengths::Kind;

bool is_fixed_list(const Lengths& lens) { return lens.kind == Kind::ragged_prompts || lens.kind == Kind::list; }
bool is_spaced(const Lengths& lens) { return lens.kind == Kind::geometric || lens.kind == Kind::linear; }

std::int64_t list_size(const Lengths& lens) {
  return lens.kind == Kind::ragged_prompts ? static_cast<std::int64_t>(ragged_prompt_lengths().size())
                                           : static_cast<std::int64_t>(lens.values.size());
}

// Rounds num/den half away from zero, exactly (den > 0), so LIN lengths never depend on floating point.
std::int64_t rounded_ratio(std::int64_t num, std::int64_t den) {
  return num >= 0 ? (2 * num + den) / (2 * den) : -((-2 * num + den) / (2 * den));
}

std::int64_t length_at(const Lengths& lens, std::int64_t i, std::int64_t n) {
  switch (lens.kind) {
    case Kind::constant: return lens.a;
    case Kind::geometric: {
      // Endpoints exact; interior points in long double, rounded to nearest (a tie rounded either way moves one
      // length by 1). a < 1 only reaches here from an unchecked spec built in code.
      if (n == 1 || i == 0 || lens.a < 1) return lens.a;
      if (i == n - 1) return lens.b;
      const long double ratio = static_cast<long double>(lens.b) / static_cast<long double>(lens.a);
      const long double t = static_cast<long double>(i) / static_cast<long double>(n - 1);
      return std::llround(static_cast<long double>(lens.a) * std::pow(ratio, t));
    }
    case Kind::linear: return n == 1 ? lens.a : lens.a + rounded_ratio((lens.b - lens.a) * i, n - 1);
    case Kind::ragged_prompts: {
      const auto& rp = ragged_prompt_lengths();
      return rp[static_cast<std::size_t>(i % static_cast<std::int64_t>(rp.size()))] * lens.a;
    }
    case Kind::list:
      if (lens.values.empty()) return 0;  // only from an unchecked spec built in code
      return lens.values[static_cast<std::size_t>(i % static_cast<std::int64_t>(lens.values.size()))];
  }
  return 0;
}

std::int64_t max_length(const Lengths& lens) {
  switch (lens.kind) {
    case Kind::constant: return lens.a;
    case Kind::geometric:
    case Kind::linear: return std::max(lens.a, lens.b);
    case Kind::ragged_prompts:
      // Guarded so that an absurd scale built in code reports an error instead of overflowing.
      return lens.a > detail::kMaxLength / 8192 ? detail::kMaxLength + 1 : 8192 * lens.a;
    case Kind::list: return lens.values.empty() ? 0 : *std::max_element(lens.values.begin(), lens.values.end());
  }
  return 0;
}

std::string format_lengths(const Lengths& lens) {
  switch (lens.kind) {
    case Kind::constant: return fmt::format("{}", lens.a);
    case Kind::geometric: return fmt::format("GEO({},{})", lens.a, lens.b);
    case Kind::linear: return fmt::format("LIN({},{})", lens.a, lens.b);
    case Kind::ragged_prompts: return lens.a == 1 ? std::string("RP") : fmt::format("RP*{}", lens.a);
    case Kind::list: return fmt::format("[{}]", fmt::join(lens.values, ","));
  }
  return {};
}

Result<void> check_lengths(const Lengths& lens, std::size_t group, std::string_view side) {
  const auto where = [&] { return fmt::format("seqs group {} ({} lengths {})", group, side, format_lengths(lens)); };
  switch (lens.kind) {
    case Kind::constant:
      if (lens.a < 0) return make_error(fmt::format("{}: a length must be >= 0", where()));
      break;
    case Kind::geometric:
      if (lens.a < 1 || lens.b < 1) return make_error(fmt::format("{}: GEO(a,b) needs a >= 1 and b >= 1", where()));
      break;
    case Kind::linear:
      if (lens.a < 0 || lens.b < 0) return make_error(fmt::format("{}: LIN(a,b) needs a >= 0 and b >= 0", where()));
      break;
    case Kind::ragged_prompts:
      if (lens.a < 1) return make_error(fmt::format("{}: the RP scale must be >= 1", where()));
      break;
    case Kind::list:
      if (lens.values.empty())
        return make_error(fmt::format("{}: an explicit list needs at least one length", where()));
      for (std::int64_t v : lens.values) {
        if (v < 0) return make_error(fmt::format("{}: a length must be >= 0", where()));
      }
      break;
  }
  if (max_length(lens) > detail::kMaxLength) {
    return make_error(fmt::format("{}: a length exceeds {} (int32 sequence lengths)", where(), detail::kMaxLength));
  }
  return Ok{};
}

// Recursive descent over the grammar in scenario_config.hpp; errors quote the text and the position.
class SeqParser {
 public:
  explicit SeqParser(std::string_view text) : text_(text) {}

  Result<SeqSpec> parse() {
    SeqSpec spec;
    do {
      auto group = parse_group();
      if (!group) return group.error();
      spec.groups.push_back(std::move(group.value()));
    } while (eat('+'));
    if (pos_ != text_.size()) return error_here("'+' or the end of the value");
    if (auto ok = detail::check_seq_spec(spec); !ok)
      return make_error(fmt::format("seqs={}: {}", text_, ok.error().message));
    return spec;
  }

 private:
  Result<SeqGroup> parse_group() {
    const std::size_t group_start = pos_;
    SeqGroup group;
    std::optional<std::int64_t> count;
    if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      const std::size_t start = pos_;
      auto value = parse_integer();
      if (!value) return value.error();
      if (eat('x')) {
        count = value.value();
      } else {
        pos_ = start;  // a plain constant length: parse it again as the item
      }
    }
    if (eat('(')) {
      auto q = parse_lengths();
      if (!q) return q.error();
      if (!eat(',')) return error_here("',' between q and k lengths");
      auto k = parse_lengths();
      if (!k) return k.error();
      if (!eat(')')) return error_here("')' closing (q,k)");
      group.q = std::move(q.value());
      group.k = std::move(k.value());
    } else {
      auto qk = parse_lengths();
      if (!qk) return qk.error();
      group.q = qk.value();
      group.k = std::move(qk.value());
    }
    if (count) {
      group.count = *count;
    } else if (const std::int64_t period = detail::fixed_list_period(group); period > 0) {
      group.count = period;
    } else if (is_spaced(group.q) || is_spaced(group.k)) {
      return error_here("a count before GEO/LIN (e.g. 256x(1,GEO(256,32768)))", group_start);
    } else {
      group.count = 1;
    }
    return group;
  }

  Result<Lengths> parse_lengths() {
    if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      auto value = parse_integer();
      if (!value) return value.error();
      return Lengths::fixed(value.value());
    }
    if (eat("GEO(") || eat("LIN(")) {
      const bool geometric = text_[pos_ - 4] == 'G';
      auto a = parse_integer();
      if (!a) return a.error();
      if (!eat(',')) return error_here("',' between the two endpoints");
      auto b = parse_integer();
      if (!b) return b.error();
      if (!eat(')')) return error_here("')'");
      return geometric ? Lengths::geo(a.value(), b.value()) : Lengths::lin(a.value(), b.value());
    }
    if (eat("RP")) {
      if (!eat('*')) return Lengths::rp(1);
      auto scale = parse_integer();
      if (!scale) return scale.error();
      return Lengths::rp(scale.value());
    }
    if (eat('[')) {
      std::vector<std::int64_t> values;
      do {
        auto value = parse_integer();
        if (!value) return value.error();
        values.push_back(value.value());
      } while (eat(','));
      if (!eat(']')) return error_here("',' or ']'");
      return Lengths::list(std::move(values));
    }
    return error_here("a length: INT, GEO(a,b), LIN(a,b), RP, RP*s or [INT,...]");
  }

  Result<std::int64_t> parse_integer() {
    const std::size_t start = pos_;
    std::int64_t value = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      if (value > (std::int64_t{1} << 40)) return error_here("an integer below 2^40", start);
      value = value * 10 + (text_[pos_] - '0');
      ++pos_;
    }
    if (pos_ == start) return error_here("a non-negative integer");
    return value;
  }

  bool eat(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool eat(std::string_view token) {
    if (text_.substr(pos_, token.size()) == token) {
      pos_ += token.size();
      return true;
    }
    return false;
  }

  Error error_here(std::string_view expected) const { return error_here(expected, pos_); }
  Error error_here(std::string_view expected, std::size_t at) const {
    const std::string_view rest = at < text_.size() ? text_.substr(at) : std::string_view("<end>");
    return make_error(fmt::format("seqs={}: expected {} at position {} ('{}')", text_, expected, at, rest));
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

const std::vector<std::int64_t>& ragged_prompt_lengths() {
  static const std::vector<std::int64_t> kRaggedPrompts = {8192, 6144, 4608, 3072, 3072, 2048, 2048, 1536,
                                                           1280, 1024, 1024, 896,  768,  640,  512,  512,
                                                           384,  320,  256,  192,  160,  128,  128,  96};
  return kRaggedPrompts;
}

namespace detail {

std::int64_t fixed_list_period(const SeqGroup& group) {
  std::int64_t period = 0;
  for (const Lengths* lens : {&group.q, &group.k}) {
    if (!is_fixed_list(*lens) || list_size(*lens) == 0) continue;
    period = period == 0 ? list_size(*lens) : std::lcm(period, list_size(*lens));
  }
  return period;
}

Result<void> check_seq_spec(const SeqSpec& seqs) {
  if (seqs.groups.empty()) return make_error("seqs is empty: at least one sequence is needed");
  for (std::size_t g = 0; g < seqs.groups.size(); ++g) {
    const SeqGroup& group = seqs.groups[g];
    if (auto ok = check_lengths(group.q, g + 1, "q"); !ok) return ok;
    if (auto ok = check_lengths(group.k, g + 1, "k"); !ok) return ok;
    if (group.count < 1 || group.count > kMaxGroupCount) {
      return make_error(
          fmt::format("seqs group {}: count {} is out of range (1..{})", g + 1, group.count, kMaxGroupCount));
    }
    if (const std::int64_t period = fixed_list_period(group); period > 0 && group.count % period != 0) {
      return make_error(fmt::format("seqs group {}: count {} is not a multiple of its fixed list's length {}", g + 1,
                                    group.count, period));
    }
  }
  return Ok{};
}

}  // namespace detail

Result<SeqSpec> parse_seqs(std::string_view text) { return SeqParser(text).parse(); }

std::string format_seqs(const SeqSpec& seqs) {
  std::string out;
  for (const SeqGroup& group : seqs.groups) {
    if (!out.empty()) out += '+';
    const std::int64_t period = detail::fixed_list_period(group);
    const bool constant = group.q.kind == Kind::constant && group.k.kind == Kind::constant;
    const bool implied = period > 0 ? group.count == period : (constant && group.count == 1);
    if (!implied) out += fmt::format("{}x", group.count);
    out += group.q == group.k ? format_lengths(group.q)
                              : fmt::format("({},{})", format_lengths(group.q), format_lengths(group.k));
  }
  return out;
}

std::vector<SeqLens> expand_seqs(const SeqSpec& seqs) {
  std::vector<SeqLens> out;
  for (const SeqGroup& group : seqs.groups) {
    for (std::int64_t i = 0; i < group.count; ++i) {
      out.push_back({length_at(group.q, i, group.count), length_at(group.k, i, group.count)});
    }
  }
  return out;
}

}  // namespace kseek::attention
