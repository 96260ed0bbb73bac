// Unit tests of the append-only record log: round trip, concurrent writers across processes, SIGKILL
// mid-append, and damaged lines. It must never synchronise with sleeps: acknowledgements travel over a pipe.
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "kseek/core/campaign/record_log.hpp"
#include "kseek/core/util/sha256.hpp"
#include "support/temp_folder.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;

class RecordLogTest : public ::testing::Test {
 protected:
  LogContents read_or_die() {
    auto contents = read_records(log_);
    EXPECT_TRUE(contents.ok()) << (contents.ok() ? "" : contents.error().message);
    return contents.ok() ? contents.value() : LogContents{};
  }
  void append_raw(std::string_view bytes) {
    std::ofstream out(log_, std::ios::binary | std::ios::app);
    out << bytes;
  }

  const testing::TempFolder temp_{"kseek_record_log"};
  const fs::path& dir_ = temp_.path();
  const fs::path log_ = dir_ / "records.jsonl";
};

std::string line_for(const nlohmann::json& record) {
  const std::string text = record.dump();
  return sha256_hex(text) + " " + text + "\n";
}

TEST_F(RecordLogTest, MissingLogReadsAsEmpty) {
  const LogContents contents = read_or_die();
  EXPECT_TRUE(contents.records.empty());
  EXPECT_TRUE(contents.damaged.empty());
}

TEST_F(RecordLogTest, RoundTripKeepsValuesOrderAndLineNumbers) {
  const std::vector<nlohmann::json> written = {
      {{"i", 0}, {"status", "PASSED"}},
      {{"i", 1}, {"text", "has\nnewline and \"quotes\""}},
      {{"i", 2}, {"nested", {{"a", {1, 2, 3}}}}},
  };
  for (const auto& record : written) {
    auto appended = append_record(log_, record);
    ASSERT_TRUE(appended.ok()) << appended.error().message;
  }
  const LogContents contents = read_or_die();
  EXPECT_TRUE(contents.damaged.empty());
  ASSERT_EQ(contents.records.size(), written.size());
  for (std::size_t i = 0; i < written.size(); ++i) {
    EXPECT_EQ(contents.records[i].line, i + 1);
    EXPECT_EQ(contents.records[i].value, written[i]);
  }
}

TEST_F(RecordLogTest, ConcurrentWritersNeverInterleave) {
  constexpr int kWriters = 4;
  constexpr int kPerWriter = 200;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // Records larger than a pipe buffer's atomic size, so only the flock keeps lines whole.
      const std::string pad(5000 + 97 * w, static_cast<char>('a' + w));
      for (int s = 0; s < kPerWriter; ++s) {
        if (!append_record(log_, {{"writer", w}, {"seq", s}, {"pad", pad}}).ok()) ::_exit(1);
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer " << pid << " failed";
  }
  const LogContents contents = read_or_die();
  EXPECT_TRUE(contents.damaged.empty()) << "first damaged line " << contents.damaged.front().line << ": "
                                        << contents.damaged.front().reason;
  ASSERT_EQ(contents.records.size(), static_cast<std::size_t>(kWriters * kPerWriter));
  std::vector<int> next_seq(kWriters, 0);
  for (const auto& record : contents.records) {
    const int w = record.value.at("writer").get<int>();
    ASSERT_TRUE(w >= 0 && w < kWriters);
    EXPECT_EQ(record.value.at("seq").get<int>(), next_seq[w]) << "writer " << w << " out of order";
    EXPECT_EQ(record.value.at("pad").get<std::string>(), std::string(5000 + 97 * w, static_cast<char>('a' + w)));
    ++next_seq[w];
  }
  for (int w = 0; w < kWriters; ++w) EXPECT_EQ(next_seq[w], kPerWriter);
}

TEST_F(RecordLogTest, SigkillNeverLosesAnAcknowledgedRecord) {
  int ack[2];
  ASSERT_EQ(::pipe(ack), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(ack[0]);
    const std::string pad(20000, 'x');  // large records widen the window for a torn write
    for (int i = 0;; ++i) {
      if (!append_record(log_, {{"i", i}, {"pad", pad}}).ok()) ::_exit(1);
      if (::write(ack[1], &i, sizeof i) != static_cast<ssize_t>(sizeof i)) ::_exit(2);
    }
  }
  ::close(ack[1]);
  int last_ack = -1;
  int got = 0;
  while (got < 50) {
    int i = 0;
    ASSERT_EQ(::read(ack[0], &i, sizeof i), static_cast<ssize_t>(sizeof i)) << "child died early";
    ASSERT_EQ(i, last_ack + 1);
    last_ack = i;
    ++got;
  }
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  for (int i = 0; ::read(ack[0], &i, sizeof i) == static_cast<ssize_t>(sizeof i);) last_ack = i;
  ::close(ack[0]);

  const LogContents before = read_or_die();
  ASSERT_GE(before.records.size(), static_cast<std::size_t>(last_ack + 1));
  for (int i = 0; i <= last_ack; ++i) {
    EXPECT_EQ(before.records[i].value.at("i").get<int>(), i);
    EXPECT_EQ(before.records[i].value.at("pad").get<std::string>().size(), 20000u);
  }
  // The only possible damage is one torn tail after the last whole record.
  ASSERT_LE(before.damaged.size(), 1u);
  if (!before.damaged.empty()) {
    EXPECT_EQ(before.damaged[0].line, before.records.size() + 1);
  }

  auto appended = append_record(log_, {{"after", "kill"}});
  ASSERT_TRUE(appended.ok()) << appended.error().message;
  const LogContents after = read_or_die();
  ASSERT_EQ(after.records.size(), before.records.size() + 1);
  EXPECT_EQ(after.records.back().value, (nlohmann::json{{"after", "kill"}}));
  EXPECT_EQ(after.damaged.size(), before.damaged.size());
}

