// Every plugin built in this tree ships a seed that compiles for each of its target architectures and meets
// its own default constraints — the first rows of the plugin conformance suite that need no GPU.
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "kseek/core/build/build_service.hpp"
#include "kseek/core/plugin/plugin_registry.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;

class TreePluginSeeds : public ::testing::TestWithParam<std::string> {};

TEST_P(TreePluginSeeds, SeedBuildsConstraintCleanForEveryTarget) {
  PluginRegistry registry;
  registry.load_folders({KSEEK_TREE_PLUGIN_DIR});
  EXPECT_TRUE(registry.problems().empty()) << registry.problems().front().message;
  auto loaded = registry.require(GetParam());
  ASSERT_TRUE(loaded) << loaded.error().message;
  const Plugin& plugin = *(*loaded)->plugin;
  const auto constraints = plugin.default_constraints();
  BuildService service{std::nullopt};  // a cold build every time: this is what a user's first build costs
  for (const auto& arch : plugin.info().target_archs) {
    auto seed = plugin.seed_source(arch);
    ASSERT_TRUE(seed) << seed.error().message;
    const auto build = service.build_and_check(make_compile_request(plugin, *seed, arch, constraints), constraints);
    EXPECT_EQ(build.status, Status::kOk) << GetParam() << " " << arch << ": " << build.message;
    EXPECT_FALSE(build.compile.kernels.empty());
    for (const auto& kernel : build.compile.kernels) {
      EXPECT_EQ(kernel.spill_store_bytes, 0u) << kernel.kernel << " spills on " << arch;
    }
    bool has_plan = false;
    for (const auto& kernel : build.compile.kernels) has_plan = has_plan || kernel.kernel == "kseek_plan";
    EXPECT_TRUE(has_plan) << "the seed must export the candidate ABI's plan kernel";
  }
}

INSTANTIATE_TEST_SUITE_P(InTree, TreePluginSeeds, ::testing::Values("attention.fa3", "attention.fa4"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '.', '_');
                           return name;
                         });

}  // namespace
}  // namespace kseek
