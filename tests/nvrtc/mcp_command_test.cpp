// `kseek mcp` end to end: a scripted MCP session piped into the real binary, against a folder without a campaign and
// against one made by `kseek init`. It must never need a GPU: eval is accepted either way it can honestly end.
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"
#include "support/temp_folder.hpp"

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
  void SetUp() override {
  }

  // Pipes `messages` (one per line, after the handshake) into `kseek mcp --campaign DIR`; returns the replies by id.
  // Every stdout line must be a JSON-RPC message: anything else fails the test.
  std::map<int, json> session(const fs::path& dir, const std::vector<json>& messages) {
    const fs::path in = root_ / "session.jsonl";
    {
      std::ofstream script(in);
      script << request(0, "initialize", {{"protocolVersion", "2025-06-18"}, {"capabilities", json::object()},
                                          {"clientInfo", {{"name", "mcp_command_test"}, {"version", "1"}}}})
                    .dump()
             << "\n"
             << json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}.dump() << "\n";
      for (const auto& m : messages) script << m.dump() << "\n";
    }
    const auto run = kseek::testing::run_command("KSEEK_CACHE_DIR=\"${TMPDIR:-/tmp}/kseek-mcp-test-cache\" '" +
                                                 std::string(KSEEK_EXE) + "' mcp --campaign '" + dir.string() +
                                                 "' < '" + in.string() + "' 2>/dev/null");
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

}  // namespace
