// BackgroundBuild for real (NVRTC, no GPU, the kseek binary as the other process): it builds into the cache while the
// test goes on, from a process with threads too, and the builds that follow read it; where it must not start (no
// cache, everything cached, too few build threads, no kseek) nothing starts and it says why; a build that fails there
// leaves the caller to build and see the failure itself; a program that is not kseek, or dies, is reported as such.
// It must never leave a process behind: every started build is waited for, by wait() or the destructor.
#include <stdlib.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "kseek/core/build/background_build.hpp"
#include "kseek/core/build/build_service.hpp"
#include "kseek/core/build/compile_request_json.hpp"
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

  // The same candidate with a comment more: another source, so another build and cache entry.
  static CompileRequest another(CompileRequest r) {
    r.source.text += "\n// another candidate\n";
    return r;
  }

  PluginRegistry registry_;
  Plugin* plugin_ = nullptr;
  fs::path cache_dir_;
  std::optional<std::string> saved_threads_;  // the environment's own value, put back after the test
};

const fs::path kKseek = KSEEK_EXE;

TEST_F(BackgroundBuildTest, AnotherKseekBuildsIntoTheCacheAndTheNextCompilesReadIt) {
  BuildService builds{BuildCache(cache_dir_)};
  const CompileRequest clean = request("clean.cu");
  const CompileRequest second = another(clean);
  ASSERT_FALSE(builds.cached(clean));
  BackgroundBuild background = BackgroundBuild::start(builds, {clean, second}, kKseek);
  ASSERT_TRUE(background.started()) << background.why_not();
  background.wait();
  EXPECT_EQ(background.why_not(), "");
  for (const CompileRequest* r : {&clean, &second}) {
    const std::optional<double> seconds = background.built_seconds(*r);
    ASSERT_TRUE(seconds) << r->source.name << ": " << background.why_not_built(*r);
    EXPECT_GT(*seconds, 0.0);
    EXPECT_EQ(background.why_not_built(*r), "");
    EXPECT_TRUE(builds.cached(*r)) << r->source.name;
    const CompileOutput read_back = builds.compile(*r);
    EXPECT_EQ(read_back.status, Status::kOk) << read_back.error;
    EXPECT_TRUE(read_back.cache_hit) << r->source.name;
    EXPECT_FALSE(read_back.cubin.empty());
  }
  background.wait();  // a second wait has nothing to wait for
  EXPECT_TRUE(background.built_seconds(clean));
}

// The reason it is another kseek rather than a fork that builds: a fork of a process with threads may inherit a lock
// another thread held (the MCP server always has threads).
TEST_F(BackgroundBuildTest, AProcessWithThreadsBuildsBesideToo) {
  std::mutex m;
  std::condition_variable cv;
  bool release = false;
  std::thread other([&] {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return release; });
  });
  BuildService builds{BuildCache(cache_dir_)};
  const CompileRequest clean = request("clean.cu");
  BackgroundBuild background = BackgroundBuild::start(builds, {clean}, kKseek);
  const bool started = background.started();
  background.wait();
  {
    std::lock_guard lock(m);
    release = true;
  }
  cv.notify_one();
  other.join();
  EXPECT_TRUE(started) << background.why_not();
  EXPECT_TRUE(background.built_seconds(clean)) << background.why_not_built(clean);
}

TEST_F(BackgroundBuildTest, OnlyWhatIsNotCachedIsAskedFor) {
  BuildService builds{BuildCache(cache_dir_)};
  const CompileRequest clean = request("clean.cu");
  const CompileRequest second = another(clean);
  ASSERT_EQ(builds.compile(clean).status, Status::kOk);
  BackgroundBuild background = BackgroundBuild::start(builds, {clean, second}, kKseek);
  ASSERT_TRUE(background.started()) << background.why_not();
  background.wait();
  EXPECT_TRUE(background.built_seconds(second)) << background.why_not_built(second);
  EXPECT_FALSE(background.built_seconds(clean));
  EXPECT_NE(background.why_not_built(clean).find("not asked"), std::string::npos) << background.why_not_built(clean);
}

// A request given twice is built once, and its answer is that build's.
TEST_F(BackgroundBuildTest, ARequestGivenTwiceIsBuiltOnce) {
  BuildService builds{BuildCache(cache_dir_)};
  const CompileRequest clean = request("clean.cu");
  BackgroundBuild background = BackgroundBuild::start(builds, {clean, clean}, kKseek);
  ASSERT_TRUE(background.started()) << background.why_not();
  background.wait();
  EXPECT_TRUE(background.built_seconds(clean)) << background.why_not_built(clean);
}

// The requests travel in a temporary file: whatever happens to the build, none is left behind.
TEST_F(BackgroundBuildTest, NoRequestFileIsLeftBehind) {
  const auto request_files = [] {
    int n = 0;
    const std::string prefix = "kseek-build-" + std::to_string(::getpid()) + "-";
    for (const auto& entry : fs::directory_iterator(fs::temp_directory_path())) {
      n += entry.path().filename().string().rfind(prefix, 0) == 0 ? 1 : 0;
    }
    return n;
  };
  BuildService builds{BuildCache(cache_dir_)};
  const CompileRequest clean = request("clean.cu");
  for (const fs::path& program : {kKseek, fs::path("/bin/false"), fs::path("/nonexistent/kseek")}) {
    {
      CompileRequest uncached = another(clean);
      uncached.source.text += "// for " + program.string() + "\n";  // each program gets a request not yet cached
      BackgroundBuild background = BackgroundBuild::start(builds, {uncached}, program);
      ASSERT_TRUE(background.started()) << program << ": " << background.why_not();
      background.wait();
    }
    EXPECT_EQ(request_files(), 0) << program;
  }
  {
    BackgroundBuild never_waited = BackgroundBuild::start(builds, {clean}, kKseek);
    ASSERT_TRUE(never_waited.started()) << never_waited.why_not();
  }  // ended and reaped by the destructor
  EXPECT_EQ(request_files(), 0) << "a build never waited for";
}

