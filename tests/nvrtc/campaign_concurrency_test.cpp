// "At most once" under concurrency, through the real `kseek` binary: many hooks and commands released at the same
// instant on fresh campaigns; every event, question, steer id and delivery that must exist once exists once.
// It must never synchronise by sleeping: the processes wait on one pipe and are released by closing it.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <set>

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

constexpr int kCampaigns = 10;
constexpr int kConcurrent = 8;

// Starts `argvs` as child processes that all block on one pipe, then releases them together and waits for all.
// Each child reads `stdin_file` (may be empty: /dev/null) and writes nothing we keep. Returns the exit codes.
std::vector<int> run_together(const std::vector<std::vector<std::string>>& argvs, const fs::path& stdin_file) {
  int gate[2];
  if (::pipe(gate) != 0) return {};
  std::vector<pid_t> children;
  for (const auto& argv : argvs) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(gate[1]);
      char byte;
      while (::read(gate[0], &byte, 1) > 0) {
      }  // EOF: the parent closed the write end, every child goes at once
      const int in = ::open(stdin_file.empty() ? "/dev/null" : stdin_file.c_str(), O_RDONLY);
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(in, STDIN_FILENO);
      ::dup2(null, STDOUT_FILENO);
      ::dup2(null, STDERR_FILENO);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    children.push_back(pid);
  }
  ::close(gate[0]);
  ::close(gate[1]);
  std::vector<int> codes;
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    codes.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  return codes;
}

class CampaignConcurrency : public ::testing::Test {
 protected:
  fs::path fresh_campaign(int i) {
    const fs::path dir = root_ / ("c" + std::to_string(i));
    auto init = testing::run_kseek(
        "init '" + dir.string() + "' --plugin example.softmax --goal 'all_passed and geomean >= 1.10'",
        "campaign-concurrency");
    EXPECT_EQ(init.exit_code, 0) << init.out;
    return dir;
  }
  std::vector<std::vector<std::string>> times(int n, const std::vector<std::string>& argv) {
    return std::vector<std::vector<std::string>>(static_cast<std::size_t>(n), argv);
  }
  fs::path payload(const std::string& name, const json& j) {
    const fs::path file = root_ / (name + ".json");
    std::ofstream(file) << j.dump();
    return file;
  }
  static std::vector<json> records(const fs::path& dir, const std::string& type) {
    auto c = Campaign::open(dir);
    EXPECT_TRUE(c.ok()) << (c ? "" : c.error().message);
    std::vector<json> out;
    if (!c) return out;
    auto log = c->read_log();
    EXPECT_TRUE(log.ok());
    if (!log) return out;
    EXPECT_TRUE(log->damaged.empty()) << dir << ": line " << log->damaged.front().line << " "
                                      << log->damaged.front().reason;
    for (const auto& r : log->records) {
      if (r.value.value("type", "") == type) out.push_back(r.value);
    }
    return out;
  }
  // How often each key occurs among `type` records, for the keys that occur more than once.
  static std::map<std::string, int> duplicates(const std::vector<json>& recs,
                                               const std::function<std::string(const json&)>& key) {
    std::map<std::string, int> count;
    for (const auto& r : recs) count[key(r)] += 1;
    std::map<std::string, int> out;
    for (const auto& [k, n] : count) {
      if (n > 1) out[k] = n;
    }
    return out;
  }

  const testing::TempFolder temp_{"kseek_campaign_concurrency"};
  const fs::path& root_ = temp_.path();
};

std::string event_key(const json& r) { return r.value("event", "") + "@" + std::to_string(r.value("evaluation", -1)); }

