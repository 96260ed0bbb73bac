// GPU test: the reference cache through `kseek eval` as a user runs it. The seed evaluated twice with one input seed
// outside a campaign: the first run computes its references and stores them, the second reads every one back, and
// both (and a third with --no-reference-cache) judge the candidate with exactly the same figures. Without a GPU it
// skips, saying why.
// It must never accept a cached run whose correctness figures differ from a computed one in any digit.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kseek/core/worker/driver_probe.hpp"
#include "support/run_command.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A causal query block of 2048 over 65,536 keys: about 0.5 TFLOP for 12.6 MB of references, so computing them takes
// far longer than reading them back, and they are stored (worth_caching).
constexpr const char* kScenario = "hq=8,hkv=1,d=128,dtype=bf16,causal=1,page=128,seqs=(2048,65536)";
constexpr const char* kCacheName = "gpu-test-reference-cache";

class ReferenceCacheGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static const kseek::DriverStatus driver = kseek::probe_driver();
    if (!driver.loaded) GTEST_SKIP() << "no GPU: " << driver.problem;
  }
};

json eval_json(const std::string& args) {
  return kseek::testing::json_output(kseek::testing::run_kseek("--json eval " + args, kCacheName),
                                     "kseek eval " + args);
}

// The references folder of run_kseek's cache for this suite (KSEEK_CACHE_DIR/references).
fs::path references_folder() {
  const char* tmp = std::getenv("TMPDIR");
  return fs::path(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") / (std::string("kseek-") + kCacheName + "-cache") /
         "references";
}

double step_sum(const json& steps) {
  double sum = 0;
  for (const auto& [step, seconds] : steps.items()) sum += seconds.get<double>();
  return sum;
}

const json& only_scenario(const json& record) {
  static const json kNone = json::object();
  EXPECT_EQ(record.value("status", ""), "COMPLETE") << record.dump(2);
  if (!record.contains("scenarios") || record["scenarios"].size() != 1) {
    ADD_FAILURE() << "expected one scenario: " << record.dump(2);
    return kNone;
  }
  const json& s = record["scenarios"][0];
  EXPECT_EQ(s.value("status", ""), "PASSED") << s.dump(2);
  return s;
}

TEST_F(ReferenceCacheGpuTest, ASecondEvaluationOnTheSameInputsReadsItsReferencesBackAndJudgesAlike) {
  std::error_code ec;
  fs::remove_all(references_folder(), ec);  // the first run is cold
  const std::string args =
      std::string("--plugin attention.fa3 --scenarios '") + kScenario + "' --input-seed 20261203 --correctness-only";

  const json cold = eval_json(args);
  const json& first = only_scenario(cold);
  ASSERT_TRUE(first.contains("references")) << first.dump(2);
  EXPECT_EQ(cold["settings"].value("reference_cache", ""), "on");
  // --correctness-only: one set of references per input set.
  const int sets = first["correctness"].value("input_sets", -1);
  EXPECT_GE(sets, 2) << first.dump(2);
  EXPECT_EQ(first["references"].value("from_cache", -1), 0) << first["references"].dump();
  EXPECT_EQ(first["references"].value("computed", -1), sets) << first["references"].dump();
  EXPECT_EQ(first["references"].value("stored", -1), sets) << "all worth storing: " << first["references"].dump();
  // Where the store's time went, step by step (the file step is never free: the entry is hashed and written).
  ASSERT_TRUE(first["references"].contains("cache_store_seconds")) << first["references"].dump();
  EXPECT_FALSE(first["references"].contains("cache_load_seconds")) << "nothing was loaded";
  const json& store = first["references"]["cache_store_seconds"];
  for (const char* step : {"staging", "copy", "file", "wipe", "waited"}) {
    EXPECT_GE(store.value(step, -1.0), 0.0) << step;
  }
  EXPECT_GT(store.value("file", 0.0), 0.0);
  // The file and wipe steps run on the worker's background writer; what the worker itself spent on stores (staging,
  // copy, and waiting for the writer) is part of the reference_cache stage: together no more than it (a step counted
  // twice would exceed it). And the writer's waits are no longer than its work.
  EXPECT_LE(store.value("staging", 0.0) + store.value("copy", 0.0) + store.value("waited", 0.0),
            first["stage_seconds"].value("reference_cache", 0.0) + 1e-3)
      << first["references"].dump() << " " << first["stage_seconds"].dump();
  EXPECT_LE(store.value("waited", 0.0), store.value("file", 0.0) + store.value("wipe", 0.0) + 1e-3) << store.dump();

  const json warm = eval_json(args);
  const json& second = only_scenario(warm);
  ASSERT_TRUE(second.contains("references")) << second.dump(2);
  EXPECT_EQ(second["references"].value("from_cache", -1), sets) << second["references"].dump();
  EXPECT_EQ(second["references"].value("computed", -1), 0) << second["references"].dump();
  EXPECT_GT(second["stage_seconds"].value("reference_cache", 0.0), 0.0) << "loads are charged to reference_cache";
  ASSERT_TRUE(second["references"].contains("cache_load_seconds")) << second["references"].dump();
  EXPECT_GT(second["references"]["cache_load_seconds"].value("file", 0.0), 0.0) << "the entry is read and hashed";
  EXPECT_GT(second["references"]["cache_load_seconds"].value("copy", 0.0), 0.0) << "and copied to the GPU";
  EXPECT_LE(step_sum(second["references"]["cache_load_seconds"]),
            second["stage_seconds"].value("reference_cache", 0.0) + 1e-3)
      << second["references"].dump() << " " << second["stage_seconds"].dump();
  EXPECT_EQ(warm["stage_seconds"]["references"].value("from_cache", -1), sets) << warm["stage_seconds"].dump(2);

  const json computed = eval_json(args + " --no-reference-cache");
  const json& third = only_scenario(computed);
  EXPECT_EQ(computed["settings"].value("reference_cache", ""), "off (--no-reference-cache)");
  EXPECT_EQ(third["references"].value("from_cache", -1), 0) << third["references"].dump();
  EXPECT_EQ(third["references"].value("computed", -1), sets) << third["references"].dump();
  EXPECT_FALSE(third["references"].contains("cache_store_seconds") ||
               third["references"].contains("cache_load_seconds"))
      << "the cache is off: it took no time";

  // Every figure of every set and output, bit for bit: the candidate's errors, the same-precision reference's, the
  // seed's, the bounds. References read back must be the bytes a computation gives.
  for (const json* other : {&second, &third}) {
    ASSERT_TRUE(first.contains("correctness") && other->contains("correctness"));
    const json& a = first["correctness"]["outputs"];
    const json& b = (*other)["correctness"]["outputs"];
    ASSERT_FALSE(a.empty());
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i], b[i]) << "set " << a[i].value("set", -1) << ", output " << a[i].value("output", "");
    }
  }
}

}  // namespace
