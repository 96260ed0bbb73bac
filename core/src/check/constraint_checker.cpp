// Matches every name of a built candidate against the declared symbol rules.
// It must never stop at the first match of a rule silently: each offending symbol is named.
#include "kseek/core/check/constraint_checker.hpp"

#include <regex>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "kseek/core/check/binary_names.hpp"

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

Result<ConstraintReport> check_constraints(const Constraints& constraints, std::string_view cubin,
                                           std::string_view ptx) {
  if (cubin.empty() && ptx.empty()) return make_error("nothing to check: neither a cubin nor PTX was built");
  std::vector<SymbolRule> rules = constraints.forbidden_symbols;
  if (constraints.forbid_device_launch) rules.push_back(device_launch_rule());

  std::vector<std::pair<const SymbolRule*, std::vector<std::regex>>> compiled;
  for (const auto& rule : rules) {
    std::vector<std::regex> patterns;
    for (const auto& pattern : rule.patterns) {
      try {
        patterns.emplace_back(pattern, std::regex::ECMAScript | std::regex::optimize);
      } catch (const std::regex_error& e) {
        return make_error(fmt::format("constraint rule '{}': invalid pattern '{}' ({})", rule.id, pattern, e.what()));
      }
    }
    compiled.emplace_back(&rule, std::move(patterns));
  }

  std::vector<BinaryName> names;
  if (!cubin.empty()) {
    auto from_cubin = cubin_names(cubin);
    if (!from_cubin) return make_error(fmt::format("cannot inspect the built cubin: {}", from_cubin.error().message));
    names = std::move(*from_cubin);
  }
  for (auto& name : ptx_names(ptx)) names.push_back(std::move(name));

  ConstraintReport report;
  report.names_inspected = names.size();
  // A name often appears several times (symbol, call target, debug string); match each spelling once.
  std::set<std::string> matched_names;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& name : names) {
    if (!matched_names.insert(name.name).second) continue;
    const std::string readable = demangle(name.name);
    const bool spelled_twice = readable != name.name;
    for (const auto& [rule, patterns] : compiled) {
      for (const auto& pattern : patterns) {
        // An unmangled name demangles to itself: one search of the one spelling says the same as two.
        if (std::regex_search(readable, pattern) || (spelled_twice && std::regex_search(name.name, pattern))) {
          if (seen.emplace(rule->id, readable).second) {
            report.violations.push_back({rule->id, rule->description, readable, name.name, name.where});
          }
          break;
        }
      }
    }
  }
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
