// `kseek eval`'s progress for people: the live line's text (k/N, phase, elapsed, estimate, width), what each mode
// writes, and when the live line's ticker thread starts. It must never depend on timing: the ticker may add redraws,
// so only content is checked.
#include <filesystem>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "eval_progress.hpp"
#include "report/report_test_support.hpp"

namespace kseek::cli {
namespace {

using kseek::testing::count_of;

kseek::ScenarioOutcome finished(const char* id, const char* status, double seconds, double ratio = 0) {
  nlohmann::json r = {{"scenario", id}, {"status", status}, {"wall_seconds", seconds}, {"message", ""}};
  if (ratio > 0) r["timing"] = {{"ratio", ratio}};
  if (std::string(status) != "PASSED") r["message"] = "max error 0.3 over the allowed 0.005";
  return kseek::scenario_outcome_from_json(r).value();
}

std::size_t code_points(const std::string& text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

TEST(EvalProgress, FormatsDurations) {
  EXPECT_EQ(format_duration(0), "0s");
  EXPECT_EQ(format_duration(42.4), "42s");
  EXPECT_EQ(format_duration(185), "3m 05s");
  EXPECT_EQ(format_duration(3720), "1h 02m");
  EXPECT_EQ(format_duration(-3), "0s");
}

TEST(EvalProgress, LineSaysWhereItIsAndWhatIsLeft) {
  ProgressSnapshot s;
  s.total = 26;
  s.elapsed_seconds = 12;
  const std::string before = format_progress_line(s, 200);
  EXPECT_NE(before.find("[0/26] building, checking, then scenario 1"), std::string::npos) << before;
  EXPECT_NE(before.find("elapsed 12s"), std::string::npos) << before;
  EXPECT_NE(before.find("estimate after the first scenario"), std::string::npos) << before;

  s.done = 3;
  s.elapsed_seconds = 75;
  s.remaining_seconds = 23 * 8.0;
  s.last_scenario = "S03";
  s.last_status = "PASSED";
  s.last_ratio = 1.0234;
  const std::string during = format_progress_line(s, 200);
  EXPECT_NE(during.find("[3/26] running scenario 4"), std::string::npos) << during;
  EXPECT_NE(during.find("elapsed 1m 15s"), std::string::npos) << during;
  EXPECT_NE(during.find("about 3m 04s left"), std::string::npos) << during;
  EXPECT_NE(during.find("last: S03 PASSED 1.023x"), std::string::npos) << during;
  EXPECT_EQ(during.find('\n'), std::string::npos);
  EXPECT_EQ(during.find('\r'), std::string::npos);

  const std::string narrow = format_progress_line(s, 40);
  EXPECT_LE(code_points(narrow), 39u) << narrow;  // never the last column: that wraps on some terminals
  EXPECT_EQ(narrow.rfind("[3/26]", 0), 0u);
}

TEST(EvalProgress, NotATerminalKeepsOneLinePerScenario) {
  std::ostringstream out;
  EvalProgress progress(out, ProgressMode::kLines, 2, 80);
  progress.scenario_finished(finished("S01", "PASSED", 1.3, 1.01));
  progress.scenario_finished(finished("S02", "FAILED", 2.0));
  progress.finish();
  EXPECT_EQ(out.str(), "  S01 PASSED (1.3 s) \n  S02 FAILED (2.0 s) max error 0.3 over the allowed 0.005\n");
}

TEST(EvalProgress, JsonModeWritesNothing) {
  std::ostringstream out;
  {
    EvalProgress progress(out, ProgressMode::kSilent, 2, 80);
    progress.scenario_finished(finished("S01", "PASSED", 1.0, 1.0));
  }
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(choose_progress_mode(/*json=*/true, 0), ProgressMode::kSilent);
}

TEST(EvalProgress, LiveModeRedrawsOneLineAndKeepsFailures) {
  std::ostringstream out;
  EvalProgress progress(out, ProgressMode::kLive, 3, 100);
  progress.scenario_finished(finished("S01", "PASSED", 4.0, 1.1));
  progress.scenario_finished(finished("S02", "FAILED", 2.0));
  progress.finish();
  progress.finish();  // idempotent
  const std::string text = out.str();
  EXPECT_EQ(text.rfind("\r[0/3] building", 0), 0u) << text;
  EXPECT_NE(text.find("\r[1/3] running scenario 2"), std::string::npos) << text;
  EXPECT_NE(text.find("about 8s left"), std::string::npos) << text;  // mean 4 s x 2 left
  // The failure stays on screen as a line of its own; the passed scenario does not.
  EXPECT_NE(text.find("\r\x1b[K  S02 FAILED (2.0 s) max error"), std::string::npos) << text;
  EXPECT_EQ(text.find("  S01 PASSED"), std::string::npos) << text;
  EXPECT_EQ(count_of(text, "\n"), 1u) << text;
  EXPECT_NE(text.find("\r[2/3] running scenario 3"), std::string::npos) << text;
  const std::string clear = "\r\x1b[K";
  ASSERT_GE(text.size(), clear.size());
  EXPECT_EQ(text.substr(text.size() - clear.size()), clear);  // finish leaves a clean line for the table
}

// The build stage runs before any scenario finishes, and forks its compile steps (capped_process.hpp), which is safe
// only while kseek runs one thread: the live line adds its ticker thread with the first finished scenario, not before.
TEST(EvalProgress, LiveModeAddsNoThreadUntilAScenarioFinishes) {
  const auto threads = [] {
    std::size_t n = 0;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) n += entry.exists() ? 1 : 0;
    return n;
  };
  const std::size_t before = threads();
  std::ostringstream out;
  EvalProgress progress(out, ProgressMode::kLive, 2, 100);
  EXPECT_EQ(threads(), before) << "the live line started a thread during the build stage";
  progress.scenario_finished(finished("S01", "PASSED", 1.0, 1.0));
  EXPECT_EQ(threads(), before + 1) << "the ticker starts with the first finished scenario";
  progress.finish();
  EXPECT_EQ(threads(), before);
  EXPECT_EQ(out.str().rfind("\r[0/2] building", 0), 0u) << out.str();
}

}  // namespace
}  // namespace kseek::cli
