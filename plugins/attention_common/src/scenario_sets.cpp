// The entry point to the named scenario sets of both attention families.
// It must never return a set that was not validated for its family's reference architecture.
#include <fmt/format.h>

#include "set_builders.hpp"

namespace kseek::attention {

Arch reference_arch(Family family) { return family == Family::fa3 ? Arch::sm90 : Arch::sm100; }

Result<std::vector<NamedScenario>> scenario_set(Family family, std::string_view set_name) {
  if (set_name == kCaseStudySet) return detail::case_study_set(family);
  if (set_name == kFullSet) return family == Family::fa3 ? detail::full_set_fa3() : detail::full_set_fa4();
  return make_error(fmt::format("unknown {} scenario set '{}' (known: {}, {})", to_string(family), set_name,
                                kCaseStudySet, kFullSet));
}

}  // namespace kseek::attention
