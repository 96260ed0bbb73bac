// The CPU half of the plugin conformance suite as a product feature (`kseek conform`): each check is a named outcome
// (PASSED, FAILED, SKIPPED) with every problem it found, for any plugin, in the installed kseek.
// It must never launch a kernel or need a GPU: the GPU half is an A/A `kseek eval` on a GPU machine.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kseek/core/build/build_cache.hpp"
#include "kseek/core/plugin/plugin_registry.hpp"

namespace kseek {

struct ConformanceCheck {
  std::string name;                   // stable, e.g. "names-read-back"
  std::string status;                 // PASSED, FAILED or SKIPPED
  std::string summary;                // one line: what was checked, or why it was skipped
  std::vector<std::string> problems;  // one line each, naming the set, scenario, arch or file
};

// Runs every check on `loaded` (descriptor and info, scenario names read back, layouts, question packs lint-clean,
// seed builds constraint-clean for every target, device library builds for every target). Builds go through `cache`
// (none: no cache).
std::vector<ConformanceCheck> check_plugin_conformance(const LoadedPlugin& loaded, std::optional<BuildCache> cache);

// `folder` (a cache root, e.g. BuildCache::default_folder()) with the subfolder conformance builds keep to themselves.
std::filesystem::path conformance_cache_folder(const std::filesystem::path& folder);

nlohmann::json to_json(const ConformanceCheck& check);

}  // namespace kseek
