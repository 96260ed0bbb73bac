// The parent side of worker isolation, without a GPU: a worker that hangs is killed (TIMEOUT), one that dies
// or writes nothing usable is CRASHED, and only a well-formed result file is believed.
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include <gtest/gtest.h>

#include "kseek/core/eval/evaluator.hpp"
#include "kseek/core/worker/scenario_job.hpp"
#include "kseek/core/worker/worker_process.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;

class WorkerWatchdog : public ::testing::Test {
 protected:
  fs::path worker = fs::path(KSEEK_FIXTURE_CANDIDATES).parent_path() / "fake_worker.sh";
  fs::path result = fs::temp_directory_path() / ("kseek-watchdog-" + std::to_string(::getpid()) + ".json");
  void TearDown() override { fs::remove(result); }
  nlohmann::json run(const std::string& mode, double timeout) {
    return run_worker(worker, {mode, result.string()}, result, timeout);
  }
};

TEST_F(WorkerWatchdog, ResultFileIsReturned) {
  const auto r = run("ok", 10);
  EXPECT_EQ(r.value("status", ""), "PASSED") << r.dump();
}

TEST_F(WorkerWatchdog, HangingWorkerIsKilledAsTimeout) {
  const auto started = std::chrono::steady_clock::now();
  const auto r = run("hang", 1.0);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_EQ(r.value("status", ""), "TIMEOUT") << r.dump();
  EXPECT_LT(seconds, 10.0);
}

TEST_F(WorkerWatchdog, WorkerKilledBySignalIsCrashed) {
  const auto r = run("segv", 10);
  EXPECT_EQ(r.value("status", ""), "CRASHED") << r.dump();
  EXPECT_NE(r.value("message", "").find("signal 11"), std::string::npos) << r.dump();
}

TEST_F(WorkerWatchdog, WorkerWithoutResultIsCrashed) {
  const auto r = run("silent", 10);
  EXPECT_EQ(r.value("status", ""), "CRASHED");
  EXPECT_NE(r.value("message", "").find("status 7"), std::string::npos) << r.dump();
}

TEST_F(WorkerWatchdog, TruncatedResultIsNotBelieved) {
  const auto r = run("garbage", 10);
  EXPECT_EQ(r.value("status", ""), "CRASHED");
  EXPECT_NE(r.value("message", "").find("unreadable"), std::string::npos) << r.dump();
}

TEST_F(WorkerWatchdog, StaleResultFromAnEarlierRunIsRemovedFirst) {
  ASSERT_EQ(run("ok", 10).value("status", ""), "PASSED");
  EXPECT_EQ(run("silent", 10).value("status", ""), "CRASHED") << "an old result file must not be reused";
}

// A candidate's printf (or anything else the worker prints) never reaches kseek's own stdout, where `kseek eval
// --json` writes its document: it is captured and kept, bounded, in the scenario's result.
TEST_F(WorkerWatchdog, WorkerOutputIsCapturedNotPassedThrough) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const auto r = run("chatty", 10);
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "") << "the worker's stdout reached the parent's";
  EXPECT_EQ(err, "") << "the worker's stderr reached the parent's";
  EXPECT_EQ(r.value("status", ""), "PASSED") << r.dump();
  ASSERT_TRUE(r.contains("worker_output")) << r.dump();
  const std::string text = r["worker_output"].value("text", "");
  EXPECT_NE(text.find("\"forged\": true"), std::string::npos) << text;
  EXPECT_NE(text.find("candidate says ?[31mhello"), std::string::npos)
      << "control characters are made printable: " << text;
  EXPECT_FALSE(r["worker_output"].value("truncated", true));
}

TEST_F(WorkerWatchdog, WorkerOutputIsBounded) {
  ::testing::internal::CaptureStdout();
  const auto r = run("flood", 20);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
  EXPECT_EQ(r.value("status", ""), "PASSED") << "a worker blocked on a full pipe would never finish";
  ASSERT_TRUE(r.contains("worker_output"));
  EXPECT_EQ(r["worker_output"].value("bytes", 0ull), 3145728ull);
  EXPECT_EQ(r["worker_output"].value("text", "").size(), kWorkerOutputKeptBytes);
  EXPECT_TRUE(r["worker_output"].value("truncated", false));
}

TEST_F(WorkerWatchdog, SilentWorkerAddsNoOutputField) {
  const auto r = run("ok", 10);
  EXPECT_FALSE(r.contains("worker_output")) << r.dump();
}

TEST(ScenarioJob, JsonRoundTrip) {
  ScenarioJob job;
  job.plugin_path = "/p/x.so";
  job.plugin_id = "example.softmax";
  job.scenario = {"S1", "rows=4,cols=8,dtype=bf16", "d", 160, 128, "sm_90a"};
  job.candidate_cubin = "c";
  job.seed_cubin = "s";
  job.plugin_library_cubin = "l";
  job.harness_cubin = "h";
  job.input_seed = 1234567890123ull;
  job.sampling.min_rounds = 7;
  job.peak_source = "measured";
  job.peak_flops = 989e12;
  job.floor_flops = 1979e12;
  const auto back = nlohmann::json(job).get<ScenarioJob>();
  EXPECT_EQ(nlohmann::json(back), nlohmann::json(job));
  EXPECT_EQ(back.input_seed, 1234567890123ull);
  EXPECT_EQ(back.sampling.min_rounds, 7u);
  EXPECT_EQ(back.floor_flops, 1979e12);
}

}  // namespace
}  // namespace kseek
