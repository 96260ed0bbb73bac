// Ratio intervals, the adaptive stopping rule, the clamped geomean and the physics floor, as pure functions.
// It must never remove a round from an estimate nor return an interval claiming more coverage than it has.
#include "kseek/core/eval/timing_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <utility>

#include <fmt/format.h>

namespace kseek {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Turns a raw MAD into a consistent estimate of sigma for normal noise, so `outlier_mads` reads in sigma units.
constexpr double kMadToSigma = 1.4826;
// Event timers quantise short kernels, so many rounds can share one ratio and the MAD can be 0; without a floor any
// round one tick away would be an "outlier". 0.1% of the ratio is below anything the protocol claims to resolve.
constexpr double kMadFloorRelative = 1e-3;
// Binomial tails are summed in floating point; a tail equal to alpha/2 in exact arithmetic (e.g. at 50% confidence)
// must not lose its rank over a last-bit rounding difference.
constexpr double kTailSlack = 1e-12;

bool is_valid_confidence(double confidence) { return confidence > 0.0 && confidence < 1.0; }

// Median of values; reorders them. Even counts average the two middle values.
double median_in_place(std::vector<double>& values) {
  const std::size_t n = values.size();
  const std::size_t mid = n / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + upper);
}

double median_of(std::span<const double> values) {
  std::vector<double> copy(values.begin(), values.end());
  return median_in_place(copy);
}

Result<std::vector<double>> per_round_ratios(std::string_view operation, std::span<const double> seed_seconds,
                                             std::span<const double> candidate_seconds) {
  if (seed_seconds.size() != candidate_seconds.size()) {
    return make_error(fmt::format("{}: seed has {} rounds, candidate has {}; rounds must be paired", operation,
                                  seed_seconds.size(), candidate_seconds.size()));
  }
  if (seed_seconds.empty()) return make_error(fmt::format("{}: no rounds measured", operation));
  std::vector<double> ratios(seed_seconds.size());
  for (std::size_t i = 0; i < seed_seconds.size(); ++i) {
    for (const auto& [side, value] :
         {std::pair{"seed", seed_seconds[i]}, std::pair{"candidate", candidate_seconds[i]}}) {
      if (!std::isfinite(value) || value <= 0.0) {
        return make_error(
            fmt::format("{}: round {}: {} time is {} s; it must be finite and > 0", operation, i, side, value));
      }
    }
    ratios[i] = seed_seconds[i] / candidate_seconds[i];
  }
  return ratios;
}

double log_binomial_half_pmf(std::size_t n, std::size_t k) {
  const double nd = static_cast<double>(n);
  const double kd = static_cast<double>(k);
  return std::lgamma(nd + 1.0) - std::lgamma(kd + 1.0) - std::lgamma(nd - kd + 1.0) - nd * std::log(2.0);
}

struct OrderStatisticInterval {
  std::size_t lower_rank = 1;  // 1-based
  std::size_t upper_rank = 1;
  double coverage = 0.0;
  bool meets_confidence = false;
};

// [x_(l), x_(n+1-l)] covers the median with probability P(l <= B <= n-l), B ~ Binomial(n, 1/2), whatever the
// distribution of x (continuous). The widest l whose tail P(B <= l-1) stays <= alpha/2 gives the shortest interval
// that still has the asked coverage.
OrderStatisticInterval order_statistic_interval(std::size_t n, double confidence) {
  const double tail_allowed = (1.0 - confidence) / 2.0;
  double tail = 0.0;         // P(B <= k)
  std::size_t accepted = 0;  // number of ranks excluded on each side
  double accepted_tail = 0.0;
  // Stop before l = n+1-l: a one-point interval (the median of an odd n) covers nothing.
  for (std::size_t k = 0; 2 * (k + 1) <= n; ++k) {
    tail += std::exp(log_binomial_half_pmf(n, k));
    if (tail > tail_allowed + kTailSlack) break;
    accepted = k + 1;
    accepted_tail = tail;
  }
  OrderStatisticInterval interval;
  if (accepted == 0) {
    // Even [min, max] is short of the asked coverage: report it with what it does cover.
    interval.lower_rank = 1;
    interval.upper_rank = n;
    interval.coverage = n >= 2 ? 1.0 - 2.0 * std::exp(log_binomial_half_pmf(n, 0)) : 0.0;
    interval.meets_confidence = false;
    return interval;
  }
  interval.lower_rank = accepted;
  interval.upper_rank = n + 1 - accepted;
  interval.coverage = 1.0 - 2.0 * accepted_tail;
  interval.meets_confidence = true;
  return interval;
}

