// Enforces declared constraints on a built candidate (cubin symbols, inlined names, PTX), never on source.
// It must never pass a candidate whose binary it could not read: unreadable is a violation of its own.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

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

void to_json(nlohmann::json& j, const Violation& v);

}  // namespace kseek
