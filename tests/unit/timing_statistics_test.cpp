// Unit tests of the timing statistics: hand-computed intervals, seeded synthetic A/A and A/B data, stopping, geomean.
// They must never depend on a GPU, the wall clock or an unseeded generator; every random test prints its seed.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kseek/core/eval/timing_statistics.hpp"

namespace kseek {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Seed times equal to the wanted ratios and unit candidate times, so r_i is exactly ratios[i].
RatioEstimate estimate_from_ratios(const std::vector<double>& ratios, const RatioOptions& options = {}) {
  const std::vector<double> ones(ratios.size(), 1.0);
  auto estimate = estimate_ratio(ratios, ones, options);
  EXPECT_TRUE(estimate) << estimate.error().message;
  return estimate ? *estimate : RatioEstimate{};
}

struct Rounds {
  std::vector<double> seed;
  std::vector<double> candidate;
};

// Paired rounds as the harness sees them: a drift shared by both halves of a round (clocks, neighbours) and
// independent launch noise on each half; both multiplicative. The candidate's true time is seed / true_ratio.
class RoundGenerator {
 public:
  RoundGenerator(std::uint64_t seed, double true_ratio, double drift_sigma, double noise_sigma)
      : engine_(seed), true_ratio_(true_ratio), drift_(0.0, drift_sigma), noise_(0.0, noise_sigma) {}

  std::pair<double, double> next() {
    constexpr double kBaseSeconds = 250e-6;
    const double drift = std::exp(drift_(engine_));
    const double seed = kBaseSeconds * drift * std::exp(noise_(engine_));
    const double candidate = kBaseSeconds / true_ratio_ * drift * std::exp(noise_(engine_));
    return {seed, candidate};
  }

  Rounds take(std::size_t count) {
    Rounds rounds;
    for (std::size_t i = 0; i < count; ++i) {
      const auto [seed, candidate] = next();
      rounds.seed.push_back(seed);
      rounds.candidate.push_back(candidate);
    }
    return rounds;
  }

