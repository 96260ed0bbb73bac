// What every `kseek` command shares: global options, exit codes, output helpers.
// It must never hold command-specific logic.
#pragma once

#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kseek/core/app/app_options.hpp"
#include "kseek/core/build/build_service.hpp"
#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/plugin/plugin_registry.hpp"
#include "kseek/sdk/types.hpp"

namespace kseek::cli {

// Exit codes, documented in docs/user-guide.md.
inline constexpr int kExitOk = 0;
inline constexpr int kExitVerdict = 1;   // the candidate did not pass (compile error, violation, ...)
inline constexpr int kExitUsage = 2;     // bad input: flag, file, plugin, scenario name
inline constexpr int kExitNeedsGpu = 3;  // everything possible without a GPU was done; the rest needs one

// The use cases' options (kseek/core/app/app_options.hpp) and how a command prints its result.
struct GlobalOptions : app::AppOptions {
  bool json = false;
};

// The use cases' search paths and selections, by their names in the commands.
using app::load_constraints;
using app::load_plugins;
using app::make_build_service;
using app::select_scenarios;

// app::with_campaign that keeps how the command prints.
GlobalOptions with_campaign(const GlobalOptions& options, const CampaignConfig& config);

// Prints an error for people (stderr) or as JSON with a status field (stdout), and returns `code`.
int fail(const GlobalOptions& options, int code, const std::string& status, const std::string& message);

void print_json(const nlohmann::json& j);

std::string human_bytes(double bytes);

}  // namespace kseek::cli
