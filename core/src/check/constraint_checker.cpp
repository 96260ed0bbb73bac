// Matches every name of a built candidate against the declared symbol rules.
// It must never stop at the first match of a rule silently: each offending symbol is named.
#include "kseek/core/check/constraint_checker.hpp"

#include <regex>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "kseek/core/check/binary_names.hpp"
#include "kseek/core/check/required_literal.hpp"

namespace kseek {

SymbolRule device_launch_rule() {
  return SymbolRule{
      .id = "no-device-launch",
      .description = "kernels launched from the device escape the timed window (dynamic parallelism)",
      // CUDA 12 spells them cudaLaunchDeviceV2...; CUDA 13 adds the __cudaCDP2 prefix.
      .patterns = {"(^|_)cudaLaunchDevice", "(^|_)cudaGetParameterBuffer", "(^|_)cudaGraphLaunch",
                   "(^|_)cudaStreamTailLaunch", "(^|_)cudaStreamFireAndForget", "^__cudaCDP"},
  };
}

Result<RuleMatcher> RuleMatcher::compile(std::vector<SymbolRule> rules, NamePrefilter prefilter) {
  RuleMatcher matcher;
  for (auto& rule : rules) {
    Rule compiled{std::move(rule), {}};
    for (const auto& pattern : compiled.rule.patterns) {
      try {
        // required_literal() reads patterns in exactly this grammar, case-sensitive: a flag such as icase added here
        // would have to be taught to it first.
        compiled.patterns.push_back(
            {std::regex(pattern, std::regex::ECMAScript | std::regex::optimize),
             prefilter == NamePrefilter::required_literal ? required_literal(pattern) : std::string()});
      } catch (const std::regex_error& e) {
        return make_error(
            fmt::format("constraint rule '{}': invalid pattern '{}' ({})", compiled.rule.id, pattern, e.what()));
      }
    }
    matcher.rules_.push_back(std::move(compiled));
  }
  return matcher;
}

std::vector<Violation> RuleMatcher::match(const std::vector<BinaryName>& names) const {
  std::vector<Violation> violations;
  // A name often appears several times (symbol, call target, debug string); match each spelling once.
  std::set<std::string> matched_names;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& name : names) {
    if (!matched_names.insert(name.name).second) continue;
    const std::string readable = demangle(name.name);
    const bool spelled_twice = readable != name.name;
    // A seed has ~2,000 distinct names and nearly none holds a rule's text: a substring scan per pattern is far
    // cheaper than the regex search it spares (issue 20).
    const auto may_match = [&](const std::string& required) {
      return required.empty() || readable.find(required) != std::string::npos ||
             (spelled_twice && name.name.find(required) != std::string::npos);
    };
    for (const auto& [rule, patterns] : rules_) {
      for (const auto& pattern : patterns) {
        if (!may_match(pattern.required)) continue;
        // An unmangled name demangles to itself: one search of the one spelling says the same as two.
        if (std::regex_search(readable, pattern.regex) ||
            (spelled_twice && std::regex_search(name.name, pattern.regex))) {
          if (seen.emplace(rule.id, readable).second) {
            violations.push_back({rule.id, rule.description, readable, name.name, name.where});
          }
          break;
        }
      }
    }
  }
  return violations;
}

Result<ConstraintReport> check_constraints(const Constraints& constraints, std::string_view cubin,
                                           std::string_view ptx) {
  if (cubin.empty() && ptx.empty()) return make_error("nothing to check: neither a cubin nor PTX was built");
  std::vector<SymbolRule> rules = constraints.forbidden_symbols;
  if (constraints.forbid_device_launch) rules.push_back(device_launch_rule());

  auto matcher = RuleMatcher::compile(std::move(rules));
  if (!matcher) return matcher.error();

  std::vector<BinaryName> names;
  if (!cubin.empty()) {
    auto from_cubin = cubin_names(cubin);
    if (!from_cubin) return make_error(fmt::format("cannot inspect the built cubin: {}", from_cubin.error().message));
    names = std::move(*from_cubin);
  }
  for (auto& name : ptx_names(ptx)) names.push_back(std::move(name));

  ConstraintReport report;
  report.names_inspected = names.size();
  report.violations = matcher->match(names);
  return report;
}

void to_json(nlohmann::json& j, const Violation& v) {
  j = {{"rule", v.rule},
       {"description", v.description},
       {"symbol", v.symbol},
       {"raw_symbol", v.raw_symbol},
       {"where", v.where}};
}

}  // namespace kseek
