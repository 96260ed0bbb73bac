// What a candidate author needs to read about one operator, in one place: CONTRACT.md and the candidate headers.
// It must never describe a rule the build or the evaluation does not apply: every line comes from the plugin,
// the constraints and the build request kseek really uses.
#pragma once

#include <string>
#include <vector>

#include "kseek/sdk/plugin.hpp"

namespace kseek::app {

// The headers a candidate of `plugin` may include by name, as NVRTC is offered them: the SDK's, then the plugin's.
std::vector<SourceFile> candidate_header_files(const Plugin& plugin);

// CONTRACT.md: operator semantics (the plugin's description and the opening comments of its headers), the candidate
// ABI, the constraints, the tolerance rule with each scenario's factors, and how to evaluate. `scenarios` are the ones
// the tolerance section lists (a campaign's, or the plugin's default set); `header_folder` is where the headers lie
// next to it ("include" in a campaign), empty when they are not written out.
std::string contract_markdown(const Plugin& plugin, const Constraints& constraints, const std::string& arch,
                              const std::vector<Scenario>& scenarios, const std::string& header_folder);

}  // namespace kseek::app
