// GPU tests: the attention.fa3 adversarial corpus (tests/adversarial/attention_fa3) through `kseek eval`, one test per
// file, each getting the verdict its first line declares on the scenarios its second line names; and control C1, the
// seed evaluated against itself. Without a GPU every test here skips, saying why.
// It must never let a candidate that declares a failure pass a scenario, nor accept an evaluation that did not
// complete.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gpu/adversarial_corpus.hpp"
#include "kseek/core/worker/driver_probe.hpp"
#include "support/run_command.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kRoot = fs::path(KSEEK_ADVERSARIAL_DIR);
constexpr int kMinRounds = 10;

class AttentionGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static const kseek::DriverStatus driver = kseek::probe_driver();
    if (!driver.loaded) GTEST_SKIP() << "SKIPPED: no GPU: " << driver.problem;
  }
};

nlohmann::json eval_json(const std::string& args) {
  return kseek::testing::json_output(kseek::testing::run_kseek("--json eval " + args, "gpu-test-attention"),
                                     "kseek eval " + args);
}

// C1: the seed against itself, on a prefill and a decode shape large enough that launch overheads do not dominate.
TEST_F(AttentionGpuTest, SeedAgainstItselfPassesWithRatiosNearOne) {
  const auto record = eval_json(
      "--plugin attention.fa3 --scenarios 'hq=8,hkv=2,d=128,dtype=bf16,causal=1,page=16,seqs=4x(1024,2048);"
      "hq=32,hkv=8,d=128,dtype=bf16,causal=1,page=16,seqs=64x(1,4096)' --time-budget 3");
  ASSERT_EQ(record.value("status", ""), "COMPLETE") << record.dump(2);
  ASSERT_EQ(record["scenarios"].size(), 2u) << record.dump(2);
  for (const auto& s : record["scenarios"]) {
    EXPECT_EQ(s.value("status", ""), "PASSED") << s.dump(2);
    ASSERT_TRUE(s.contains("timing")) << s.dump(2);
    // A/A sanity, not a speed goal: both sides are the same kernel, so a ratio outside [0.9, 1.1] is a harness bug.
    EXPECT_NEAR(s["timing"].value("ratio", 0.0), 1.0, 0.1) << s.dump(2);
  }
}

// T4: a candidate that leaves its next inputs in the L2 with the evict_last priority, against its twin without the
// prefetch, on the one scenario both files name. Both are timed against the same seed in one process each; the
// prefetcher's ratio may exceed the twin's by no more than the two intervals' half-widths plus 3%, well under the
// 1.34x such a prefetch bought before the flush swept at evict_last priority (2026-12-01, an H200).
TEST_F(AttentionGpuTest, L2ResidueGivesNoAdvantage) {
  const auto prefetch = kseek::testing::read_corpus_expectation(kRoot / "attention_fa3/t4_l2_evict_last_prefetch.cu");
  double ratio[2] = {0, 0};
  double half_width[2] = {0, 0};
  const char* files[2] = {"attention_fa3/t4_l2_evict_last_prefetch.cu", "attention_fa3/t4_l2_twin_without_prefetch.cu"};
  for (int i = 0; i < 2; ++i) {
    const auto record = eval_json("'" + (kRoot / files[i]).string() + "' --plugin attention.fa3 --scenarios '" +
                                  prefetch.scenarios + "' --min-rounds 40 --time-budget 4");
    ASSERT_EQ(record.value("status", ""), "COMPLETE") << record.dump(2);
    const auto& s = record["scenarios"][0];
    ASSERT_EQ(s.value("status", ""), "PASSED") << files[i] << ": " << s.dump(2);
    ratio[i] = s["timing"].value("ratio", 0.0);
    half_width[i] = std::max(s["timing"].value("ci_high", 0.0) - ratio[i], ratio[i] - s["timing"].value("ci_low", 0.0));
  }
  std::cout << "T4: ratio with evict_last prefetch " << ratio[0] << " +-" << half_width[0] << ", twin " << ratio[1]
            << " +-" << half_width[1] << ", advantage " << ratio[0] / ratio[1] << "\n";
  EXPECT_LE(ratio[0], ratio[1] * 1.03 + half_width[0] + half_width[1])
      << "lines a candidate marked evict_last survived the L2 flush";
}

