// kseek::OperatorPlugin (the SDK's plugin base) on a toy operator: its lookups name what is missing and what exists,
// its sets read back through the grammar, and its fill and reference kernels receive the Problem with the right
// addresses in it. No GPU: a recording DeviceHost stands in for the worker's.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kseek/sdk/operator_plugin.hpp"
#include "support/toy_operator_plugin.hpp"

namespace kseek {
namespace {

using testing::all_files;
using testing::ToyPlugin;
using testing::ToyProblem;

struct Launch {
  std::string kernel;
  HostLaunch dims;
  std::vector<std::byte> params;
};

class RecordingHost final : public DeviceHost {
 public:
  std::vector<Launch> launches;
  int synchronized = 0;
  Result<void> launch(std::string_view kernel, const HostLaunch& dims, const void* params, std::size_t bytes) override {
    const auto* first = static_cast<const std::byte*>(params);
    launches.push_back({std::string(kernel), dims, {first, first + bytes}});
    return Ok{};
  }
  Result<void> upload(const DeviceBuffer&, std::span<const std::byte>, std::uint64_t) override { return Ok{}; }
  Result<void> download(const DeviceBuffer&, std::span<std::byte>, std::uint64_t) override { return Ok{}; }
  Result<DeviceBuffer> scratch(std::string_view, std::uint64_t) override { return make_error("none"); }
  Result<void> synchronize() override {
    ++synchronized;
    return Ok{};
  }
  DeviceProperties properties() const override { return {}; }
};

template <class T>
T params_as(const Launch& launch) {
  EXPECT_EQ(launch.params.size(), sizeof(T)) << launch.kernel;
  T value{};
  std::memcpy(&value, launch.params.data(), std::min(sizeof(T), launch.params.size()));
  return value;
}

TEST(OperatorPlugin, SeedOfAnArchitectureItDoesNotTargetNamesItsSeeds) {
  const ToyPlugin plugin(all_files());
  auto seed = plugin.seed_source("sm_80");
  ASSERT_FALSE(seed);
  EXPECT_NE(seed.error().message.find("toy.double has no seed kernel for sm_80 (seeds: sm_90a)"), std::string::npos)
      << seed.error().message;
  auto good = plugin.seed_source("sm_90a");
  ASSERT_TRUE(good) << good.error().message;
  EXPECT_EQ(good->name, "toy_double_seed_sm_90a.cu");
  EXPECT_EQ(good->text, "seed");
}

TEST(OperatorPlugin, AMissingEmbeddedFileIsNamedWithWhatIsEmbedded) {
  auto files = all_files();
  files[0].name = "seed/sm90a.cu";  // the typo of issue 18
  auto seed = ToyPlugin(files).seed_source("sm_90a");
  ASSERT_FALSE(seed);
  EXPECT_NE(seed.error().message.find("the seed for sm_90a file 'seed/sm_90a.cu' is not among the embedded files "
                                      "(seed/sm90a.cu, toy/problem.h, device/toy.cu, packs/toy.json, notes.txt)"),
            std::string::npos)
      << seed.error().message;

  files = all_files();
  files[2].name = "device/other.cu";  // a declared device-library file that is not embedded
  seed = ToyPlugin(files).seed_source("sm_90a");
  ASSERT_FALSE(seed);
  EXPECT_NE(seed.error().message.find("device library file 'device/toy.cu'"), std::string::npos)
      << seed.error().message;
}

TEST(OperatorPlugin, SetsAreReadThroughTheGrammarAndUnknownSetsListTheKnownOnes) {
  const ToyPlugin plugin(all_files());
  EXPECT_EQ(plugin.info().default_set, "default");
  ASSERT_EQ(plugin.info().scenario_sets.size(), 2u);
  EXPECT_EQ(plugin.info().scenario_sets[0].size, 2u);
  auto set = plugin.scenarios("default");
  ASSERT_TRUE(set) << set.error().message;
  ASSERT_EQ(set->size(), 2u);
  EXPECT_EQ((*set)[1].id, "D02");
  EXPECT_EQ((*set)[1].name, "n=77");
  EXPECT_EQ((*set)[1].bytes, 616.0);
  auto broken = plugin.scenarios("broken");
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message.find("set 'broken' B01"), std::string::npos) << broken.error().message;
  auto unknown = plugin.scenarios("large");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("(known: default, broken)"), std::string::npos) << unknown.error().message;
  EXPECT_FALSE(plugin.scenario_from_name("n=5,m=3"));
}

TEST(OperatorPlugin, PacksAreTheFilesUnderPacksAndLibrariesKeepTheirOrder) {
  const ToyPlugin plugin(all_files());
  ASSERT_EQ(plugin.question_packs().size(), 1u);
  EXPECT_EQ(plugin.question_packs()[0].name, "packs/toy.json");
  ASSERT_EQ(plugin.device_library().size(), 2u);
  EXPECT_EQ(plugin.device_library()[0].name, "device/toy.cu");
  ASSERT_EQ(plugin.candidate_headers().size(), 1u);
}

