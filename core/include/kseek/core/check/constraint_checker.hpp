// Enforces declared constraints on a built candidate (cubin symbols, inlined names, PTX), never on source.
// It must never pass a candidate whose binary it could not read: unreadable is a violation of its own.
#pragma once

#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kseek/core/check/binary_names.hpp"
#include "kseek/sdk/result.hpp"
#include "kseek/sdk/types.hpp"

namespace kseek {

struct Violation {
  std::string rule;         // rule id, e.g. "no-cutlass"
  std::string description;  // why the rule exists
  std::string symbol;       // demangled name that matched
  std::string raw_symbol;   // as stored in the binary
  std::string where;        // which part of the binary carried it
};

struct ConstraintReport {
  std::vector<Violation> violations;
  std::size_t names_inspected = 0;
  bool ok() const { return violations.empty(); }
};

// The rule that `forbid_device_launch` turns on: the runtime entry points a device-side launch compiles to.
SymbolRule device_launch_rule();

// Checks the names of a cubin and/or its PTX (either may be empty, not both). Each (rule, symbol) pair is
// reported once. An invalid pattern in a rule is an error naming the rule.
Result<ConstraintReport> check_constraints(const Constraints& constraints, std::string_view cubin,
                                           std::string_view ptx);

// Whether a name is searched with a pattern's regex only when it contains the text every match of that pattern must
// hold (required_literal.hpp). The findings are the same either way; `none` exists so that a test can show it.
enum class NamePrefilter { required_literal, none };

// The rules compiled once, then matched against names: the findings check_constraints reports, in the same order.
class RuleMatcher {
 public:
  // An invalid pattern is an error naming the rule and the pattern.
  static Result<RuleMatcher> compile(std::vector<SymbolRule> rules,
                                     NamePrefilter prefilter = NamePrefilter::required_literal);
  // Each (rule, symbol) pair once, in the order of the names, then of the rules.
  std::vector<Violation> match(const std::vector<BinaryName>& names) const;

 private:
  struct Pattern {
    std::regex regex;
    std::string required;  // text every match holds; empty: every name is searched
  };
  struct Rule {
    SymbolRule rule;
    std::vector<Pattern> patterns;
  };
  RuleMatcher() = default;
  std::vector<Rule> rules_;
};

void to_json(nlohmann::json& j, const Violation& v);

}  // namespace kseek
