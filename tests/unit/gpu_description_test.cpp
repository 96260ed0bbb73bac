// The one GPU description: the identity keys a worker's probe writes are the ones the parent reads back, a stand-in
// worker's partial probe still reads, and a wrong key is an error that names it.
#include <gtest/gtest.h>

#include "kseek/core/eval/evaluator.hpp"
#include "kseek/core/worker/gpu_description.hpp"
#include "support/gpu_probes.hpp"

namespace kseek {
namespace {

using nlohmann::json;
using testing::probes_of;

GpuDescription h200() {
  GpuDescription gpu;
  gpu.ordinal = 3;
  gpu.name = "NVIDIA H200";
  gpu.uuid = "GPU-0123";
  gpu.driver_version = 13000;
  gpu.compute_capability_major = 9;
  gpu.compute_capability_minor = 0;
  gpu.multiprocessors = 132;
  gpu.l2_bytes = 60 << 20;
  gpu.memory_bytes = 150ull << 30;
  gpu.sm_clock_khz = 1980000;
  gpu.memory_clock_khz = 3201000;
  return gpu;
}

TEST(GpuDescription, AProbeReadsBackAsTheDescriptionItWasWrittenFrom) {
  json probe = identity_json(h200());
  // The record's environment keys (golden key-path test): the ordinal is the parent's, added to the probe later.
  EXPECT_FALSE(probe.contains("ordinal"));
  EXPECT_EQ(probe["compute_capability"], "9.0");
  probe["ordinal"] = 3;
  probe["available"] = true;
  probe["copy_bandwidth_bytes_per_second"] = 4.0e12;  // a measurement: the probe's, not the description's
  const auto read = gpu_description_from_probe(probe);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(identity_json(*read), identity_json(h200()));
  EXPECT_EQ(read->ordinal, 3);
  EXPECT_EQ(read->sm(), 90);
  EXPECT_EQ(read->memory_bytes, 150ull << 30);
}

TEST(GpuDescription, AStandInWorkersPartialProbeKeepsTheDefaults) {
  const auto read = gpu_description_from_probe(
      {{"available", true}, {"name", "Fake GPU"}, {"uuid", "GPU-fake-1"}, {"compute_capability", "10.0"}});
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->sm(), 100);
  EXPECT_EQ(read->multiprocessors, 0);
  EXPECT_EQ(read->compute_capability(), "10.0");
}

TEST(GpuDescription, AWrongKeyIsAnErrorThatNamesIt) {
  auto read = gpu_description_from_probe({{"name", "x"}, {"multiprocessors", "many"}});
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message.find("multiprocessors"), std::string::npos) << read.error().message;
  for (const char* cc : {"9", "9.", ".0", "nine.0", "9.0x"}) {
    read = gpu_description_from_probe({{"compute_capability", cc}});
    ASSERT_FALSE(read) << cc;
    EXPECT_NE(read.error().message.find("compute_capability"), std::string::npos) << read.error().message;
  }
  EXPECT_FALSE(gpu_description_from_probe(json::array()));
}

TEST(GpuDescription, AnAvailableProbeThatDoesNotReadIsNotUsedAndSaysWhy) {
  const UsableGpus usable = usable_gpus(
      probes_of({{{"ordinal", 0}, {"available", true}, {"compute_capability", "sm90"}},
                 {{"ordinal", 1}, {"available", true}, {"name", "NVIDIA H200"}, {"compute_capability", "9.0"}}}));
  ASSERT_EQ(usable.gpus.size(), 1u);
  EXPECT_EQ(usable.gpus[0].gpu.ordinal, 1);
  EXPECT_EQ(usable.gpus[0].gpu.sm(), 90);
  EXPECT_NE(usable.not_used.find("GPU 0 is not used"), std::string::npos) << usable.not_used;
  EXPECT_NE(usable.not_used.find("compute_capability"), std::string::npos) << usable.not_used;
}

}  // namespace
}  // namespace kseek
