// What every use case needs to find its parts, whoever asked (the CLI, the MCP server, a hook): the plugin and pack
// search paths, the build cache, and the plugin, scenarios and constraints an evaluation or a campaign names.
// It must never hold how a result is shown: flags, tables, exit codes and JSON printing are the CLI's.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "kseek/core/build/build_service.hpp"
#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/eval/evaluator.hpp"
#include "kseek/core/plugin/plugin_registry.hpp"
#include "kseek/sdk/types.hpp"

namespace kseek::app {

struct AppOptions {
  std::vector<std::filesystem::path> plugin_dirs;
  std::vector<std::filesystem::path> pack_files;  // question pack files a campaign pinned (campaign.json pack_files)
  std::filesystem::path cache_dir;
  bool no_cache = false;
};

// `options` with what a campaign recorded at `init` added: its plugin folders after those given, and its pinned pack
// files. Every use case that works in a campaign loads plugins and packs through this.
AppOptions with_campaign(const AppOptions& options, const CampaignConfig& config);

// Loads every plugin on the search path; problems are kept in the registry for reporting.
void load_plugins(const AppOptions& options, PluginRegistry& registry);

BuildService make_build_service(const AppOptions& options);

// The reference cache an evaluation may use (docs/user-guide.md). Never inside a campaign (`campaign`): its records
// are the gate's evidence, and an entry planted in the cache folder must not be able to pass a wrong kernel there;
// its inputs are drawn fresh anyway. Outside one it is on unless `refused` (--no-reference-cache) or
// KSEEK_REFERENCE_CACHE_BYTES is 0, bounded by that variable (bytes, or with a K, M, G or T suffix; default 32G),
// in the folder `references` inside the build cache folder given (--cache-dir, $KSEEK_CACHE_DIR), else beside the
// default one (~/.cache/kernelseek/references). An unreadable bound is an error.
inline constexpr std::uint64_t kDefaultReferenceCacheBytes = 32ull << 30;
Result<ReferenceCacheChoice> choose_reference_cache(const AppOptions& options, bool campaign, bool refused);

// Reads a constraints override (JSON object; missing fields keep the plugin's values).
Result<Constraints> load_constraints(const Plugin& plugin, const std::filesystem::path& override_file);

// The scenarios of `set_name` (empty: the plugin's default set), or only `ids`: ids of that set or key=value names
// of any configuration the plugin can parse (those get ids U01, U02, ...).
Result<std::vector<Scenario>> select_scenarios(const Plugin& plugin, const std::string& set_name,
                                               const std::vector<std::string>& ids);

}  // namespace kseek::app