TEST_F(CampaignConcurrency, ConcurrentHooksAndCommandsLogEachAtMostOnceEventOnce) {
  const std::string exe = KSEEK_EXE;
  int duplicated_campaigns = 0;
  for (int i = 0; i < kCampaigns; ++i) {
    SCOPED_TRACE("campaign " + std::to_string(i));
    const fs::path dir = fresh_campaign(i);
    // 1. Session starts at once: one `start` event, one question for it.
    const fs::path start = payload(
        "start",
        {{"session_id", "s"}, {"hook_event_name", "SessionStart"}, {"source", "startup"}, {"cwd", dir.string()}});
    for (int code :
         run_together(times(kConcurrent, {exe, "hook", "session-start", "--campaign", dir.string()}), start)) {
      EXPECT_EQ(code, 0);
    }
    // 2. An evaluation that raises a suspicious win, then `kseek ask` at once: one event for it, one question.
    {
      auto c = Campaign::open(dir);
      ASSERT_TRUE(c.ok()) << c.error().message;
      auto text = read_file(c->candidate_path());
      ASSERT_TRUE(text.ok());
      ASSERT_TRUE(c->record_evaluation(testing::synthetic_record(*text, {{"S01", "PASSED", 2.0}}, 2.0)).ok());
    }
    run_together(times(kConcurrent, {exe, "ask", "--campaign", dir.string()}), "");
    // 3. Steers at once: distinct steer ids.
    std::vector<std::vector<std::string>> steers;
    for (int s = 0; s < kConcurrent; ++s)
      steers.push_back({exe, "steer", "--campaign", dir.string(), "question " + std::to_string(s)});
    run_together(steers, "");
    // 4. Post-tool hooks at once: each waiting steer is delivered once.
    const fs::path post = payload(
        "post",
        {{"session_id", "s"}, {"hook_event_name", "PostToolUse"}, {"tool_name", "Bash"}, {"cwd", dir.string()}});
    for (int round = 0; round < 2; ++round) {
      run_together(times(kConcurrent, {exe, "hook", "post-tool", "--campaign", dir.string()}), post);
    }

    const auto events = records(dir, "event");
    const auto questions = records(dir, "question");
    const auto steer_records = records(dir, "steer");
    const auto dup_events = duplicates(events, event_key);
    // One question per event raised (the start event, the suspicious win), by event name.
    std::vector<json> bank_questions;
    std::vector<json> human_questions;
    for (const auto& q : questions) (q.value("source", "") == "human" ? human_questions : bank_questions).push_back(q);
    const auto dup_questions = duplicates(bank_questions, [](const json& q) { return q.value("event", ""); });
    const auto dup_steer_ids =
        duplicates(steer_records, [](const json& s) { return std::to_string(s.value("steer_id", 0)); });
    const auto dup_deliveries =
        duplicates(human_questions, [](const json& q) { return std::to_string(q.value("steer_id", 0)); });
    std::vector<json> injections;
    for (const auto& h : records(dir, "hook")) {
      if (h.value("hook", "") == "post-tool") injections.push_back(h);
    }
    const auto dup_injections = duplicates(injections, [](const json& h) { return h.value("reason", ""); });
    EXPECT_TRUE(dup_events.empty()) << "events logged more than once: " << json(dup_events).dump();
    EXPECT_TRUE(dup_questions.empty()) << "an event asked more than once: " << json(dup_questions).dump();
    EXPECT_TRUE(dup_steer_ids.empty()) << "steer ids given twice: " << json(dup_steer_ids).dump();
    EXPECT_TRUE(dup_deliveries.empty()) << "a steer delivered twice: " << json(dup_deliveries).dump();
    EXPECT_TRUE(dup_injections.empty()) << "a post-tool hook injected the same text twice: "
                                        << json(dup_injections).dump();
    EXPECT_EQ(duplicates(events, event_key).count("start@0"), 0u);
    EXPECT_EQ(
        std::count_if(events.begin(), events.end(), [](const json& e) { return e.value("event", "") == "start"; }), 1);
    EXPECT_EQ(std::count_if(events.begin(), events.end(),
                            [](const json& e) { return e.value("event", "") == "suspicious-win"; }),
              1);
    EXPECT_EQ(steer_records.size(), static_cast<std::size_t>(kConcurrent)) << "no steer is lost either";
    duplicated_campaigns += !(dup_events.empty() && dup_questions.empty() && dup_steer_ids.empty() &&
                              dup_deliveries.empty() && dup_injections.empty());
  }
  EXPECT_EQ(duplicated_campaigns, 0) << "of " << kCampaigns << " fresh campaigns";
}

}  // namespace
}  // namespace kseek