 private:
  std::mt19937_64 engine_;
  double true_ratio_;
  std::normal_distribution<double> drift_;
  std::normal_distribution<double> noise_;
};

std::string seed_trace(std::uint64_t seed) { return "generator seed " + std::to_string(seed); }

// ---- estimate_ratio: hand-computed vectors ----

TEST(EstimateRatio, MediansOfTimesAndOfRatiosAreDistinct) {
  // Ratios 3, 1, 0.5: the median ratio (1) is not the ratio of the medians (2 / 1).
  auto estimate = estimate_ratio(std::vector<double>{3, 1, 2}, std::vector<double>{1, 1, 4});
  ASSERT_TRUE(estimate) << estimate.error().message;
  EXPECT_EQ(estimate->rounds, 3u);
  EXPECT_DOUBLE_EQ(estimate->ratio, 1.0);
  EXPECT_DOUBLE_EQ(estimate->seed_median_seconds, 2.0);
  EXPECT_DOUBLE_EQ(estimate->candidate_median_seconds, 1.0);
  EXPECT_DOUBLE_EQ(estimate->ratio_of_medians, 2.0);
}

TEST(EstimateRatio, SixRoundsAreTheFewestThatReach95Percent) {
  const RatioEstimate six = estimate_from_ratios({4, 1, 6, 3, 5, 2});
  EXPECT_DOUBLE_EQ(six.ratio, 3.5);  // even count: mean of the two middle values
  EXPECT_TRUE(six.meets_confidence);
  EXPECT_EQ(six.lower_rank, 1u);
  EXPECT_EQ(six.upper_rank, 6u);
  EXPECT_DOUBLE_EQ(six.ci_low, 1.0);
  EXPECT_DOUBLE_EQ(six.ci_high, 6.0);
  EXPECT_NEAR(six.coverage, 1.0 - 2.0 / 64.0, 1e-12);
  EXPECT_NEAR(six.relative_half_width, 2.5 / 3.5, 1e-12);

  const RatioEstimate five = estimate_from_ratios({4, 1, 3, 5, 2});
  EXPECT_DOUBLE_EQ(five.ratio, 3.0);
  EXPECT_FALSE(five.meets_confidence);
  EXPECT_DOUBLE_EQ(five.ci_low, 1.0);
  EXPECT_DOUBLE_EQ(five.ci_high, 5.0);
  EXPECT_NEAR(five.coverage, 1.0 - 2.0 / 32.0, 1e-12);
  EXPECT_EQ(five.relative_half_width, kInf) << "an interval short of its confidence must never look tight";
}

TEST(EstimateRatio, OneRoundHasNoInterval) {
  const RatioEstimate one = estimate_from_ratios({2.0});
  EXPECT_DOUBLE_EQ(one.ratio, 2.0);
  EXPECT_FALSE(one.meets_confidence);
  EXPECT_DOUBLE_EQ(one.coverage, 0.0);
  EXPECT_EQ(one.relative_half_width, kInf);
}

TEST(EstimateRatio, OrderStatisticRanksMatchBinomialTables) {
  struct Case {
    std::size_t n;
    double confidence;
    std::size_t lower;
    std::size_t upper;
    double coverage;  // 1 - 2 P(B <= lower - 1), B ~ Binomial(n, 1/2), by hand
  };
  const Case cases[] = {
      {10, 0.95, 2, 9, 1.0 - 2.0 * 11.0 / 1024.0},
      {20, 0.95, 6, 15, 1.0 - 2.0 * 21700.0 / 1048576.0},
      {20, 0.99, 4, 17, 1.0 - 2.0 * 1351.0 / 1048576.0},
      {10, 0.50, 4, 7, 1.0 - 2.0 * 176.0 / 1024.0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("n=" + std::to_string(c.n) + " confidence=" + std::to_string(c.confidence));
    // Ratios n, n-1, ..., 1 (reversed, so sorting matters): rank k holds the value k.
    std::vector<double> ratios;
    for (std::size_t i = c.n; i >= 1; --i) ratios.push_back(static_cast<double>(i));
    const RatioEstimate e = estimate_from_ratios(ratios, RatioOptions{.confidence = c.confidence});
    EXPECT_TRUE(e.meets_confidence);
    EXPECT_EQ(e.lower_rank, c.lower);
    EXPECT_EQ(e.upper_rank, c.upper);
    EXPECT_DOUBLE_EQ(e.ci_low, static_cast<double>(c.lower));
    EXPECT_DOUBLE_EQ(e.ci_high, static_cast<double>(c.upper));
    EXPECT_NEAR(e.coverage, c.coverage, 1e-12);
    EXPECT_GE(e.coverage, c.confidence);
    EXPECT_DOUBLE_EQ(e.ratio, (static_cast<double>(c.n) + 1.0) / 2.0);
  }
}

TEST(EstimateRatio, OutliersAreReportedButNotRemoved) {
  std::vector<double> ratios = {1.00, 1.01, 0.99, 1.02, 0.98, 1.00, 1.01, 0.99, 1.00, 1.00};
  const RatioEstimate clean = estimate_from_ratios(ratios);
  EXPECT_TRUE(clean.outlier_rounds.empty());
  EXPECT_DOUBLE_EQ(clean.ci_high, 1.01);  // r_(9) of 10

  ratios[7] = 1.60;  // one round disturbed, e.g. a clock dip during the seed's launch
  const RatioEstimate disturbed = estimate_from_ratios(ratios);
  EXPECT_EQ(disturbed.rounds, 10u);
  EXPECT_EQ(disturbed.outlier_rounds, std::vector<std::size_t>{7});
  EXPECT_DOUBLE_EQ(disturbed.ci_high, 1.02) << "the outlier still counts among the order statistics, shifting r_(9)";
  EXPECT_DOUBLE_EQ(disturbed.ratio, 1.00);
}

TEST(EstimateRatio, IdenticalRoundsFlagNothingAndGiveAZeroWidthInterval) {
  const RatioEstimate e = estimate_from_ratios(std::vector<double>(30, 1.25));
  EXPECT_TRUE(e.outlier_rounds.empty());
  EXPECT_DOUBLE_EQ(e.ratio, 1.25);
  EXPECT_DOUBLE_EQ(e.relative_half_width, 0.0);
}

// ---- estimate_ratio: invalid inputs ----

TEST(EstimateRatio, RejectsUnpairedRoundsNamingBothLengths) {
  auto e = estimate_ratio(std::vector<double>{1, 1, 1}, std::vector<double>{1, 1});
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("seed has 3 rounds"), std::string::npos) << e.error().message;
  EXPECT_NE(e.error().message.find("candidate has 2"), std::string::npos) << e.error().message;
}

TEST(EstimateRatio, RejectsNoRounds) {
  auto e = estimate_ratio(std::vector<double>{}, std::vector<double>{});
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("no rounds"), std::string::npos) << e.error().message;
}

