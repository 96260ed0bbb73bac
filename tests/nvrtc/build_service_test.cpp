// NVRTC builds for real (no GPU needed): resources, diagnostics, cache hit/miss/corruption, time limit,
// size cap, and every kind of constraint violation on the built binary.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "kseek/core/build/build_service.hpp"
#include "kseek/core/eval/evaluator.hpp"
#include "kseek/core/plugin/plugin_registry.hpp"
#include "kseek/core/util/files.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;

class BuildServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = registry_.load_file(fs::path(KSEEK_FIXTURE_GOOD_DIR) / "kseek_fixture_plugin.so");
    ASSERT_TRUE(loaded) << loaded.error().message;
    plugin_ = (*loaded)->plugin;
    cache_dir_ = fs::temp_directory_path() / ("kseek-cache-" + std::to_string(::getpid()) + "-" +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(cache_dir_);
  }
  void TearDown() override { fs::remove_all(cache_dir_); }

  SourceFile candidate(const std::string& file) {
    auto text = read_file(fs::path(KSEEK_FIXTURE_CANDIDATES) / file);
    EXPECT_TRUE(text) << file;
    return {file, text ? *text : ""};
  }
  CandidateBuild build(const std::string& file, Constraints constraints) {
    BuildService service{BuildCache(cache_dir_)};
    return service.build_and_check(make_compile_request(*plugin_, candidate(file), "sm_90a", constraints), constraints);
  }
  CandidateBuild build(const std::string& file) { return build(file, plugin_->default_constraints()); }

  PluginRegistry registry_;
  Plugin* plugin_ = nullptr;
  fs::path cache_dir_;
};

TEST_F(BuildServiceTest, CleanCandidateBuildsWithResources) {
  const auto result = build("clean.cu");
  ASSERT_EQ(result.status, Status::kOk) << result.message << "\n" << result.compile.log;
  EXPECT_FALSE(result.compile.cubin.empty());
  EXPECT_FALSE(result.compile.ptx.empty());
  ASSERT_EQ(result.compile.kernels.size(), 1u);
  EXPECT_EQ(result.compile.kernels[0].kernel, "scale");
  EXPECT_GT(result.compile.kernels[0].registers, 0);
  EXPECT_EQ(result.compile.kernels[0].static_shared_bytes, 1024u);
  EXPECT_EQ(result.compile.kernels[0].barriers, 1);
  EXPECT_GT(result.constraints.names_inspected, 0u);
  EXPECT_TRUE(result.constraints.ok());
}

TEST_F(BuildServiceTest, SeedOfThePluginBuildsWithItsHeaders) {
  auto seed = plugin_->seed_source("sm_90a");
  ASSERT_TRUE(seed);
  BuildService service{std::nullopt};
  const auto constraints = plugin_->default_constraints();
  const auto result =
      service.build_and_check(make_compile_request(*plugin_, *seed, "sm_90a", constraints), constraints);
  EXPECT_EQ(result.status, Status::kOk) << result.message;
}

TEST_F(BuildServiceTest, DuplicateHeaderNamesAreOfferedOnce) {
  auto constraints = plugin_->default_constraints();
  auto request = make_compile_request(*plugin_, candidate("clean.cu"), "sm_90a", constraints);
  request.headers.push_back(request.headers.back());
  deduplicate_headers(request.headers);
  BuildService service{std::nullopt};
  const auto result = service.build_and_check(request, constraints);
  EXPECT_EQ(result.status, Status::kOk) << result.message;
}

TEST_F(BuildServiceTest, CacheMissThenHitWithIdenticalOutput) {
  const auto first = build("clean.cu");
  ASSERT_EQ(first.status, Status::kOk);
  EXPECT_FALSE(first.compile.cache_hit);
  const auto second = build("clean.cu");
  ASSERT_EQ(second.status, Status::kOk);
  EXPECT_TRUE(second.compile.cache_hit);
  EXPECT_EQ(second.compile.cubin, first.compile.cubin);
  EXPECT_EQ(second.compile.ptx, first.compile.ptx);
  EXPECT_EQ(second.compile.kernels, first.compile.kernels);
  EXPECT_EQ(second.compile.cache_key, first.compile.cache_key);
}

TEST_F(BuildServiceTest, CacheKeyChangesWithSourceOptionsArchAndHeaders) {
  const auto constraints = plugin_->default_constraints();
  const auto base = make_compile_request(*plugin_, candidate("clean.cu"), "sm_90a", constraints);
  const std::string key = build_cache_key(base);
  auto changed = base;
  changed.source.text += "\n";
  EXPECT_NE(build_cache_key(changed), key);
  changed = base;
  changed.arch = "sm_100a";
  EXPECT_NE(build_cache_key(changed), key);
  changed = base;
  changed.options.push_back("-DX=1");
  EXPECT_NE(build_cache_key(changed), key);
  changed = base;
  changed.headers.back().text += " ";
  EXPECT_NE(build_cache_key(changed), key);
  changed = base;
  std::reverse(changed.headers.begin(), changed.headers.end());
  EXPECT_EQ(build_cache_key(changed), key) << "header order must not matter";
}

