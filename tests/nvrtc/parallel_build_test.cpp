// The per-kernel build (NVRTC to PTX once, ptxas per kernel in parallel capped processes, nvJitLink) against the
// whole-program build: the same kernels with the same resources, every kernel in the one cubin, failures named by
// kernel, caps that still hold, constraint checks as strong, and a cache key that names the pipeline.
// It must never compare a build with itself: every pair is built cold, once per pipeline.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "kseek/core/build/build_service.hpp"
#include "kseek/core/build/kernel_assembly.hpp"
#include "kseek/core/build/nvrtc_compiler.hpp"
#include "kseek/core/check/binary_names.hpp"
#include "kseek/core/plugin/plugin_registry.hpp"
#include "kseek/core/util/files.hpp"
#include "support/multi_kernel_build.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;

// Fixed rather than "every core", so the test runs pieces side by side on any machine, a 2-core one included.
constexpr int kProcesses = 4;

// Small, but with what could break when kernels are assembled apart: a visible variable one kernel writes and
// another reads, an internal one, a __constant__ table, a non-inlined function two kernels call, static shared
// memory, a string literal.
constexpr const char* kMultiKernelSource = R"(
__device__ int counter;
static __device__ float scale = 2.0f;
__constant__ float table[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__device__ __noinline__ float helper(float x, int i) { return x * table[i & 3] + scale; }
extern "C" __global__ void writer(float* out, int n) {
  __shared__ float tile[128];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x % 128] = helper(static_cast<float>(i), i);
  __syncthreads();
  if (i < n) out[i] = tile[(threadIdx.x + 1) % 128];
  if (i == 0) atomicAdd(&counter, 1);
}
extern "C" __global__ void reader(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = helper(out[i], counter) * scale;
}
extern "C" __global__ void __launch_bounds__(256) named(const char** where) {
  if (threadIdx.x == 0) *where = "named kernel";
}
)";

CompileRequest plain_request(std::string source, BuildPipeline pipeline) {
  return test::multi_kernel_request(std::move(source), pipeline, kProcesses);
}

void expect_same_kernels(const CompileOutput& whole, const CompileOutput& per_kernel, const std::string& what) {
  ASSERT_EQ(whole.status, Status::kOk) << what << ": " << whole.error;
  ASSERT_EQ(per_kernel.status, Status::kOk) << what << ": " << per_kernel.error;
  const auto expected = test::resources_by_kernel(whole.kernels);
  const auto got = test::resources_by_kernel(per_kernel.kernels);
  ASSERT_EQ(got.size(), expected.size()) << what;
  for (const auto& [name, k] : got) {
    auto it = expected.find(name);
    ASSERT_NE(it, expected.end()) << what << ": the per-kernel build has a kernel the whole build lacks: " << name;
    EXPECT_EQ(k, it->second) << what << ": " << name << " has " << k.registers << " registers and "
                             << k.spill_store_bytes << " B of spills per kernel, " << it->second.registers << " and "
                             << it->second.spill_store_bytes << " B whole";
  }
  // Every kernel is in the one cubin the worker loads, as a defined symbol.
  auto names = cubin_names(per_kernel.cubin);
  ASSERT_TRUE(names) << names.error().message;
  std::set<std::string> symbols;
  for (const auto& n : *names) {
    if (n.where == "cubin symbol") symbols.insert(n.name);
  }
  for (const auto& [name, k] : expected)
    EXPECT_EQ(symbols.count(name), 1u) << what << ": " << name << " not in the cubin";
  EXPECT_TRUE(per_kernel.ptx == whole.ptx) << what << ": the constraint checker must read the same PTX";
}

bool names_pipeline(const CompileOutput& out) {
  for (const auto& option : out.options) {
    if (option.rfind("ptxas per kernel:", 0) == 0) return true;
  }
  return false;
}