TEST(EstimateRatio, RejectsBadTimesNamingTheRound) {
  struct Case {
    std::vector<double> seed;
    std::vector<double> candidate;
    std::string expected;
  };
  const Case cases[] = {
      {{1, 1, 1, kNaN}, {1, 1, 1, 1}, "round 3: seed"},
      {{1, 1, 1, 1}, {1, 0.0, 1, 1}, "round 1: candidate"},
      {{1, -2, 1, 1}, {1, 1, 1, 1}, "round 1: seed"},
      {{1, 1, 1, 1}, {1, 1, kInf, 1}, "round 2: candidate"},
  };
  for (const Case& c : cases) {
    auto e = estimate_ratio(c.seed, c.candidate);
    ASSERT_FALSE(e) << c.expected;
    EXPECT_NE(e.error().message.find(c.expected), std::string::npos) << e.error().message;
    auto b = bootstrap_ratio_interval(c.seed, c.candidate);
    ASSERT_FALSE(b) << c.expected;
    EXPECT_NE(b.error().message.find(c.expected), std::string::npos) << b.error().message;
  }
}

TEST(EstimateRatio, RejectsInvalidOptions) {
  const std::vector<double> ones(10, 1.0);
  EXPECT_FALSE(estimate_ratio(ones, ones, RatioOptions{.confidence = 1.0}));
  EXPECT_FALSE(estimate_ratio(ones, ones, RatioOptions{.confidence = 0.0}));
  EXPECT_FALSE(estimate_ratio(ones, ones, RatioOptions{.confidence = kNaN}));
  EXPECT_FALSE(estimate_ratio(ones, ones, RatioOptions{.outlier_mads = 0.0}));
  EXPECT_FALSE(bootstrap_ratio_interval(ones, ones, BootstrapOptions{.resamples = 1}));
}

// ---- estimate_ratio: seeded synthetic data ----

TEST(EstimateRatio, AaIntervalCoversOne) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(seed_trace(seed));
    RoundGenerator generator(seed, 1.0, 0.02, 0.003);
    const Rounds rounds = generator.take(60);
    auto e = estimate_ratio(rounds.seed, rounds.candidate);
    ASSERT_TRUE(e) << e.error().message;
    EXPECT_LE(e->ci_low, 1.0);
    EXPECT_GE(e->ci_high, 1.0);
    EXPECT_LT(e->relative_half_width, 0.01) << "pairing must cancel the 2% drift shared by both halves of a round";
  }
}

