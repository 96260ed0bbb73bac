// The agent-facing files of a campaign directory, and the hook/MCP settings the campaign runner passes explicitly.
// It must never overwrite a person's file.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/campaign/record_signature.hpp"
#include "kseek/sdk/result.hpp"
#include "kseek/sdk/types.hpp"

namespace kseek::app {

// The operator's contract as the campaign carries it: CONTRACT.md and the candidate headers under include/.
struct ContractFiles {
  std::string contract_markdown;
  std::vector<SourceFile> headers;  // by include name, e.g. kseek/device/launch_plan.h
};

// Writes AGENTS.md, CLAUDE.md, CONTRACT.md, include/<each header>, .claude/settings.json, .codex/hooks.json,
// .codex/config.toml and .mcp.json; returns the names of files that already existed and were kept as they were.
// AGENTS.md names only files this writes (or kept). `key_place` is where the campaign's signing key is kept: the MCP
// registrations pin KSEEK_KEY_DIR only for a per-user key.
Result<std::vector<std::string>> write_agent_files(const std::filesystem::path& dir, const CampaignConfig& config,
                                                   KeyPlace key_place, const std::filesystem::path& kseek_executable,
                                                   const std::string& plugin_description,
                                                   const ContractFiles& contract);

// The hook settings for `host` ("claude" or "codex") as a settings object ({"hooks": ..., "disableAllHooks": false}).
nlohmann::json hook_settings(const std::filesystem::path& kseek_executable, const std::filesystem::path& dir,
                             const std::string& host);

// {"mcpServers": {"kseek": ...}} for .mcp.json and `claude --mcp-config`: the server, its environment (the key folder,
// for a per-user key) and a tool-call timeout long enough for an evaluation.
nlohmann::json mcp_registration(const std::filesystem::path& kseek_executable, const std::filesystem::path& dir,
                                KeyPlace key_place);

// The same server as Codex configures it ([mcp_servers.kseek]): command, args, env (the key folder for a per-user key,
// written as a value), env_vars (what Codex's trimmed server environment must still carry) and its start-up and tool
// timeouts.
nlohmann::json codex_mcp_server(const std::filesystem::path& kseek_executable, const std::filesystem::path& dir,
                                KeyPlace key_place);

// A JSON value as a TOML inline value (.codex/config.toml, and Codex's `-c key=value`, are TOML).
std::string toml_inline(const nlohmann::json& value);

}  // namespace kseek::app