// Uniform index in [0, bound) from raw mt19937_64 output by rejection, so a seed reproduces on every standard library.
std::size_t draw_index(std::mt19937_64& engine, std::size_t bound) {
  const std::uint64_t range = static_cast<std::uint64_t>(bound);
  const std::uint64_t limit =
      std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % range;
  std::uint64_t draw = engine();
  while (draw >= limit) draw = engine();
  return static_cast<std::size_t>(draw % range);
}

// Inverse of the standard normal CDF by bisection: slow but exact enough, and called once per scenario.
double normal_quantile(double p) {
  double low = -40.0;
  double high = 40.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (low + high);
    if (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p) {
      low = mid;
    } else {
      high = mid;
    }
  }
  return 0.5 * (low + high);
}

double relative_wider_side(double point, double low, double high) {
  return std::max(point - low, high - point) / point;
}

}  // namespace

Result<RatioEstimate> estimate_ratio(std::span<const double> seed_seconds, std::span<const double> candidate_seconds,
                                     const RatioOptions& options) {
  constexpr std::string_view kOperation = "estimate_ratio";
  if (!is_valid_confidence(options.confidence)) {
    return make_error(fmt::format("{}: confidence is {}; it must be in (0, 1)", kOperation, options.confidence));
  }
  if (!std::isfinite(options.outlier_mads) || options.outlier_mads <= 0.0) {
    return make_error(
        fmt::format("{}: outlier_mads is {}; it must be finite and > 0", kOperation, options.outlier_mads));
  }
  auto ratios = per_round_ratios(kOperation, seed_seconds, candidate_seconds);
  if (!ratios) return ratios.error();

  RatioEstimate estimate;
  estimate.rounds = ratios->size();
  estimate.confidence = options.confidence;

  std::vector<double> sorted = *ratios;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  estimate.ratio = n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);

  const OrderStatisticInterval interval = order_statistic_interval(n, options.confidence);
  estimate.lower_rank = interval.lower_rank;
  estimate.upper_rank = interval.upper_rank;
  estimate.ci_low = sorted[interval.lower_rank - 1];
  estimate.ci_high = sorted[interval.upper_rank - 1];
  estimate.coverage = interval.coverage;
  estimate.meets_confidence = interval.meets_confidence;
  estimate.relative_half_width =
      interval.meets_confidence ? relative_wider_side(estimate.ratio, estimate.ci_low, estimate.ci_high) : kInfinity;

  estimate.seed_median_seconds = median_of(seed_seconds);
  estimate.candidate_median_seconds = median_of(candidate_seconds);
  estimate.ratio_of_medians = estimate.seed_median_seconds / estimate.candidate_median_seconds;

  std::vector<double> deviations(n);
  for (std::size_t i = 0; i < n; ++i) deviations[i] = std::abs((*ratios)[i] - estimate.ratio);
  const double sigma = std::max(kMadToSigma * median_in_place(deviations), kMadFloorRelative * estimate.ratio);
  for (std::size_t i = 0; i < n; ++i) {
    if (std::abs((*ratios)[i] - estimate.ratio) > options.outlier_mads * sigma) estimate.outlier_rounds.push_back(i);
  }
  return estimate;
}

Result<RatioInterval> bootstrap_ratio_interval(std::span<const double> seed_seconds,
                                               std::span<const double> candidate_seconds,
                                               const BootstrapOptions& options) {
  constexpr std::string_view kOperation = "bootstrap_ratio_interval";
  if (!is_valid_confidence(options.confidence)) {
    return make_error(fmt::format("{}: confidence is {}; it must be in (0, 1)", kOperation, options.confidence));
  }
  if (options.resamples < 2) {
    return make_error(fmt::format("{}: {} resamples; at least 2 are needed", kOperation, options.resamples));
  }
  auto ratios = per_round_ratios(kOperation, seed_seconds, candidate_seconds);
  if (!ratios) return ratios.error();

  const std::size_t n = ratios->size();
  std::mt19937_64 engine(options.seed);
  std::vector<double> medians(options.resamples);
  std::vector<double> resample(n);
  for (double& median : medians) {
    for (double& value : resample) value = (*ratios)[draw_index(engine, n)];
    median = median_in_place(resample);
  }
  std::sort(medians.begin(), medians.end());
  const double alpha = 1.0 - options.confidence;
  const double last = static_cast<double>(medians.size() - 1);
  RatioInterval interval;
  interval.low = medians[static_cast<std::size_t>(std::floor(alpha / 2.0 * last))];
  interval.high = medians[static_cast<std::size_t>(std::ceil((1.0 - alpha / 2.0) * last))];
  return interval;
}

