// The multi-threaded build (NVRTC --split-compile inside the one capped compiler process) against the single-threaded
// one: same kernels with the same resources, caps and constraint checks as strong, and a cache key that names the split.
// It must never compare a build with itself: every pair is built cold, once with one thread and once with several.
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "kseek/core/build/build_service.hpp"
#include "kseek/core/build/nvrtc_compiler.hpp"
#include "kseek/core/plugin/plugin_registry.hpp"
#include "kseek/core/util/files.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;

// Fixed rather than "every core", so the test asks for a real split on any machine, a 2-core one included.
constexpr int kThreads = 4;

class ParallelBuild : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_.load_folders({KSEEK_TREE_PLUGIN_DIR});
    auto loaded = registry_.require("attention.fa3");
    ASSERT_TRUE(loaded) << loaded.error().message;
    plugin_ = (*loaded)->plugin;
    constraints_ = plugin_->default_constraints();
  }

  SourceFile corpus_file(const std::string& name) {
    auto text = read_file(fs::path(KSEEK_ADVERSARIAL_DIR) / "attention_fa3" / name);
    EXPECT_TRUE(text) << name;
    return {name, text ? *text : ""};
  }

  CandidateBuild build(const SourceFile& source, int threads, const Constraints& constraints) {
    auto request = make_compile_request(*plugin_, source, "sm_90a", constraints);
    request.compile_threads = threads;
    BuildService service{std::nullopt};  // cold: a cache hit would compare one build with itself
    return service.build_and_check(request, constraints);
  }

  // Kernel by kernel: the same names, registers, spills, stack, shared memory and barriers.
  void expect_same_kernels(const SourceFile& source) {
    const auto single = build(source, 1, constraints_);
    const auto split = build(source, kThreads, constraints_);
    ASSERT_EQ(single.status, Status::kOk) << single.message;
    ASSERT_EQ(split.status, Status::kOk) << split.message;
    bool named_split = false;
    for (const auto& option : split.compile.options) {
      named_split = named_split || option == "--split-compile=" + std::to_string(kThreads);
    }
    EXPECT_TRUE(named_split) << "the split build's option list must name its thread count";
    std::map<std::string, KernelResources> by_name;
    for (const auto& k : single.compile.kernels) by_name[k.kernel] = k;
    ASSERT_EQ(split.compile.kernels.size(), by_name.size()) << source.name;
    for (const auto& k : split.compile.kernels) {
      auto it = by_name.find(k.kernel);
      ASSERT_NE(it, by_name.end()) << source.name << ": the split build has a kernel the single one lacks: "
                                   << k.kernel;
      EXPECT_EQ(k, it->second) << source.name << ": " << k.kernel << " has " << k.registers << " registers split, "
                               << it->second.registers << " single";
    }
    EXPECT_TRUE(split.constraints.ok());
    EXPECT_GT(split.constraints.names_inspected, 0u) << source.name << ": the checker must see the split build's names";
  }

  PluginRegistry registry_;
  Plugin* plugin_ = nullptr;
  Constraints constraints_;
};

TEST_F(ParallelBuild, SeedHasTheSameKernelsAndResourcesAsTheSingleThreadedBuild) {
  auto seed = plugin_->seed_source("sm_90a");
  ASSERT_TRUE(seed) << seed.error().message;
  expect_same_kernels(*seed);
}

TEST_F(ParallelBuild, CorpusFileHasTheSameKernelsAndResourcesAsTheSingleThreadedBuild) {
  expect_same_kernels(corpus_file("c2_split_kv_combine.cu"));
}

TEST_F(ParallelBuild, TemplateExplosionStillEndsAtTheTimeCap) {
  auto constraints = constraints_;
  constraints.compile_timeout_seconds = 10;  // what the file's own constraints line asks for
  const auto started = std::chrono::steady_clock::now();
  const auto result = build(corpus_file("h6_template_explosion.cu"), kThreads, constraints);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_EQ(result.status, Status::kCompileError) << result.message;
  EXPECT_NE(result.message.find("time limit"), std::string::npos) << result.message;
  // The cap plus the process's 2 s grace; a build with several threads must not hide behind one that ignored it.
  EXPECT_LT(seconds, 10.0 + 2.0 + 5.0) << "the cap must stop every compiler thread";
}

TEST_F(ParallelBuild, DeviceLaunchIsStillAConstraintViolation) {
  const auto result = build(corpus_file("t1_device_launch.cu"), kThreads, constraints_);
  ASSERT_EQ(result.status, Status::kConstraintViolation) << result.message << "\n" << result.compile.log;
  bool found = false;
  for (const auto& v : result.constraints.violations) found = found || v.rule == "no-device-launch";
  EXPECT_TRUE(found) << result.message;
}

TEST_F(ParallelBuild, CacheKeyNamesTheSplitAndEveryOtherInput) {
  auto seed = plugin_->seed_source("sm_90a");
  ASSERT_TRUE(seed);
  auto base = make_compile_request(*plugin_, *seed, "sm_90a", constraints_);
  base.compile_threads = 1;
  const std::string key = build_cache_key(base);
  auto changed = base;
  changed.compile_threads = kThreads;
  EXPECT_NE(build_cache_key(changed), key) << "a split build may differ from a single one: it needs its own entry";
  auto again = changed;
  EXPECT_EQ(build_cache_key(again), build_cache_key(changed));
  changed = base;
  changed.source.text += "\n";
  EXPECT_NE(build_cache_key(changed), key);
  changed = base;
  changed.headers.front().text += " ";
  EXPECT_NE(build_cache_key(changed), key);
  changed = base;
  changed.options.push_back("-DX=1");
  EXPECT_NE(build_cache_key(changed), key);
  changed = base;
  changed.arch = "sm_100a";
  EXPECT_NE(build_cache_key(changed), key);
  changed = base;
  changed.max_cubin_bytes /= 2;
  EXPECT_NE(build_cache_key(changed), key);
}

// The default is one thread on every machine: --split-compile can change register allocation, so a default that
// followed the core count would give one candidate different binaries on different machines.
TEST(BuildThreads, ExplicitCountWinsThenTheEnvironmentThenOne) {
  EXPECT_EQ(build_threads(3), 3);
  ::unsetenv("KSEEK_BUILD_THREADS");
  EXPECT_EQ(build_threads(0), 1);
  ::setenv("KSEEK_BUILD_THREADS", "6", 1);
  EXPECT_EQ(build_threads(0), 6);
  ::setenv("KSEEK_BUILD_THREADS", "six", 1);
  EXPECT_EQ(build_threads(0), 1) << "a value that is not a positive integer is ignored";
  ::unsetenv("KSEEK_BUILD_THREADS");
  for (const auto& option : nvrtc_options(CompileRequest{})) EXPECT_EQ(option.find("--split-compile"), std::string::npos);
}

}  // namespace
}  // namespace kseek
