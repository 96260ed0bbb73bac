// The FA4 family's scenario sets, built with the shared set vocabulary (scenario_set_builder.hpp).
// Internal to this plugin: it must never be installed; callers reach the sets through AttentionFamily::scenario_set.
#pragma once

#include <vector>

#include "kseek/attention/attention_family.hpp"

namespace kseek::plugins::fa4 {

// SCENARIOS.md 5c: B01..B26.
Result<std::vector<attention::NamedScenario>> fa4_case_study_set(const attention::AttentionFamily& family);
// SCENARIOS.md 5d: the seven construction blocks, ids BF<block>-<nn>.
Result<std::vector<attention::NamedScenario>> fa4_full_set(const attention::AttentionFamily& family);

}  // namespace kseek::plugins::fa4
