// The stop gate fails closed: through the real `kseek hook stop`, every way the campaign, its log or the host's payload
// can be wrong ends in a well-formed block (or, outside any campaign, an allow the person is told about), for both
// hosts' payload shapes. It must never accept an allow that is not "the goal holds" or "the block budget is spent".
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fstream>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/campaign/record_log.hpp"
#include "kseek/core/util/files.hpp"
#include "support/campaign_fixture.hpp"
#include "support/hook_payloads.hpp"
#include "support/run_command.hpp"
#include "support/temp_folder.hpp"

namespace kseek {
namespace {

// The budget a fresh campaign signs: the tests count blocks against it, whatever default kseek ships.
const int kDefaultBudget = kseek::CampaignThresholds{}.hook_block_budget;

namespace fs = std::filesystem;
using nlohmann::json;
using testing::run_command;
using testing::stop_payload;

// The keys each host's Stop reply may hold: Codex's stop.command.output schema has additionalProperties: false.
const std::set<std::string> kCodexStopKeys = {"continue",      "stopReason", "suppressOutput",
                                              "systemMessage", "decision",   "reason"};

std::string shell_word(const std::string& s) { return "'" + s + "'"; }

struct HookReply {
  int exit_code = -1;
  std::string out;
  std::string err;
  json document;  // the parsed stdout; null when stdout was empty
};

class StopGate : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = root_ / "c";
    auto init = testing::run_kseek(
        "init " + shell_word(dir_) + " --plugin example.softmax --goal 'all_passed and geomean >= 1.10'", "stop-gate");
    ASSERT_EQ(init.exit_code, 0) << init.out;
  }
  const std::string& host() const { return GetParam(); }

  // Each (payload, what stderr must name) blocks and tells the person. Malformed input shares one block budget (the
  // session it names cannot be trusted), so a caller sends fewer payloads than the default budget.
  void expect_each_blocks_and_is_named(const std::vector<std::pair<std::string, std::string>>& payloads) {
    ASSERT_LT(payloads.size(), static_cast<std::size_t>(kDefaultBudget));
    for (const auto& [payload, named] : payloads) {
      HookReply r = stop_raw(payload, dir_.string());
      expect_block(r, "hook input", payload.substr(0, 60));
      EXPECT_NE(r.err.find(named), std::string::npos) << "stderr names the problem (" << named << "): " << r.err;
      expect_person_told(r, "hook input");
    }
  }

  // `kseek hook stop` with `stdin_bytes` on stdin; `campaign_arg` empty: no --campaign (the host's cwd decides).
  HookReply stop_raw(const std::string& stdin_bytes, const std::string& campaign_arg, const std::string& env = "") {
    const fs::path in = root_ / "stdin";
    const fs::path err = root_ / "stderr";
    std::ofstream(in, std::ios::binary) << stdin_bytes;
    std::string command = env + shell_word(KSEEK_EXE) + " hook stop --host " + host();
    if (!campaign_arg.empty()) command += " --campaign " + shell_word(campaign_arg);
    auto run =
        run_command("cd " + shell_word(root_) + " && " + command + " < " + shell_word(in) + " 2> " + shell_word(err));
    HookReply reply{run.exit_code, run.out, read_file(err).ok() ? *read_file(err) : "", json()};
    if (!run.out.empty()) {
      try {
        reply.document = json::parse(run.out);
      } catch (const json::exception& e) {
        ADD_FAILURE() << "stdout is not one JSON document (" << e.what() << "):\n" << run.out;
      }
    }
    return reply;
  }
  HookReply stop(const json& session_id, const fs::path& campaign, const std::string& env = "") {
    return stop_raw(stop_payload(host(), session_id, campaign).dump(), campaign.string(), env);
  }

  // A well-formed block for this host: exit 0, decision "block", a non-empty reason, only keys the host accepts.
  static void expect_block(const HookReply& r, const std::string& must_mention, const std::string& what) {
    SCOPED_TRACE(what);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    ASSERT_TRUE(r.document.is_object()) << "stdout: '" << r.out << "' stderr: " << r.err;
    EXPECT_EQ(r.document.value("decision", ""), "block") << r.out;
    const std::string reason = r.document.value("reason", "");
    EXPECT_FALSE(reason.empty());
    EXPECT_NE(reason.find(must_mention), std::string::npos) << "the reason says what is wrong: " << reason;
    for (const auto& [key, value] : r.document.items()) EXPECT_TRUE(kCodexStopKeys.contains(key)) << key;
  }
  // A block the person must act on also reaches the person (systemMessage: both hosts show it).
  static void expect_person_told(const HookReply& r, const std::string& must_mention) {
    ASSERT_TRUE(r.document.is_object()) << r.out;
    ASSERT_TRUE(r.document.contains("systemMessage")) << r.out;
    EXPECT_NE(r.document["systemMessage"].get<std::string>().find(must_mention), std::string::npos) << r.out;
  }
  std::vector<json> raw_log_of(const std::string& type, const std::string& decision) {
    std::vector<json> out;
    auto log = read_records(dir_ / ".kseek" / "log.jsonl");
    if (!log) return out;
    for (const auto& r : log->records) {
      if (r.value.value("type", "") == type && r.value.value("decision", "") == decision) out.push_back(r.value);
    }
    return out;
  }
  // Blocks until the reply is not a block; returns how many blocks came first (at most `limit`).
  int blocks_until_allowed(const json& session, const fs::path& campaign, int limit, HookReply& last) {
    for (int blocks = 0; blocks < limit; ++blocks) {
      last = stop(session, campaign);
      if (!last.document.is_object() || last.document.value("decision", "") != "block") return blocks;
    }
    return limit;
  }

