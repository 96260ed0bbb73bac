// `kseek mcp` end to end: a scripted MCP session piped into the real binary, against a folder without a campaign and
// against one made by `kseek init`. It must never need a GPU: eval is accepted either way it can honestly end.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kseek/core/util/files.hpp"
#include "support/run_command.hpp"
#include "support/temp_folder.hpp"
#include "support/toml_reader.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json request(int id, const std::string& method, const json& params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
}

json call(int id, const std::string& tool, const json& arguments = json::object()) {
  return request(id, "tools/call", {{"name", tool}, {"arguments", arguments}});
}

class McpCommand : public ::testing::Test {
 protected:
  void SetUp() override {}

  // Pipes `messages` (one per line, after the handshake) into `kseek mcp --campaign DIR`; returns the replies by id.
  // Every stdout line must be a JSON-RPC message: anything else fails the test.
  std::map<int, json> session(
      const fs::path& dir, const std::vector<json>& messages,
      const std::string& environment = "KSEEK_CACHE_DIR=\"${TMPDIR:-/tmp}/kseek-mcp-test-cache\" ") {
    const fs::path in = root_ / "session.jsonl";
    {
      std::ofstream script(in);
      script << request(0, "initialize",
                        {{"protocolVersion", "2025-06-18"},
                         {"capabilities", json::object()},
                         {"clientInfo", {{"name", "mcp_command_test"}, {"version", "1"}}}})
                    .dump()
             << "\n"
             << json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}.dump() << "\n";
      for (const auto& m : messages) script << m.dump() << "\n";
    }
    const auto run = kseek::testing::run_command(environment + "'" + std::string(KSEEK_EXE) + "' mcp --campaign '" +
                                                 dir.string() + "' < '" + in.string() + "' 2>/dev/null");
    EXPECT_EQ(run.exit_code, 0) << "EOF on stdin must end the server with 0";
    std::map<int, json> replies;
    std::istringstream lines(run.out);
    std::string line;
    while (std::getline(lines, line)) {
      json message;
      try {
        message = json::parse(line);
      } catch (const json::exception& e) {
        ADD_FAILURE() << "stdout carries something that is not a protocol message: " << line;
        continue;
      }
      EXPECT_EQ(message.value("jsonrpc", ""), "2.0") << line;
      if (message.contains("id") && message["id"].is_number_integer()) replies[message["id"].get<int>()] = message;
    }
    EXPECT_EQ(replies.count(0), 1U) << run.out;
    if (replies.count(0) == 1) EXPECT_EQ(replies[0]["result"]["protocolVersion"], "2025-06-18");
    return replies;
  }

  static std::string text_of(const json& reply) {
    return reply.at("result").at("content").at(0).at("text").get<std::string>();
  }

  const kseek::testing::TempFolder temp_{"kseek_mcp"};
  const fs::path& root_ = temp_.path();
};

TEST_F(McpCommand, AFolderWithoutACampaignGivesToolErrorsNamingCampaignJson) {
  const fs::path empty = root_ / "not-a-campaign";
  fs::create_directories(empty);
  auto replies = session(empty, {request(1, "tools/list"), call(2, "status"), call(3, "gate"),
                                 call(4, "claim", {{"kind", "done"}}), request(5, "ping")});
  ASSERT_EQ(replies.size(), 6U);
  EXPECT_EQ(replies[1]["result"]["tools"].size(), 5U);
  for (const int id : {2, 3}) {
    ASSERT_TRUE(replies[id].contains("result")) << replies[id].dump();
    EXPECT_EQ(replies[id]["result"]["isError"], true);
    EXPECT_NE(text_of(replies[id]).find("campaign.json"), std::string::npos) << text_of(replies[id]);
    EXPECT_EQ(replies[id]["result"]["structuredContent"]["status"], "ERROR");
  }
  ASSERT_TRUE(replies[4].contains("result")) << "missing text is a tool error (MCP 2025-11-25): " << replies[4].dump();
  EXPECT_EQ(replies[4]["result"]["isError"], true);
  EXPECT_NE(text_of(replies[4]).find("missing required argument 'text'"), std::string::npos) << text_of(replies[4]);
  EXPECT_EQ(replies[5]["result"], json::object());
}

