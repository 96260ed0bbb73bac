// The acceptance rule of one output, on the CPU: the reference rule, rounding quanta, and the seed-distance bound a
// timed launch without a full check is held to. Numbers are the ones seen on an H200 where they matter.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "kseek/core/worker/acceptance_rule.hpp"

namespace kseek {
namespace {

ErrorStatistics stats(double max, double mean, double max_abs_b = 1.0, std::uint64_t nonfinite = 0) {
  ErrorStatistics s;
  s.max_error = max;
  s.mean_error = mean;
  s.max_abs_b = max_abs_b;
  s.nonfinite = nonfinite;
  s.count = 1000;
  return s;
}

TEST(AcceptanceRule, ReferenceRuleAllowsKTimesTheSamePrecisionError) {
  const Tolerance tol{2.0, 1.5, 1e-5};
  const auto ref = stats(0.004, 0.0005);
  const auto ok = judge_against_reference(tol, stats(0.008, 0.00075), ref, "o");
  EXPECT_TRUE(ok.accepted) << ok.failure;
  EXPECT_DOUBLE_EQ(ok.allowed_max, 0.008 + 1e-5);
  EXPECT_DOUBLE_EQ(ok.allowed_mean, 0.00075 + 1e-5);
  const auto too_far = judge_against_reference(tol, stats(0.0081, 0.0001), ref, "o");
  EXPECT_FALSE(too_far.accepted);
  EXPECT_NE(too_far.failure.find("'o' error max"), std::string::npos) << too_far.failure;
  EXPECT_FALSE(judge_against_reference(tol, stats(0.001, 0.0008), ref, "o").accepted) << "mean over its limit";
}

TEST(AcceptanceRule, NonFiniteOrNanStatisticsNeverPass) {
  const Tolerance tol;
  const auto ref = stats(0.004, 0.0005);
  EXPECT_FALSE(judge_against_reference(tol, stats(0, 0, 1, 1), ref, "o").accepted);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(judge_against_reference(tol, stats(nan, 0), ref, "o").accepted);
  EXPECT_FALSE(judge_against_reference(tol, stats(0, nan), ref, "o").accepted);
  EXPECT_FALSE(judge_seed_distance({1, 1}, stats(nan, 0), "o").accepted);
  EXPECT_FALSE(judge_seed_distance({1, 1}, stats(0, 0, 1, 3), "o").accepted);
}

TEST(AcceptanceRule, RoundingQuantumIsTheSpacingAtThatMagnitude) {
  EXPECT_DOUBLE_EQ(rounding_quantum(ElementType::kBF16, 5.0), 0.03125);  // [4, 8): 2^(2-7)
  EXPECT_DOUBLE_EQ(rounding_quantum(ElementType::kBF16, 1.0), 1.0 / 128);
  EXPECT_DOUBLE_EQ(rounding_quantum(ElementType::kF16, 1.5), 1.0 / 1024);
  EXPECT_DOUBLE_EQ(rounding_quantum(ElementType::kF32, 1.0), std::ldexp(1.0, -23));
  EXPECT_DOUBLE_EQ(rounding_quantum(ElementType::kFP8E4M3, 3.0), 0.25);
  EXPECT_EQ(rounding_quantum(ElementType::kBF16, 0.0), 0.0);
}

// The honest control that FAILED on an H200 (2026-12-01, MLA q_v): the old bound, allowed + 2 x the seed's error
// (0.0192), against a fresh input set's distance of 0.0312 — one bf16 step at |o| in [4, 8). The new bound counts
// rounding quanta at the output's magnitude, so that control's distance is inside it.
TEST(AcceptanceRule, OneBf16StepOnFreshInputsIsInsideTheSeedDistanceBound) {
  const Tolerance tol{2.0, 1.5, 1e-5};
  const auto reference = stats(0.0039, 0.0004, 5.5);
  const auto candidate = judge_against_reference(tol, stats(0.0039, 0.0004, 5.5), reference, "o");
  ASSERT_TRUE(candidate.accepted);
  const auto seed = stats(0.0056, 0.0004, 5.5);
  const double old_bound = candidate.allowed_max + 2 * seed.max_error;
  ASSERT_NEAR(old_bound, 0.0192, 5e-4) << "the calibration of the failure this test replays";
  const SeedDistanceBound bound = seed_distance_bound(candidate, seed, ElementType::kBF16);
  EXPECT_TRUE(judge_seed_distance(bound, stats(0.03125, 0.0006), "o").accepted) << bound.max;
  EXPECT_FALSE(judge_seed_distance(bound, stats(0.2, 0.0006), "o").accepted) << "far from the seed still fails";
}

// LSE is fp32 and accurate to ~1e-6; O's loose bound must not be lent to it (the old shared bound was ~60x LSE's).
TEST(AcceptanceRule, EachOutputHasItsOwnSeedDistanceBound) {
  const Tolerance tol{2.0, 1.5, 1e-5};
  const auto o = seed_distance_bound(judge_against_reference(tol, stats(0.004, 5e-4, 4), stats(0.004, 5e-4, 4), "o"),
                                     stats(0.004, 5e-4, 4), ElementType::kBF16);
  const auto lse =
      seed_distance_bound(judge_against_reference(tol, stats(2e-6, 3e-7, 12), stats(2e-6, 3e-7, 12), "lse"),
                          stats(2e-6, 3e-7, 12), ElementType::kF32);
  EXPECT_LT(lse.max * 100, o.max);
  EXPECT_FALSE(judge_seed_distance(lse, stats(1e-3, 1e-4), "lse").accepted) << "a 1e-3 LSE error (a fast log) fails";
  SeedDistanceBound widest = lse;
  widest.widen_to(o);
  EXPECT_EQ(widest.max, o.max);
}

}  // namespace
}  // namespace kseek