TEST(OperatorPlugin, KernelsReceiveTheProblemWithTheBuffersOfTheirCall) {
  const ToyPlugin plugin(all_files());
  auto scenario = plugin.scenario_from_name("n=100");
  ASSERT_TRUE(scenario) << scenario.error().message;
  auto layout = plugin.workload_layout(*scenario);
  ASSERT_TRUE(layout) << layout.error().message;
  EXPECT_EQ(layout->plugin_context, "n=100");
  const std::vector<DeviceBuffer> tensors = {{0x1000, 400}, {0x2000, 200}};
  RecordingHost host;
  ASSERT_TRUE(plugin.fill_inputs(host, *layout, tensors, 42));
  ASSERT_EQ(host.launches.size(), 1u);
  EXPECT_EQ(host.launches[0].kernel, "toy_fill");
  EXPECT_EQ(host.launches[0].dims.grid[0], 3u);
  const auto fill = params_as<FillArgs<ToyProblem>>(host.launches[0]);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(fill.problem.x), 0x1000u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(fill.problem.y), 0x2000u);
  EXPECT_EQ(fill.problem.n, 100);
  EXPECT_EQ(fill.seed, 42u);

  const std::vector<DeviceBuffer> gold = {{0x3000, 400}}, same = {{0x4000, 200}};
  ASSERT_TRUE(plugin.compute_reference(host, *layout, tensors, gold, same));
  ASSERT_EQ(host.launches.size(), 3u);
  EXPECT_EQ(host.launches[1].kernel, "toy_gold");
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(params_as<ToyProblem>(host.launches[1]).y), 0x3000u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(params_as<ToyProblem>(host.launches[2]).y), 0x4000u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(params_as<ToyProblem>(host.launches[2]).x), 0x1000u);
  EXPECT_EQ(host.synchronized, 2);
}

// The worker hands fill_inputs and compute_reference the input set, whose output entries are empty (scenario_runner
// allocates outputs apart, with guards). The GEMM example failed every scenario on an H200 with "tensor 'c': buffer of
// 0 bytes at address 0" while its CPU tests passed: they had given the outputs a buffer.
TEST(OperatorPlugin, OutputsAbsentFromTheInputSetAreBoundAsNull) {
  const ToyPlugin plugin(all_files());
  auto layout = plugin.workload_layout(*plugin.scenario_from_name("n=100"));
  ASSERT_TRUE(layout);
  RecordingHost host;
  const std::vector<DeviceBuffer> input_set = {{0x1000, 400}, {}};  // x, then the output y as the worker gives it
  auto filled = plugin.fill_inputs(host, *layout, input_set, 7);
  ASSERT_TRUE(filled) << filled.error().message;
  ASSERT_EQ(host.launches.size(), 1u);
  const auto fill = params_as<FillArgs<ToyProblem>>(host.launches[0]);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(fill.problem.x), 0x1000u);
  EXPECT_EQ(fill.problem.y, nullptr);
  const std::vector<DeviceBuffer> gold = {{0x3000, 400}}, same = {{0x4000, 200}};
  auto referenced = plugin.compute_reference(host, *layout, input_set, gold, same);
  ASSERT_TRUE(referenced) << referenced.error().message;
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(params_as<ToyProblem>(host.launches[1]).y), 0x3000u);
  // An input is never optional, and an output that is given is still checked.
  const std::vector<DeviceBuffer> no_x = {{}, {}};
  auto refused = plugin.fill_inputs(host, *layout, no_x, 7);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("tensor 'x': buffer of 0 bytes at address 0"), std::string::npos)
      << refused.error().message;
  const std::vector<DeviceBuffer> small_y = {{0x1000, 400}, {0x2000, 100}};
  refused = plugin.fill_inputs(host, *layout, small_y, 7);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("tensor 'y': buffer of 100 bytes, needs 200"), std::string::npos)
      << refused.error().message;
}

TEST(OperatorPlugin, ABufferSmallerThanItsTensorIsRefusedBeforeAnyLaunch) {
  const ToyPlugin plugin(all_files());
  auto layout = plugin.workload_layout(*plugin.scenario_from_name("n=100"));
  ASSERT_TRUE(layout);
  RecordingHost host;
  const std::vector<DeviceBuffer> tensors = {{0x1000, 400}, {0x2000, 200}};
  const std::vector<DeviceBuffer> gold_too_small = {{0x3000, 200}}, same = {{0x4000, 200}};  // gold is fp32: 400
  auto ok = plugin.compute_reference(host, *layout, tensors, gold_too_small, same);
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.error().message.find("gold tensor 'y': buffer of 200 bytes, needs 400"), std::string::npos)
      << ok.error().message;
  const std::vector<DeviceBuffer> null_x = {{0, 400}, {0x2000, 200}};
  ok = plugin.fill_inputs(host, *layout, null_x, 1);
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.error().message.find("tensor 'x': buffer of 400 bytes at address 0"), std::string::npos)
      << ok.error().message;
  EXPECT_TRUE(host.launches.empty());
}

}  // namespace
}  // namespace kseek
