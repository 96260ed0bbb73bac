// `kseek run` end to end with the scripted stand-in agent (tests/fixtures/standin_agent.sh): the whole story (speed-up,
// stagnation, false completion claim, suspicious win, correctness break, fix), budgets, tampering and an interrupt,
// read back from the campaign log. Evaluations are real `kseek eval` runs (NVRTC builds included) whose GPU worker is
// the test worker (standin_gpu_worker.sh, KSEEK_TESTING=1). It must never need a GPU, and never accept that
// synthetic evidence counts outside KSEEK_TESTING=1: one test checks the gate refuses it.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/campaign/run_process.hpp"
#include "kseek/core/util/files.hpp"
#include "support/run_command.hpp"
#include "support/temp_folder.hpp"
#include "support/toml_reader.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::run_command;

const fs::path kFixtures = fs::path(KSEEK_FIXTURE_CANDIDATES).parent_path();

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

// One shell word for any text (single quotes; a quote inside becomes '\'').
std::string shell_word(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The `-c KEY=VALUE` overrides of a Codex command line, each value read back as TOML, by KEY.
json codex_overrides(const std::vector<std::string>& argv) {
  json config = json::object();
  for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] != "-c") continue;
    const std::string& kv = argv[i + 1];
    const std::size_t eq = kv.find('=');
    if (eq == std::string::npos) {
      ADD_FAILURE() << "-c without '=': " << kv;
      continue;
    }
    config[kv.substr(0, eq)] = testing::TomlReader::value(kv.substr(eq + 1));
  }
  return config;
}

class CampaignRunner : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = root_ / "c"; }

  bool allow_damaged_lines_ = false;  // set by the test that forges a log line on purpose

  // Every test shares one build cache: the stand-in's few candidate variants compile once per machine.
  static std::string env_prefix() { return "KSEEK_CACHE_DIR=\"${TMPDIR:-/tmp}/kseek-campaign-runner-cache\" "; }

  void init(const std::string& goal) {
    auto r = run_command(env_prefix() + quoted(KSEEK_EXE) + " init " + quoted(dir_) +
                         " --plugin example.softmax --goal '" + goal + "' 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.out;
  }
  // `kseek run` on the campaign with the stand-in; `env` is prepended (e.g. "KSEEK_TESTING=1 ").
  testing::CommandRun run(const std::string& env, const std::string& flags) {
    return run_command(env_prefix() + env + quoted(KSEEK_EXE) + " run " + quoted(dir_) + " --agent-cmd " +
                       quoted(kFixtures / "standin_agent.sh") + " --grace-seconds 5 " + flags + " 2>&1");
  }
  std::vector<json> records(const std::string& type = "") {
    auto log = read_records(dir_ / ".kseek" / "log.jsonl");
    EXPECT_TRUE(log.ok());
    if (!allow_damaged_lines_) {
      EXPECT_TRUE(log->damaged.empty()) << "damaged line " << log->damaged.front().line << ": "
                                        << log->damaged.front().reason;
    }
    std::vector<json> out;
    for (const auto& r : log->records) {
      if (type.empty() || r.value.value("type", "") == type) out.push_back(r.value);
    }
    return out;
  }
  std::vector<json> sessions(const std::string& phase) {
    std::vector<json> out;
    for (const auto& r : records("session")) {
      if (r.value("phase", "") == phase) out.push_back(r);
    }
    return out;
  }
  json run_end() {
    for (const auto& r : records("run")) {
      if (r.value("phase", "") == "end") return r;
    }
    return json();
  }
  std::string prompt(int session) {
    auto text = read_file(dir_ / "standin-prompts" / ("session-" + std::to_string(session) + ".txt"));
    return text ? *text : std::string();
  }

  const testing::TempFolder temp_{"kseek_campaign_run"};
  const fs::path& root_ = temp_.path();
  fs::path dir_;
};

