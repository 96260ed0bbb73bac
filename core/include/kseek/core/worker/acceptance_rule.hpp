// When one output tensor of a candidate is accepted: the correctness rule against the fp32 reference, and the bound a
// timed launch's distance to the seed must stay under when no reference was computed for its inputs.
// It must never touch a GPU, a file or a clock: every verdict here is a pure function of error statistics.
#pragma once

#include <cstdint>
#include <string>

#include "kseek/core/worker/error_statistics.hpp"
#include "kseek/sdk/workload.hpp"

namespace kseek {

// The FlashAttention rule for one output on one input set: max error <= k * (same-precision reference's max error)
// + atol, mean error <= m * (its mean) + atol, and no non-finite element.
struct ReferenceJudgement {
  bool accepted = false;
  double allowed_max = 0;
  double allowed_mean = 0;
  std::string failure;  // empty when accepted; otherwise which limit was broken and by how much
};
ReferenceJudgement judge_against_reference(const Tolerance& tolerance, const ErrorStatistics& candidate_vs_gold,
                                           const ErrorStatistics& reference_vs_gold, const std::string& output_name);

// The distance from the seed's output, on the same inputs, that an honest candidate stays under. It is calibrated per
// output tensor on the correctness phase's input sets, and must hold on fresh inputs the calibration never saw:
// by the triangle inequality |c - s| <= |c - g| + |s - g|, doubled for the spread of maxima between input sets,
// plus two rounding quanta of the output type at twice the largest magnitude seen (two correct kernels may round one
// element to neighbouring values, and a quantum can exceed every error statistic; a 1-ulp bf16 step at |o| in [4, 8)
// is 0.031). It is deliberately loose: a timed launch drawn for a full check is judged by the reference rule above
// on its own inputs, and that check, not this bound, is what catches an approximation switched on while timed.
struct SeedDistanceBound {
  double max = 0;
  double mean = 0;
  void widen_to(const SeedDistanceBound& other);  // the calibration over several input sets keeps the widest
};
SeedDistanceBound seed_distance_bound(const ReferenceJudgement& candidate, const ErrorStatistics& seed_vs_gold,
                                      ElementType type);

// The spacing of representable values of `type` at magnitude `magnitude` (0 for magnitude 0).
double rounding_quantum(ElementType type, double magnitude);

// Whether a timed launch's distance to the seed stays within the bound; `failure` says by how much it did not.
struct SeedDistanceJudgement {
  bool accepted = false;
  std::string failure;
};
SeedDistanceJudgement judge_seed_distance(const SeedDistanceBound& bound, const ErrorStatistics& candidate_vs_seed,
                                          const std::string& output_name);

}  // namespace kseek
