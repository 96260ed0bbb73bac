// The files `kseek init` writes for coding agents: AGENTS.md (+ CLAUDE.md importing it), Claude Code hooks
// (.claude/settings.json), Codex hooks and MCP (.codex/), and the MCP registration (.mcp.json).
// It must never overwrite a file a person already has in the folder: existing files are reported and kept.
#include "kseek/core/app/campaign_files.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "kseek/core/campaign/record_signature.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/shell.hpp"

namespace kseek::app {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Variables kseek (or the GPU worker an eval starts) reads that a host may not hand its stdio MCP server: Codex starts
// one with HOME, LOGNAME, PATH, SHELL, USER, LANG, LC_ALL, TERM, TMPDIR, TZ and nothing else unless the server's
// `env_vars` names more (codex-rs/rmcp-client/src/utils.rs, DEFAULT_ENV_VARS; Codex config reference,
// mcp_servers.<id>.env_vars). The key folder is not among them: it is written as a value, see mcp_environment().
constexpr const char* kForwardedVariables[] = {"KSEEK_PLUGIN_PATH", "KSEEK_QUESTION_PATH", "KSEEK_CACHE_DIR",
                                               "XDG_STATE_HOME",    "XDG_CACHE_HOME",      "CUDA_VISIBLE_DEVICES",
                                               "LD_LIBRARY_PATH"};
// Pinned to the value they have when the registration is written (the campaign's own plugin and question folders).
constexpr const char* kPinnedVariables[] = {"KSEEK_PLUGIN_PATH", "KSEEK_QUESTION_PATH"};

// One tool call may be a whole evaluation: minutes, up to an hour for a large scenario set (docs/mcp.md).
constexpr int kToolTimeoutSeconds = 3600;

std::string hook_command(const fs::path& exe, const fs::path& dir, const std::string& hook, const std::string& host) {
  return fmt::format("{} hook {} --host {} --campaign {}", shell_quote(exe.string()), hook, host,
                     shell_quote(dir.string()));
}

// Where a hook registration lives: in the campaign folder (read by a host a person starts there) or on the command
// line `kseek run` gives the host.
enum class HookOrigin { kProjectFile, kRunCommandLine };

// Codex runs the hooks of every config layer (a trusted project's .codex/hooks.json and the session's `-c` flags
// alike) and does not de-duplicate them (codex-rs/hooks/src/engine/discovery.rs), so under `kseek run` each hook ran
// twice: one stop counted twice and asked two questions. The project's copy therefore yields while `kseek run` drives
// this campaign (it sets KSEEK_CAMPAIGN and KSEEK_RUN_SESSION for its agent; hooks inherit the host's environment):
// the command line's copy, which the agent cannot edit, is then the only one. /bin/sh runs the test whatever the
// person's $SHELL is. Claude Code needs none of this: it de-duplicates identical hook commands (code.claude.com hooks
// guide, "How hooks work"), and both of its registrations carry the same command.
std::string yielding_to_kseek_run(const std::string& command, const fs::path& dir) {
  const std::string script =
      fmt::format(R"([ -n "${{KSEEK_RUN_SESSION:-}}" ] && [ "${{KSEEK_CAMPAIGN:-}}" = {} ] || exec {})",
                  shell_quote(dir.string()), command);
  return "/bin/sh -c " + shell_quote(script);
}

json hooks_json(const fs::path& exe, const fs::path& dir, const std::string& host, HookOrigin origin) {
  auto handler = [&](const std::string& hook, int timeout) {
    std::string command = hook_command(exe, dir, hook, host);
    if (host == "codex" && origin == HookOrigin::kProjectFile) command = yielding_to_kseek_run(command, dir);
    return json::array({{{"hooks", json::array({{{"type", "command"}, {"command", command}, {"timeout", timeout}}})}}});
  };
  json post = handler("post-tool", 60);
  // Both hosts name MCP tools mcp__<server>__<tool> in tool hooks (Claude Code hooks reference, "Match MCP tools";
  // Codex since openai/codex#18385), so an eval through MCP is seen like a Bash `kseek eval`.
  post[0]["matcher"] = "Bash|mcp__kseek__.*";
  json start = handler("session-start", 60);
  start[0]["matcher"] = "startup|resume|clear|compact";
  return {{"Stop", handler("stop", 120)}, {"SessionStart", start}, {"PostToolUse", post}};
}

// What the MCP server needs from the environment, written into its registration: the folder of this campaign's key
// (absolute, as this process resolves it: the folder `kseek init` created the key in), and kseek's own search paths
// when they are set. A host that trims the environment then still finds the key and the plugin.
// A campaign that keeps its key in its own .kseek-key/ pins no KSEEK_KEY_DIR: the server finds the key through the
// campaign folder its arguments name, whatever the environment holds, while an absolute DIR/.kseek-key written here
// would go stale the moment the folder is moved or cloned to the machine that evaluates it (the point of the mode),
// and pinning the per-user folder would only add a place the key is not.
json mcp_environment(KeyPlace key_place) {
  json env = json::object();
  if (key_place == KeyPlace::kUserFolder) {
    std::error_code ec;
    fs::path keys = fs::absolute(campaign_key_dir(), ec);
    if (ec) keys = campaign_key_dir();
    env["KSEEK_KEY_DIR"] = keys.lexically_normal().string();
  }
  for (const char* name : kPinnedVariables) {
    if (const char* value = std::getenv(name); value != nullptr && *value != '\0') env[name] = value;
  }
  return env;
}

std::string agents_md(const CampaignConfig& c, const std::string& plugin_description, const ContractFiles& contract) {
  std::string headers;
  for (const auto& h : contract.headers) headers += fmt::format("{}`include/{}`", headers.empty() ? "" : ", ", h.name);
  return fmt::format(R"(# Kernel optimisation campaign

You are optimising one CUDA kernel file, `{candidate}`, for the operator `{plugin}` ({description}).
kseek measures it against the seed kernel on the scenario set `{set}` and decides when the work is done.

## The goal (computed, not judged)

    {goal}

`kseek gate` says whether it holds for the candidate as it is now, and lists every unmet term. Stopping is
allowed only when it holds: a stop hook runs the same check.

## How to work

- Edit only `{candidate}`. It is device code only, compiled in-process with NVRTC. `CONTRACT.md` is the operator's
  contract: what the kernel must compute, the candidate ABI (plan kernel, launches, workspace, tensor maps), the
  constraints, the tolerance rule and how to evaluate. The headers a candidate includes are copied for reading in
  {headers} (NVRTC is offered kseek's own copies by their include names).
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
- The constraints in `CONTRACT.md` (forbidden libraries, no device-side launches) are checked on the built binary.
- A result that looks too good is checked against the physics of the GPU and questioned.
)",
                     fmt::arg("candidate", c.candidate), fmt::arg("plugin", c.plugin),
                     fmt::arg("description", plugin_description), fmt::arg("set", c.set), fmt::arg("goal", c.goal),
                     fmt::arg("headers", headers.empty() ? std::string("(none)") : headers));
}

std::string codex_config(const fs::path& exe, const fs::path& dir, KeyPlace key_place) {
  std::string text =
      "# kseek's MCP server for this campaign (Codex reads .codex/config.toml of a trusted project).\n"
      "[mcp_servers.kseek]\n";
  // Named: items() of a temporary would outlive it in the loop.
  const json server = codex_mcp_server(exe, dir, key_place);
  for (const auto& [key, value] : server.items()) text += fmt::format("{} = {}\n", key, toml_inline(value));
  return text;
}

}  // namespace