TEST_F(CampaignRunner, TheWholeStoryEndsWithTheGoalMet) {
  init("all_passed and geomean >= 1.30");
  auto r = run("KSEEK_TESTING=1 ", "--budget-sessions 8");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("goal-met"), std::string::npos) << r.out;

  // Five sessions, each logged at its start and end, with what happened during it.
  const auto starts = sessions("start"), ends = sessions("end");
  ASSERT_EQ(starts.size(), 5u) << r.out;
  ASSERT_EQ(ends.size(), 5u);
  const int expected_evaluations[] = {2, 3, 0, 2, 1};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(starts[i].value("session", 0), i + 1);
    EXPECT_EQ(ends[i].value("session", 0), i + 1);
    EXPECT_EQ(ends[i]["exit_status"], 0) << ends[i].dump();
    EXPECT_EQ(ends[i].value("agent", ""), "standin_agent.sh");
    EXPECT_EQ(ends[i].value("evaluations", -1), expected_evaluations[i])
        << "session " << i + 1 << ": " << ends[i].dump();
    EXPECT_TRUE(ends[i]["seconds"].is_number());
  }
  // Questions came with evaluations (2: stagnation, 4: suspicious-win and regression) and the claim (3); session 1's
  // evaluations raised no event (its start question came with the prompt, before the session).
  EXPECT_EQ(ends[0].value("questions", -1), 0);
  bool start_question_delivered = false;
  for (const auto& q : records("question")) {
    start_question_delivered =
        start_question_delivered || (q.value("id", "") == starts[0].value("question", "?") &&
                                     q.value("event", "") == "start" && q.value("via", "") == "run");
  }
  EXPECT_TRUE(start_question_delivered) << starts[0].dump();
  EXPECT_GE(ends[1].value("questions", 0), 1);
  EXPECT_EQ(ends[2].value("questions", 0), 1);
  EXPECT_GE(ends[3].value("questions", 0), 2);

  // Every event of the story, each raised where the story put it.
  std::map<std::string, int> event_evaluation;
  for (const auto& e : records("event")) event_evaluation.emplace(e.value("event", ""), e.value("evaluation", 0));
  for (const char* name : {"start", "stagnation", "completion-claim", "suspicious-win", "correctness-regression"}) {
    EXPECT_TRUE(event_evaluation.contains(name)) << name;
  }
  EXPECT_EQ(event_evaluation["stagnation"], 5);  // the third evaluation without a real gain after the speed-up
  EXPECT_EQ(event_evaluation["suspicious-win"], 6);
  EXPECT_EQ(event_evaluation["correctness-regression"], 7);

  // The runner's own questions (one per session prompt), and the prompts that carried them.
  int run_questions = 0;
  for (const auto& q : records("question")) run_questions += q.value("via", "") == "run";
  EXPECT_GE(run_questions, 4);
  const std::string first = prompt(1);
  EXPECT_NE(first.find("all_passed and geomean >= 1.30"), std::string::npos) << first;
  EXPECT_NE(first.find("Question (start)"), std::string::npos) << first;
  EXPECT_NE(first.find("no completed evaluation of the current candidate"), std::string::npos) << first;
  const std::string second = prompt(2);
  EXPECT_NE(second.find("geomean >= 1.30: geomean is 1.15"), std::string::npos) << second;
  EXPECT_NE(second.find("Question ("), std::string::npos) << second;
  const std::string fifth = prompt(5);
  EXPECT_NE(fifth.find("all_passed: "), std::string::npos) << fifth;  // the regression is what is unmet
  EXPECT_NE(fifth.find("S08 FAILED"), std::string::npos) << fifth;

  // The gate's answers as the runner asked them: unmet before each session, met after the fix.
  std::vector<bool> verdicts;
  for (const auto& g : records("gate")) {
    if (g.value("caller", "") == "run") verdicts.push_back(g.value("holds", false));
  }
  EXPECT_EQ(verdicts, (std::vector<bool>{false, false, false, false, false, true}));
  EXPECT_EQ(run_end().value("outcome", ""), "goal-met");
  EXPECT_EQ(run_end().value("sessions", 0), 5);
  EXPECT_EQ(run_end().value("evaluations", 0), 8);

  // The evidence is synthetic: outside KSEEK_TESTING=1 the very same gate refuses it.
  auto inside =
      run_command(env_prefix() + "KSEEK_TESTING=1 " + quoted(KSEEK_EXE) + " gate --campaign " + quoted(dir_) + " 2>&1");
  EXPECT_EQ(inside.exit_code, 0) << inside.out;
  auto outside = run_command(env_prefix() + "env -u KSEEK_TESTING " + quoted(KSEEK_EXE) + " gate --campaign " +
                             quoted(dir_) + " 2>&1");
  EXPECT_EQ(outside.exit_code, 1) << outside.out;
  EXPECT_NE(outside.out.find("synthetic"), std::string::npos) << outside.out;
}

