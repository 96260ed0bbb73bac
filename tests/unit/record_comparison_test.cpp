// Comparing two evaluation records (kseek compare): which scenarios pair up, what the figures mean, and what is
// refused. It must never let two records of different problems pass as an A/B.
#include <gtest/gtest.h>

#include <cmath>

#include "kseek/core/eval/record_comparison.hpp"

namespace {
using kseek::CompareOptions;
using kseek::EvaluationRecord;
using kseek::RowVerdict;
using kseek::ScenarioOutcome;
using kseek::Status;

ScenarioOutcome timed(const std::string& id, double seed_ms, double cand_ms, double half_width = 0.01) {
  ScenarioOutcome s;
  s.scenario = id;
  s.name = "n=" + id;
  s.status = Status::kPassed;
  kseek::TimingOutcome t;
  t.seed_median_ms = seed_ms;
  t.candidate_median_ms = cand_ms;
  t.ratio = seed_ms / cand_ms;
  t.ci_low = t.ratio * (1 - half_width);
  t.ci_high = t.ratio * (1 + half_width);
  s.timing = t;
  return s;
}

EvaluationRecord record(std::vector<ScenarioOutcome> scenarios, const std::string& plugin = "attention.fa3") {
  EvaluationRecord r;
  r.plugin.id = plugin;
  r.kseek_version = "1";
  r.candidate.sha256 = "ab";
  r.scenarios = std::move(scenarios);
  kseek::RecordEnvironment env;
  env.name = "NVIDIA H200";
  r.environment = env;
  return r;
}

EvaluationRecord on_gpu(EvaluationRecord r, const std::string& uuid) {
  r.environment->uuid = uuid;
  return r;
}

// B's candidate `change` times as fast as A's against the same seed, each run's interval +-0.1%: tight enough that
// the ratio of ratios clears 1 for a 0.7% change, as H01 of the fa3-h200 evaluations 19 and 20 did.
EvaluationRecord run_a(const std::string& id = "H01") { return record({timed(id, 10.0, 5.0, 0.001)}); }
EvaluationRecord run_b(double change, const std::string& id = "H01") {
  return record({timed(id, 10.0, 5.0 / change, 0.001)});
}

bool any_note_has(const kseek::RecordComparison& c, const std::string& text) {
  for (const auto& note : c.notes) {
    if (note.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(RecordComparison, RatioOfRatiosDividesOutWhatMovedTheSeedToo) {
  // Run B found the machine 10% slower (the seed took 1.1x as long) and its candidate 1.1 * 0.8 = 0.88x as long as
  // A's: against its own seed, B's candidate is 1.25x faster; on raw times only 1.136x.
  const auto a = record({timed("H01", 10.0, 5.0)});
  const auto b = record({timed("H01", 11.0, 4.4)});
  const auto c = kseek::compare_records(a, b);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->scenarios.size(), 1u);
  const auto& s = c->scenarios[0];
  EXPECT_TRUE(s.timed);
  EXPECT_NEAR(s.ratio_of_ratios, 1.25, 1e-12);
  EXPECT_NEAR(s.speedup, 5.0 / 4.4, 1e-12);
  EXPECT_NEAR(s.seed_drift, 1.1, 1e-12);
  EXPECT_LT(s.low, s.ratio_of_ratios);
  EXPECT_GT(s.high, s.ratio_of_ratios);
  EXPECT_GT(s.low, 1.0);
  EXPECT_EQ(c->b_faster, 1);
  EXPECT_EQ(c->b_slower, 0);
  EXPECT_NEAR(c->geomean_ratio_of_ratios, 1.25, 1e-12);
}

TEST(RecordComparison, AnOverlappingIntervalIsNeitherFasterNorSlower) {
  const auto a = record({timed("H01", 10.0, 5.0, 0.02)});
  const auto b = record({timed("H01", 10.0, 4.95, 0.02)});
  const auto c = kseek::compare_records(a, b);
  ASSERT_TRUE(c);
  EXPECT_LT(c->scenarios[0].low, 1.0);
  EXPECT_GT(c->scenarios[0].high, 1.0);
  EXPECT_EQ(c->b_faster + c->b_slower, 0);
}

TEST(RecordComparison, UnpairedAndUntimedScenariosAreListedNotAveraged) {
  auto failed = timed("H02", 10.0, 1.0);
  failed.status = Status::kFailed;
  const auto a = record({timed("H01", 10.0, 5.0), failed, timed("H03", 10.0, 5.0)});
  const auto b = record({timed("H01", 10.0, 2.5), timed("H02", 10.0, 5.0), timed("H04", 10.0, 5.0)});
  const auto c = kseek::compare_records(a, b);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->timed, 1) << "H02 failed in A, so only H01 is timed by both";
  EXPECT_NEAR(c->geomean_ratio_of_ratios, 2.0, 1e-12);
  ASSERT_EQ(c->scenarios.size(), 2u);
  EXPECT_FALSE(c->scenarios[1].timed);
  EXPECT_EQ(c->scenarios[1].status_a, Status::kFailed);
  EXPECT_EQ(c->only_in_a, std::vector<std::string>{"H03"});
  EXPECT_EQ(c->only_in_b, std::vector<std::string>{"H04"});
}

TEST(RecordComparison, RecordsOfDifferentProblemsAreRefused) {
  EXPECT_FALSE(kseek::compare_records(record({timed("H01", 1, 1)}), record({timed("H01", 1, 1)}, "example.softmax")));
  auto renamed = timed("H01", 1, 1);
  renamed.name = "another problem";
  const auto c = kseek::compare_records(record({timed("H01", 1, 1)}), record({renamed}));
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("different problems"), std::string::npos);
  EXPECT_FALSE(kseek::compare_records(record({timed("H01", 1, 1)}), record({timed("H02", 1, 1)})));
}

TEST(RecordComparison, OtherGpusAndOtherSeedsAreNoted) {
  auto a = record({timed("H01", 10.0, 5.0)});
  auto b = record({timed("H01", 10.0, 5.0)});
  b.environment->name = "NVIDIA H100";
  b.kseek_version = "2";
  a.seed = kseek::SourceIdentity{"seed.cu", "aa"};
  b.seed = kseek::SourceIdentity{"seed.cu", "bb"};
  const auto c = kseek::compare_records(a, b);
  ASSERT_TRUE(c);
  ASSERT_EQ(c->notes.size(), 3u);
  EXPECT_NE(c->notes[0].find("different GPUs"), std::string::npos);
}

TEST(RecordComparison, TwoGpusOfOneModelPutASmallTightMoveWithinTheirSpread) {
  const auto a = on_gpu(run_a(), "GPU-aaaa");
  const auto b = on_gpu(run_b(1.007), "GPU-bbbb");
  const auto c = kseek::compare_records(a, b);
  ASSERT_TRUE(c) << c.error().message;
  const auto& s = c->scenarios[0];
  ASSERT_GT(s.low, 1.0) << "the runs' own intervals clear 1: today this row reads 'B faster'";
  ASSERT_LT(s.low, 1.03);
  EXPECT_EQ(s.verdict, RowVerdict::kWithinMachineSpread);
  EXPECT_EQ(c->b_faster, 0);
  EXPECT_EQ(c->b_slower, 0);
  EXPECT_EQ(c->within_machine_spread, 1);
  EXPECT_TRUE(c->across_machines);
  EXPECT_DOUBLE_EQ(c->machine_allowance, kseek::kDefaultMachineAllowance);
  EXPECT_TRUE(any_note_has(*c, "two GPUs of one model")) << "the existing note stays";
  EXPECT_TRUE(any_note_has(*c, "--machine-allowance 0.03"));

  const auto slower = kseek::compare_records(a, on_gpu(run_b(1 / 1.007), "GPU-bbbb"));
  ASSERT_TRUE(slower);
  EXPECT_EQ(slower->scenarios[0].verdict, RowVerdict::kWithinMachineSpread);
  EXPECT_EQ(slower->b_slower, 0);
  EXPECT_EQ(slower->within_machine_spread, 1);
}

TEST(RecordComparison, AZeroMachineAllowanceLabelsOnTheRunsOwnIntervals) {
  const auto c =
      kseek::compare_records(on_gpu(run_a(), "GPU-aaaa"), on_gpu(run_b(1.007), "GPU-bbbb"), CompareOptions{0.0});
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->scenarios[0].verdict, RowVerdict::kBFaster);
  EXPECT_EQ(c->b_faster, 1);
  EXPECT_EQ(c->within_machine_spread, 0);
  EXPECT_TRUE(any_note_has(*c, "--machine-allowance 0:"));
}

