// What every `kseek` command shares: global options, exit codes, plugin loading, output helpers.
// It must never hold command-specific logic.
#pragma once

#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kseek/core/build/build_service.hpp"
#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/plugin/plugin_registry.hpp"
#include "kseek/sdk/types.hpp"

namespace kseek::cli {

// Exit codes, documented in docs/user-guide.md.
inline constexpr int kExitOk = 0;
inline constexpr int kExitVerdict = 1;    // the candidate did not pass (compile error, violation, ...)
inline constexpr int kExitUsage = 2;      // bad input: flag, file, plugin, scenario name
inline constexpr int kExitNeedsGpu = 3;   // everything possible without a GPU was done; the rest needs one

struct GlobalOptions {
  std::vector<std::filesystem::path> plugin_dirs;
  std::vector<std::filesystem::path> pack_files;  // question pack files a campaign pinned (campaign.json pack_files)
  std::filesystem::path cache_dir;
  bool no_cache = false;
  bool json = false;
};

// `options` with what a campaign recorded at `init` added: its plugin folders after those of the command line, and its
// pinned pack files. Every command that works in a campaign loads plugins and packs through this.
GlobalOptions with_campaign(const GlobalOptions& options, const CampaignConfig& config);

// Loads every plugin on the search path; problems are kept in the registry for reporting.
void load_plugins(const GlobalOptions& options, PluginRegistry& registry);

BuildService make_build_service(const GlobalOptions& options);

// Prints an error for people (stderr) or as JSON with a status field (stdout), and returns `code`.
int fail(const GlobalOptions& options, int code, const std::string& status, const std::string& message);

void print_json(const nlohmann::json& j);

// Reads a constraints override (JSON object; missing fields keep the plugin's values).
Result<Constraints> load_constraints(const Plugin& plugin, const std::filesystem::path& override_file);

std::string human_bytes(double bytes);

// The scenarios of `set_name` (empty: the plugin's default set), or only `ids`: ids of that set or key=value names
// of any configuration the plugin can parse (those get ids U01, U02, ...).
Result<std::vector<Scenario>> select_scenarios(const Plugin& plugin, const std::string& set_name,
                                               const std::vector<std::string>& ids);

}  // namespace kseek::cli