TEST_F(CampaignRunner, SyntheticEvidenceIsRefusedWhenTheRunIsNotATest) {
  // The stand-in turns the test worker on for itself; the runner (not under KSEEK_TESTING) must not believe it.
  init("all_passed and geomean >= 1.10");  // session 1's speed-up (1.15) would meet it
  auto r = run("env -u KSEEK_TESTING KSEEK_STANDIN_SELF_TESTING=1 ", "--budget-sessions 1");
  EXPECT_EQ(r.exit_code, 4) << r.out;
  bool refused = false;
  for (const auto& g : records("gate")) {
    refused = refused || (g.value("caller", "") == "run" &&
                          g.value("evidence_problem", "").find("synthetic") != std::string::npos);
  }
  EXPECT_TRUE(refused);
  // The same campaign under KSEEK_TESTING=1: the evidence counts and the goal holds at once.
  auto again = run("KSEEK_TESTING=1 ", "--budget-sessions 1");
  EXPECT_EQ(again.exit_code, 0) << again.out;
}

TEST_F(CampaignRunner, ASpentSessionsBudgetExitsFourAndSaysWhich) {
  init("all_passed and geomean >= 1.30");
  auto r = run("KSEEK_TESTING=1 ", "--budget-sessions 2 --prompt-mode arg");
  EXPECT_EQ(r.exit_code, 4) << r.out;
  EXPECT_NE(r.out.find("sessions budget is spent (2 of 2)"), std::string::npos) << r.out;
  EXPECT_EQ(run_end().value("outcome", ""), "budget");
  EXPECT_EQ(run_end().value("budget", ""), "sessions");
  EXPECT_EQ(sessions("end").size(), 2u);
  EXPECT_NE(prompt(1).find("Question (start)"), std::string::npos) << "the prompt as the last argument";
}

TEST_F(CampaignRunner, ASpentEvaluationsBudgetStopsBeforeTheNextSession) {
  init("all_passed and geomean >= 1.30");
  auto r = run("KSEEK_TESTING=1 ", "--budget-evals 2");
  EXPECT_EQ(r.exit_code, 4) << r.out;
  EXPECT_NE(r.out.find("evaluations budget is spent (2 of 2)"), std::string::npos) << r.out;
  EXPECT_EQ(run_end().value("budget", ""), "evaluations");
  EXPECT_EQ(sessions("end").size(), 1u);
}

TEST_F(CampaignRunner, TheHoursBudgetTerminatesARunningSession) {
  init("all_passed and geomean >= 1.30");
  auto r = run("KSEEK_TESTING=1 KSEEK_STANDIN_HANG=1 ", "--budget-hours 0.0005");  // 1.8 s
  EXPECT_EQ(r.exit_code, 4) << r.out;
  EXPECT_NE(r.out.find("hours budget is spent"), std::string::npos) << r.out;
  ASSERT_EQ(sessions("end").size(), 1u);
  EXPECT_EQ(sessions("end")[0]["exit_status"], "hours-budget");
  EXPECT_EQ(run_end().value("budget", ""), "hours");
  const int agent = std::stoi(*read_file(dir_ / "standin-hanging"));
  EXPECT_NE(::kill(agent, 0), 0) << "the agent process must be gone";
}

class CampaignRunnerTampering : public CampaignRunner,
                                public ::testing::WithParamInterface<std::pair<const char*, const char*>> {};

