// The plugin conformance suite, GPU part: for every plugin of the build's plugin folder (and of the folders in
// $KSEEK_CONFORMANCE_PLUGIN_DIRS) whose target matches this GPU, the seed evaluated against itself passes every
// scenario of the plugin's smallest set, its output equals the seed's bit for bit, and two evaluations with the same
// input seed report identical numbers. Without a GPU, or without a matching one, each test skips, saying why.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kseek/core/worker/driver_probe.hpp"
#include "support/conformance_plugins.hpp"
#include "support/run_command.hpp"

namespace {

using kseek::testing::conformance_plugin_dir;
using kseek::testing::conformance_plugin_ids;
using kseek::testing::conformance_registry;

constexpr const char* kInputSeed = "20240607";  // fixed, so that the two runs see the same inputs

class PluginConformanceGpu : public ::testing::TestWithParam<std::string> {};

nlohmann::json correctness_run(const std::string& id, const std::string& set) {
  // kseek searches the build's plugin folder itself; naming it again would load its plugins twice.
  const std::string dir = conformance_plugin_dir(id);
  const std::string plugin_dir = dir == std::string(KSEEK_TREE_PLUGIN_DIR) ? "" : "--plugin-dir '" + dir + "' ";
  const auto run =
      kseek::testing::run_kseek(plugin_dir + "eval --plugin " + id + " --set " + set +
                                    " --correctness-only --input-seed " + kInputSeed + " --scenario-timeout 120 --json",
                                "gpu-conformance");
  return kseek::testing::json_output(run, "kseek eval of " + id);
}

TEST_P(PluginConformanceGpu, SeedAgainstItselfPassesAndTwoRunsAgreeBitwise) {
  static const kseek::DriverStatus driver = kseek::probe_driver();
  if (!driver.loaded || driver.gpus.empty()) GTEST_SKIP() << "SKIPPED: no GPU: " << driver.problem;
  const auto& gpu = driver.gpus.front();
  const std::string gpu_arch =
      "sm_" + std::to_string(gpu.compute_capability_major) + std::to_string(gpu.compute_capability_minor);
  const kseek::Plugin& plugin = *conformance_registry().find(GetParam())->plugin;
  const kseek::PluginInfo info = plugin.info();
  bool runnable = false;
  for (const auto& arch : info.target_archs) {
    // sm_90a runs on an sm_90 GPU only; a plain sm_XY target would run on later GPUs too, but a seed tuned for one
    // architecture is only conformance-tested on it.
    runnable = runnable || arch == gpu_arch || arch == gpu_arch + "a";
  }
  if (!runnable)
    GTEST_SKIP() << "SKIPPED: " << GetParam() << " targets " << info.target_archs.front() << ", GPU 0 (" << gpu.name
                 << ") is " << gpu_arch;

  // The smallest set keeps the suite short; correctness only, since speed ratios are not conformance.
  const kseek::ScenarioSet* smallest = &info.scenario_sets.front();
  for (const auto& set : info.scenario_sets) {
    if (set.size < smallest->size) smallest = &set;
  }
  const auto first = correctness_run(GetParam(), smallest->name);
  ASSERT_EQ(first.value("status", ""), "COMPLETE") << first.dump(2);
  ASSERT_EQ(first["scenarios"].size(), smallest->size) << first.dump(2);
  for (const auto& s : first["scenarios"]) {
    EXPECT_EQ(s.value("status", ""), "PASSED") << s.dump(2);
    ASSERT_TRUE(s.contains("correctness")) << s.dump(2);
    for (const auto& out : s["correctness"]["outputs"]) {
      // The candidate is the seed: on the same inputs its output must be the seed's, bit for bit.
      EXPECT_EQ(out.value("distance_to_seed_max", -1.0), 0.0) << s.value("name", "") << ": " << out.dump();
      EXPECT_EQ(out.value("nonfinite", -1), 0) << s.value("name", "") << ": " << out.dump();
    }
  }
  const auto second = correctness_run(GetParam(), smallest->name);
  ASSERT_EQ(second.value("status", ""), "COMPLETE") << second.dump(2);
  ASSERT_EQ(second["scenarios"].size(), first["scenarios"].size());
  for (std::size_t i = 0; i < first["scenarios"].size(); ++i) {
    // Same inputs (same seed), same kernels: every error figure must repeat exactly, or something is racy.
    EXPECT_EQ(first["scenarios"][i]["correctness"]["outputs"], second["scenarios"][i]["correctness"]["outputs"])
        << first["scenarios"][i].value("name", "");
  }
}

INSTANTIATE_TEST_SUITE_P(Plugins, PluginConformanceGpu, ::testing::ValuesIn(conformance_plugin_ids()),
                         [](const auto& info) { return kseek::testing::test_name_of(info.param); });

}  // namespace