// H9: a candidate's device printf never reaches kseek's standard output, where `--json` writes the record.
TEST_F(AttentionGpuTest, CandidateOutputNeverReachesKseekStdout) {
  const auto file = kRoot / "attention_fa3/h9_prints_forged_record.cu";
  const auto expected = kseek::testing::read_corpus_expectation(file);
  const auto run =
      kseek::testing::run_kseek("--json eval '" + file.string() + "' --plugin attention.fa3 --scenarios '" +
                                    expected.scenarios + "' --min-rounds 10 --time-budget 1",
                                "gpu-test-attention");
  // The whole of stdout is kseek's one document (a forged line ahead of it would make it unparsable), and the
  // forged text appears only inside the record's worker_output, where it is data.
  EXPECT_EQ(run.out.rfind("{\n", 0), 0u) << "kseek's stdout does not start with its own document:\n"
                                         << run.out.substr(0, 300);
  const auto record = kseek::testing::json_output(run, "kseek eval h9");
  ASSERT_EQ(record.value("status", ""), "COMPLETE") << record.dump(2);
  EXPECT_NE(record["summary"]["geomean"].value("value", 0.0), 9.99) << record["summary"].dump(2);
  for (const auto& s : record["scenarios"]) {
    EXPECT_EQ(s.value("status", ""), "PASSED") << s.dump(2);
    ASSERT_TRUE(s.contains("worker_output")) << "what the candidate printed is kept in the record: " << s.dump(2);
    EXPECT_NE(s["worker_output"].value("text", "").find("9.99"), std::string::npos) << s.dump(2);
  }
}

bool blackwell_gpu() {
  static const kseek::DriverStatus driver = kseek::probe_driver();
  return !driver.gpus.empty() && driver.gpus.front().compute_capability_major == 10;
}

class AttentionCorpus : public AttentionGpuTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(AttentionCorpus, GetsItsDeclaredVerdictAndTheEvaluationCompletes) {
  const fs::path file = kRoot / GetParam();
  const std::string plugin = kseek::testing::plugin_of_entry(GetParam());
  const auto expected = kseek::testing::read_corpus_expectation(file);
  ASSERT_FALSE(expected.status.empty()) << file << " lacks a '// expect: STATUS' first line";
  ASSERT_FALSE(expected.scenarios.empty()) << file << " lacks a '// scenarios: ...' line";
  std::string args = "'" + file.string() + "' --plugin " + plugin + " --scenarios '" + expected.scenarios +
                     "' --min-rounds " + std::to_string(kMinRounds) + " --time-budget 1 --scenario-timeout 30";
  // attention.fa4 targets sm_100a; on any other GPU its corpus runs through the portable sm_90a path, which is what
  // these files test (the mask, the references), not Blackwell code.
  if (plugin == "attention.fa4" && !blackwell_gpu()) args += " --functional-arch sm_90a";
  args += kseek::testing::constraints_option(file, expected);
  const auto record = eval_json(args);
  ASSERT_EQ(record.value("status", ""), "COMPLETE") << "the evaluation must complete whatever the candidate does:\n"
                                                    << record.dump(2);
  ASSERT_EQ(record["scenarios"].size(), kseek::testing::split_scenarios(expected.scenarios).size()) << record.dump(2);
  bool any_expected = false;
  for (const auto& s : record["scenarios"]) {
    const std::string got = s.value("status", "");
    if (expected.status == "PASSED") {
      EXPECT_EQ(got, "PASSED") << GetParam() << ": " << s.dump(2);
      // T3: whatever the warm-up looked like, the fixed minimum of timed rounds was measured.
      if (got == "PASSED") EXPECT_GE(s["timing"].value("rounds", 0), kMinRounds) << GetParam() << ": " << s.dump(2);
    } else {
      EXPECT_NE(got, "PASSED") << GetParam() << " must never pass: " << s.dump(2);
    }
    any_expected = any_expected || got == expected.status;
  }
  EXPECT_TRUE(any_expected) << GetParam() << " expected " << expected.status << " (" << expected.why << "):\n"
                            << record["scenarios"].dump(2);
}

INSTANTIATE_TEST_SUITE_P(AttentionFa3, AttentionCorpus,
                         ::testing::ValuesIn(kseek::testing::corpus_entries(kRoot, "attention_fa3")),
                         [](const auto& info) { return kseek::testing::entry_test_name(info.param); });
INSTANTIATE_TEST_SUITE_P(AttentionFa4, AttentionCorpus,
                         ::testing::ValuesIn(kseek::testing::corpus_entries(kRoot, "attention_fa4")),
                         [](const auto& info) { return kseek::testing::entry_test_name(info.param); });

}  // namespace