TEST(EstimateRatio, AaCoverageIsAtLeastNominalOverManyExperiments) {
  // n = 30 at 95% gives [r_(10), r_(21)] with exact coverage 0.9572; 400 experiments put the observed rate within
  // about +-0.01 of it. A rate below 0.92 means the interval is too narrow, above 0.995 that it is far too wide.
  constexpr std::uint64_t kFirstSeed = 1000;
  constexpr int kExperiments = 400;
  int covered = 0;
  for (int i = 0; i < kExperiments; ++i) {
    RoundGenerator generator(kFirstSeed + static_cast<std::uint64_t>(i), 1.0, 0.02, 0.01);
    const Rounds rounds = generator.take(30);
    auto e = estimate_ratio(rounds.seed, rounds.candidate);
    ASSERT_TRUE(e) << e.error().message;
    EXPECT_NEAR(e->coverage, 0.9572260547, 1e-9);
    if (e->ci_low <= 1.0 && 1.0 <= e->ci_high) ++covered;
  }
  const double rate = static_cast<double>(covered) / kExperiments;
  EXPECT_GE(rate, 0.92) << "generator seeds " << kFirstSeed << ".." << kFirstSeed + kExperiments - 1;
  EXPECT_LE(rate, 0.995) << "generator seeds " << kFirstSeed << ".." << kFirstSeed + kExperiments - 1;
}

TEST(EstimateRatio, TenPercentSlowerCandidateReadsPointNine) {
  constexpr std::uint64_t kSeed = 42;
  SCOPED_TRACE(seed_trace(kSeed));
  RoundGenerator generator(kSeed, 0.90, 0.02, 0.003);
  const Rounds rounds = generator.take(60);
  auto e = estimate_ratio(rounds.seed, rounds.candidate);
  ASSERT_TRUE(e) << e.error().message;
  EXPECT_NEAR(e->ratio, 0.90, 0.01);
  EXPECT_GE(e->ci_low, 0.89);
  EXPECT_LE(e->ci_high, 0.91);
  EXPECT_LT(e->ci_high, 1.0) << "a 10% slowdown must not be within noise of the seed";
}

TEST(BootstrapRatioInterval, AgreesWithTheOrderStatisticInterval) {
  for (std::uint64_t seed : {7u, 8u, 9u}) {
    SCOPED_TRACE(seed_trace(seed));
    RoundGenerator generator(seed, 1.1, 0.02, 0.01);
    const Rounds rounds = generator.take(60);
    auto e = estimate_ratio(rounds.seed, rounds.candidate);
    auto b = bootstrap_ratio_interval(rounds.seed, rounds.candidate);
    ASSERT_TRUE(e) << e.error().message;
    ASSERT_TRUE(b) << b.error().message;
    const double width = e->ci_high - e->ci_low;
    ASSERT_GT(width, 0.0);
    EXPECT_NEAR(b->low, e->ci_low, 0.5 * width);
    EXPECT_NEAR(b->high, e->ci_high, 0.5 * width);
    EXPECT_LE(b->low, e->ratio);
    EXPECT_GE(b->high, e->ratio);
  }
}

TEST(BootstrapRatioInterval, IsReproducibleForOneSeed) {
  RoundGenerator generator(11, 1.0, 0.02, 0.01);
  const Rounds rounds = generator.take(40);
  const BootstrapOptions options{.resamples = 500, .seed = 123};
  auto first = bootstrap_ratio_interval(rounds.seed, rounds.candidate, options);
  auto second = bootstrap_ratio_interval(rounds.seed, rounds.candidate, options);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->low, second->low);
  EXPECT_EQ(first->high, second->high);
}

// ---- next_sampling_step ----

RatioEstimate tight_estimate(std::size_t rounds, double relative_half_width) {
  RatioEstimate e;
  e.rounds = rounds;
  e.ratio = 1.0;
  e.ci_low = 1.0 - relative_half_width;
  e.ci_high = 1.0 + relative_half_width;
  e.meets_confidence = true;
  e.coverage = 0.96;
  e.relative_half_width = relative_half_width;
  return e;
}

