// The link-time-optimised build (NVRTC to LTO IR, the kernels listed, nvJitLink and ptxas per kernel in parallel
// capped processes, nvJitLink to one cubin) against the per-kernel build: every kernel present with sane resources
// (differences printed, not asserted away: the code may differ), each variable once, failures named by kernel, caps
// that still hold, constraint verdicts unchanged, and an option list, so a cache key, that names the pipeline.
// It must never compare a build with itself: every pair is built cold, once per pipeline.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gpu/adversarial_corpus.hpp"
#include "kseek/core/build/build_service.hpp"
#include "kseek/core/build/capped_process.hpp"
#include "kseek/core/build/kernel_assembly.hpp"
#include "kseek/core/build/nvrtc_compiler.hpp"
#include "kseek/core/check/binary_names.hpp"
#include "kseek/core/plugin/plugin_registry.hpp"
#include "kseek/core/util/files.hpp"
#include "support/multi_kernel_build.hpp"
#include "support/run_command.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;

// Fixed rather than "every core", so that nvJitLink and ptxas processes run side by side on any machine.
constexpr int kProcesses = 4;

// What could break when kernels are generated apart: a visible variable one kernel writes and another reads, an
// internal one the same, a __constant__ table, a non-inlined function two kernels call, static shared memory,
// string literals of two kernels, a template kernel (a mangled name).
constexpr const char* kMultiKernelSource = R"(
__device__ int counter;
static __device__ int lto_flag = 0;
__constant__ float table[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__device__ __noinline__ float helper(float x, int i) { return x * table[i & 3]; }
extern "C" __global__ void writer(float* out, int n) {
  __shared__ float tile[128];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x % 128] = helper(static_cast<float>(i), i);
  __syncthreads();
  if (i < n) out[i] = tile[(threadIdx.x + 1) % 128];
  if (i == 0) atomicAdd(&counter, 1);
  if (i == 0) lto_flag = n;
}
extern "C" __global__ void reader(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = helper(out[i], counter) + static_cast<float>(lto_flag);
}
extern "C" __global__ void __launch_bounds__(256) named(const char** where) {
  if (threadIdx.x == 0) *where = "named kernel";
}
extern "C" __global__ void other_name(const char** where) {
  if (threadIdx.x == 0) *where = "another string";
}
template <int N>
__global__ void templated(int* out) { out[threadIdx.x] = N; }
template __global__ void templated<3>(int*);
)";

CompileRequest plain_request(std::string source, BuildPipeline pipeline) {
  return test::multi_kernel_request(std::move(source), pipeline, kProcesses);
}

std::multiset<std::string> cubin_symbols(const std::string& cubin) {
  std::multiset<std::string> symbols;
  auto names = cubin_names(cubin);
  EXPECT_TRUE(names) << names.error().message;
  if (!names) return symbols;
  for (const auto& n : *names) {
    if (n.where == "cubin symbol") symbols.insert(n.name);
  }
  return symbols;
}

