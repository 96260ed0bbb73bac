// A record's summary from its scenarios: status counts and the geomean of the PASSED scenarios' ratios.
// It must never read anything but the record it rewrites.
#include "kseek/core/eval/evaluator.hpp"

namespace kseek {
using nlohmann::json;

void summarize(json& record, const GeomeanOptions& geomean) {
  std::vector<RatioEstimate> estimates;
  std::vector<std::string> estimate_ids;
  json counts = json::object();
  const json scenarios = record.value("scenarios", json::array());
  for (const auto& r : scenarios) {
    const std::string status = r.value("status", "UNKNOWN");
    counts[status] = counts.value(status, 0) + 1;
    if (status != "PASSED" || !r.contains("timing")) continue;
    RatioEstimate e;
    const auto& t = r["timing"];
    e.rounds = t.value("rounds", 0);
    e.ratio = t.value("ratio", 1.0);
    e.ci_low = t.value("ci_low", 1.0);
    e.ci_high = t.value("ci_high", 1.0);
    e.confidence = t.value("confidence", 0.95);
    e.meets_confidence = t.value("meets_confidence", false);
    e.seed_median_seconds = t.value("seed_median_ms", 0.0) * 1e-3;
    e.candidate_median_seconds = t.value("candidate_median_ms", 0.0) * 1e-3;
    estimates.push_back(e);
    estimate_ids.push_back(r.value("scenario", ""));
  }
  record["summary"] = {{"scenarios", scenarios.size()}, {"status_counts", counts}};
  if (estimates.empty()) return;
  if (auto g = geomean_of_ratios(estimates, geomean); g) {
    json clamped = json::array();
    for (const auto& c : g->clamped) clamped.push_back({{"scenario", estimate_ids[c.index]}, {"raw", c.raw_ratio}, {"clamped", c.clamped_ratio}});
    record["summary"]["geomean"] = {{"value", g->geomean}, {"ci_low", g->ci_low}, {"ci_high", g->ci_high},
                                    {"scenarios", g->scenarios}, {"clamped", clamped}};
  }
}

}  // namespace kseek