TEST(NextSamplingStep, ContinuesBelowMinimumRoundsEvenWhenTight) {
  // A candidate that is perfectly steady for a few rounds must not end the sample early (T3).
  const SamplingPolicy policy;
  const SamplingDecision d = next_sampling_step(tight_estimate(policy.min_rounds - 1, 0.0), policy, 0.1);
  EXPECT_EQ(d.action, SamplingAction::kContinue) << d.reason;
  EXPECT_FALSE(d.reached_min_rounds);
}

TEST(NextSamplingStep, StopsWhenTightAfterSettledRounds) {
  const SamplingPolicy policy;
  const SamplingDecision d = next_sampling_step(tight_estimate(policy.settled_rounds, 0.005), policy, 0.1);
  EXPECT_EQ(d.action, SamplingAction::kStopConverged) << d.reason;
  EXPECT_TRUE(d.reached_min_rounds);
}

// Between min_rounds and settled_rounds the precision reached sets the sample: an interval within the target is not
// enough there, one kEarlyStopTightening times tighter is.
TEST(NextSamplingStep, BetweenMinimumAndSettledRoundsOnlyAFourTimesTighterIntervalStops) {
  const SamplingPolicy policy;  // +-1 %, 10 and 20 rounds
  ASSERT_LT(policy.min_rounds, policy.settled_rounds);
  const double early = policy.target_relative_half_width / kEarlyStopTightening;
  const SamplingDecision within_target = next_sampling_step(tight_estimate(policy.min_rounds, 0.005), policy, 0.1);
  EXPECT_EQ(within_target.action, SamplingAction::kContinue) << within_target.reason;
  const SamplingDecision tight = next_sampling_step(tight_estimate(policy.min_rounds, early * 0.99), policy, 0.1);
  EXPECT_EQ(tight.action, SamplingAction::kStopConverged) << tight.reason;
  EXPECT_NE(tight.reason.find("early"), std::string::npos) << tight.reason;
  const SamplingDecision just_wider =
      next_sampling_step(tight_estimate(policy.settled_rounds - 1, early * 1.01), policy, 0.1);
  EXPECT_EQ(just_wider.action, SamplingAction::kContinue) << just_wider.reason;
  RatioEstimate unconfident = tight_estimate(policy.min_rounds, 0.0);
  unconfident.meets_confidence = false;
  EXPECT_EQ(next_sampling_step(unconfident, policy, 0.1).action, SamplingAction::kContinue);
}

// A minimum above settled_rounds (a user's --min-rounds 40) is the sample's floor for both rules.
TEST(NextSamplingStep, AMinimumAboveSettledRoundsHoldsForBothRules) {
  const SamplingPolicy policy{.min_rounds = 40};
  EXPECT_EQ(next_sampling_step(tight_estimate(39, 0.0), policy, 0.1).action, SamplingAction::kContinue);
  EXPECT_EQ(next_sampling_step(tight_estimate(40, 0.005), policy, 0.1).action, SamplingAction::kStopConverged);
}

TEST(NextSamplingStep, ContinuesWhileWiderThanTarget) {
  const SamplingPolicy policy;
  const SamplingDecision d = next_sampling_step(tight_estimate(50, 0.02), policy, 0.1);
  EXPECT_EQ(d.action, SamplingAction::kContinue) << d.reason;
}

TEST(NextSamplingStep, ContinuesWhenTheIntervalMissesItsConfidence) {
  RatioEstimate e = tight_estimate(50, 0.001);
  e.meets_confidence = false;
  const SamplingDecision d = next_sampling_step(e, SamplingPolicy{}, 0.1);
  EXPECT_EQ(d.action, SamplingAction::kContinue) << d.reason;
}

