// A plugin's scenario names, declared once: keys with their types, ranges, choices and defaults; the parser (every
// error names the key and the column where it starts, 1-based, in characters) and the canonical form (declared key
// order, a default left out) follow from the declaration, so a name reads back to itself by construction.
// Header-only: plugins are built against the installed SDK with nothing to link.
// It must never accept a name that two different configurations could share, nor format one it would not parse.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "kseek/sdk/result.hpp"

namespace kseek {

// The values of one parsed name, by key (every declared key has one: given, or its default). Reading a key the
// grammar does not declare gives the type's zero.
class ScenarioValues {
 public:
  std::int64_t integer(std::string_view key) const { return find(integers_, key, std::int64_t{0}); }
  double number(std::string_view key) const { return find(numbers_, key, 0.0); }
  const std::string& choice(std::string_view key) const {
    static const std::string kNone;
    const auto it = choices_.find(std::string(key));
    return it == choices_.end() ? kNone : it->second;
  }

  void set_integer(std::string key, std::int64_t v) { integers_[std::move(key)] = v; }
  void set_number(std::string key, double v) { numbers_[std::move(key)] = v; }
  void set_choice(std::string key, std::string v) { choices_[std::move(key)] = std::move(v); }

 private:
  template <class T>
  static T find(const std::map<std::string, T, std::less<>>& map, std::string_view key, T none) {
    const auto it = map.find(key);
    return it == map.end() ? none : it->second;
  }
  std::map<std::string, std::int64_t, std::less<>> integers_;
  std::map<std::string, double, std::less<>> numbers_;
  std::map<std::string, std::string, std::less<>> choices_;
};

class ScenarioGrammar {
 public:
  enum class Kind { kInteger, kNumber, kChoice };
  struct Key {
    std::string name;
    Kind kind = Kind::kInteger;
    std::string meaning;                  // one line for `kseek scenarios --grammar` and error messages
    std::int64_t min = 0, max = 0;        // integers: inclusive range
    bool positive = false;                // numbers: > 0 (and always finite)
    std::vector<std::string> choices;     // choices: the spellings, in the order errors list them
    std::optional<std::string> fallback;  // canonical text of the default; none: the key is required
  };

  ScenarioGrammar& integer(std::string name, std::int64_t min, std::int64_t max, std::string meaning,
                           std::optional<std::int64_t> fallback = std::nullopt) {
    Key k{std::move(name), Kind::kInteger, std::move(meaning), min, max, false, {}, std::nullopt};
    if (fallback) k.fallback = std::to_string(*fallback);
    keys_.push_back(std::move(k));
    return *this;
  }
  // A finite fp32-representable number; `positive` requires > 0. Numbers are kept as the float they denote, and
  // formatted as the shortest text that reads back to that float.
  ScenarioGrammar& number(std::string name, bool positive, std::string meaning,
                          std::optional<double> fallback = std::nullopt) {
    Key k{std::move(name), Kind::kNumber, std::move(meaning), 0, 0, false, {}, std::nullopt};
    k.positive = positive;
    if (fallback) k.fallback = format_number(*fallback);
    keys_.push_back(std::move(k));
    return *this;
  }
  ScenarioGrammar& choice(std::string name, std::vector<std::string> choices, std::string meaning,
                          std::optional<std::string> fallback = std::nullopt) {
    Key k{std::move(name), Kind::kChoice, std::move(meaning), 0, 0, false, {}, std::nullopt};
    k.choices = std::move(choices);
    k.fallback = std::move(fallback);
    keys_.push_back(std::move(k));
    return *this;
  }

  const std::vector<Key>& keys() const { return keys_; }

  // "rows=1..2147483647,cols=1..2147483647,dtype=bf16|fp16|fp32[,scale=NUMBER>0]": what error messages quote.
  std::string synopsis() const {
    std::string out;
    for (const auto& k : keys_) {
      std::string item = k.name + "=";
      switch (k.kind) {
        case Kind::kInteger: item += std::to_string(k.min) + ".." + std::to_string(k.max); break;
        case Kind::kNumber: item += k.positive ? "NUMBER>0" : "NUMBER"; break;
        case Kind::kChoice:
          for (std::size_t i = 0; i < k.choices.size(); ++i) item += (i ? "|" : "") + k.choices[i];
          break;
      }
      if (k.fallback) {
        out += "[" + std::string(out.empty() ? "" : ",") + item + "]";
      } else {
        out += (out.empty() ? "" : ",") + item;
      }
    }
    return out;
  }