  const testing::TempFolder temp_{"kseek_stop_gate"};
  const fs::path& root_ = temp_.path();
  fs::path dir_;
};

TEST_P(StopGate, AnEditedConfigBlocksWithReconfigureAndTheSignedBudget) {
  // The agent lowers the budget and the goal in campaign.json: neither may let it stop.
  json config = json::parse(*read_file(dir_ / "campaign.json"));
  config["goal"] = "all_passed";
  config["thresholds"]["hook_block_budget"] = 1;
  ASSERT_TRUE(write_file_atomically(dir_ / "campaign.json", config.dump(2) + "\n").ok());
  HookReply first = stop("s1", dir_);
  expect_block(first, "kseek reconfigure", "edited config");
  expect_person_told(first, "kseek reconfigure");
  EXPECT_NE(first.err.find("campaign.json"), std::string::npos) << first.err;
  EXPECT_FALSE(raw_log_of("hook", "block").empty()) << "the block is logged: the log can still be written";
  HookReply last;
  const int blocks = 1 + blocks_until_allowed("s1", dir_, 20, last);
  EXPECT_EQ(blocks, kDefaultBudget) << "the budget is the one kseek signed (the default), not the edited one (1)";
  EXPECT_TRUE(last.out.empty() || !last.document.contains("decision")) << last.out;
  expect_person_told(last, "budget");
  EXPECT_EQ(raw_log_of("hook", "allow").size(), 1u) << "the spent budget is logged as such";
}

TEST_P(StopGate, ADeletedLogBlocksAndSaysToRestoreIt) {
  fs::remove(dir_ / ".kseek" / "log.jsonl");
  HookReply r = stop("s1", dir_);
  expect_block(r, "restore", "deleted log");
  expect_person_told(r, "restore");
  EXPECT_FALSE(fs::exists(dir_ / ".kseek" / "log.jsonl")) << "no new log is started in place of the deleted one";
  HookReply last;
  EXPECT_EQ(1 + blocks_until_allowed("s1", dir_, 20, last), kDefaultBudget)
      << "still bounded by a budget: the host may never cap";
  expect_person_told(last, "budget");
}

TEST_P(StopGate, ADamagedLogBlocks) {
  std::string log = *read_file(dir_ / ".kseek" / "log.jsonl");
  log[70] = log[70] == 'x' ? 'y' : 'x';  // inside the init record's JSON: its checksum no longer matches
  ASSERT_TRUE(write_file_atomically(dir_ / ".kseek" / "log.jsonl", log).ok());
  expect_block(stop("s1", dir_), "restore", "damaged log");
}

TEST_P(StopGate, ADeletedStateFolderBlocks) {
  fs::remove_all(dir_ / ".kseek");
  HookReply r = stop("s1", dir_);
  expect_block(r, "restore", "deleted .kseek");
  expect_person_told(r, "restore");
}

TEST_P(StopGate, AForgedBlockCounterDoesNotSpendTheBudget) {
  // .kseek/ is writable by the agent: a counter kept there must not be able to claim the budget is spent.
  ASSERT_TRUE(write_file_atomically(dir_ / ".kseek" / "hook-state.json", R"({"s1": 1000})").ok());
  expect_block(stop("s1", dir_), "is not met", "forged counter");
  ASSERT_TRUE(write_file_atomically(dir_ / ".kseek" / "hook-state.json", R"({"s1": "many"})").ok());
  expect_block(stop("s1", dir_), "is not met", "counter of the wrong type");
}

TEST_P(StopGate, MalformedPayloadsBlockAndAreNamedOnStderr) {
  const std::string big(16u << 20, 'a');
  const std::vector<std::pair<std::string, std::string>> payloads = {
      {"not json", "not JSON"},
      {"[1, 2]", "not a JSON object"},
      {"", "not JSON"},
      {R"({"session_id": "s1", "cwd": ")" + big + "\"}", "MiB"},
  };
  expect_each_blocks_and_is_named(payloads);
}