std::string_view to_string(SamplingAction action) {
  switch (action) {
    case SamplingAction::kContinue: return "continue";
    case SamplingAction::kStopConverged: return "stop-converged";
    case SamplingAction::kStopBudget: return "stop-budget";
  }
  return "unknown";
}

SamplingDecision next_sampling_step(const RatioEstimate& estimate, const SamplingPolicy& policy,
                                    double elapsed_seconds) {
  SamplingDecision decision;
  decision.reached_min_rounds = estimate.rounds >= policy.min_rounds;
  const std::string width =
      fmt::format("+-{:.3g}% at {:.0f}% confidence", 100.0 * estimate.relative_half_width, 100.0 * estimate.confidence);
  const std::string short_of_min =
      decision.reached_min_rounds ? "" : fmt::format(", below the minimum {} rounds", policy.min_rounds);

  // NaN compares false, so `!(elapsed < budget)` treats an unknown elapsed time as a spent budget.
  if (!(elapsed_seconds < policy.time_budget_seconds)) {
    decision.action = SamplingAction::kStopBudget;
    decision.reason = fmt::format("time budget {} s spent ({} s) after {} rounds{}; interval {}",
                                  policy.time_budget_seconds, elapsed_seconds, estimate.rounds, short_of_min, width);
    return decision;
  }
  if (estimate.rounds >= policy.max_rounds) {
    decision.action = SamplingAction::kStopBudget;
    decision.reason = fmt::format("round budget {} reached{}; interval {}", policy.max_rounds, short_of_min, width);
    return decision;
  }
  if (!decision.reached_min_rounds) {
    decision.action = SamplingAction::kContinue;
    decision.reason = fmt::format("{} of the minimum {} rounds measured", estimate.rounds, policy.min_rounds);
    return decision;
  }
  const bool settled = estimate.rounds >= std::max(policy.min_rounds, policy.settled_rounds);
  const double early_target = policy.target_relative_half_width / kEarlyStopTightening;
  if (estimate.meets_confidence && settled && estimate.relative_half_width <= policy.target_relative_half_width) {
    decision.action = SamplingAction::kStopConverged;
    decision.reason = fmt::format("converged after {} rounds: interval {} within the target +-{:.3g}%", estimate.rounds,
                                  width, 100.0 * policy.target_relative_half_width);
    return decision;
  }
  if (estimate.meets_confidence && !settled && estimate.relative_half_width <= early_target) {
    decision.action = SamplingAction::kStopConverged;
    decision.reason = fmt::format(
        "converged early after {} rounds: interval {} within +-{:.3g}% ({:g}x tighter "
        "than the target, as a sample under {} rounds must be)",
        estimate.rounds, width, 100.0 * early_target, kEarlyStopTightening,
        std::max(policy.min_rounds, policy.settled_rounds));
    return decision;
  }
  if (!settled) {
    decision.action = SamplingAction::kContinue;
    decision.reason =
        fmt::format("interval {} after {} rounds: under {} rounds it must be within +-{:.3g}%", width, estimate.rounds,
                    std::max(policy.min_rounds, policy.settled_rounds), 100.0 * early_target);
    return decision;
  }
  decision.action = SamplingAction::kContinue;
  decision.reason = fmt::format("interval {} wider than the target +-{:.3g}% after {} rounds", width,
                                100.0 * policy.target_relative_half_width, estimate.rounds);
  return decision;
}

Result<void> validate_sampling_policy(const SamplingPolicy& policy) {
  if (!std::isfinite(policy.target_relative_half_width) || policy.target_relative_half_width <= 0.0) {
    return make_error(fmt::format("sampling policy: target_relative_half_width is {}; it must be finite and > 0",
                                  policy.target_relative_half_width));
  }
  if (policy.min_rounds < 1 || policy.min_rounds > policy.max_rounds) {
    return make_error(fmt::format("sampling policy: min_rounds {} and max_rounds {}; need 1 <= min <= max",
                                  policy.min_rounds, policy.max_rounds));
  }
  if (policy.settled_rounds < 1) {
    return make_error(fmt::format("sampling policy: settled_rounds is {}; it must be >= 1", policy.settled_rounds));
  }
  if (!std::isfinite(policy.time_budget_seconds) || policy.time_budget_seconds <= 0.0) {
    return make_error(fmt::format("sampling policy: time_budget_seconds is {}; it must be finite and > 0",
                                  policy.time_budget_seconds));
  }
  return Ok{};
}