  Result<ScenarioValues> parse(std::string_view name) const {
    ScenarioValues values;
    std::vector<bool> seen(keys_.size(), false);
    if (name.empty()) return fail(name, 0, "the name is empty");
    std::size_t start = 0;
    while (start <= name.size()) {
      const std::size_t comma = std::min(name.find(',', start), name.size());
      const std::string_view item = name.substr(start, comma - start);
      const std::size_t eq = item.find('=');
      if (eq == std::string_view::npos || eq == 0) {
        return fail(name, start, "'" + std::string(item) + "' is not key=value");
      }
      const std::string_view key = item.substr(0, eq);
      const std::string_view text = item.substr(eq + 1);
      const std::size_t index = index_of(key);
      if (index == keys_.size()) {
        return fail(name, start, "unknown key '" + std::string(key) + "' (known: " + key_names() + ")");
      }
      if (seen[index]) return fail(name, start, "key '" + std::string(key) + "' appears twice");
      seen[index] = true;
      if (auto ok = read_value(keys_[index], text, values); !ok) return fail(name, start + eq + 1, ok.error().message);
      start = comma + 1;
    }
    for (std::size_t i = 0; i < keys_.size(); ++i) {
      if (seen[i]) continue;
      if (!keys_[i].fallback) return fail(name, name.size(), "missing key '" + keys_[i].name + "'");
      if (auto ok = read_value(keys_[i], *keys_[i].fallback, values); !ok) return make_error(ok.error().message);
    }
    return values;
  }

  // Keys in declared order; a key equal to its default is left out.
  std::string canonical(const ScenarioValues& values) const {
    std::string out;
    for (const auto& k : keys_) {
      const std::string text = value_text(k, values);
      if (k.fallback && text == *k.fallback) continue;
      out += (out.empty() ? "" : ",") + k.name + "=" + text;
    }
    return out;
  }

  // Shortest text that reads back to the same float.
  static std::string format_number(double value) {
    char buffer[32];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), static_cast<float>(value));
    return ec == std::errc() ? std::string(buffer, end) : std::string("nan");
  }

 private:
  std::size_t index_of(std::string_view key) const {
    for (std::size_t i = 0; i < keys_.size(); ++i) {
      if (keys_[i].name == key) return i;
    }
    return keys_.size();
  }

  std::string key_names() const {
    std::string out;
    for (const auto& k : keys_) out += (out.empty() ? "" : ", ") + k.name;
    return out;
  }

  // "column C: WHY (expected SYNOPSIS)" with the column of the offending text, 1-based, counted in characters (UTF-8
  // continuation bytes do not start a character).
  Error fail(std::string_view name, std::size_t byte, const std::string& why) const {
    std::size_t column = 1;
    for (std::size_t i = 0; i < byte && i < name.size(); ++i) {
      if ((static_cast<unsigned char>(name[i]) & 0xC0) != 0x80) ++column;
    }
    return make_error("column " + std::to_string(column) + ": " + why + " (expected " + synopsis() + ")");
  }

  static Result<void> read_value(const Key& k, std::string_view text, ScenarioValues& values) {
    switch (k.kind) {
      case Kind::kInteger: {
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (text.empty() || ec == std::errc::invalid_argument || end != text.data() + text.size()) {
          return make_error(k.name + "='" + std::string(text) + "' is not an integer");
        }
        if (ec == std::errc::result_out_of_range || v < k.min || v > k.max) {
          return make_error(k.name + "=" + std::string(text) + " is out of range (" + std::to_string(k.min) + " to " +
                            std::to_string(k.max) + ")");
        }
        values.set_integer(k.name, v);
        return Ok{};
      }
      case Kind::kNumber: {
        double v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (text.empty() || ec == std::errc::invalid_argument || end != text.data() + text.size()) {
          return make_error(k.name + "='" + std::string(text) + "' is not a number");
        }
        const auto as_float = static_cast<float>(v);
        if (ec == std::errc::result_out_of_range || !std::isfinite(as_float) || (k.positive && !(as_float > 0.0f))) {
          return make_error(k.name + "=" + std::string(text) + " must be a " + (k.positive ? "positive, " : "") +
                            "finite fp32 value");
        }
        values.set_number(k.name, static_cast<double>(as_float));
        return Ok{};
      }
      case Kind::kChoice: {
        for (const auto& c : k.choices) {
          if (c == text) {
            values.set_choice(k.name, c);
            return Ok{};
          }
        }
        std::string known;
        for (const auto& c : k.choices) known += (known.empty() ? "" : ", ") + c;
        return make_error(k.name + "='" + std::string(text) + "' is not one of " + known);
      }
    }
    return make_error("unknown key kind");
  }

  static std::string value_text(const Key& k, const ScenarioValues& values) {
    switch (k.kind) {
      case Kind::kInteger: return std::to_string(values.integer(k.name));
      case Kind::kNumber: return format_number(values.number(k.name));
      case Kind::kChoice: return values.choice(k.name);
    }
    return "";
  }

  std::vector<Key> keys_;
};

}  // namespace kseek