TEST(NextSamplingStep, StopsOnTimeBudgetEvenBelowMinimumRounds) {
  const SamplingPolicy policy{.time_budget_seconds = 5.0};
  const SamplingDecision d = next_sampling_step(tight_estimate(3, 0.5), policy, 5.0);
  EXPECT_EQ(d.action, SamplingAction::kStopBudget) << d.reason;
  EXPECT_FALSE(d.reached_min_rounds);
  EXPECT_NE(d.reason.find("below the minimum"), std::string::npos) << d.reason;

  EXPECT_EQ(next_sampling_step(tight_estimate(30, 0.5), policy, kNaN).action, SamplingAction::kStopBudget)
      << "an unknown elapsed time must count as a spent budget";
}

TEST(NextSamplingStep, StopsOnRoundBudget) {
  const SamplingPolicy policy{.max_rounds = 100};
  const SamplingDecision d = next_sampling_step(tight_estimate(100, 0.5), policy, 0.1);
  EXPECT_EQ(d.action, SamplingAction::kStopBudget) << d.reason;
  EXPECT_TRUE(d.reached_min_rounds);
  EXPECT_EQ(next_sampling_step(tight_estimate(99, 0.5), policy, 0.1).action, SamplingAction::kContinue);
}

TEST(NextSamplingStep, PolicyValidation) {
  EXPECT_TRUE(validate_sampling_policy(SamplingPolicy{}));
  EXPECT_FALSE(validate_sampling_policy(SamplingPolicy{.min_rounds = 0}));
  EXPECT_FALSE(validate_sampling_policy(SamplingPolicy{.min_rounds = 50, .max_rounds = 10}));
  EXPECT_FALSE(validate_sampling_policy(SamplingPolicy{.settled_rounds = 0}));
  EXPECT_FALSE(validate_sampling_policy(SamplingPolicy{.target_relative_half_width = 0.0}));
  EXPECT_FALSE(validate_sampling_policy(SamplingPolicy{.time_budget_seconds = kInf}));
}

// The loop the evaluator runs, on synthetic rounds: it must converge on quiet data and hit the cap on noisy data.
struct LoopOutcome {
  SamplingDecision decision;
  RatioEstimate estimate;
};

LoopOutcome run_sampling_loop(RoundGenerator& generator, const SamplingPolicy& policy) {
  Rounds rounds;
  double elapsed = 0.0;
  while (true) {
    const auto [seed, candidate] = generator.next();
    rounds.seed.push_back(seed);
    rounds.candidate.push_back(candidate);
    elapsed += seed + candidate;
    auto estimate = estimate_ratio(rounds.seed, rounds.candidate);
    EXPECT_TRUE(estimate) << estimate.error().message;
    if (!estimate) return {};
    const SamplingDecision decision = next_sampling_step(*estimate, policy, elapsed);
    if (decision.action != SamplingAction::kContinue) return {decision, *estimate};
  }
}

TEST(NextSamplingStep, LoopConvergesOnQuietDataAndCapsOnNoisyData) {
  const SamplingPolicy policy{.max_rounds = 300};
  {
    constexpr std::uint64_t kSeed = 21;
    SCOPED_TRACE(seed_trace(kSeed));
    RoundGenerator quiet(kSeed, 1.3, 0.02, 0.01);
    const LoopOutcome outcome = run_sampling_loop(quiet, policy);
    EXPECT_EQ(outcome.decision.action, SamplingAction::kStopConverged) << outcome.decision.reason;
    EXPECT_GE(outcome.estimate.rounds, policy.min_rounds);
    EXPECT_NEAR(outcome.estimate.ratio, 1.3, 0.013);
  }
  {
    constexpr std::uint64_t kSeed = 22;
    SCOPED_TRACE(seed_trace(kSeed));
    RoundGenerator noisy(kSeed, 1.0, 0.02, 0.30);
    const LoopOutcome outcome = run_sampling_loop(noisy, policy);
    EXPECT_EQ(outcome.decision.action, SamplingAction::kStopBudget) << outcome.decision.reason;
    EXPECT_EQ(outcome.estimate.rounds, policy.max_rounds);
  }
}

