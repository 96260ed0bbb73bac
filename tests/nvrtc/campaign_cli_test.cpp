// The campaign commands end to end through the real `kseek` binary: init, status, gate, claim, steer, ask, eval
// without a GPU, and the hooks' JSON for Claude Code and Codex (exact key sets, blocking and allowing).
// It must never need a GPU: evidence that meets the goal is a synthetic record written through the store.
#include <fstream>
#include <regex>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/util/files.hpp"
#include "support/campaign_fixture.hpp"
#include "support/run_command.hpp"
#include "support/temp_folder.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::run_command;
using testing::run_kseek;

std::set<std::string> keys(const json& j) {
  std::set<std::string> out;
  for (const auto& [k, v] : j.items()) out.insert(k);
  return out;
}

class CampaignCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = root_ / "c";
    auto init = kseek("init " + dir_.string() + " --plugin example.softmax --goal 'all_passed and geomean >= 1.10'");
    ASSERT_EQ(init.exit_code, 0) << init.out;
  }

  testing::CommandRun kseek(const std::string& args) { return run_kseek(args, "campaign-cli"); }
  // A hook with `input` on stdin.
  testing::CommandRun hook(const std::string& which, const json& input, const std::string& host = "claude") {
    const fs::path in = root_ / "hook-input.json";
    std::ofstream(in) << input.dump();
    return run_command("'" + std::string(KSEEK_EXE) + "' hook " + which + " --host " + host + " --campaign '" +
                       dir_.string() + "' < '" + in.string() + "' 2>/dev/null");
  }
  std::vector<json> log_of_type(const std::string& type) {
    auto c = Campaign::open(dir_);
    EXPECT_TRUE(c.ok());
    auto log = c->read_log();  // kept alive: a range-for over a temporary's member would dangle
    EXPECT_TRUE(log.ok());
    std::vector<json> out;
    for (const auto& r : log->records) {
      if (r.value.value("type", "") == type) out.push_back(r.value);
    }
    return out;
  }
  // Evidence that meets the goal, for the candidate as it is now.
  void record_passing_evaluation(double geomean) {
    auto c = Campaign::open(dir_);
    ASSERT_TRUE(c.ok());
    auto text = read_file(c->candidate_path());
    ASSERT_TRUE(text.ok());
    auto s = c->record_evaluation(
        testing::synthetic_record(*text, {{"S01", "PASSED", geomean}, {"S02", "PASSED", geomean}}, geomean));
    ASSERT_TRUE(s.ok()) << s.error().message;
  }

  const testing::TempFolder temp_{"kseek_campaign_cli"};
  const fs::path& root_ = temp_.path();
  fs::path dir_;
};