TEST(RecordComparison, AMoveBeyondTheMachineAllowanceIsStillFasterOrSlower) {
  const auto a = on_gpu(record({timed("H01", 10.0, 5.0, 0.001), timed("H02", 10.0, 5.0, 0.001)}), "GPU-aaaa");
  const auto b =
      on_gpu(record({timed("H01", 10.0, 5.0 / 1.05, 0.001), timed("H02", 10.0, 5.0 * 1.05, 0.001)}), "GPU-bbbb");
  const auto c = kseek::compare_records(a, b);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->scenarios[0].verdict, RowVerdict::kBFaster);
  EXPECT_EQ(c->scenarios[1].verdict, RowVerdict::kBSlower);
  EXPECT_EQ(c->b_faster, 1);
  EXPECT_EQ(c->b_slower, 1);
  EXPECT_EQ(c->within_machine_spread, 0);
}

TEST(RecordComparison, OneGpuKeepsTheLabelsOfTheRunsOwnIntervals) {
  const auto c = kseek::compare_records(on_gpu(run_a(), "GPU-aaaa"), on_gpu(run_b(1.007), "GPU-aaaa"));
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->scenarios[0].verdict, RowVerdict::kBFaster);
  EXPECT_EQ(c->b_faster, 1);
  EXPECT_EQ(c->within_machine_spread, 0);
  EXPECT_FALSE(c->across_machines);
  EXPECT_EQ(c->machine_allowance, 0.0);
  EXPECT_TRUE(any_note_has(*c, "measured on one GPU (GPU-aaaa)"));
}

