// A serving worker from the parent's side, without a GPU (tests/fixtures/fake_worker.sh stands in for
// `kseek __worker --serve`): jobs run one after another in one process; a crash, a hang or a worker that says it ends
// costs that job only and the next job gets a fresh process; what a job prints is that job's output and no other's.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "kseek/core/worker/job_channel.hpp"
#include "kseek/core/worker/worker_process.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;

class ServingWorkerTest : public ::testing::Test {
 protected:
  fs::path fake = fs::path(KSEEK_FIXTURE_CANDIDATES).parent_path() / "fake_worker.sh";
  fs::path folder = fs::temp_directory_path() / ("kseek-serving-" + std::to_string(::getpid()));
  ServingWorker worker{fake, {"--serve"}};
  int jobs = 0;

  void SetUp() override { fs::create_directories(folder); }
  void TearDown() override { fs::remove_all(folder); }

  nlohmann::json run(const std::string& mode, double timeout = 10) {
    const int n = jobs++;
    const fs::path job = folder / ("job-" + std::to_string(n) + ".json");
    std::ofstream(job) << mode;
    return worker.run(job, folder / ("result-" + std::to_string(n) + ".json"), timeout);
  }
};

TEST_F(ServingWorkerTest, JobsRunOneAfterAnotherInOneProcess) {
  const auto first = run("ok");
  const auto second = run("ok");
  const auto third = run("ok");
  ASSERT_EQ(first.value("status", ""), "PASSED") << first.dump();
  ASSERT_EQ(third.value("status", ""), "PASSED") << third.dump();
  EXPECT_EQ(first.value("pid", 0), second.value("pid", -1));
  EXPECT_EQ(first.value("pid", 0), third.value("pid", -1));
  EXPECT_EQ(worker.processes_started(), 1);
}

TEST_F(ServingWorkerTest, ACrashCostsOneJobAndTheNextRunsInAFreshProcess) {
  const auto before = run("ok");
  const auto crashed = run("segv");
  const auto after = run("ok");
  EXPECT_EQ(crashed.value("status", ""), "CRASHED") << crashed.dump();
  EXPECT_NE(crashed.value("message", "").find("signal 11"), std::string::npos) << crashed.dump();
  ASSERT_EQ(after.value("status", ""), "PASSED") << after.dump();
  EXPECT_NE(before.value("pid", 0), after.value("pid", 0));
  EXPECT_EQ(worker.processes_started(), 2);
}

TEST_F(ServingWorkerTest, AHangIsKilledAsTimeoutAndTheNextRunsInAFreshProcess) {
  const auto started = std::chrono::steady_clock::now();
  const auto hung = run("hang", 1.0);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_EQ(hung.value("status", ""), "TIMEOUT") << hung.dump();
  EXPECT_LT(seconds, 10.0);
  EXPECT_EQ(run("ok").value("status", ""), "PASSED");
  EXPECT_EQ(worker.processes_started(), 2);
}

TEST_F(ServingWorkerTest, AWorkerThatSaysItEndsIsReplacedForTheNextJob) {
  const auto last = run("exiting");
  const auto next = run("ok");
  EXPECT_EQ(last.value("status", ""), "PASSED") << "its result was written before it ended: " << last.dump();
  ASSERT_EQ(next.value("status", ""), "PASSED") << next.dump();
  EXPECT_NE(last.value("pid", 0), next.value("pid", 0));
}

// A worker gone between jobs without a word: sending the next job must neither kill kseek (SIGPIPE) nor lose the job.
TEST_F(ServingWorkerTest, AWorkerGoneBetweenJobsIsReplacedWithoutLosingTheJob) {
  const auto last = run("quits");
  ASSERT_EQ(last.value("status", ""), "PASSED");
  ::usleep(200 * 1000);  // it has exited by now
  const auto next = run("ok");
  ASSERT_EQ(next.value("status", ""), "PASSED") << next.dump();
  EXPECT_NE(last.value("pid", 0), next.value("pid", 0));
}

TEST_F(ServingWorkerTest, EachJobKeepsOnlyWhatItPrinted) {
  ::testing::internal::CaptureStdout();
  const auto first = run("print-first job says hello");
  const auto silent = run("ok");
  const auto second = run("print-second job says bye");
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "") << "a worker's output reached kseek's own stdout";
  ASSERT_TRUE(first.contains("worker_output")) << first.dump();
  EXPECT_EQ(first["worker_output"].value("text", ""), "first job says hello\n");
  EXPECT_FALSE(silent.contains("worker_output")) << silent.dump();
  ASSERT_TRUE(second.contains("worker_output")) << second.dump();
  EXPECT_EQ(second["worker_output"].value("text", ""), "second job says bye\n");
  EXPECT_EQ(first.value("pid", 0), second.value("pid", -1));
}

TEST_F(ServingWorkerTest, AResultLeftByAnEarlierRunIsNotBelieved) {
  ASSERT_EQ(run("ok").value("status", ""), "PASSED");
  const fs::path job = folder / "job-again.json";
  std::ofstream(job) << "unknown-mode";  // the fake exits 9 without writing anything
  const fs::path stale = folder / "result-0.json";
  ASSERT_TRUE(fs::exists(stale));
  const auto r = worker.run(job, stale, 10);
  EXPECT_EQ(r.value("status", ""), "CRASHED") << r.dump();
  EXPECT_NE(r.value("message", "").find("status 9"), std::string::npos) << r.dump();
}

TEST(JobChannel, LinesRoundTripAndMalformedOnesAreRefused) {
  const auto line = job_line({"/w/job-3.json", "/w/result 3.json"});
  ASSERT_TRUE(line);
  EXPECT_EQ(*line, "/w/job-3.json\t/w/result 3.json\n");
  const auto back = parse_job_line(std::string_view(*line).substr(0, line->size() - 1));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->job, "/w/job-3.json");
  EXPECT_EQ(back->result, "/w/result 3.json");
  EXPECT_FALSE(job_line({"/w/a\tb.json", "/w/r.json"}));
  EXPECT_FALSE(job_line({"/w/a.json", ""}));
  EXPECT_FALSE(parse_job_line("only-one-path"));
  EXPECT_FALSE(parse_job_line("a\tb\tc"));
  EXPECT_FALSE(parse_job_line("\tb"));
}

}  // namespace
}  // namespace kseek