TEST_F(BuildServiceTest, CorruptCacheEntryIsDiscardedAndRebuilt) {
  const auto first = build("clean.cu");
  ASSERT_EQ(first.status, Status::kOk);
  const fs::path entry = BuildCache(cache_dir_).entry_path(first.compile.cache_key);
  ASSERT_TRUE(fs::exists(entry));
  {  // flip one byte of the payload
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-10, std::ios::end);
    f.put('\x5a');
  }
  BuildCache cache(cache_dir_);
  EXPECT_FALSE(cache.load(first.compile.cache_key).has_value());
  EXPECT_NE(cache.last_discard_reason().find("checksum"), std::string::npos) << cache.last_discard_reason();
  EXPECT_FALSE(fs::exists(entry)) << "a corrupt entry must be removed";
  const auto rebuilt = build("clean.cu");
  ASSERT_EQ(rebuilt.status, Status::kOk);
  EXPECT_FALSE(rebuilt.compile.cache_hit);
  EXPECT_EQ(rebuilt.compile.cubin, first.compile.cubin);
  EXPECT_TRUE(build("clean.cu").compile.cache_hit);
}

TEST_F(BuildServiceTest, TruncatedCacheEntryIsDiscarded) {
  const auto first = build("clean.cu");
  const fs::path entry = BuildCache(cache_dir_).entry_path(first.compile.cache_key);
  fs::resize_file(entry, fs::file_size(entry) / 2);
  BuildCache cache(cache_dir_);
  EXPECT_FALSE(cache.load(first.compile.cache_key).has_value());
  EXPECT_FALSE(cache.last_discard_reason().empty());
}

TEST_F(BuildServiceTest, CompileErrorShowsFileLineAndSource) {
  const auto result = build("syntax_error.cu");
  ASSERT_EQ(result.status, Status::kCompileError);
  ASSERT_FALSE(result.compile.diagnostics.empty());
  const auto& d = result.compile.diagnostics.front();
  EXPECT_EQ(d.file, "syntax_error.cu");
  EXPECT_EQ(d.line, 5);
  EXPECT_NE(d.message.find("undeclared_factor"), std::string::npos);
  EXPECT_NE(d.source_line.find("undeclared_factor * x[i]"), std::string::npos);
  EXPECT_NE(result.message.find("syntax_error.cu:5"), std::string::npos) << result.message;
}

TEST_F(BuildServiceTest, CompileTimeLimitStopsTemplateExplosion) {
  auto constraints = plugin_->default_constraints();
  constraints.compile_timeout_seconds = 2;
  const auto started = std::chrono::steady_clock::now();
  const auto result = build("template_explosion.cu", constraints);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_EQ(result.status, Status::kCompileError) << result.message;
  EXPECT_NE(result.message.find("time limit"), std::string::npos) << result.message;
  EXPECT_LT(seconds, 30.0) << "the limit must actually stop the compiler";
}

TEST_F(BuildServiceTest, CubinSizeCapIsACompileError) {
  auto constraints = plugin_->default_constraints();
  constraints.max_cubin_bytes = 256;
  const auto result = build("clean.cu", constraints);
  ASSERT_EQ(result.status, Status::kCompileError);
  EXPECT_NE(result.message.find("over the cap of 256 bytes"), std::string::npos) << result.message;
}

struct ViolationCase {
  const char* file;
  const char* rule;
  const char* symbol_fragment;
};

void PrintTo(const ViolationCase& c, std::ostream* os) { *os << c.file << " -> " << c.rule; }

class ViolationTest : public BuildServiceTest, public ::testing::WithParamInterface<ViolationCase> {};

TEST_P(ViolationTest, IsAConstraintViolationNamingRuleAndSymbol) {
  const auto& expected = GetParam();
  const auto result = build(expected.file);
  ASSERT_EQ(result.status, Status::kConstraintViolation) << result.message << "\n" << result.compile.log;
  bool found = false;
  for (const auto& v : result.constraints.violations) {
    if (v.rule == expected.rule && v.symbol.find(expected.symbol_fragment) != std::string::npos) found = true;
  }
  EXPECT_TRUE(found) << "expected rule " << expected.rule << " on " << expected.symbol_fragment
                     << "; got: " << result.message;
  EXPECT_NE(result.message.find(expected.rule), std::string::npos) << result.message;
}

INSTANTIATE_TEST_SUITE_P(EachKind, ViolationTest,
                         ::testing::Values(ViolationCase{"uses_cutlass.cu", "no-cutlass", "cutlass::multiplies"},
                                           ViolationCase{"uses_cute.cu", "no-cute", "cute::Shape"},
                                           ViolationCase{"calls_cublas.cu", "no-cublas", "cublasSgemm_v2"},
                                           ViolationCase{"calls_cudnn.cu", "no-cudnn", "cudnnActivationForward"},
                                           ViolationCase{"device_launch.cu", "no-device-launch", "LaunchDevice"}),
                         [](const auto& info) {
                           std::string name = info.param.file;
                           return name.substr(0, name.find('.'));
                         });

// The harness's own kernels are built next to every candidate on the GPU machine; a mistake in them would only
// show there, so they are built here for every target the plugins name.
TEST(HarnessKernels, BuildForHopperAndBlackwellWithTheirEntryPoints) {
  for (const char* arch : {"sm_90a", "sm_100a"}) {
    CompileRequest request;
    request.source = harness_kernels_source();
    ASSERT_FALSE(request.source.text.empty()) << "harness_kernels.cu is not embedded";
    request.arch = arch;
    BuildService service{std::nullopt};
    const CompileOutput out = service.compile(request);
    ASSERT_EQ(out.status, Status::kOk) << arch << ": " << out.error << "\n" << out.log;
    std::set<std::string> kernels;
    for (const auto& k : out.kernels) kernels.insert(k.kernel);
    for (const char* name : {"kseek_compare", "kseek_count_mismatch", "kseek_fingerprint", "kseek_flush_l2"}) {
      EXPECT_TRUE(kernels.count(name)) << arch << " lacks " << name;
    }
  }
}

}  // namespace
}  // namespace kseek
