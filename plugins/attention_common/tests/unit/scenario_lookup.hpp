// Scenario lookups the attention unit tests share: a family's set by name, one scenario of a set by id; a missing set
// or id is a test failure, not a crash.
#pragma once

#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "kseek/attention/attention_family.hpp"

namespace kseek::attention::test_lookup {

inline std::vector<NamedScenario> set_or_die(const AttentionFamily& family, std::string_view name) {
  auto set = family.scenario_set(name);
  EXPECT_TRUE(set.ok()) << (set.ok() ? "" : set.error().message);
  return set.ok() ? set.value() : std::vector<NamedScenario>{};
}

inline const NamedScenario& find(const std::vector<NamedScenario>& set, std::string_view id) {
  for (const NamedScenario& s : set) {
    if (s.id == id) return s;
  }
  ADD_FAILURE() << "no scenario " << id;
  static const NamedScenario kMissing{};
  return kMissing;
}

}  // namespace kseek::attention::test_lookup
