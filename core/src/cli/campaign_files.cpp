// The files `kseek init` writes for coding agents: AGENTS.md (+ CLAUDE.md importing it), Claude Code hooks
// (.claude/settings.json), Codex hooks and MCP (.codex/), and the MCP registration (.mcp.json).
// It must never overwrite a file a person already has in the folder: existing files are reported and kept.
#include "campaign_files.hpp"

#include <fmt/format.h>

#include "kseek/core/util/files.hpp"
#include "kseek/core/util/shell.hpp"

namespace kseek::cli {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {


std::string hook_command(const fs::path& exe, const fs::path& dir, const std::string& hook, const std::string& host) {
  return fmt::format("{} hook {} --host {} --campaign {}", shell_quote(exe.string()), hook, host, shell_quote(dir.string()));
}

json hooks_json(const fs::path& exe, const fs::path& dir, const std::string& host) {
  auto handler = [&](const std::string& hook, int timeout) {
    return json::array({{{"hooks", json::array({{{"type", "command"}, {"command", hook_command(exe, dir, hook, host)},
                                                  {"timeout", timeout}}})}}});
  };
  json post = handler("post-tool", 60);
  post[0]["matcher"] = host == "claude" ? "Bash|mcp__kseek__.*" : "Bash";
  json start = handler("session-start", 60);
  start[0]["matcher"] = "startup|resume|clear|compact";
  return {{"Stop", handler("stop", 120)}, {"SessionStart", start}, {"PostToolUse", post}};
}

std::string agents_md(const CampaignConfig& c, const std::string& plugin_description) {
  return fmt::format(R"(# Kernel optimisation campaign

You are optimising one CUDA kernel file, `{candidate}`, for the operator `{plugin}` ({description}).
kseek measures it against the seed kernel on the scenario set `{set}` and decides when the work is done.

## The goal (computed, not judged)

    {goal}

`kseek gate` says whether it holds for the candidate as it is now, and lists every unmet term. Stopping is
allowed only when it holds: a stop hook runs the same check.

## How to work

- Edit only `{candidate}`. It is device code only, compiled in-process with NVRTC; the candidate ABI (plan kernel,
  launches, workspace, tensor maps) is in the kseek documentation (`docs/candidate-abi.md`).
- `kseek eval` builds, checks the constraints on the binary, checks correctness on every scenario and times the
  candidate against the seed. It records the result in this campaign's log; it takes minutes.
- `kseek status` shows the best and latest geomean, the trend, the unmet goal terms and open events.
- `kseek ask` gives the question for the current situation. Questions ask for a measurement or a change of
  approach; they contain no answer. Answer them with a measurement or a change, not with prose.
- If you believe you have hit a limit, say so with `kseek claim limit "WHAT LIMIT AND THE MEASUREMENT"`. If you
  believe you are done, `kseek claim done "WHY"`; the gate decides.

## Rules

- `campaign.json` and `.kseek/` are written only by kseek. Changing or deleting them ends nothing: from then on
  every stop is blocked until a person repairs the campaign (restores the files, or accepts a config edit with
  `kseek reconfigure`).
- No CUTLASS, CuTe, cuBLAS or cuDNN, no device-side launches: the constraint checker reads the built binary.
- A result that looks too good is checked against the physics of the GPU and questioned.
)",
                     fmt::arg("candidate", c.candidate), fmt::arg("plugin", c.plugin),
                     fmt::arg("description", plugin_description), fmt::arg("set", c.set), fmt::arg("goal", c.goal));
}

std::string codex_config(const fs::path& exe, const fs::path& dir) {
  std::string text = "# kseek's MCP server for this campaign (Codex reads .codex/config.toml of a trusted project).\n"
                     "[mcp_servers.kseek]\n";
  const json server = codex_mcp_server(exe, dir);  // named: items() of a temporary would outlive it in the loop
  for (const auto& [key, value] : server.items()) text += fmt::format("{} = {}\n", key, toml_inline(value));
  return text;
}

}  // namespace

Result<std::vector<std::string>> write_agent_files(const fs::path& dir, const CampaignConfig& config,
                                                    const fs::path& kseek_executable,
                                                    const std::string& plugin_description) {
  const std::vector<std::pair<fs::path, std::string>> files = {
      {"AGENTS.md", agents_md(config, plugin_description)},
      {"CLAUDE.md", "@AGENTS.md\n"},
      {".claude/settings.json", json{{"hooks", hooks_json(kseek_executable, dir, "claude")}}.dump(2) + "\n"},
      {".codex/hooks.json", json{{"hooks", hooks_json(kseek_executable, dir, "codex")}}.dump(2) + "\n"},
      {".codex/config.toml", codex_config(kseek_executable, dir)},
      {".mcp.json", mcp_registration(kseek_executable, dir).dump(2) + "\n"},
  };
  std::vector<std::string> kept;
  for (const auto& [name, text] : files) {
    const fs::path path = dir / name;
    if (fs::exists(path)) {
      kept.push_back(name.string());
      continue;
    }
    if (auto w = write_file_atomically(path, text); !w) return w.error();  // creates the folder too
  }
  return kept;
}

json hook_settings(const fs::path& kseek_executable, const fs::path& dir, const std::string& host) {
  return {{"hooks", hooks_json(kseek_executable, dir, host)}, {"disableAllHooks", false}};
}

json mcp_registration(const fs::path& kseek_executable, const fs::path& dir) {
  return {{"mcpServers", {{"kseek", {{"command", kseek_executable.string()}, {"args", {"mcp", "--campaign", dir.string()}}}}}}};
}

json codex_mcp_server(const fs::path& kseek_executable, const fs::path& dir) {
  json server = mcp_registration(kseek_executable, dir)["mcpServers"]["kseek"];
  server["startup_timeout_sec"] = 20;
  server["tool_timeout_sec"] = 3600;  // an evaluation of the full set takes many minutes
  return server;
}

// A JSON value written as a TOML inline value (Codex parses `-c key=value` values as TOML).
std::string toml_inline(const json& value) {
  if (value.is_object()) {
    std::string out = "{";
    bool first = true;
    for (const auto& [key, item] : value.items()) {
      const bool bare = !key.empty() && key.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == std::string::npos;
      out += fmt::format("{}{} = {}", first ? "" : ", ", bare ? key : json(key).dump(), toml_inline(item));
      first = false;
    }
    return out + "}";
  }
  if (value.is_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < value.size(); ++i) out += (i ? ", " : "") + toml_inline(value[i]);
    return out + "]";
  }
  return value.dump();  // strings (JSON escapes are TOML basic-string escapes), numbers, booleans
}

}  // namespace kseek::cli
