// When one output tensor of a candidate is accepted (see acceptance_rule.hpp for the rules and why).
// It must never touch a GPU, a file or a clock.
#include "kseek/core/worker/acceptance_rule.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace kseek {
namespace {

constexpr double kCalibrationSpread = 2.0;  // maxima over fresh input sets vs the calibration sets
constexpr double kRoundingQuanta = 2.0;     // neighbouring roundings of one element, with room to spare
constexpr double kMagnitudeSpread = 2.0;    // fresh outputs may be larger than any calibration output

int mantissa_bits(ElementType type) {
  switch (type) {
    case ElementType::kF32: return 23;
    case ElementType::kF16: return 10;
    case ElementType::kBF16: return 7;
    case ElementType::kFP8E4M3: return 3;
    default: return 0;  // integers and bytes: a step of one
  }
}

}  // namespace

ReferenceJudgement judge_against_reference(const Tolerance& tolerance, const ErrorStatistics& candidate_vs_gold,
                                           const ErrorStatistics& reference_vs_gold, const std::string& output_name) {
  ReferenceJudgement j;
  j.allowed_max = tolerance.max_factor * reference_vs_gold.max_error + tolerance.atol;
  j.allowed_mean = tolerance.mean_factor * reference_vs_gold.mean_error + tolerance.atol;
  if (candidate_vs_gold.nonfinite > 0) {
    j.failure = fmt::format("{} of {} elements of '{}' are NaN or infinite; unwritten elements are poisoned with NaN",
                            candidate_vs_gold.nonfinite, candidate_vs_gold.count, output_name);
    return j;
  }
  // Written as "not within" so that a NaN statistic can never pass.
  if (!(candidate_vs_gold.max_error <= j.allowed_max) || !(candidate_vs_gold.mean_error <= j.allowed_mean)) {
    j.failure = fmt::format("'{}' error max {:.3g} / mean {:.3g} exceeds the allowed {:.3g} / {:.3g}", output_name,
                            candidate_vs_gold.max_error, candidate_vs_gold.mean_error, j.allowed_max, j.allowed_mean);
    return j;
  }
  j.accepted = true;
  return j;
}

double rounding_quantum(ElementType type, double magnitude) {
  if (!(magnitude > 0) || !std::isfinite(magnitude)) return 0.0;
  const int bits = mantissa_bits(type);
  if (bits == 0) return 1.0;
  return std::ldexp(1.0, std::ilogb(magnitude) - bits);
}

void SeedDistanceBound::widen_to(const SeedDistanceBound& other) {
  max = std::max(max, other.max);
  mean = std::max(mean, other.mean);
}

SeedDistanceBound seed_distance_bound(const ReferenceJudgement& candidate, const ErrorStatistics& seed_vs_gold,
                                      ElementType type) {
  const double quantum = rounding_quantum(type, kMagnitudeSpread * seed_vs_gold.max_abs_b);
  SeedDistanceBound b;
  b.max = kCalibrationSpread * (candidate.allowed_max + seed_vs_gold.max_error) + kRoundingQuanta * quantum;
  b.mean = kCalibrationSpread * (candidate.allowed_mean + seed_vs_gold.mean_error) + quantum;
  return b;
}

SeedDistanceJudgement judge_seed_distance(const SeedDistanceBound& bound, const ErrorStatistics& candidate_vs_seed,
                                          const std::string& output_name) {
  SeedDistanceJudgement j;
  if (candidate_vs_seed.nonfinite > 0 || !(candidate_vs_seed.max_error <= bound.max) ||
      !(candidate_vs_seed.mean_error <= bound.mean)) {
    j.failure = fmt::format(
        "a timed launch's output '{}' differs from the seed on the same inputs (max {:.3g}, bound "
        "{:.3g}; mean {:.3g}, bound {:.3g}; {} non-finite): the candidate behaves differently while "
        "timed",
        output_name, candidate_vs_seed.max_error, bound.max, candidate_vs_seed.mean_error, bound.mean,
        candidate_vs_seed.nonfinite);
    return j;
  }
  j.accepted = true;
  return j;
}

}  // namespace kseek
