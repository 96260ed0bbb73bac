// A record's summary from its scenarios: status counts and the geomean of the PASSED scenarios' ratios.
// It must never read anything but the scenarios it is given.
#include "kseek/core/eval/evaluator.hpp"

namespace kseek {

RecordSummary summarize(const std::vector<ScenarioOutcome>& scenarios, const GeomeanOptions& geomean) {
  RecordSummary summary;
  summary.scenarios = static_cast<int>(scenarios.size());
  std::vector<RatioEstimate> estimates;
  std::vector<std::string> estimate_ids;
  for (const auto& r : scenarios) {
    summary.status_counts[std::string(to_string(r.status))] += 1;
    if (!r.passed() || !r.timing) continue;
    const TimingOutcome& t = *r.timing;
    RatioEstimate e;
    e.rounds = t.rounds;
    e.ratio = t.ratio;
    e.ci_low = t.ci_low;
    e.ci_high = t.ci_high;
    e.confidence = t.confidence;
    e.meets_confidence = t.meets_confidence;
    e.seed_median_seconds = t.seed_median_ms * 1e-3;
    e.candidate_median_seconds = t.candidate_median_ms * 1e-3;
    estimates.push_back(e);
    estimate_ids.push_back(r.scenario);
  }
  if (estimates.empty()) return summary;
  if (auto g = geomean_of_ratios(estimates, geomean); g) {
    GeomeanSummary& out = summary.geomean.emplace();
    out.value = g->geomean;
    out.ci_low = g->ci_low;
    out.ci_high = g->ci_high;
    out.scenarios = static_cast<int>(g->scenarios);
    for (const auto& c : g->clamped) out.clamped.push_back({estimate_ids[c.index], c.raw_ratio, c.clamped_ratio});
  }
  return summary;
}

}  // namespace kseek