Result<std::vector<std::string>> write_agent_files(const fs::path& dir, const CampaignConfig& config,
                                                   KeyPlace key_place, const fs::path& kseek_executable,
                                                   const std::string& plugin_description,
                                                   const ContractFiles& contract) {
  std::vector<std::pair<fs::path, std::string>> files = {
      {"AGENTS.md", agents_md(config, plugin_description, contract)},
      {"CLAUDE.md", "@AGENTS.md\n"},
      {"CONTRACT.md", contract.contract_markdown},
      {".claude/settings.json",
       json{{"hooks", hooks_json(kseek_executable, dir, "claude", HookOrigin::kProjectFile)}}.dump(2) + "\n"},
      {".codex/hooks.json",
       json{{"hooks", hooks_json(kseek_executable, dir, "codex", HookOrigin::kProjectFile)}}.dump(2) + "\n"},
      {".codex/config.toml", codex_config(kseek_executable, dir, key_place)},
      {".mcp.json", mcp_registration(kseek_executable, dir, key_place).dump(2) + "\n"},
  };
  for (const auto& header : contract.headers) {
    const fs::path name = fs::path("include") / header.name;
    // An include name is relative and stays inside include/ ("../x.h" would write outside the campaign).
    if (header.name.empty() || fs::path(header.name).is_absolute() || header.name.find("..") != std::string::npos) {
      return make_error(
          fmt::format("candidate header name '{}' cannot be written under include/: it must be a "
                      "relative include name without '..'",
                      header.name));
    }
    files.emplace_back(name, header.text);
  }
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
  return {{"hooks", hooks_json(kseek_executable, dir, host, HookOrigin::kRunCommandLine)}, {"disableAllHooks", false}};
}

// Claude Code's server entry: `timeout` (ms) bounds one tool call and overrides MCP_TOOL_TIMEOUT; `env` is added to
// the server's environment (code.claude.com/docs/en/mcp).
json mcp_registration(const fs::path& kseek_executable, const fs::path& dir, KeyPlace key_place) {
  return {{"mcpServers",
           {{"kseek",
             {{"type", "stdio"},
              {"command", kseek_executable.string()},
              {"args", {"mcp", "--campaign", dir.string()}},
              {"env", mcp_environment(key_place)},
              {"timeout", kToolTimeoutSeconds * 1000}}}}}};
}

// Codex's [mcp_servers.<id>] keys for a stdio server (codex-rs/config/src/mcp_types.rs, RawMcpServerConfig): command,
// args, env (set in the server's environment; they win over forwarded ones), env_vars (names forwarded from Codex's
// own environment), startup_timeout_sec (default 10 s) and tool_timeout_sec (seconds; default 60 s).
json codex_mcp_server(const fs::path& kseek_executable, const fs::path& dir, KeyPlace key_place) {
  json forwarded = json::array();
  for (const char* name : kForwardedVariables) forwarded.push_back(name);
  return {{"command", kseek_executable.string()},
          {"args", {"mcp", "--campaign", dir.string()}},
          {"env", mcp_environment(key_place)},
          {"env_vars", std::move(forwarded)},
          {"startup_timeout_sec", 20},
          {"tool_timeout_sec", kToolTimeoutSeconds}};
}

// A JSON value written as a TOML inline value (Codex parses `-c key=value` values as TOML).
std::string toml_inline(const json& value) {
  if (value.is_object()) {
    std::string out = "{";
    bool first = true;
    for (const auto& [key, item] : value.items()) {
      const bool bare =
          !key.empty() && key.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") ==
                              std::string::npos;
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

}  // namespace kseek::app
