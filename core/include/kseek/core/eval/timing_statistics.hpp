// The statistics of back-to-back seed/candidate timing: ratio intervals, when to stop sampling, geomean, physics floor.
// It must never drop a measured round, let warm-up size the sample, or call a physically impossible time trustworthy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kseek/sdk/result.hpp"

namespace kseek {

// ---------------------------------------------------------------------------------------------------------------
// One scenario: the speed-up ratio of paired rounds.
//
// Round i was measured as (seed_i, candidate_i), launched back to back with a cold L2 and alternating order, so
// clock, thermal and neighbour drift hit both halves of a round alike. The per-round ratio r_i = seed_i /
// candidate_i cancels that drift; the estimate is the median of r_i (> 1: the candidate is faster). Round indices in
// errors and outlier lists are 0-based.
// ---------------------------------------------------------------------------------------------------------------

struct RatioOptions {
  double confidence = 0.95;  // nominal coverage of the interval, in (0, 1)
  // A round whose ratio is farther than this many sigma-equivalent MADs (1.4826 x raw MAD) from the median is
  // reported. 5 flags a round only when something clearly disturbed it (normal noise reaches 5 sigma ~1 in 3.5M).
  double outlier_mads = 5.0;
};

struct RatioEstimate {
  std::size_t rounds = 0;
  double ratio = 1.0;  // median of the per-round ratios
  // Distribution-free interval for that median: the order statistics [r_(lower_rank), r_(upper_rank)] (1-based
  // ranks of the sorted ratios) whose exact Binomial(n, 1/2) coverage is the smallest one >= `confidence`.
  double ci_low = 1.0;
  double ci_high = 1.0;
  std::size_t lower_rank = 1;
  std::size_t upper_rank = 1;
  double confidence = 0.95;  // what was asked
  double coverage = 0.0;     // what the chosen order statistics actually give (>= confidence when met)
  // False when too few rounds exist for any order-statistic interval to reach `confidence` (n < 6 at 95%); the
  // interval is then [min, max] with its lower coverage, and relative_half_width is +infinity so it never looks tight.
  bool meets_confidence = false;
  // max(ratio - ci_low, ci_high - ratio) / ratio: the wider side, because order-statistic intervals are asymmetric
  // and a stopping rule must see the worse one.
  double relative_half_width = 0.0;
  double seed_median_seconds = 0.0;
  double candidate_median_seconds = 0.0;
  double ratio_of_medians = 1.0;            // seed_median / candidate_median, a cross-check, not the estimate
  std::vector<std::size_t> outlier_rounds;  // reported, never removed: the median is already robust to them
};

// Errors name the offending round (0-based) and both lengths on a mismatch. Every time must be finite and > 0.
Result<RatioEstimate> estimate_ratio(std::span<const double> seed_seconds, std::span<const double> candidate_seconds,
                                     const RatioOptions& options = {});

// Cross-check of the order-statistic interval: a percentile bootstrap of the median per-round ratio. Deterministic
// for a given seed on every platform (mt19937_64 is fully specified; index draws do not use the library's
// implementation-defined distributions).
struct BootstrapOptions {
  double confidence = 0.95;
  std::size_t resamples = 2000;
  std::uint64_t seed = 0x6b'7365'656b;  // "kseek"
};

struct RatioInterval {
  double low = 1.0;
  double high = 1.0;
};

Result<RatioInterval> bootstrap_ratio_interval(std::span<const double> seed_seconds,
                                               std::span<const double> candidate_seconds,
                                               const BootstrapOptions& options = {});

// ---------------------------------------------------------------------------------------------------------------
// Adaptive sampling, as a pure decision over the timed rounds measured so far.
//
// Warm-up rounds are never passed in here, on purpose (attack T3, docs/trust.md). If warm-up sized the sample, a
// candidate could spin during warm-up to look noisy and buy rounds it can exploit, or look perfectly steady to get a
// tiny sample in which a single lucky round sets the median; it could also tell warm-up from timing by that difference.
// With a fixed minimum and a decision driven only by timed rounds (whose outputs are verified), the only way to
// influence the sample size is to be measured.
// ---------------------------------------------------------------------------------------------------------------

struct SamplingPolicy {
  double target_relative_half_width = 0.01;  // +-1%: A/A on an H200 reaches ~+-1.2% at 60 us within 60 rounds
  // Rounds always measured. A sample this short stops only on an interval kEarlyStopTightening times tighter than the
  // target: at n = 10 the 95% interval is [r_(2), r_(9)], so a stop there needs eight of ten rounds' ratios within a
  // quarter of the target (+-0.25%) of the median, which a steady kernel reaches (most case-study rows: +-0.06 to
  // 0.25% at 20 rounds on an H200) and a disturbed or gaming one does not.
  std::size_t min_rounds = 10;
  // From this many rounds the target itself stops sampling. 20 is the smallest fixed n whose 95% interval,
  // [r_(6), r_(15)], leaves five rounds outside each bound, so a few disturbed rounds cannot make a sample that is
  // only as tight as the target look converged. Below min_rounds nothing stops sampling but a budget.
  std::size_t settled_rounds = 20;
  std::size_t max_rounds = 1000;      // hard cap: very short kernels stop here rather than chase +-1% forever
  double time_budget_seconds = 10.0;  // per scenario, wall time of the timed rounds including L2 flushes
};

// Below settled_rounds, sampling stops only on an interval this many times tighter than the target.
inline constexpr double kEarlyStopTightening = 4.0;

enum class SamplingAction {
  kContinue,       // measure another round
  kStopConverged,  // the interval is at least as tight as the target
  kStopBudget,     // time or round budget spent; the estimate stands with whatever width it has
};

std::string_view to_string(SamplingAction action);

struct SamplingDecision {
  SamplingAction action = SamplingAction::kContinue;
  std::string reason;               // one line for logs and records
  bool reached_min_rounds = false;  // false on a budget stop before min_rounds: the evaluator should not trust it
};

// Order of the rules: budget (time, then rounds) first, since it is a hard limit; below min_rounds continue even if
// tight; then stop when the interval meets its confidence and the target (from max(min_rounds, settled_rounds)
// rounds) or the target divided by kEarlyStopTightening (from min_rounds); otherwise continue. A non-finite elapsed
// time counts as a spent budget.
SamplingDecision next_sampling_step(const RatioEstimate& estimate, const SamplingPolicy& policy,
                                    double elapsed_seconds);

// For configuration time: positive target and budget, 1 <= min_rounds <= max_rounds, settled_rounds >= 1.
Result<void> validate_sampling_policy(const SamplingPolicy& policy);

// ---------------------------------------------------------------------------------------------------------------
// Across scenarios: the geometric mean of clamped ratios (attack T2, docs/trust.md).
// ---------------------------------------------------------------------------------------------------------------

struct GeomeanOptions {
  // Symmetric in log space, so clamping adds no bias to a candidate without effect. At 4x one scenario of n can move
  // the geomean by at most 4^(1/n) (20 scenarios: +7.2%), and a legitimate attention kernel rarely beats a working
  // seed by more than 4x on the same GPU; beyond that the physics floor and correctness checks decide, not the mean.
  double clamp_low = 0.25;
  double clamp_high = 4.0;
  double confidence = 0.95;  // of the geomean's interval
};

struct ClampedScenario {
  std::size_t index = 0;  // position in the span given to geomean_of_ratios
  double raw_ratio = 1.0;
  double clamped_ratio = 1.0;
};

struct GeomeanEstimate {
  std::size_t scenarios = 0;
  double geomean = 1.0;
  // exp(mean log +- z sigma), sigma = root-sum-square of per-scenario log sigmas / n; scenarios are timed separately,
  // so their errors are taken as independent.
  double ci_low = 1.0;
  double ci_high = 1.0;
  double relative_half_width = 0.0;  // wider side, as for RatioEstimate
  std::vector<ClampedScenario> clamped;
};

// Each scenario contributes clamp(ratio) and [clamp(ci_low), clamp(ci_high)] (clamping is monotone, so that is an
// interval for the clamped ratio with the same coverage); one whose interval missed its confidence contributes the
// whole clamp range. Its log half-width (wider side) over the normal quantile of its confidence is its sigma.
Result<GeomeanEstimate> geomean_of_ratios(std::span<const RatioEstimate> estimates, const GeomeanOptions& options = {});

// ---------------------------------------------------------------------------------------------------------------
// The physics floor: no kernel does a scenario's FLOPs faster than the peak rate, nor moves its bytes faster than
// the peak bandwidth.
// ---------------------------------------------------------------------------------------------------------------

enum class PeakSource {
  kMeasured,  // probed on this GPU at start-up
  kDeclared,  // from the data sheet (when probing was not possible)
};

std::string_view to_string(PeakSource source);

struct DevicePeaks {
  double peak_flops = 0.0;             // FLOP/s for the scenario's precision
  double peak_bytes_per_second = 0.0;  // DRAM bandwidth (the L2 is flushed before each timed launch)
  PeakSource source = PeakSource::kDeclared;
};

// Measured peaks come from a simple probe that a tuned kernel can beat by a few percent, and events resolve ~0.5 us;
// a time more than 10% below the floor is impossible rather than excellent.
inline constexpr double kDefaultPhysicsFloorMargin = 0.10;

// max(flops / peak_flops, bytes / peak_bytes_per_second). NaN when any input is negative, non-finite, or a peak is
// not > 0, so that below_physics_floor fails closed on a misconfigured device.
double physics_floor_seconds(double flops, double bytes, const DevicePeaks& peaks);

// True when measured_seconds < floor_seconds * (1 - margin), and also when any value is NaN or the measured time is
// not > 0: a number that cannot be checked is not trusted (the evaluator marks it MISTRUSTED).
bool below_physics_floor(double measured_seconds, double floor_seconds, double margin = kDefaultPhysicsFloorMargin);

}  // namespace kseek
