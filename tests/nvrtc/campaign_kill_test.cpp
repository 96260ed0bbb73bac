// Kill and concurrency tests of a campaign's log through the real `kseek` writers: several `kseek claim` processes
// at once, and writers killed with SIGKILL at arbitrary moments; the log must read back whole with every record whose
// writer had acknowledged it (exited 0). It must never synchronise by sleeping a fixed time to make a test pass.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "kseek/core/campaign/record_log.hpp"
#include "kseek/core/util/files.hpp"
#include "support/run_command.hpp"
#include "support/temp_folder.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;

class CampaignLogKill : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = root_ / "c";
    auto init =
        testing::run_kseek("init '" + dir_.string() + "' --plugin example.softmax --questions off", "campaign-kill");
    ASSERT_EQ(init.exit_code, 0) << init.out;
  }

  // A shell loop that records claims `tag-0`, `tag-1`, ... and appends each number to `acks` once kseek exited 0.
  pid_t start_writer(const std::string& tag, int count) {
    const std::string script = "i=0; while [ $i -lt " + std::to_string(count) + " ]; do '" + std::string(KSEEK_EXE) +
                               "' claim --campaign '" + dir_.string() + "' limit " + tag +
                               "-$i >/dev/null 2>&1 && echo " + tag + "-$i >> '" + (root_ / "acks").string() +
                               "'; i=$((i+1)); done";
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::setpgid(0, 0);  // its own group, so a kill reaches the kseek child mid-append too
      ::execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::setpgid(pid, pid);
    return pid;
  }
  std::set<std::string> claims_in_log(LogContents& contents) {
    auto log = read_records(dir_ / ".kseek" / "log.jsonl");
    EXPECT_TRUE(log.ok());
    contents = *log;
    std::set<std::string> texts;
    for (const auto& r : log->records) {
      if (r.value.value("type", "") == "claim") texts.insert(r.value.value("text", ""));
    }
    return texts;
  }
  std::set<std::string> acknowledged() {
    std::set<std::string> acks;
    std::ifstream in(root_ / "acks");
    for (std::string line; std::getline(in, line);) acks.insert(line);
    return acks;
  }

  const testing::TempFolder temp_{"kseek_campaign_kill"};
  const fs::path& root_ = temp_.path();
  fs::path dir_;
};

TEST_F(CampaignLogKill, ConcurrentClaimWritersNeverLoseOrInterleaveARecord) {
  std::vector<pid_t> writers;
  for (int w = 0; w < 4; ++w) writers.push_back(start_writer("w" + std::to_string(w), 8));
  for (pid_t pid : writers) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  }
  LogContents contents;
  const auto claims = claims_in_log(contents);
  EXPECT_TRUE(contents.damaged.empty()) << "line " << contents.damaged.front().line << ": "
                                        << contents.damaged.front().reason;
  EXPECT_EQ(acknowledged().size(), 32u);
  EXPECT_EQ(claims, acknowledged());
  auto status = testing::run_kseek("--json status --campaign '" + dir_.string() + "'", "campaign-kill");
  EXPECT_EQ(status.exit_code, 0) << status.out;
}

TEST_F(CampaignLogKill, SigkillAtAnyMomentKeepsEveryAcknowledgedRecordAndTheLogReadable) {
  std::mt19937 random(20261130);
  for (int round = 0; round < 12; ++round) {
    const pid_t pid = start_writer("r" + std::to_string(round), 1000);
    // Kill somewhere inside the stream of appends: after the first acknowledged claim of this round, plus a
    // random extra delay, so the kill lands at different points of an append.
    const std::string tag = "r" + std::to_string(round) + "-";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    bool acknowledged_one = false;
    while (!acknowledged_one && std::chrono::steady_clock::now() < deadline) {
      const auto acks = acknowledged();
      acknowledged_one =
          std::any_of(acks.begin(), acks.end(), [&](const std::string& a) { return a.rfind(tag, 0) == 0; });
      if (!acknowledged_one) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    // Without one acknowledged claim per round the checks below would pass over nothing.
    EXPECT_TRUE(acknowledged_one) << "round " << round << ": no claim acknowledged within 30 s";
    std::this_thread::sleep_for(std::chrono::milliseconds(random() % 60));
    ASSERT_EQ(::kill(-pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  }
  LogContents contents;
  const auto claims = claims_in_log(contents);
  ASSERT_GE(acknowledged().size(), 12u) << "at least one acknowledged claim per killed writer";
  for (const auto& ack : acknowledged()) EXPECT_TRUE(claims.contains(ack)) << "acknowledged but lost: " << ack;
  // A kill between write and fsync may leave one torn line per kill at most; each is reported with its number and
  // the next append starts on a new line, so everything after it still reads.
  EXPECT_LE(contents.damaged.size(), 12u);
  std::cout << "12 kills: " << acknowledged().size() << " acknowledged claims, " << claims.size() << " in the log, "
            << contents.damaged.size() << " torn line(s) reported\n";
  for (const auto& d : contents.damaged) EXPECT_FALSE(d.reason.empty());
  auto status = testing::run_kseek("--json status --campaign '" + dir_.string() + "'", "campaign-kill");
  EXPECT_EQ(status.exit_code, 0) << "a log with torn lines still opens: " << status.out;
  // And it still takes appends.
  EXPECT_EQ(
      testing::run_kseek("claim --campaign '" + dir_.string() + "' done after-the-kills", "campaign-kill").exit_code,
      0);
  const auto after = claims_in_log(contents);
  EXPECT_TRUE(after.contains("after-the-kills"));
}

}  // namespace
}  // namespace kseek