TEST_F(CampaignCli, InitWritesTheCampaignAndTheAgentFiles) {
  for (const char* f : {"campaign.json", "candidate.cu", "AGENTS.md", "CLAUDE.md", ".claude/settings.json",
                        ".codex/hooks.json", ".codex/config.toml", ".mcp.json", ".kseek/log.jsonl"}) {
    EXPECT_TRUE(fs::exists(dir_ / f)) << f;
  }
  const json settings = json::parse(*read_file(dir_ / ".claude/settings.json"));
  const std::string stop = settings["hooks"]["Stop"][0]["hooks"][0]["command"];
  EXPECT_NE(stop.find("hook stop --host claude --campaign"), std::string::npos) << stop;
  EXPECT_EQ(settings["hooks"]["PostToolUse"][0]["matcher"], "Bash|mcp__kseek__.*");
  const json mcp = json::parse(*read_file(dir_ / ".mcp.json"));
  EXPECT_EQ(mcp["mcpServers"]["kseek"]["args"][0], "mcp");
  // Claude Code: `timeout` (ms) bounds one tool call, an evaluation takes minutes (docs/mcp.md: 3600000).
  EXPECT_EQ(mcp["mcpServers"]["kseek"]["type"], "stdio");
  EXPECT_GE(mcp["mcpServers"]["kseek"].value("timeout", 0), 3600000) << mcp.dump();
  EXPECT_TRUE(fs::path(mcp["mcpServers"]["kseek"]["env"].value("KSEEK_KEY_DIR", "")).is_absolute()) << mcp.dump();

  // Codex: the PostToolUse matcher also sees MCP tool calls (Codex names them mcp__<server>__<tool> in hooks, as
  // Claude Code does), so an eval through MCP is noticed like one through Bash.
  const json codex_hooks = json::parse(*read_file(dir_ / ".codex/hooks.json"));
  for (const json* hooks : {&settings["hooks"], &codex_hooks["hooks"]}) {
    const std::regex matcher((*hooks)["PostToolUse"][0]["matcher"].get<std::string>());
    for (const char* tool : {"Bash", "mcp__kseek__eval", "mcp__kseek__claim"}) {
      EXPECT_TRUE(std::regex_match(tool, matcher)) << tool << " is missed by " << (*hooks)["PostToolUse"][0]["matcher"];
    }
    EXPECT_FALSE(std::regex_match("mcp__other__eval", matcher));
  }
  EXPECT_EQ(*read_file(dir_ / "CLAUDE.md"), "@AGENTS.md\n");
  const std::string agents = *read_file(dir_ / "AGENTS.md");
  EXPECT_NE(agents.find("all_passed and geomean >= 1.10"), std::string::npos);

  auto again = kseek("init " + dir_.string() + " --plugin example.softmax");
  EXPECT_EQ(again.exit_code, 2);
  auto bad_goal = kseek("--json init " + (root_ / "d").string() + " --plugin example.softmax --goal 'geomean >= (1.1'");
  EXPECT_EQ(bad_goal.exit_code, 2);
  EXPECT_NE(bad_goal.out.find("goal:1:"), std::string::npos) << bad_goal.out;
  EXPECT_FALSE(fs::exists(root_ / "d" / "campaign.json")) << "a refused init leaves nothing behind";
}

TEST_F(CampaignCli, StatusAndGateBeforeAnyEvaluation) {
  auto status = kseek("--json status --campaign " + dir_.string());
  ASSERT_EQ(status.exit_code, 0) << status.out;
  const json s = json::parse(status.out);
  EXPECT_EQ(s["evaluations"], 0);
  EXPECT_FALSE(s["gate"]["holds"]);
  auto gate = kseek("--json gate --campaign " + dir_.string());
  EXPECT_EQ(gate.exit_code, 1);
  const json g = json::parse(gate.out);
  EXPECT_EQ(g["status"], "UNMET");
  EXPECT_NE(g["unmet"][0].get<std::string>().find("no completed evaluation"), std::string::npos);
  record_passing_evaluation(1.2);
  gate = kseek("gate --campaign " + dir_.string());
  EXPECT_EQ(gate.exit_code, 0) << gate.out;
  EXPECT_EQ(log_of_type("gate").size(), 2u) << "every gate verdict is logged";
}