TEST(PerKernelBuild, SmallMultiKernelSourceHasTheSameKernelsAsTheWholeProgramBuild) {
  BuildService service{std::nullopt};  // cold: a cache hit would compare one build with itself
  const auto whole = service.compile(plain_request(kMultiKernelSource, BuildPipeline::kWholeProgram));
  const auto per_kernel = service.compile(plain_request(kMultiKernelSource, BuildPipeline::kPerKernel));
  expect_same_kernels(whole, per_kernel, "multi.cu");
  EXPECT_EQ(per_kernel.kernels.size(), 3u);
  EXPECT_TRUE(names_pipeline(per_kernel)) << "a per-kernel build's option list says so";
  EXPECT_FALSE(names_pipeline(whole));
  // One definition of each variable: the linker would refuse two, and an internal one must not be copied per kernel.
  auto names = cubin_names(per_kernel.cubin);
  ASSERT_TRUE(names);
  int counters = 0;
  for (const auto& n : *names) counters += n.where == "cubin symbol" && n.name == "counter";
  EXPECT_EQ(counters, 1);
}

TEST(PerKernelBuild, AKernelThatPtxasRejectsIsNamedInTheError) {
  const std::string source = std::string(kMultiKernelSource) +
                             "extern \"C\" __global__ void broken() { asm volatile(\"no.such.instruction;\"); }\n";
  BuildService service{std::nullopt};
  const auto out = service.compile(plain_request(source, BuildPipeline::kPerKernel));
  ASSERT_EQ(out.status, Status::kCompileError);
  EXPECT_NE(out.error.find("ptxas failed on kernel broken"), std::string::npos) << out.error;
  EXPECT_FALSE(out.ptx.empty()) << "the PTX stays for the constraint checker";
}

class PerKernelSeedBuild : public ::testing::Test {
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

  CandidateBuild build(const SourceFile& source, BuildPipeline pipeline, const Constraints& constraints) {
    auto request = make_compile_request(*plugin_, source, "sm_90a", constraints);
    request.pipeline = pipeline;
    request.compile_threads = kProcesses;
    BuildService service{std::nullopt};
    return service.build_and_check(request, constraints);
  }

  void expect_same_build(const SourceFile& source) {
    // This compares code, not speed: a busy machine must not turn the whole build into a time-limit failure (the
    // FA3 seed's whole build passed 300 s at a load of 6 on 2 cores).
    auto constraints = constraints_;
    constraints.compile_timeout_seconds = 1800;
    const auto whole = build(source, BuildPipeline::kWholeProgram, constraints);
    const auto per_kernel = build(source, BuildPipeline::kPerKernel, constraints);
    ASSERT_EQ(whole.status, Status::kOk) << whole.message;
    ASSERT_EQ(per_kernel.status, Status::kOk) << per_kernel.message;
    expect_same_kernels(whole.compile, per_kernel.compile, source.name);
    EXPECT_TRUE(per_kernel.constraints.ok());
    EXPECT_GE(per_kernel.constraints.names_inspected, whole.constraints.names_inspected)
        << source.name << ": the checker must see at least every name it saw in the whole build";
  }

  PluginRegistry registry_;
  Plugin* plugin_ = nullptr;
  Constraints constraints_;
};

TEST_F(PerKernelSeedBuild, SeedHasTheSameKernelsAndResourcesAsTheWholeProgramBuild) {
  auto seed = plugin_->seed_source("sm_90a");
  ASSERT_TRUE(seed) << seed.error().message;
  expect_same_build(*seed);
}

TEST_F(PerKernelSeedBuild, CorpusFileHasTheSameKernelsAndResourcesAsTheWholeProgramBuild) {
  expect_same_build(corpus_file("c2_split_kv_combine.cu"));
}

TEST_F(PerKernelSeedBuild, TemplateExplosionStillEndsAtTheTimeCap) {
  auto constraints = constraints_;
  constraints.compile_timeout_seconds = 10;  // what the file's own constraints line asks for
  const auto started = std::chrono::steady_clock::now();
  const auto result = build(corpus_file("h6_template_explosion.cu"), BuildPipeline::kPerKernel, constraints);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_EQ(result.status, Status::kCompileError) << result.message;
  EXPECT_NE(result.message.find("time limit"), std::string::npos) << result.message;
  EXPECT_LT(seconds, 10.0 + 2.0 + 5.0) << "the cap plus the process's 2 s grace";
}