TEST_F(BackgroundBuildTest, NothingStartsWithoutACacheOrWhenEverythingIsThere) {
  BuildService uncached{std::nullopt};
  const CompileRequest clean = request("clean.cu");
  BackgroundBuild none = BackgroundBuild::start(uncached, {clean}, kKseek);
  EXPECT_FALSE(none.started());
  EXPECT_NE(none.why_not().find("no build cache"), std::string::npos) << none.why_not();
  none.wait();
  EXPECT_FALSE(none.built_seconds(clean));
  EXPECT_EQ(none.why_not_built(clean), none.why_not());

  BuildService builds{BuildCache(cache_dir_)};
  ASSERT_EQ(builds.compile(clean).status, Status::kOk);
  BackgroundBuild cached = BackgroundBuild::start(builds, {clean}, kKseek);
  EXPECT_FALSE(cached.started());
  EXPECT_NE(cached.why_not().find("already in the build cache"), std::string::npos) << cached.why_not();
}

TEST_F(BackgroundBuildTest, TooFewBuildThreadsToShareOrNoKseekStartsNothing) {
  BuildService builds{BuildCache(cache_dir_)};
  ::setenv("KSEEK_BUILD_THREADS", "2", 1);
  BackgroundBuild refused = BackgroundBuild::start(builds, {request("clean.cu")}, kKseek);
  EXPECT_FALSE(refused.started());
  EXPECT_NE(refused.why_not().find("2 build threads"), std::string::npos) << refused.why_not();
  ::setenv("KSEEK_BUILD_THREADS", "4", 1);
  BackgroundBuild nothing_to_run = BackgroundBuild::start(builds, {request("clean.cu")}, fs::path());
  EXPECT_FALSE(nothing_to_run.started());
  EXPECT_NE(nothing_to_run.why_not().find("no kseek executable"), std::string::npos) << nothing_to_run.why_not();
}

TEST_F(BackgroundBuildTest, AFailedBuildThereLeavesTheFailureToTheCaller) {
  BuildService builds{BuildCache(cache_dir_)};
  const CompileRequest broken = request("syntax_error.cu");
  BackgroundBuild background = BackgroundBuild::start(builds, {broken}, kKseek);
  ASSERT_TRUE(background.started()) << background.why_not();
  background.wait();
  EXPECT_FALSE(background.built_seconds(broken));
  EXPECT_NE(background.why_not_built(broken).find("did not build"), std::string::npos)
      << background.why_not_built(broken);
  EXPECT_FALSE(builds.cached(broken)) << "failures are never cached";
  const CompileOutput own = builds.compile(broken);
  EXPECT_EQ(own.status, Status::kCompileError);
  EXPECT_FALSE(own.log.empty()) << "the caller's own build carries the log";
}

TEST_F(BackgroundBuildTest, AProgramThatIsNotKseekOrDiesIsReportedAsSuch) {
  BuildService builds{BuildCache(cache_dir_)};
  const CompileRequest clean = request("clean.cu");
  BackgroundBuild wrong = BackgroundBuild::start(builds, {clean}, "/bin/false");
  ASSERT_TRUE(wrong.started()) << wrong.why_not();
  wrong.wait();
  EXPECT_FALSE(wrong.built_seconds(clean));
  EXPECT_NE(wrong.why_not().find("exited with 1"), std::string::npos) << wrong.why_not();
  EXPECT_EQ(wrong.why_not_built(clean), wrong.why_not());

  BackgroundBuild missing = BackgroundBuild::start(builds, {clean}, "/nonexistent/kseek");
  ASSERT_TRUE(missing.started()) << missing.why_not();
  missing.wait();
  EXPECT_NE(missing.why_not().find("exited with 127"), std::string::npos) << missing.why_not();
  EXPECT_FALSE(builds.cached(clean));
}

// The other side, in this process: a request file it cannot read or that is not one is exit code 2 with a message.
TEST_F(BackgroundBuildTest, TheServingSideRejectsWhatIsNotARequestFile) {
  std::ostringstream out;
  EXPECT_EQ(serve_background_builds(cache_dir_ / "absent.json", out), 2);
  EXPECT_NE(out.str().find("absent.json"), std::string::npos) << out.str();
  fs::create_directories(cache_dir_);
  ASSERT_TRUE(write_file_atomically(cache_dir_ / "wrong.json", R"({"requests": 3})"));
  out.str("");
  EXPECT_EQ(serve_background_builds(cache_dir_ / "wrong.json", out), 2);
  EXPECT_NE(out.str().find("not a build request file"), std::string::npos) << out.str();
  nlohmann::json bad_request = compile_request_to_json(request("clean.cu"));
  bad_request["arch"] = 90;
  ASSERT_TRUE(write_file_atomically(
      cache_dir_ / "bad.json",
      nlohmann::json{{"cache_folder", (cache_dir_ / "c").string()}, {"requests", nlohmann::json::array({bad_request})}}
          .dump()));
  out.str("");
  EXPECT_EQ(serve_background_builds(cache_dir_ / "bad.json", out), 2);
  EXPECT_NE(out.str().find("arch"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace kseek