TEST_P(CampaignRunnerTampering, StopsTheRunWithExitFive) {
  const auto [how, message] = GetParam();
  allow_damaged_lines_ = std::string(how) == "log";
  init("all_passed and geomean >= 1.30");
  auto r = run(std::string("KSEEK_TESTING=1 KSEEK_STANDIN_TAMPER=") + how + " ", "--budget-sessions 5");
  EXPECT_EQ(r.exit_code, 5) << r.out;
  EXPECT_NE(r.out.find("tampering"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(message), std::string::npos) << r.out;
  EXPECT_EQ(sessions("end").size(), 1u) << "no session after the tampering";
  // The log itself stays readable: the forged line is the only damaged one and is reported, not dropped.
  auto log = read_records(dir_ / ".kseek" / "log.jsonl");
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log->damaged.size(), std::string(how) == "log" ? 1u : 0u);
  bool ended = false;
  for (const auto& rec : log->records)
    ended = ended || (rec.value.value("type", "") == "run" && rec.value.value("outcome", "") == "tampering");
  EXPECT_TRUE(ended);
}

INSTANTIATE_TEST_SUITE_P(Ways, CampaignRunnerTampering,
                         ::testing::Values(std::pair{"config", "campaign.json was changed outside kseek"},
                                           std::pair{"log", "log line"},
                                           std::pair{"record", "does not match the sha256 its log entry holds"}),
                         [](const auto& info) { return std::string(info.param.first); });

TEST_F(CampaignRunner, AnInterruptEndsTheSessionAndLeavesTheLogConsistent) {
  init("all_passed and geomean >= 1.30");
  const fs::path out = root_ / "run.out";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    ::setenv("KSEEK_TESTING", "1", 1);
    ::setenv("KSEEK_STANDIN_HANG", "1", 1);
    const std::string agent = (kFixtures / "standin_agent.sh").string();
    ::execl(KSEEK_EXE, KSEEK_EXE, "run", dir_.c_str(), "--agent-cmd", agent.c_str(), "--grace-seconds", "5", nullptr);
    ::_exit(127);
  }
  // Wait (bounded) for the stand-in to be running inside its session, then Ctrl-C the runner.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(dir_ / "standin-hanging") && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // polling for a file, with a deadline
  }
  ASSERT_TRUE(fs::exists(dir_ / "standin-hanging"));
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << *read_file(out);
  EXPECT_EQ(WEXITSTATUS(status), 130) << *read_file(out);
  const auto ends = sessions("end");
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(ends[0]["exit_status"], "interrupted");
  EXPECT_EQ(run_end().value("outcome", ""), "interrupted");
  const auto all = records();  // also checks that no line is damaged
  EXPECT_EQ(all.back().value("type", ""), "run");
  const int agent = std::stoi(*read_file(dir_ / "standin-hanging"));
  EXPECT_NE(::kill(agent, 0), 0) << "the agent process must be gone";
  EXPECT_TRUE(Campaign::open(dir_).ok());
}