TEST(RecordComparison, RecordsWithoutUuidsKeepTheLabelsOfTheRunsOwnIntervals) {
  // Neither record gives a uuid, then only B does: either way nothing says the runs had two GPUs.
  for (const auto& b : {run_b(1.007), on_gpu(run_b(1.007), "GPU-bbbb")}) {
    const auto c = kseek::compare_records(run_a(), b);
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ(c->scenarios[0].verdict, RowVerdict::kBFaster);
    EXPECT_EQ(c->b_faster, 1);
    EXPECT_EQ(c->within_machine_spread, 0);
    EXPECT_FALSE(c->across_machines);
    EXPECT_TRUE(any_note_has(*c, "do not both give their GPU's uuid"));
  }
}

TEST(RecordComparison, TwoGpuModelsGetTheMachineAllowanceToo) {
  auto b = run_b(1.007);
  b.environment->name = "NVIDIA H100";
  const auto c = kseek::compare_records(run_a(), b);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->scenarios[0].verdict, RowVerdict::kWithinMachineSpread);
  EXPECT_EQ(c->b_faster, 0);
  EXPECT_EQ(c->within_machine_spread, 1);
  EXPECT_TRUE(any_note_has(*c, "measured on different GPUs"));
}

TEST(RecordComparison, AMachineAllowanceOutsideZeroToOneIsRefusedNamingTheFlag) {
  for (const double bad : {-0.01, 1.0, 2.0, std::nan("")}) {
    const auto c = kseek::compare_records(run_a(), run_b(1.007), CompareOptions{bad});
    ASSERT_FALSE(c) << "allowance " << bad;
    EXPECT_NE(c.error().message.find("--machine-allowance"), std::string::npos) << c.error().message;
  }
  EXPECT_TRUE(kseek::compare_records(run_a(), run_b(1.007), CompareOptions{0.999}));
}

}  // namespace