TEST_F(McpCommand, ACampaignAnswersStatusAskClaimGateAndEval) {
  const fs::path dir = root_ / "c";
  const auto init = kseek::testing::run_kseek("init '" + dir.string() + "' --plugin example.softmax", "mcp-test");
  ASSERT_EQ(init.exit_code, 0) << init.out;

  auto replies = session(dir, {call(1, "status"), call(2, "ask", {{"event", "start"}}), call(3, "gate"),
                               call(4, "claim", {{"kind", "limit"}, {"text", "memory bound: 90% of peak bandwidth"}}),
                               call(5, "eval", {{"correctness_only", true}})});
  ASSERT_EQ(replies.size(), 6U);

  EXPECT_EQ(replies[1]["result"]["isError"], false) << text_of(replies[1]);
  EXPECT_EQ(replies[1]["result"]["structuredContent"]["status"], "OK");
  EXPECT_EQ(replies[2]["result"]["isError"], false) << text_of(replies[2]);
  // Nothing evaluated yet: the goal cannot hold, which is a tool error naming what is unmet.
  EXPECT_EQ(replies[3]["result"]["isError"], true) << text_of(replies[3]);
  EXPECT_EQ(replies[3]["result"]["structuredContent"]["status"], "UNMET");
  EXPECT_EQ(text_of(replies[3]).rfind("gate: UNMET", 0), 0U) << text_of(replies[3]);
  EXPECT_EQ(replies[4]["result"]["isError"], false) << text_of(replies[4]);
  EXPECT_EQ(replies[4]["result"]["structuredContent"]["claim"], "limit");

  // Without a GPU eval builds, checks and says it needs one (an error: no evaluation); with one it completes.
  const json& eval = replies[5]["result"];
  const std::string status = eval["structuredContent"].value("status", "");
  if (status == "COMPLETE") {
    EXPECT_EQ(eval["isError"], false) << text_of(replies[5]);
  } else {
    EXPECT_EQ(status, "NEEDS_GPU") << text_of(replies[5]);
    EXPECT_EQ(eval["isError"], true);
  }

  std::ifstream log(dir / ".kseek" / "log.jsonl");
  std::string line;
  bool claim_from_mcp = false;
  while (std::getline(log, line)) {
    claim_from_mcp = claim_from_mcp || (line.find("\"claim\"") != std::string::npos &&
                                        line.find("\"source\":\"mcp\"") != std::string::npos);
  }
  EXPECT_TRUE(claim_from_mcp) << "the claim is logged with source mcp";
}

// The MCP server has threads, so its evaluations build beside the candidate through another kseek process (never a
// plain fork of the server); the campaign's record of the evaluation says so for each of those builds, and nothing
// stray reaches stdout.
TEST_F(McpCommand, EvalThroughMcpBuildsTheSeedBesideTheCandidate) {
  const fs::path dir = root_ / "beside";
  const auto init = kseek::testing::run_kseek("init '" + dir.string() + "' --plugin example.softmax", "mcp-test");
  ASSERT_EQ(init.exit_code, 0) << init.out;
  const fs::path cache = root_ / "empty-cache";
  auto replies = session(dir, {call(1, "eval", {{"correctness_only", true}})},
                         "KSEEK_BUILD_THREADS=4 KSEEK_CACHE_DIR='" + cache.string() + "' ");
  ASSERT_EQ(replies.count(1), 1U);
  const auto record = kseek::read_file(dir / ".kseek" / "evaluations" / "0001.json");
  ASSERT_TRUE(record) << "the evaluation is recorded whether or not a GPU ran it: " << text_of(replies[1]);
  json j = json::parse(*record);
  if (j.contains("record")) j = j["record"];
  int beside = 0;
  for (const auto& b : j.at("builds")) {
    if (b.at("role") == "candidate") continue;
    EXPECT_TRUE(b.value("built_beside_the_candidate", false)) << b.dump(2);
    ++beside;
  }
  EXPECT_EQ(beside, 3) << "the seed, the plugin's device library and the harness kernels: " << j.at("builds").dump(2);
}

// The issue-18 case: a plugin from an out-of-tree folder given to `init` only. The MCP server, started as a host
// starts it (no --plugin-dir), evaluates through the folder campaign.json recorded instead of "no plugin is loaded".
TEST_F(McpCommand, EvalFindsAnOutOfTreePluginThroughTheFolderInitRecorded) {
  const fs::path dir = root_ / "c";
  const auto init = kseek::testing::run_kseek(
      "init '" + dir.string() + "' --plugin-dir '" + KSEEK_FIXTURE_GOOD_DIR + "' --plugin test.fixture", "mcp-test");
  ASSERT_EQ(init.exit_code, 0) << init.out;
  auto replies = session(dir, {call(1, "eval", {{"correctness_only", true}})});
  ASSERT_EQ(replies.count(1), 1U);
  const std::string text = text_of(replies[1]);
  EXPECT_EQ(text.find("no plugin"), std::string::npos) << text;
  const std::string status = replies[1]["result"]["structuredContent"].value("status", "");
  EXPECT_TRUE(status == "NEEDS_GPU" || status == "COMPLETE") << text;
}

