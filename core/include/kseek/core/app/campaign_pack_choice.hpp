// Which question packs a new campaign takes, and why it leaves each installed pack out that it does not take.
// It must never take a pack whose architecture no campaign can match, nor leave one out without a reason.
#pragma once

#include <string>
#include <vector>

#include "kseek/core/app/question_library.hpp"
#include "kseek/sdk/result.hpp"

namespace kseek::app {

struct InstalledPackNote {
  std::string id;
  std::string file;
  std::string reason;  // empty for a pack that was taken
};

struct PackChoice {
  std::vector<std::string> ids;             // campaign.json "packs"
  std::vector<std::string> pinned_files;    // campaign.json "pack_files": the installed packs taken, absolute
  std::vector<InstalledPackNote> taken;     // installed packs taken
  std::vector<InstalledPackNote> left_out;  // installed packs left out, each with its reason
};

// `named` empty: every built-in pack, the campaign plugin's own, and every installed pack (user folder) whose
// architecture is none or the campaign's (sm_90a matches sm_90). `named` given: exactly those, each of which must
// exist and fit the campaign's architecture. A pack whose architecture is not sm_NN or sm_NNa is never taken.
Result<PackChoice> choose_campaign_packs(const PackLibrary& library, const std::string& plugin_id,
                                         const std::string& arch, const std::vector<std::string>& named);

}  // namespace kseek::app