// The lto build has every kernel of the per-kernel build, each in the cubin and in the PTX the checker reads, with
// resources a kernel can have; where they differ from the per-kernel build's, the difference is printed.
void expect_every_kernel(const CompileOutput& per_kernel, const CompileOutput& lto, const std::string& what) {
  ASSERT_EQ(per_kernel.status, Status::kOk) << what << ": " << per_kernel.error;
  ASSERT_EQ(lto.status, Status::kOk) << what << ": " << lto.error;
  const auto expected = test::resources_by_kernel(per_kernel.kernels);
  const auto got = test::resources_by_kernel(lto.kernels);
  ASSERT_FALSE(expected.empty()) << what;
  const auto symbols = cubin_symbols(lto.cubin);
  int identical = 0;
  for (const auto& [name, k] : expected) {
    auto it = got.find(name);
    ASSERT_NE(it, got.end()) << what << ": the lto build lacks kernel " << name;
    const KernelResources& l = it->second;
    EXPECT_EQ(symbols.count(name), 1u) << what << ": " << name << " is not in the cubin once";
    EXPECT_NE(lto.ptx.find(".entry " + name + "("), std::string::npos)
        << what << ": the constraint checker must read " << name << "'s PTX";
    EXPECT_GT(l.registers, 0) << what << ": " << name;
    EXPECT_LE(l.registers, 255) << what << ": " << name;
    EXPECT_LE(l.static_shared_bytes, 227u << 10) << what << ": " << name;
    if (l == k) {
      ++identical;
      continue;
    }
    std::cout << fmt::format(
        "[ lto vs per-kernel ] {} {}: registers {} / {}, spill stores {} / {} B, spill loads {} / {} B, stack {} / {} "
        "B, static smem {} / {} B, barriers {} / {}\n",
        what, name, l.registers, k.registers, l.spill_store_bytes, k.spill_store_bytes, l.spill_load_bytes,
        k.spill_load_bytes, l.stack_frame_bytes, k.stack_frame_bytes, l.static_shared_bytes, k.static_shared_bytes,
        l.barriers, k.barriers);
  }
  EXPECT_EQ(got.size(), expected.size()) << what << ": the lto build has kernels the per-kernel build lacks";
  std::cout << fmt::format("[ lto vs per-kernel ] {}: {} of {} kernels with identical resources\n", what, identical,
                           expected.size());
}