TEST_F(CampaignRunner, ClaudeAndCodexGetTheHooksAndTheMcpServerOnTheirCommandLine) {
  init("all_passed and geomean >= 1.30");
  auto claude = run_command(quoted(KSEEK_EXE) + " run " + quoted(dir_) + " --agent claude --dry-run --json");
  ASSERT_EQ(claude.exit_code, 0) << claude.out;
  const json c = json::parse(claude.out);
  const std::vector<std::string> argv = c["argv"];
  auto after = [&](const std::vector<std::string>& a, const std::string& flag) {
    auto it = std::find(a.begin(), a.end(), flag);
    return it == a.end() || it + 1 == a.end() ? std::string() : *(it + 1);
  };
  EXPECT_EQ(argv.front(), "claude");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--print"), argv.end());
  EXPECT_EQ(after(argv, "--permission-mode"), "bypassPermissions");
  const json settings = json::parse(*read_file(after(argv, "--settings")));
  EXPECT_EQ(settings["disableAllHooks"], false);
  EXPECT_NE(settings["hooks"]["Stop"][0]["hooks"][0]["command"].get<std::string>().find("hook stop --host claude"),
            std::string::npos);
  const json mcp = json::parse(*read_file(after(argv, "--mcp-config")));
  EXPECT_EQ(mcp["mcpServers"]["kseek"]["args"][0], "mcp");
  EXPECT_GE(mcp["mcpServers"]["kseek"].value("timeout", 0), 3600000) << "a tool call may be a whole evaluation";
  EXPECT_EQ(argv.back(), "<PROMPT>");
  // Claude Code ends a turn itself after its block cap (8 by default): the agent is told to honour every block the
  // campaign's budget allows, and the default budget is within the cap anyway.
  EXPECT_EQ(c["environment"].value("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", ""),
            std::to_string(CampaignThresholds{}.hook_block_budget + 1));
  EXPECT_LE(CampaignThresholds{}.hook_block_budget, kHostStopBlockCap);

  auto codex =
      run_command(quoted(KSEEK_EXE) + " run " + quoted(dir_) + " --agent codex --agent-arg=--model=x --dry-run --json");
  ASSERT_EQ(codex.exit_code, 0) << codex.out;
  const std::vector<std::string> cx = json::parse(codex.out)["argv"];
  EXPECT_EQ(cx[0], "codex");
  EXPECT_EQ(cx[1], "exec");
  EXPECT_NE(std::find(cx.begin(), cx.end(), "--dangerously-bypass-hook-trust"), cx.end());
  std::string overrides;
  for (std::size_t i = 0; i + 1 < cx.size(); ++i) {
    if (cx[i] == "-c") overrides += cx[i + 1] + "\n";
  }
  EXPECT_NE(overrides.find("mcp_servers.kseek={args = [\"mcp\", \"--campaign\", "), std::string::npos) << overrides;
  EXPECT_NE(overrides.find(", command = \"" + std::string(KSEEK_EXE) + "\""), std::string::npos) << overrides;
  EXPECT_NE(overrides.find("hooks.Stop=[{hooks = [{command = "), std::string::npos) << overrides;
  EXPECT_NE(overrides.find("hook stop --host codex"), std::string::npos) << overrides;
  EXPECT_NE(std::find(cx.begin(), cx.end(), "--model=x"), cx.end());

  // The overrides read back as TOML, checked against Codex's schema for a stdio server (codex-rs/config/src/
  // mcp_types.rs, RawMcpServerConfig) and hooks (codex-rs/config/src/hook_config.rs).
  const json config = codex_overrides(cx);
  const json& server = config["mcp_servers.kseek"];
  const std::set<std::string> stdio_keys = {
      "command",          "args",    "env",      "env_vars",      "cwd",           "startup_timeout_sec",
      "tool_timeout_sec", "enabled", "required", "enabled_tools", "disabled_tools"};
  for (const auto& [key, value] : server.items())
    EXPECT_TRUE(stdio_keys.count(key)) << "Codex knows no '" << key << "'";
  EXPECT_EQ(server["command"], KSEEK_EXE);
  EXPECT_GE(server.value("tool_timeout_sec", 0), 3600);
  ASSERT_TRUE(server["env"].is_object());
  for (const auto& [name, value] : server["env"].items()) EXPECT_TRUE(value.is_string()) << name;
  EXPECT_TRUE(fs::path(server["env"].value("KSEEK_KEY_DIR", "")).is_absolute()) << server.dump();
  const std::vector<std::string> forwarded = server["env_vars"];
  for (const char* name : {"KSEEK_PLUGIN_PATH", "KSEEK_QUESTION_PATH", "CUDA_VISIBLE_DEVICES"}) {
    EXPECT_NE(std::find(forwarded.begin(), forwarded.end(), name), forwarded.end()) << name;
  }
  const std::regex post_tool(config["hooks.PostToolUse"][0]["matcher"].get<std::string>());
  EXPECT_TRUE(std::regex_match("mcp__kseek__eval", post_tool)) << "MCP tool calls reach the post-tool hook";
  EXPECT_TRUE(std::regex_match("Bash", post_tool));
  // Nothing was started or logged by a dry run.
  EXPECT_TRUE(sessions("start").empty());
}