TEST_F(RecordLogTest, TornTailIsReportedAndTheNextAppendStartsANewLine) {
  ASSERT_TRUE(append_record(log_, {{"i", 0}}).ok());
  const std::string torn = line_for({{"i", 1}});
  append_raw(torn.substr(0, torn.size() - 4));  // digest intact, JSON cut short

  LogContents contents = read_or_die();
  ASSERT_EQ(contents.records.size(), 1u);
  ASSERT_EQ(contents.damaged.size(), 1u);
  EXPECT_EQ(contents.damaged[0].line, 2u);
  EXPECT_NE(contents.damaged[0].reason.find("torn tail"), std::string::npos) << contents.damaged[0].reason;

  ASSERT_TRUE(append_record(log_, {{"i", 2}}).ok());
  contents = read_or_die();
  ASSERT_EQ(contents.records.size(), 2u);
  EXPECT_EQ(contents.records[1].line, 3u);
  EXPECT_EQ(contents.records[1].value, (nlohmann::json{{"i", 2}}));
  ASSERT_EQ(contents.damaged.size(), 1u);
  EXPECT_EQ(contents.damaged[0].line, 2u);
  EXPECT_NE(contents.damaged[0].reason.find("checksum"), std::string::npos) << contents.damaged[0].reason;
}

TEST_F(RecordLogTest, DamagedLinesInTheMiddleAreReportedWithLineNumbers) {
  ASSERT_TRUE(append_record(log_, {{"i", 0}}).ok());
  append_raw("garbage that is no record\n");
  std::string tampered = line_for({{"i", 1}});
  tampered[tampered.size() - 3] = '7';  // {"i":1} -> {"i":7}: the checksum no longer matches
  append_raw(tampered);
  append_raw("\n");
  ASSERT_TRUE(append_record(log_, {{"i", 2}}).ok());

  const LogContents contents = read_or_die();
  ASSERT_EQ(contents.records.size(), 2u);
  EXPECT_EQ(contents.records[0].line, 1u);
  EXPECT_EQ(contents.records[0].value, (nlohmann::json{{"i", 0}}));
  EXPECT_EQ(contents.records[1].line, 5u);
  EXPECT_EQ(contents.records[1].value, (nlohmann::json{{"i", 2}}));
  ASSERT_EQ(contents.damaged.size(), 3u);
  EXPECT_EQ(contents.damaged[0].line, 2u);
  EXPECT_NE(contents.damaged[0].reason.find("malformed"), std::string::npos);
  EXPECT_EQ(contents.damaged[0].excerpt, "garbage that is no record");
  EXPECT_EQ(contents.damaged[1].line, 3u);
  EXPECT_NE(contents.damaged[1].reason.find("checksum mismatch"), std::string::npos);
  EXPECT_EQ(contents.damaged[2].line, 4u);
  EXPECT_EQ(contents.damaged[2].reason, "empty line");
}

// The shared fields are read once, leniently: a key of another type than kseek writes reads as empty or 0 instead of
// throwing in whichever reader meets it first.
TEST(LogRecordFields, AreReadOnceAndLeniently) {
  const LogRecord event = log_record(7, {{"type", "event"},
                                         {"time", "2026-12-02T19:10:03Z"},
                                         {"event", "stagnation"},
                                         {"detail", "208 minutes"},
                                         {"evaluation", 0}});
  EXPECT_EQ(event.line, 7u);
  EXPECT_EQ(event.type, "event");
  EXPECT_EQ(event.event, "stagnation");
  EXPECT_EQ(event.detail, "208 minutes");
  EXPECT_EQ(event.time, "2026-12-02T19:10:03Z");
  const LogRecord odd = log_record(8, {{"type", 3}, {"number", "six"}, {"steer_id", 2.5}, {"text", nullptr}});
  EXPECT_EQ(odd.type, "");
  EXPECT_EQ(odd.number, 0);
  EXPECT_EQ(odd.steer_id, 0);
  EXPECT_EQ(odd.text, "");
  EXPECT_EQ(odd.value["number"], "six") << "the line itself is kept whole";
  EXPECT_EQ(log_record(9, nlohmann::json::array({1, 2})).type, "");
}

}  // namespace
}  // namespace kseek
