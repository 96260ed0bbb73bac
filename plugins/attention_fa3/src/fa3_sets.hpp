// The FA3 family's scenario sets, built with the shared set vocabulary (scenario_set_builder.hpp).
// Internal to this plugin: it must never be installed; callers reach the sets through AttentionFamily::scenario_set.
#pragma once

#include <vector>

#include "kseek/attention/attention_family.hpp"

namespace kseek::plugins::fa3 {

// SCENARIOS.md 5a: H01..H26.
Result<std::vector<attention::NamedScenario>> fa3_case_study_set(const attention::AttentionFamily& family);
// SCENARIOS.md 5b: the seven construction blocks, ids HF<block>-<nn>.
Result<std::vector<attention::NamedScenario>> fa3_full_set(const attention::AttentionFamily& family);

}  // namespace kseek::plugins::fa3
