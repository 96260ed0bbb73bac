// The non-virtual half of AttentionFamily: shared rules before the family's, and the set names both families answer.
// It must never decide anything by which family it is given: it only calls the family's virtuals.
#include "kseek/attention/attention_family.hpp"

#include <fmt/format.h>

namespace kseek::attention {

Result<void> AttentionFamily::validate(const AttentionConfig& config) const {
  if (auto ok = attention::validate(config); !ok) return ok;
  if (auto ok = check_family_rules(config); !ok) return make_error(fmt::format("{}: {}", name(), ok.error().message));
  return Ok{};
}

Result<std::vector<NamedScenario>> AttentionFamily::scenario_set(std::string_view set_name) const {
  const auto kept = [](KeptSet& set, auto build) {
    std::call_once(set.built, [&] { set.result.emplace(build()); });
    return *set.result;
  };
  if (set_name == kCaseStudySet) return kept(case_study_, [this] { return case_study_set(); });
  if (set_name == kFullSet) return kept(full_, [this] { return full_set(); });
  return make_error(
      fmt::format("unknown {} scenario set '{}' (known: {}, {})", name(), set_name, kCaseStudySet, kFullSet));
}

}  // namespace kseek::attention