// ---- geomean_of_ratios ----

RatioEstimate scenario(double ratio, double low, double high) {
  RatioEstimate e;
  e.rounds = 40;
  e.ratio = ratio;
  e.ci_low = low;
  e.ci_high = high;
  e.confidence = 0.95;
  e.meets_confidence = true;
  return e;
}

TEST(GeomeanOfRatios, IdenticalRatiosGiveThatRatioAndANarrowerInterval) {
  const std::vector<RatioEstimate> scenarios(5, scenario(1.2, 1.19, 1.21));
  auto g = geomean_of_ratios(scenarios);
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->scenarios, 5u);
  EXPECT_NEAR(g->geomean, 1.2, 1e-12);
  EXPECT_TRUE(g->clamped.empty());
  // Each scenario: log half-width h = ln(1.2/1.19) (the wider side); mean of 5 independent ones: h / sqrt(5).
  const double h = std::log(1.2 / 1.19);
  EXPECT_NEAR(g->ci_low, 1.2 * std::exp(-h / std::sqrt(5.0)), 1e-6);
  EXPECT_NEAR(g->ci_high, 1.2 * std::exp(h / std::sqrt(5.0)), 1e-6);
}

TEST(GeomeanOfRatios, OneAbsurdScenarioIsClampedAndReported) {
  const std::vector<RatioEstimate> scenarios = {scenario(1.0, 0.99, 1.01), scenario(1.0, 0.99, 1.01),
                                                scenario(1.0, 0.99, 1.01), scenario(100.0, 90.0, 110.0)};
  auto g = geomean_of_ratios(scenarios);
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_NEAR(g->geomean, std::sqrt(2.0), 1e-12) << "(1 * 1 * 1 * 4)^(1/4)";
  ASSERT_EQ(g->clamped.size(), 1u);
  EXPECT_EQ(g->clamped[0].index, 3u);
  EXPECT_DOUBLE_EQ(g->clamped[0].raw_ratio, 100.0);
  EXPECT_DOUBLE_EQ(g->clamped[0].clamped_ratio, 4.0);
  // The clamped scenario's interval [4, 4] adds no width: only the three at 1.0 do.
  const double h = std::log(1.0 / 0.99);
  EXPECT_NEAR(g->ci_low, std::sqrt(2.0) * std::exp(-std::sqrt(3.0) * h / 4.0), 1e-6);
}

TEST(GeomeanOfRatios, ClampsBothWaysAndHonoursCustomRanges) {
  const std::vector<RatioEstimate> scenarios = {scenario(0.01, 0.009, 0.011), scenario(4.0, 3.9, 4.1)};
  auto g = geomean_of_ratios(scenarios);
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_NEAR(g->geomean, 1.0, 1e-12) << "0.25 and 4 are symmetric in log space";
  ASSERT_EQ(g->clamped.size(), 1u) << "a ratio exactly at the clamp is not reported as clamped";
  EXPECT_EQ(g->clamped[0].index, 0u);
  EXPECT_DOUBLE_EQ(g->clamped[0].clamped_ratio, 0.25);

  auto wide = geomean_of_ratios(scenarios, GeomeanOptions{.clamp_low = 0.01, .clamp_high = 100.0});
  ASSERT_TRUE(wide) << wide.error().message;
  EXPECT_TRUE(wide->clamped.empty());
  EXPECT_NEAR(wide->geomean, 0.2, 1e-12);
}

TEST(GeomeanOfRatios, AScenarioShortOfItsConfidenceWidensTheInterval) {
  std::vector<RatioEstimate> scenarios(4, scenario(1.1, 1.09, 1.11));
  auto before = geomean_of_ratios(scenarios);
  scenarios[2].meets_confidence = false;
  auto after = geomean_of_ratios(scenarios);
  ASSERT_TRUE(before && after);
  EXPECT_NEAR(after->geomean, before->geomean, 1e-12);
  EXPECT_LT(after->ci_low, before->ci_low);
  EXPECT_GT(after->ci_high, before->ci_high);
}