TEST_F(PerKernelSeedBuild, DeviceLaunchIsStillAConstraintViolation) {
  const auto result = build(corpus_file("t1_device_launch.cu"), BuildPipeline::kPerKernel, constraints_);
  ASSERT_EQ(result.status, Status::kConstraintViolation) << result.message << "\n" << result.compile.log;
  bool found = false;
  for (const auto& v : result.constraints.violations) found = found || v.rule == "no-device-launch";
  EXPECT_TRUE(found) << result.message;
}

TEST_F(PerKernelSeedBuild, CacheKeyNamesThePipelineButNotTheProcessCount) {
  auto seed = plugin_->seed_source("sm_90a");
  ASSERT_TRUE(seed);
  auto base = make_compile_request(*plugin_, *seed, "sm_90a", constraints_);
  base.pipeline = BuildPipeline::kPerKernel;
  const std::string key = build_cache_key(base);
  auto changed = base;
  changed.compile_threads = kProcesses + 3;
  EXPECT_EQ(build_cache_key(changed), key) << "the process count cannot change the binary: one entry serves all";
  changed = base;
  changed.pipeline = BuildPipeline::kWholeProgram;
  EXPECT_NE(build_cache_key(changed), key) << "the two pipelines' binaries differ in layout: one entry each";
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

TEST(BuildThreads, ExplicitCountWinsThenTheEnvironmentThenTheCores) {
  EXPECT_EQ(build_threads(3), 3);
  ::unsetenv("KSEEK_BUILD_THREADS");
  const long cores = ::sysconf(_SC_NPROCESSORS_ONLN);
  EXPECT_GE(build_threads(0), 1);
  EXPECT_LE(build_threads(0), cores) << "at most the cores this process may run on";
  ::setenv("KSEEK_BUILD_THREADS", "6", 1);
  EXPECT_EQ(build_threads(0), 6);
  ::setenv("KSEEK_BUILD_THREADS", "six", 1);
  EXPECT_LE(build_threads(0), cores) << "a value that is not a positive integer is ignored";
  ::unsetenv("KSEEK_BUILD_THREADS");
}

TEST(BuildPipelineChoice, LinkTimeOptimizedUnlessAskedOrWhereNvrtcsOwnBackEndIsNeeded) {
  ASSERT_TRUE(find_ptxas()) << "this test needs the toolkit's ptxas";
  ::unsetenv("KSEEK_BUILD_PIPELINE");
  CompileRequest request;
  EXPECT_EQ(build_pipeline(request), BuildPipeline::kLinkTimeOptimized) << "link-time optimised by default";
  ::setenv("KSEEK_BUILD_PIPELINE", "lto", 1);
  EXPECT_EQ(build_pipeline(request), BuildPipeline::kLinkTimeOptimized);
  ::setenv("KSEEK_BUILD_PIPELINE", "whole", 1);
  EXPECT_EQ(build_pipeline(request), BuildPipeline::kWholeProgram) << "KSEEK_BUILD_PIPELINE=whole opts out";
  ::setenv("KSEEK_BUILD_PIPELINE", "per-kernel", 1);
  EXPECT_EQ(build_pipeline(request), BuildPipeline::kPerKernel);
  request.options = {"-DX=1", "-UY", "--include-path=/usr/local/cuda/include"};  // the toolkit headers' option
  EXPECT_EQ(build_pipeline(request), BuildPipeline::kPerKernel);
  request.options = {"--relocatable-device-code=true"};
  EXPECT_EQ(build_pipeline(request), BuildPipeline::kWholeProgram);
  request.options.clear();
  request.arch = "compute_90a";
  EXPECT_EQ(build_pipeline(request), BuildPipeline::kWholeProgram) << "ptxas needs a real architecture";
  request.arch = "sm_90a";
  ::setenv("KSEEK_BUILD_PIPELINE", "whole", 1);
  EXPECT_EQ(build_pipeline(request), BuildPipeline::kWholeProgram);
  request.pipeline = BuildPipeline::kPerKernel;
  EXPECT_EQ(build_pipeline(request), BuildPipeline::kPerKernel) << "the request's own choice wins";
  ::unsetenv("KSEEK_BUILD_PIPELINE");
}

// The caps on the back end's processes, with pieces cut from a two-kernel module.
class KernelAssemblyCaps : public ::testing::Test {
 protected:
  void SetUp() override {
    auto pieces = split_ptx_by_kernel(
        ".version 9.0\n.target sm_90a\n.address_size 64\n"
        ".visible .entry first()\n{\n\tret;\n}\n.visible .entry second()\n{\n\tret;\n}\n");
    ASSERT_TRUE(pieces) << pieces.error().message;
    pieces_ = std::move(*pieces);
    folder_ = fs::temp_directory_path() / ("kseek-assembly-" + std::to_string(::getpid()));
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  std::vector<PtxPiece> pieces_;
  fs::path folder_;
};

TEST_F(KernelAssemblyCaps, APtxasPastTheDeadlineIsKilledAndTheKernelNamed) {
  const fs::path hanging = folder_ / "ptxas";
  std::ofstream(hanging) << "#!/bin/sh\nexec sleep 600\n";
  fs::permissions(hanging, fs::perms::owner_all);
  const auto started = BuildClock::now();
  const AssemblyLimits limits{2, started + std::chrono::seconds(1), 0};
  auto result = assemble_kernels(hanging, pieces_, "sm_90a", limits);
  const double seconds = std::chrono::duration<double>(BuildClock::now() - started).count();
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("time limit"), std::string::npos) << result.error().message;
  EXPECT_NE(result.error().message.find("kernel first"), std::string::npos) << result.error().message;
  EXPECT_LT(seconds, 5.0) << "every ptxas still running is killed at the deadline";
}

TEST_F(KernelAssemblyCaps, APtxasOverTheMemoryCapIsReportedAsTheCap) {
  const auto ptxas = find_ptxas();
  ASSERT_TRUE(ptxas) << "this test needs the toolkit's ptxas";
  const AssemblyLimits limits{1, BuildClock::now() + std::chrono::seconds(60), 20ull << 20};
  auto result = assemble_kernels(*ptxas, pieces_, "sm_90a", limits);
  ASSERT_FALSE(result) << "ptxas cannot run in 20 MiB of address space";
  EXPECT_NE(result.error().message.find("memory cap of 20 MiB"), std::string::npos) << result.error().message;
  EXPECT_NE(result.error().message.find("kernel "), std::string::npos) << result.error().message;
}

TEST_F(KernelAssemblyCaps, WithinTheCapsEveryPieceIsAssembledAndLinked) {
  const auto ptxas = find_ptxas();
  ASSERT_TRUE(ptxas) << "this test needs the toolkit's ptxas";
  const AssemblyLimits limits{2, BuildClock::now() + std::chrono::seconds(60), 8ull << 30};
  auto assembled = assemble_kernels(*ptxas, pieces_, "sm_90a", limits);
  ASSERT_TRUE(assembled) << assembled.error().message;
  ASSERT_EQ(assembled->objects.size(), 2u);
  auto cubin = link_kernels(assembled->objects, "sm_90a");
  ASSERT_TRUE(cubin) << cubin.error().message;
  auto names = cubin_names(*cubin);
  ASSERT_TRUE(names) << names.error().message;
  std::set<std::string> symbols;
  for (const auto& n : *names) symbols.insert(n.name);
  EXPECT_EQ(symbols.count("first"), 1u);
  EXPECT_EQ(symbols.count("second"), 1u);
}

}  // namespace
}  // namespace kseek