TEST_P(StopGate, MalformedFieldsBlockAndAreNamedOnStderr) {
  const std::vector<std::pair<std::string, std::string>> payloads = {
      {stop_payload(host(), nullptr, dir_).dump(), "session_id"},
      {stop_payload(host(), 42, dir_).dump(), "session_id"},
      {stop_payload(host(), "", dir_).dump(), "session_id"},
      {[&] {
         json j = stop_payload(host(), "s1", dir_);
         j.erase("session_id");
         return j.dump();
       }(),
       "session_id"},
      {stop_payload(host(), "s1", dir_, json::object({{"text", "done"}})).dump(), "last_assistant_message"},
  };
  expect_each_blocks_and_is_named(payloads);
}

TEST_P(StopGate, MalformedPayloadWithTheGoalMetIsAllowedButNamed) {
  // The rule is "the goal holds or the budget is spent": a host's bad payload does not keep a finished agent going.
  auto c = Campaign::open(dir_);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto text = read_file(c->candidate_path());
  ASSERT_TRUE(text.ok());
  ASSERT_TRUE(c->record_evaluation(testing::synthetic_record(*text, {{"S01", "PASSED", 1.3}}, 1.3)).ok());
  HookReply r = stop_raw("not json", dir_.string(), "KSEEK_TESTING=1 ");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_FALSE(r.document.is_object() && r.document.contains("decision")) << r.out;
  EXPECT_NE(r.err.find("not JSON"), std::string::npos) << r.err;
}

TEST_P(StopGate, AnExceptionInsideTheHookBlocks) {
  HookReply r = stop("s1", dir_, "KSEEK_TESTING=1 KSEEK_TESTING_STOP_FAULT=throw ");
  expect_block(r, "internal error", "exception");
  expect_person_told(r, "internal error");
  EXPECT_NE(r.err.find("internal error"), std::string::npos) << r.err;
}

TEST_P(StopGate, AHookThatCannotDecideInTimeBlocks) {
  // Another process holds the log's lock (an agent can do that): past the host's timeout the host would allow.
  const int fd = ::open((dir_ / ".kseek" / "log.jsonl").c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  const std::string payload = stop_payload(host(), "s1", dir_).dump();
  const fs::path in = root_ / "stdin";
  std::ofstream(in) << payload;
  auto run = run_command("timeout 30 " + shell_word(KSEEK_EXE) + " hook stop --deadline 2 --host " + host() +
                         " --campaign " + shell_word(dir_) + " < " + shell_word(in) + " 2>/dev/null");
  ::close(fd);
  HookReply r{run.exit_code, run.out, "", run.out.empty() ? json() : json::parse(run.out, nullptr, false)};
  expect_block(r, "no decision within 2 s", "deadline");
  expect_person_told(r, "no decision");
}

TEST_P(StopGate, ARegisteredCampaignFolderThatIsGoneBlocksWithinABudgetAndTellsThePerson) {
  // The hook was registered for `dir_`; the folder going away (an agent can delete it) is not a way out.
  fs::remove_all(dir_);
  HookReply first = stop("s1", dir_);
  expect_block(first, "gone", "campaign folder gone");
  expect_person_told(first, "gone");
  HookReply last;
  EXPECT_EQ(1 + blocks_until_allowed("s1", dir_, 20, last), kDefaultBudget);
  expect_person_told(last, "budget");
  EXPECT_FALSE(fs::exists(dir_)) << "the gate never recreates a campaign folder";
}

TEST_P(StopGate, OutsideAnyCampaignTheStopIsAllowedAndThePersonIsTold) {
  // No --campaign and no campaign at the host's cwd: not kseek's session. Both hosts get a systemMessage (Codex's
  // Stop output schema accepts it), and nothing that could read as a block.
  const fs::path elsewhere = root_ / "elsewhere";
  fs::create_directories(elsewhere);
  HookReply r = stop_raw(stop_payload(host(), "s1", elsewhere).dump(), "");
  EXPECT_EQ(r.exit_code, 0);
  ASSERT_TRUE(r.document.is_object()) << "stdout: '" << r.out << "'";
  EXPECT_FALSE(r.document.contains("decision")) << r.out;
  for (const auto& [key, value] : r.document.items()) EXPECT_TRUE(kCodexStopKeys.contains(key)) << key;
  expect_person_told(r, "no campaign");
}

TEST(StopGateInstructions, AgentsMdDoesNotSayAChangedConfigEndsTheCampaign) {
  const testing::TempFolder temp("kseek_stop_gate_agents");
  auto init = testing::run_kseek("init " + shell_word(temp.path() / "c") + " --plugin example.softmax", "stop-gate");
  ASSERT_EQ(init.exit_code, 0) << init.out;
  const std::string agents = *read_file(temp.path() / "c" / "AGENTS.md");
  EXPECT_EQ(agents.find("stops the campaign"), std::string::npos) << agents;
  EXPECT_NE(agents.find("every stop is blocked until a person repairs the campaign"), std::string::npos) << agents;
}

INSTANTIATE_TEST_SUITE_P(Hosts, StopGate, ::testing::Values("claude", "codex"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace kseek