Result<GeomeanEstimate> geomean_of_ratios(std::span<const RatioEstimate> estimates, const GeomeanOptions& options) {
  constexpr std::string_view kOperation = "geomean_of_ratios";
  if (!(options.clamp_low > 0.0 && options.clamp_low <= 1.0 && options.clamp_high >= 1.0 &&
        std::isfinite(options.clamp_high))) {
    return make_error(fmt::format("{}: clamp range [{}, {}]; need 0 < low <= 1 <= high < inf", kOperation,
                                  options.clamp_low, options.clamp_high));
  }
  if (!is_valid_confidence(options.confidence)) {
    return make_error(fmt::format("{}: confidence is {}; it must be in (0, 1)", kOperation, options.confidence));
  }
  if (estimates.empty()) return make_error(fmt::format("{}: no scenarios", kOperation));

  const auto clamp = [&](double value) { return std::clamp(value, options.clamp_low, options.clamp_high); };
  GeomeanEstimate result;
  result.scenarios = estimates.size();
  double sum_log = 0.0;
  double sum_variance = 0.0;
  for (std::size_t i = 0; i < estimates.size(); ++i) {
    const RatioEstimate& e = estimates[i];
    if (!std::isfinite(e.ratio) || e.ratio <= 0.0) {
      return make_error(fmt::format("{}: scenario {}: ratio is {}; it must be finite and > 0", kOperation, i, e.ratio));
    }
    if (!is_valid_confidence(e.confidence)) {
      return make_error(
          fmt::format("{}: scenario {}: confidence is {}; it must be in (0, 1)", kOperation, i, e.confidence));
    }
    double low = options.clamp_low;
    double high = options.clamp_high;
    if (e.meets_confidence) {
      if (!(e.ci_low > 0.0 && e.ci_low <= e.ratio && e.ratio <= e.ci_high && std::isfinite(e.ci_high))) {
        return make_error(
            fmt::format("{}: scenario {}: interval [{}, {}] does not bracket the ratio {} within (0, inf)", kOperation,
                        i, e.ci_low, e.ci_high, e.ratio));
      }
      low = clamp(e.ci_low);
      high = clamp(e.ci_high);
    }
    const double point = clamp(e.ratio);
    if (point != e.ratio) result.clamped.push_back(ClampedScenario{i, e.ratio, point});
    const double log_half_width = std::max(std::log(point) - std::log(low), std::log(high) - std::log(point));
    const double sigma = log_half_width / normal_quantile(1.0 - (1.0 - e.confidence) / 2.0);
    sum_log += std::log(point);
    sum_variance += sigma * sigma;
  }
  const double count = static_cast<double>(estimates.size());
  const double mean_log = sum_log / count;
  const double sigma_of_mean = std::sqrt(sum_variance) / count;
  const double z = normal_quantile(1.0 - (1.0 - options.confidence) / 2.0);
  result.geomean = std::exp(mean_log);
  result.ci_low = std::exp(mean_log - z * sigma_of_mean);
  result.ci_high = std::exp(mean_log + z * sigma_of_mean);
  result.relative_half_width = relative_wider_side(result.geomean, result.ci_low, result.ci_high);
  return result;
}

std::string_view to_string(PeakSource source) {
  switch (source) {
    case PeakSource::kMeasured: return "measured";
    case PeakSource::kDeclared: return "declared";
  }
  return "unknown";
}

double physics_floor_seconds(double flops, double bytes, const DevicePeaks& peaks) {
  const auto usable_work = [](double value) { return std::isfinite(value) && value >= 0.0; };
  const auto usable_peak = [](double value) { return std::isfinite(value) && value > 0.0; };
  if (!usable_work(flops) || !usable_work(bytes) || !usable_peak(peaks.peak_flops) ||
      !usable_peak(peaks.peak_bytes_per_second)) {
    return kNaN;
  }
  return std::max(flops / peaks.peak_flops, bytes / peaks.peak_bytes_per_second);
}

bool below_physics_floor(double measured_seconds, double floor_seconds, double margin) {
  if (!(measured_seconds > 0.0)) return true;  // also catches NaN
  // Written as a negated >= so that a NaN floor or margin reads as "below": unverifiable is untrusted.
  return !(measured_seconds >= floor_seconds * (1.0 - margin));
}

}  // namespace kseek
