// BackgroundBuild for real (NVRTC, no GPU): a child builds into the cache while the test goes on, and the build that
// follows reads it; every case where it must not fork (no cache, already cached, too few build threads, other
// threads) starts nothing and says why; a build that fails in the child leaves the caller to build and see the failure
// itself. Each test runs in its own process under ctest: the first needs the process to have one thread. It must
// never leave a child behind: every started build is waited for, by wait() or the destructor.
#include <stdlib.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "kseek/core/build/background_build.hpp"
#include "kseek/core/build/build_service.hpp"
#include "kseek/core/plugin/plugin_registry.hpp"
#include "kseek/core/util/files.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;

class BackgroundBuildTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The development host and CI have 2 cores, below kMinBuildThreadsBeside: these tests are about the mechanism.
    if (const char* threads = std::getenv("KSEEK_BUILD_THREADS")) saved_threads_ = threads;
    ::setenv("KSEEK_BUILD_THREADS", "4", 1);
    auto loaded = registry_.load_file(fs::path(KSEEK_FIXTURE_GOOD_DIR) / "kseek_fixture_plugin.so");
    ASSERT_TRUE(loaded) << loaded.error().message;
    plugin_ = (*loaded)->plugin;
    cache_dir_ = fs::temp_directory_path() / ("kseek-background-" + std::to_string(::getpid()) + "-" +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(cache_dir_);
  }
  void TearDown() override {
    if (saved_threads_) {
      ::setenv("KSEEK_BUILD_THREADS", saved_threads_->c_str(), 1);
    } else {
      ::unsetenv("KSEEK_BUILD_THREADS");
    }
    fs::remove_all(cache_dir_);
  }

  CompileRequest request(const std::string& file) {
    auto text = read_file(fs::path(KSEEK_FIXTURE_CANDIDATES) / file);
    EXPECT_TRUE(text) << file;
    return make_compile_request(*plugin_, {file, text ? *text : ""}, "sm_90a", plugin_->default_constraints());
  }

  PluginRegistry registry_;
  Plugin* plugin_ = nullptr;
  fs::path cache_dir_;
  std::optional<std::string> saved_threads_;  // the environment's own value, put back after the test
};

TEST_F(BackgroundBuildTest, AChildBuildsIntoTheCacheAndTheNextCompileReadsIt) {
  ASSERT_EQ(process_thread_count(), 1) << "the test binary must be single-threaded here";
  BuildService builds{BuildCache(cache_dir_)};
  const CompileRequest clean = request("clean.cu");
  ASSERT_FALSE(builds.cached(clean));
  BackgroundBuild background = BackgroundBuild::start(builds, clean);
  ASSERT_TRUE(background.started()) << background.why_not();
  const std::optional<double> seconds = background.wait();
  ASSERT_TRUE(seconds) << background.why_not();
  EXPECT_GT(*seconds, 0.0);
  EXPECT_TRUE(builds.cached(clean));
  const CompileOutput read_back = builds.compile(clean);
  EXPECT_EQ(read_back.status, Status::kOk) << read_back.error;
  EXPECT_TRUE(read_back.cache_hit);
  EXPECT_FALSE(read_back.cubin.empty());
  EXPECT_FALSE(background.wait()) << "a second wait has nothing to wait for";
}

TEST_F(BackgroundBuildTest, NothingStartsWithoutACacheOrWhenTheEntryIsThere) {
  BuildService uncached{std::nullopt};
  const CompileRequest clean = request("clean.cu");
  BackgroundBuild none = BackgroundBuild::start(uncached, clean);
  EXPECT_FALSE(none.started());
  EXPECT_NE(none.why_not().find("no build cache"), std::string::npos) << none.why_not();
  EXPECT_FALSE(none.wait());

  BuildService builds{BuildCache(cache_dir_)};
  ASSERT_EQ(builds.compile(clean).status, Status::kOk);
  BackgroundBuild cached = BackgroundBuild::start(builds, clean);
  EXPECT_FALSE(cached.started());
  EXPECT_NE(cached.why_not().find("already in the build cache"), std::string::npos) << cached.why_not();
}

TEST_F(BackgroundBuildTest, TooFewBuildThreadsToShareDoesNotFork) {
  ::setenv("KSEEK_BUILD_THREADS", "2", 1);
  BuildService builds{BuildCache(cache_dir_)};
  BackgroundBuild refused = BackgroundBuild::start(builds, request("clean.cu"));
  EXPECT_FALSE(refused.started());
  EXPECT_NE(refused.why_not().find("2 build threads"), std::string::npos) << refused.why_not();
}

TEST_F(BackgroundBuildTest, AThreadedProcessDoesNotFork) {
  std::mutex m;
  std::condition_variable cv;
  bool release = false;
  std::thread other([&] {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return release; });
  });
  BuildService builds{BuildCache(cache_dir_)};
  BackgroundBuild refused = BackgroundBuild::start(builds, request("clean.cu"));
  {
    std::lock_guard lock(m);
    release = true;
  }
  cv.notify_one();
  other.join();
  EXPECT_FALSE(refused.started());
  EXPECT_NE(refused.why_not().find("threads"), std::string::npos) << refused.why_not();
}

TEST_F(BackgroundBuildTest, AFailedChildBuildLeavesTheFailureToTheCaller) {
  BuildService builds{BuildCache(cache_dir_)};
  const CompileRequest broken = request("syntax_error.cu");
  BackgroundBuild background = BackgroundBuild::start(builds, broken);
  ASSERT_TRUE(background.started()) << background.why_not();
  EXPECT_FALSE(background.wait());
  EXPECT_NE(background.why_not().find("did not build"), std::string::npos);
  EXPECT_FALSE(builds.cached(broken)) << "failures are never cached";
  const CompileOutput own = builds.compile(broken);
  EXPECT_EQ(own.status, Status::kCompileError);
  EXPECT_FALSE(own.log.empty()) << "the caller's own build carries the log";
}

}  // namespace
}  // namespace kseek