TEST_F(CampaignCli, StopHookBlocksWithUnmetTermsAndAQuestionThenSpendsItsBudget) {
  const json input = {{"session_id", "s1"},
                      {"hook_event_name", "Stop"},
                      {"stop_hook_active", true},
                      {"last_assistant_message", "The optimisation is complete."}};
  auto first = hook("stop", input);
  ASSERT_EQ(first.exit_code, 0);
  const json block = json::parse(first.out);
  EXPECT_EQ(keys(block), (std::set<std::string>{"decision", "reason"}));
  EXPECT_EQ(block["decision"], "block");
  const std::string reason = block["reason"];
  EXPECT_NE(reason.find("is not met"), std::string::npos) << reason;
  EXPECT_NE(reason.find("no completed evaluation"), std::string::npos) << reason;
  EXPECT_NE(reason.find("Question: "), std::string::npos) << "a block carries one question: " << reason;
  ASSERT_EQ(log_of_type("claim").size(), 1u) << "the completion phrase is logged as a claim";
  EXPECT_EQ(log_of_type("claim")[0]["kind"], "done");

  // stop_hook_active is not trusted: the budget (8 by default) is kseek's own, per session.
  int blocks = 1;
  for (; blocks < 20; ++blocks) {
    auto next = hook("stop", {{"session_id", "s1"}, {"stop_hook_active", true}});
    ASSERT_EQ(next.exit_code, 0);
    const json reply = json::parse(next.out);
    if (!reply.contains("decision")) {
      EXPECT_EQ(keys(reply), (std::set<std::string>{"systemMessage"}));
      EXPECT_NE(reply["systemMessage"].get<std::string>().find("budget"), std::string::npos);
      break;
    }
  }
  // The default budget (8) is what Claude Code honours before ending a turn on its own (kHostStopBlockCap): the log's
  // "budget spent" record, not the host's override, ends the blocking.
  EXPECT_EQ(blocks, 8) << "the stop is allowed once the session's block budget is spent";
  EXPECT_LE(blocks, kHostStopBlockCap);
  auto other_session = hook("stop", {{"session_id", "s2"}});
  EXPECT_EQ(json::parse(other_session.out)["decision"], "block") << "budgets are per session";
  std::size_t block_records = 0;
  for (const auto& h : log_of_type("hook")) block_records += h["decision"] == "block";
  EXPECT_EQ(block_records, 9u);
}

TEST_F(CampaignCli, StopHookAllowsWhenTheGoalHoldsAndSpeaksCodexToo) {
  auto codex = hook("stop", {{"session_id", "c1"}, {"turn_id", "t1"}}, "codex");
  ASSERT_EQ(codex.exit_code, 0);
  EXPECT_EQ(keys(json::parse(codex.out)), (std::set<std::string>{"decision", "reason"})) << "Codex refuses other keys";
  record_passing_evaluation(1.25);
  for (const std::string host : {"claude", "codex"}) {
    auto allowed = hook("stop", {{"session_id", "c2"}}, host);
    EXPECT_EQ(allowed.exit_code, 0);
    EXPECT_EQ(allowed.out, "") << host << ": allowing is an empty answer";
  }
  auto malformed = run_command("echo 'not json' | '" + std::string(KSEEK_EXE) + "' hook stop --campaign '" +
                               dir_.string() + "' 2>/dev/null");
  EXPECT_EQ(malformed.exit_code, 0);
  // The goal decides (it holds here); the malformed input is named for the person, and nothing reads as a block.
  const json named = json::parse(malformed.out);
  EXPECT_EQ(keys(named), (std::set<std::string>{"systemMessage"})) << malformed.out;
}

TEST_F(CampaignCli, SessionStartAndPostToolInjectContext) {
  auto start = hook("session-start", {{"session_id", "s1"}, {"source", "startup"}});
  ASSERT_EQ(start.exit_code, 0);
  const json context = json::parse(start.out);
  EXPECT_EQ(context["hookSpecificOutput"]["hookEventName"], "SessionStart");
  const std::string text = context["hookSpecificOutput"]["additionalContext"];
  EXPECT_NE(text.find("all_passed and geomean >= 1.10"), std::string::npos) << text;
  EXPECT_NE(text.find("Question: "), std::string::npos) << "the start event brings a question: " << text;
  // The host's source is logged: the stagnation clock treats only a startup or a resume as the end of a break.
  const auto starts = log_of_type("hook");
  ASSERT_FALSE(starts.empty());
  EXPECT_EQ(starts.back()["hook"], "session-start");
  EXPECT_EQ(starts.back()["session_source"], "startup");

  // The start question was delivered at session start; a post-tool hook then has nothing new to say...
  auto quiet = hook("post-tool", {{"session_id", "s1"}, {"tool_name", "Bash"}});
  EXPECT_EQ(quiet.out, "");
  // ...until a person steers.
  auto steer =
      kseek("steer --campaign " + dir_.string() + " 'Which scenario is furthest from the bandwidth roofline?'");
  ASSERT_EQ(steer.exit_code, 0);
  auto injected = hook("post-tool", {{"session_id", "s1"}, {"tool_name", "Bash"}});
  ASSERT_FALSE(injected.out.empty());
  const std::string human = json::parse(injected.out)["hookSpecificOutput"]["additionalContext"];
  EXPECT_NE(human.find("furthest from the bandwidth roofline"), std::string::npos) << human;
  EXPECT_EQ(hook("post-tool", {{"session_id", "s1"}}).out, "") << "delivered once";
}