TEST(GeomeanOfRatios, RejectsInvalidInputsNamingTheScenario) {
  EXPECT_FALSE(geomean_of_ratios(std::vector<RatioEstimate>{}));
  const std::vector<RatioEstimate> bad_ratio = {scenario(1.0, 0.9, 1.1), scenario(kNaN, 0.9, 1.1)};
  auto e = geomean_of_ratios(bad_ratio);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("scenario 1"), std::string::npos) << e.error().message;
  const std::vector<RatioEstimate> bad_interval = {scenario(1.0, 1.05, 1.1)};
  EXPECT_FALSE(geomean_of_ratios(bad_interval));
  const std::vector<RatioEstimate> fine = {scenario(1.0, 0.9, 1.1)};
  EXPECT_FALSE(geomean_of_ratios(fine, GeomeanOptions{.clamp_low = 2.0}));
  EXPECT_FALSE(geomean_of_ratios(fine, GeomeanOptions{.clamp_high = kInf}));
}

// ---- physics floor ----

TEST(PhysicsFloor, TakesTheSlowerOfComputeAndMemory) {
  const DevicePeaks peaks{.peak_flops = 1e15, .peak_bytes_per_second = 4e12, .source = PeakSource::kMeasured};
  EXPECT_DOUBLE_EQ(physics_floor_seconds(2e12, 4e9, peaks), 2e-3);  // compute-bound: 2 ms vs 1 ms
  EXPECT_DOUBLE_EQ(physics_floor_seconds(1e9, 8e9, peaks), 2e-3);   // memory-bound: 1 us vs 2 ms
  EXPECT_DOUBLE_EQ(physics_floor_seconds(0.0, 0.0, peaks), 0.0);
  EXPECT_EQ(to_string(peaks.source), "measured");
  EXPECT_EQ(to_string(PeakSource::kDeclared), "declared");
}

TEST(PhysicsFloor, TimesBelowTheFloorBeyondTheMarginAreImpossible) {
  constexpr double kFloor = 2.0;  // values exact in binary, so the boundary case is exact too
  EXPECT_TRUE(below_physics_floor(1.25, kFloor, 0.25));
  EXPECT_FALSE(below_physics_floor(1.75, kFloor, 0.25)) << "within the margin: plausible";
  EXPECT_FALSE(below_physics_floor(1.5, kFloor, 0.25)) << "exactly at floor * (1 - margin) is allowed";
  EXPECT_TRUE(below_physics_floor(std::nextafter(1.5, 0.0), kFloor, 0.25));
  EXPECT_FALSE(below_physics_floor(5.0, kFloor));
  EXPECT_TRUE(below_physics_floor(1.7, kFloor)) << "the default margin is 10%";
  EXPECT_TRUE(below_physics_floor(0.0, 0.0)) << "no kernel takes zero time";
}

TEST(PhysicsFloor, FailsClosedOnUncheckableNumbers) {
  const DevicePeaks unset{};
  const double floor = physics_floor_seconds(1e12, 1e9, unset);
  EXPECT_TRUE(std::isnan(floor));
  EXPECT_TRUE(below_physics_floor(1e-3, floor)) << "peaks never set must not let every time through";
  const DevicePeaks peaks{.peak_flops = 1e15, .peak_bytes_per_second = 4e12};
  EXPECT_TRUE(std::isnan(physics_floor_seconds(-1.0, 1e9, peaks)));
  EXPECT_TRUE(std::isnan(physics_floor_seconds(1e12, kInf, peaks)));
  EXPECT_TRUE(below_physics_floor(kNaN, 1e-3));
  EXPECT_TRUE(below_physics_floor(1e-3, 1e-3, kNaN));
}

}  // namespace
}  // namespace kseek