bool has_option(const CompileOutput& out, const std::string& prefix) {
  for (const auto& option : out.options) {
    if (option.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

TEST(LtoBuild, SmallMultiKernelSourceHasEveryKernelAndEachVariableOnce) {
  BuildService service{std::nullopt};  // cold: a cache hit would compare one build with itself
  const auto per_kernel = service.compile(plain_request(kMultiKernelSource, BuildPipeline::kPerKernel));
  const auto lto = service.compile(plain_request(kMultiKernelSource, BuildPipeline::kLinkTimeOptimized));
  expect_every_kernel(per_kernel, lto, "multi.cu");
  EXPECT_EQ(lto.kernels.size(), 5u);
  const auto symbols = cubin_symbols(lto.cubin);
  EXPECT_EQ(symbols.count("counter"), 1u) << "one definition of a visible variable two kernels use";
  int flags = 0;
  for (const auto& symbol : symbols) flags += symbol.find("lto_flag") != std::string::npos;
  EXPECT_EQ(flags, 1) << "one object for the internal variable one kernel writes and another reads";
  // The option list, so the cache key and a record's builds[].options, says how the binary was made.
  EXPECT_TRUE(has_option(lto, "-dlto"));
  EXPECT_TRUE(has_option(lto, "kernels listed by nvJitLink: -arch=sm_90a -lto -ptx -O0"));
  EXPECT_TRUE(has_option(lto, "nvJitLink per kernel: -arch=sm_90a -lto -ptx -kernels-used=KERNEL"));
  EXPECT_TRUE(has_option(lto, "ptxas per kernel:"));
  EXPECT_TRUE(has_option(lto, "nvJitLink: -arch=sm_90a"));
  EXPECT_FALSE(has_option(per_kernel, "-dlto"));
  EXPECT_FALSE(has_option(per_kernel, "nvJitLink per kernel:"));
  // Where the time went: one process count, and per kernel its nvJitLink and ptxas.
  EXPECT_EQ(lto.stages.processes, kProcesses);
  std::set<std::string> timed;
  for (const auto& k : lto.stages.kernels) timed.insert(k.kernel);
  for (const auto& k : lto.kernels) EXPECT_EQ(timed.count(k.kernel), 1u) << k.kernel;
}

TEST(LtoBuild, TwoColdBuildsGiveTheSameCubinWhateverOrderTheirProcessesEndIn) {
  BuildService service{std::nullopt};
  const auto first = service.compile(plain_request(kMultiKernelSource, BuildPipeline::kLinkTimeOptimized));
  auto request = plain_request(kMultiKernelSource, BuildPipeline::kLinkTimeOptimized);
  request.compile_threads = 1;  // another order of completion
  const auto second = service.compile(request);
  ASSERT_EQ(first.status, Status::kOk) << first.error;
  ASSERT_EQ(second.status, Status::kOk) << second.error;
  EXPECT_TRUE(first.cubin == second.cubin) << "the objects are linked in the kernels' order, not the processes'";
  EXPECT_TRUE(first.ptx == second.ptx);
}

TEST(LtoBuild, TheReaderOfAVariableAnotherKernelWritesStillLoadsIt) {
  // Generated alone (-kernels-used=reader), the reader's module holds no store to lto_flag: an optimiser free to
  // assume that no one else writes an internal variable would fold the load to the initializer.
  BuildService service{std::nullopt};
  const auto lto = service.compile(plain_request(kMultiKernelSource, BuildPipeline::kLinkTimeOptimized));
  ASSERT_EQ(lto.status, Status::kOk) << lto.error;
  const auto reader = lto.ptx.find(".entry reader(");
  ASSERT_NE(reader, std::string::npos);
  const std::string body = lto.ptx.substr(reader, lto.ptx.find("\n}", reader) - reader);
  EXPECT_NE(body.find("lto_flag"), std::string::npos) << "the reader reads the variable itself:\n" << body;
}

TEST(LtoBuild, AKernelThatPtxasRejectsIsNamedInTheError) {
  const std::string source = std::string(kMultiKernelSource) +
                             "extern \"C\" __global__ void broken() { asm volatile(\"no.such.instruction;\"); }\n";
  BuildService service{std::nullopt};
  const auto out = service.compile(plain_request(source, BuildPipeline::kLinkTimeOptimized));
  ASSERT_EQ(out.status, Status::kCompileError);
  EXPECT_NE(out.error.find("ptxas failed on kernel broken"), std::string::npos) << out.error;
  EXPECT_FALSE(out.ptx.empty()) << "the pieces made stay for the constraint checker";
}

// A kernel that reads a wgmma's accumulator before the wait: ptxas injects a wait (C7517) and says so, naming the
// function. Every pipeline must carry that note to the kernel it names, and a helper's note (a function that is not
// an entry) to the one kernel of its piece where the pipeline assembles kernels apart, else to the build; the kernel
// beside them gets none (a campaign lost a GPU call when `kseek build` showed no such note).
TEST(LtoBuild, EveryPipelineCarriesPtxasNotesToTheKernelTheyName) {
  const std::string source = R"(
__device__ __noinline__ float helper_reads_early(float* out, unsigned long long da, unsigned long long db) {
  float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, %4, %5, 1, 1, 1, 0, 0;\n"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(da), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  out[threadIdx.x] = d0;
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  return d1 + d2 + d3;
}
extern "C" __global__ void reads_before_wait(float* out, unsigned long long da, unsigned long long db) {
  float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, %4, %5, 1, 1, 1, 0, 0;\n"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(da), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  out[threadIdx.x] = d0;  // read before the wait
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  out[threadIdx.x + 128] = d1 + d2 + d3;
}
extern "C" __global__ void calls_helper(float* out, unsigned long long da, unsigned long long db) {
  out[threadIdx.x + 256] = helper_reads_early(out, da, db);
}
extern "C" __global__ void clean(float* out) { out[threadIdx.x] = 1.0f; }
)";
  const auto has_c7517 = [](const std::vector<std::string>& notes, bool helper) {
    return std::any_of(notes.begin(), notes.end(), [&](const std::string& n) {
      return n.rfind("C7517: ", 0) == 0 && (n.find("helper_reads_early") != std::string::npos) == helper;
    });
  };
  for (const auto pipeline : {BuildPipeline::kWholeProgram, BuildPipeline::kPerKernel, BuildPipeline::kLinkTimeOptimized}) {
    BuildService service{std::nullopt};
    const auto out = service.compile(plain_request(source, pipeline));
    ASSERT_EQ(out.status, Status::kOk) << out.error;
    const auto kernels = test::resources_by_kernel(out.kernels);
    ASSERT_EQ(kernels.count("reads_before_wait"), 1u);
    ASSERT_EQ(kernels.count("calls_helper"), 1u);
    ASSERT_EQ(kernels.count("clean"), 1u);
    const std::string what = "pipeline " + std::to_string(static_cast<int>(pipeline)) + ": kernels " +
                             nlohmann::json(out.kernels).dump() + ", build " + nlohmann::json(out.ptxas_notes).dump();
    EXPECT_TRUE(has_c7517(kernels.at("reads_before_wait").ptxas_notes, false)) << what;
    EXPECT_TRUE(kernels.at("clean").ptxas_notes.empty()) << what;
    // The helper's note: its kernel's where each kernel is assembled alone, the build's in one whole program.
    if (pipeline == BuildPipeline::kWholeProgram) {
      EXPECT_TRUE(has_c7517(out.ptxas_notes, true)) << what;
    } else {
      EXPECT_TRUE(has_c7517(kernels.at("calls_helper").ptxas_notes, true)) << what;
      EXPECT_TRUE(out.ptxas_notes.empty()) << what;
    }
  }
}

TEST(LtoBuild, ACompileErrorIsNvrtcsWithItsDiagnostics) {
  BuildService service{std::nullopt};
  const auto out = service.compile(
      plain_request("extern \"C\" __global__ void k() { undeclared(); }\n", BuildPipeline::kLinkTimeOptimized));
  ASSERT_EQ(out.status, Status::kCompileError);
  EXPECT_NE(out.error.find("NVRTC rejected multi.cu"), std::string::npos) << out.error;
  ASSERT_FALSE(out.diagnostics.empty());
  EXPECT_EQ(out.diagnostics.front().line, 1);
}

TEST(LtoBuild, NvJitLinkOverItsMemoryCapIsReportedAsTheCapAndNamesTheKernel) {
  // An initialised 8 MiB table: its PTX text alone needs far more than the cap. (A child's cap bounds what it adds to
  // the parent's address space, whose free heap a small program's generation fits in.)
  const std::string source = std::string(kMultiKernelSource) +
                             "__device__ unsigned char big[8 << 20] = {1};\n"
                             "extern \"C\" __global__ void uses_big(unsigned char* out) { *out = big[*out]; }\n";
  std::string lto_ir;
  const auto front_end = compile_to_lto_ir(plain_request(source, BuildPipeline::kLinkTimeOptimized), lto_ir);
  ASSERT_EQ(front_end.status, Status::kOk) << front_end.error;
  ASSERT_FALSE(lto_ir.empty());
  const auto ptxas = find_ptxas();
  ASSERT_TRUE(ptxas) << "this test needs the toolkit's ptxas";
  const AssemblyLimits limits{1, BuildClock::now() + std::chrono::seconds(60), 1ull << 20};
  LtoAssembly out;
  auto made = assemble_lto_kernels(*ptxas, lto_ir, {{"uses_big", 1}}, "sm_90a", limits, out);
  ASSERT_FALSE(made) << "nvJitLink cannot run in 1 MiB more address space";
  EXPECT_NE(made.error().message.find("nvJitLink exceeded the compiler memory cap of 1 MiB"), std::string::npos)
      << made.error().message;
  EXPECT_NE(made.error().message.find("kernel uses_big"), std::string::npos) << made.error().message;
}

TEST(LtoBuild, AProcessPastTheDeadlineIsKilledAndItsKernelNamed) {
  std::string lto_ir;
  const auto front_end =
      compile_to_lto_ir(plain_request(kMultiKernelSource, BuildPipeline::kLinkTimeOptimized), lto_ir);
  ASSERT_EQ(front_end.status, Status::kOk) << front_end.error;
  const fs::path folder = fs::temp_directory_path() / ("kseek-lto-deadline-" + std::to_string(::getpid()));
  fs::create_directories(folder);
  const fs::path hanging = folder / "ptxas";
  std::ofstream(hanging) << "#!/bin/sh\nexec sleep 600\n";
  fs::permissions(hanging, fs::perms::owner_all);
  const auto started = BuildClock::now();
  const AssemblyLimits limits{2, started + std::chrono::seconds(5), 0};
  LtoAssembly out;
  auto made = assemble_lto_kernels(hanging, lto_ir, {{"writer", 2}, {"reader", 1}}, "sm_90a", limits, out);
  const double seconds = std::chrono::duration<double>(BuildClock::now() - started).count();
  fs::remove_all(folder);
  ASSERT_FALSE(made);
  EXPECT_NE(made.error().message.find("time limit reached while ptxas assembled kernel"), std::string::npos)
      << made.error().message;
  EXPECT_NE(made.error().message.find("kernel writer"), std::string::npos) << made.error().message;
  EXPECT_LT(seconds, 10.0) << "every process still running is killed at the deadline";
  EXPECT_NE(out.ptx.find(".entry writer("), std::string::npos) << "the pieces made stay for the constraint checker";
}

// nvJitLink's work in a forked child, as the build runs it ("+" and the value, or "-" and the error): an -O0 call (the
// listing) changes the code of every later call in its process, so no test makes one in this one.
std::string child_reply(const std::function<Result<std::string>()>& work) {
  const CappedRun run = run_capped(
      [&]() -> std::string {
        auto reply = work();
        return reply ? "+" + *reply : "-" + reply.error().message;
      },
      BuildClock::now() + std::chrono::seconds(120), 0);
  EXPECT_EQ(run.end, CappedRun::End::kFinished);
  EXPECT_FALSE(run.output.empty());
  return run.output;
}

TEST(LtoBuild, TheKernelsAreListedFromTheLtoIrInTheProgramsOrder) {
  std::string lto_ir;
  const auto front_end =
      compile_to_lto_ir(plain_request(kMultiKernelSource, BuildPipeline::kLinkTimeOptimized), lto_ir);
  ASSERT_EQ(front_end.status, Status::kOk) << front_end.error;
  EXPECT_TRUE(front_end.ptx.empty() && front_end.cubin.empty()) << "-dlto makes LTO IR only";
  const std::string listed = child_reply([&]() -> Result<std::string> {
    auto kernels = list_lto_kernels(lto_ir, "sm_90a");
    if (!kernels) return kernels.error();
    std::string lines;
    for (const auto& k : *kernels) lines += fmt::format("{} {}\n", k.name, k.code_bytes > 0 ? "sized" : "empty");
    return lines;
  });
  EXPECT_EQ(listed, "+writer sized\nreader sized\nnamed sized\nother_name sized\n_Z9templatedILi3EEvPi sized\n");
  const std::string ptx = child_reply([&] { return lto_kernel_ptx(lto_ir, "sm_90a", "reader"); });
  EXPECT_NE(ptx.find(".entry reader("), std::string::npos) << ptx.substr(0, 200);
  EXPECT_EQ(ptx.find(".entry writer("), std::string::npos) << "-kernels-used leaves the other kernels out";
}

TEST(LtoBuild, ABuildLeavesTheCodeNvJitLinkGeneratesInThisProcessAsItWas) {
  // Measured with CUDA 13.0: after one nvJitLink call with -O0 in a process, its later calls, -O3 ones included,
  // generate other code (the attention seed's kseek_plan: other registers and instructions). The listing's -O0 pass
  // must therefore run in a process of its own, never in the one that forks the kernels' generation.
  PluginRegistry registry;
  registry.load_folders({KSEEK_TREE_PLUGIN_DIR});
  auto loaded = registry.require("attention.fa3");
  ASSERT_TRUE(loaded) << loaded.error().message;
  const Plugin& plugin = *(*loaded)->plugin;
  auto seed = plugin.seed_source("sm_90a");
  ASSERT_TRUE(seed) << seed.error().message;
  std::string lto_ir;
  const auto front_end =
      compile_to_lto_ir(make_compile_request(plugin, *seed, "sm_90a", plugin.default_constraints()), lto_ir);
  ASSERT_EQ(front_end.status, Status::kOk) << front_end.error;
  auto plan = [&] { return child_reply([&] { return lto_kernel_ptx(lto_ir, "sm_90a", "kseek_plan"); }); };
  const std::string before = plan();
  BuildService service{std::nullopt};
  const auto build = service.compile(plain_request(kMultiKernelSource, BuildPipeline::kLinkTimeOptimized));
  ASSERT_EQ(build.status, Status::kOk) << build.error;
  EXPECT_TRUE(plan() == before) << "the lto build changed what nvJitLink generates in this process";
}

TEST(LtoBuildPipelineChoice, TheDefaultWithOptOutsByTheEnvironmentOrTheRequestAndTheWholeProgramFallbacks) {
  ASSERT_TRUE(find_ptxas()) << "this test needs the toolkit's ptxas";
  ::unsetenv("KSEEK_BUILD_PIPELINE");
  CompileRequest request;
  EXPECT_EQ(build_pipeline(request), BuildPipeline::kLinkTimeOptimized) << "lto is the default";
  ::setenv("KSEEK_BUILD_PIPELINE", "per-kernel", 1);
  EXPECT_EQ(build_pipeline(request), BuildPipeline::kPerKernel) << "KSEEK_BUILD_PIPELINE=per-kernel opts out";
  ::setenv("KSEEK_BUILD_PIPELINE", "lto", 1);
  EXPECT_EQ(build_pipeline(request), BuildPipeline::kLinkTimeOptimized);
  request.options = {"-DX=1", "--include-path=toolkit/include"};
  EXPECT_EQ(build_pipeline(request), BuildPipeline::kLinkTimeOptimized);
  request.options = {"--relocatable-device-code=true"};
  EXPECT_EQ(build_pipeline(request), BuildPipeline::kWholeProgram) << "the checker's relocatable rebuild stays whole";
  request.options.clear();
  request.arch = "compute_90a";
  EXPECT_EQ(build_pipeline(request), BuildPipeline::kWholeProgram) << "ptxas needs a real architecture";
  request.arch = "sm_90a";
  request.pipeline = BuildPipeline::kPerKernel;
  EXPECT_EQ(build_pipeline(request), BuildPipeline::kPerKernel) << "the request's own choice wins";
  ::unsetenv("KSEEK_BUILD_PIPELINE");
  request.pipeline = BuildPipeline::kLinkTimeOptimized;
  EXPECT_EQ(build_pipeline(request), BuildPipeline::kLinkTimeOptimized);
}

TEST(LtoBuildPipelineChoice, TheCacheKeyNamesThePipelineButNotTheProcessCount) {
  CompileRequest base = plain_request(kMultiKernelSource, BuildPipeline::kLinkTimeOptimized);
  const std::string key = build_cache_key(base);
  auto changed = base;
  changed.compile_threads = kProcesses + 3;
  EXPECT_EQ(build_cache_key(changed), key) << "the process count cannot change the binary: one entry serves all";
  changed = base;
  changed.pipeline = BuildPipeline::kPerKernel;
  EXPECT_NE(build_cache_key(changed), key);
  changed.pipeline = BuildPipeline::kWholeProgram;
  EXPECT_NE(build_cache_key(changed), key);
  changed = base;
  changed.source.text += "\n";
  EXPECT_NE(build_cache_key(changed), key);
}

// Every seed of this tree's plugins, for each of its target architectures, built per kernel and lto.
class LtoTreePluginSeeds : public ::testing::TestWithParam<std::string> {};

TEST_P(LtoTreePluginSeeds, SeedHasEveryKernelOfThePerKernelBuildAndMeetsItsConstraints) {
  PluginRegistry registry;
  registry.load_folders({KSEEK_TREE_PLUGIN_DIR});
  auto loaded = registry.require(GetParam());
  ASSERT_TRUE(loaded) << loaded.error().message;
  const Plugin& plugin = *(*loaded)->plugin;
  auto constraints = plugin.default_constraints();
  // This compares code, not speed: a busy machine must not turn a build into a time-limit failure.
  constraints.compile_timeout_seconds = 1800;
  for (const auto& arch : plugin.info().target_archs) {
    auto seed = plugin.seed_source(arch);
    ASSERT_TRUE(seed) << seed.error().message;
    auto build = [&](BuildPipeline pipeline) {
      auto request = make_compile_request(plugin, *seed, arch, constraints);
      request.pipeline = pipeline;
      request.compile_threads = kProcesses;
      BuildService service{std::nullopt};
      return service.build_and_check(request, constraints);
    };
    const auto per_kernel = build(BuildPipeline::kPerKernel);
    const auto lto = build(BuildPipeline::kLinkTimeOptimized);
    ASSERT_EQ(per_kernel.status, Status::kOk) << per_kernel.message;
    ASSERT_EQ(lto.status, Status::kOk) << lto.message;
    expect_every_kernel(per_kernel.compile, lto.compile, GetParam() + " " + arch);
    EXPECT_TRUE(has_option(lto.compile, "nvJitLink per kernel:"));
    EXPECT_GE(lto.constraints.names_inspected, per_kernel.constraints.names_inspected)
        << "the checker must see at least as many names as in the per-kernel build";
  }
}

INSTANTIATE_TEST_SUITE_P(InTree, LtoTreePluginSeeds,
                         ::testing::Values("attention.fa3", "attention.fa4", "example.softmax"), [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '.', '_');
                           return name;
                         });

// The corpus files whose verdict the build gives (the caps, the forbidden names): the same verdict under lto.
class LtoCorpusBuild : public ::testing::TestWithParam<std::string> {};

TEST_P(LtoCorpusBuild, GetsItsBuildVerdict) {
  const fs::path root = KSEEK_ADVERSARIAL_DIR;
  const fs::path file = root / GetParam();
  const auto expected = testing::read_corpus_expectation(file);
  ASSERT_TRUE(expected.status == "COMPILE_ERROR" || expected.status == "CONSTRAINT_VIOLATION") << expected.status;
  const auto run =
      testing::run_command("KSEEK_BUILD_PIPELINE=lto '" + std::string(KSEEK_EXE) + "' --no-cache --json build '" +
                           file.string() + "' --plugin " + testing::plugin_of_entry(GetParam()) +
                           testing::constraints_option(file, expected) + " 2>/dev/null");
  const auto build = testing::json_output(run, "kseek build " + GetParam());
  EXPECT_EQ(build.value("status", ""), expected.status) << GetParam() << " (" << expected.why << "):\n"
                                                        << build.dump(2);
  bool lto = false;
  for (const auto& option : build.value("options", nlohmann::json::array())) {
    lto = lto || option.get<std::string>().rfind("nvJitLink per kernel:", 0) == 0;
  }
  EXPECT_TRUE(lto) << "the verdict comes from the lto build";
}

INSTANTIATE_TEST_SUITE_P(AttentionFa3, LtoCorpusBuild,
                         ::testing::Values("attention_fa3/h6_huge_binary.cu", "attention_fa3/h6_template_explosion.cu",
                                           "attention_fa3/h7_cublas_by_token_pasting.cu",
                                           "attention_fa3/h7_cutlass_by_alias.cu", "attention_fa3/t1_device_launch.cu"),
                         [](const auto& info) { return testing::entry_test_name(info.param); });

}  // namespace
}  // namespace kseek