// One shell word for any text (single quotes; a quote inside becomes '\'').
std::string shell_word(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Codex starts a stdio MCP server with a trimmed environment: these variables of its own (on Unix), the names the
// server's `env_vars` lists, then the server's `env` table on top (codex-rs/rmcp-client/src/utils.rs,
// create_env_for_mcp_server and DEFAULT_ENV_VARS). Returned as an `env -i NAME=VALUE ...` prefix.
std::string codex_server_environment(const json& server, bool with_config) {
  std::vector<std::string> names = {"HOME", "LOGNAME", "PATH", "SHELL",  "USER",
                                    "LANG", "LC_ALL",  "TERM", "TMPDIR", "TZ"};
  std::map<std::string, std::string> env;
  if (with_config) {
    for (const auto& name : server.value("env_vars", json::array())) names.push_back(name.get<std::string>());
  }
  for (const auto& name : names) {
    if (const char* value = std::getenv(name.c_str()); value != nullptr) env[name] = value;
  }
  if (with_config) {
    const json table = server.value("env", json::object());  // named: items() of a temporary would dangle
    for (const auto& [name, value] : table.items()) env[name] = value.get<std::string>();
  }
  std::string prefix = "env -i ";
  for (const auto& [name, value] : env) prefix += shell_word(name + "=" + value) + " ";
  return prefix;
}

// A campaign made with its key in a folder of its own (KSEEK_KEY_DIR), then served the way Codex would serve it from
// the generated .codex/config.toml: the recording tools work. Without what config.toml adds, the error names the
// folder it looked in and the variable that chooses it, not a misleading "not on this machine".
TEST_F(McpCommand, CodexTrimmedEnvironmentStillFindsTheCampaignKey) {
  const fs::path dir = root_ / "c";
  const fs::path keys = root_ / "keys";
  const auto init = kseek::testing::run_command("KSEEK_KEY_DIR='" + keys.string() +
                                                "' KSEEK_CACHE_DIR=\"${TMPDIR:-/tmp}/"
                                                "kseek-mcp-test-cache\" '" +
                                                std::string(KSEEK_EXE) + "' init '" + dir.string() +
                                                "' --plugin example.softmax 2>&1");
  ASSERT_EQ(init.exit_code, 0) << init.out;
  const json config = kseek::testing::TomlReader::document(*kseek::read_file(dir / ".codex" / "config.toml"));
  ASSERT_TRUE(config.contains("mcp_servers")) << config.dump();
  const json& server = config["mcp_servers"]["kseek"];
  // Only keys Codex's stdio server schema has (codex-rs/config/src/mcp_types.rs, RawMcpServerConfig), typed as it
  // reads them: env a table of strings, env_vars a list of names, timeouts in seconds.
  const std::set<std::string> stdio_keys = {
      "command",          "args",    "env",      "env_vars",      "cwd",           "startup_timeout_sec",
      "tool_timeout_sec", "enabled", "required", "enabled_tools", "disabled_tools"};
  for (const auto& [key, value] : server.items())
    EXPECT_TRUE(stdio_keys.count(key)) << "Codex knows no '" << key << "'";
  EXPECT_EQ(server["command"], KSEEK_EXE);
  EXPECT_EQ(server["args"], json({"mcp", "--campaign", dir.string()}));
  ASSERT_TRUE(server["env"].is_object()) << server.dump();
  for (const auto& [name, value] : server["env"].items()) EXPECT_TRUE(value.is_string()) << name;
  ASSERT_TRUE(server["env_vars"].is_array()) << server.dump();
  for (const auto& name : server["env_vars"]) EXPECT_TRUE(name.is_string());
  EXPECT_TRUE(server["tool_timeout_sec"].is_number());
  EXPECT_GE(server.value("tool_timeout_sec", 0), 3600) << "a tool call may be a whole evaluation";
  EXPECT_EQ(fs::weakly_canonical(server["env"].value("KSEEK_KEY_DIR", "")), fs::weakly_canonical(keys));

  const json claim = call(1, "claim", {{"kind", "limit"}, {"text", "memory bound: 90% of peak bandwidth"}});
  auto served = session(dir, {claim}, codex_server_environment(server, true));
  ASSERT_EQ(served.count(1), 1U);
  EXPECT_EQ(served[1]["result"]["isError"], false) << text_of(served[1]);

  auto trimmed = session(dir, {claim}, codex_server_environment(server, false));
  ASSERT_EQ(trimmed.count(1), 1U);
  EXPECT_EQ(trimmed[1]["result"]["isError"], true) << text_of(trimmed[1]);
  const std::string why = text_of(trimmed[1]);
  EXPECT_NE(why.find("KSEEK_KEY_DIR"), std::string::npos) << why;
  EXPECT_NE(why.find("looked in"), std::string::npos) << why;
}

}  // namespace