// Codex runs the hooks of every config layer without de-duplicating them: a trusted campaign's .codex/hooks.json and
// the `-c hooks.*` that `kseek run` passes would both run. Each registration's Stop command is run here as Codex runs
// a hook (a shell, the host's environment, the payload on stdin): under `kseek run` one stop is one hook record and
// one block; a person's Codex started in the campaign without `kseek run` is still gated by the project file.
TEST_F(CampaignRunner, UnderKseekRunOneCodexStopCountsOnceAndAsksOneQuestion) {
  init("all_passed and geomean >= 1.30");
  auto codex = run_command(quoted(KSEEK_EXE) + " run " + quoted(dir_) + " --agent codex --dry-run --json");
  ASSERT_EQ(codex.exit_code, 0) << codex.out;
  const std::vector<std::string> argv = json::parse(codex.out)["argv"];
  const json config = codex_overrides(argv);
  const std::string from_run = config["hooks.Stop"][0]["hooks"][0]["command"];
  const json project = json::parse(*read_file(dir_ / ".codex" / "hooks.json"));
  const std::string from_project = project["hooks"]["Stop"][0]["hooks"][0]["command"];
  const fs::path payload = root_ / "stop-payload.json";
  {
    std::ofstream(payload) << json{
        {"session_id", "codex-1"},
        {"turn_id", "turn-1"},
        {"hook_event_name", "Stop"},
        {"stop_hook_active", false},
        {"last_assistant_message",
         "Working on it."}}.dump();
  }
  auto run_hook = [&](const std::string& command, const std::string& environment) {
    return run_command(environment + "/bin/sh -c " + shell_word(command) + " < " + quoted(payload));
  };
  auto blocks = [&] {
    int n = 0;
    for (const auto& r : records("hook")) n += r.value("decision", "") == "block";
    return n;
  };
  const std::size_t questions_before = records("question").size();
  const std::string under_run = "KSEEK_CAMPAIGN=" + quoted(dir_) + " KSEEK_RUN_SESSION=1 ";
  const auto a = run_hook(from_run, under_run);
  const auto b = run_hook(from_project, under_run);
  EXPECT_EQ(a.exit_code, 0);
  EXPECT_EQ(json::parse(a.out).value("decision", ""), "block") << a.out;
  EXPECT_EQ(b.exit_code, 0) << "the project's copy yields to the run's with a clean exit";
  EXPECT_EQ(b.out, "") << "and says nothing (Codex reads an empty answer as no opinion)";
  EXPECT_EQ(blocks(), 1) << "one stop, one block counted";
  EXPECT_EQ(records("question").size(), questions_before + 1) << "one stop, one question";

  // Without `kseek run` (or for another campaign's run) the project's hooks are the gate.
  const auto alone = run_hook(from_project, "env -u KSEEK_RUN_SESSION -u KSEEK_CAMPAIGN ");
  EXPECT_EQ(json::parse(alone.out).value("decision", ""), "block") << alone.out;
  const auto other = run_hook(from_project, "KSEEK_CAMPAIGN=/elsewhere KSEEK_RUN_SESSION=1 ");
  EXPECT_EQ(json::parse(other.out).value("decision", ""), "block") << other.out;
  EXPECT_EQ(blocks(), 3);
}

TEST(AgentCommandLine, SplitsOnBlanksAndGroupsQuotes) {
  auto words = split_agent_command("my-agent --flag 'two words' \"say \\\"hi\\\"\" a\\ b  ");
  ASSERT_TRUE(words.ok());
  EXPECT_EQ(*words, (std::vector<std::string>{"my-agent", "--flag", "two words", "say \"hi\"", "a b"}));
  EXPECT_FALSE(split_agent_command("agent 'open").ok());
  EXPECT_FALSE(split_agent_command("   ").ok());
}

}  // namespace
}  // namespace kseek