TEST_F(CampaignCli, ClaimsAskAndEvalWithoutAGpu) {
  auto claim = kseek("--json claim --campaign " + dir_.string() + " limit 'the kernel is memory-bound at 3.9 TB/s'");
  ASSERT_EQ(claim.exit_code, 0) << claim.out;
  const json c = json::parse(claim.out);
  ASSERT_TRUE(c["question"].is_object()) << claim.out;
  EXPECT_EQ(c["question"]["event"], "limit-claim");
  auto ask = kseek("--json ask --campaign " + dir_.string() + " --event limit-claim");
  ASSERT_EQ(ask.exit_code, 0);
  EXPECT_NE(json::parse(ask.out)["question"]["id"], c["question"]["id"]) << "never the question asked last";
  EXPECT_EQ(kseek("ask --campaign " + dir_.string() + " --event nonsense").exit_code, 2);

  // Without a GPU the candidate is built and checked, the record says NEEDS_GPU, and it is logged as such; where the
  // suite runs on a GPU machine the seed copy completes instead. Either way one evaluation is logged with its record.
  auto eval = run_kseek("--json eval --campaign " + dir_.string(), "campaign-cli");
  const auto evals = log_of_type("evaluation");
  ASSERT_EQ(evals.size(), 1u) << eval.out;
  EXPECT_TRUE(fs::exists(dir_ / ".kseek" / evals[0]["record_file"].get<std::string>()));
  // A campaign's evaluation never reads the reference cache, whatever the environment says (docs/user-guide.md).
  EXPECT_EQ(json::parse(eval.out)["settings"].value("reference_cache", ""), "off (a campaign's evaluation)")
      << eval.out;
  if (evals[0]["status"] == "COMPLETE") {
    EXPECT_NE(eval.exit_code, 3) << eval.out;
  } else {
    EXPECT_EQ(evals[0]["status"], "NEEDS_GPU");
    EXPECT_EQ(eval.exit_code, 3) << eval.out;
    EXPECT_EQ(kseek("gate --campaign " + dir_.string()).exit_code, 1) << "a NEEDS_GPU record is no evidence";
  }
}

TEST_F(CampaignCli, EvalInsideACampaignRefusesAnythingThatWouldRecordLessThanTheCampaignSelects) {
  for (const std::string option : {"--set default", "--scenarios S01", "--constraints /dev/null",
                                   "--shard 0/2 --input-seed 1", "--functional-arch sm_90a"}) {
    auto eval = run_kseek("eval --campaign " + dir_.string() + " " + option, "campaign-cli", /*merge_stderr=*/true);
    EXPECT_EQ(eval.exit_code, 2) << option << ":\n" << eval.out;
    const std::string flag = option.substr(0, option.find(' '));
    EXPECT_NE(eval.out.find(flag + " would record less"), std::string::npos) << option << ":\n" << eval.out;
  }
  EXPECT_TRUE(log_of_type("evaluation").empty()) << "a refused eval logs nothing";
}

}  // namespace
}  // namespace kseek
