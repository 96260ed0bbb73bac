// The status document of a campaign: CampaignStatus as JSON, every field under its own name (`kseek status --json`,
// the MCP `status` tool). It must never add a field the type does not hold.
#include "kseek/core/campaign/campaign_status.hpp"

#include "kseek/core/util/json_values.hpp"

namespace kseek {

using nlohmann::json;

json to_json(const CampaignStatus& s) {
  json document = {{"campaign", s.campaign}, {"plugin", s.plugin},       {"set", s.set},
                   {"goal", s.goal},         {"questions", s.questions}, {"evaluations", s.evaluations}};
  document["best"] = s.best.evaluation == 0 ? json{{"evaluation", 0}, {"geomean", 1.0}, {"note", "the seed"}}
                                            : json{{"evaluation", s.best.evaluation}, {"geomean", s.best.geomean}};
  if (s.latest) {
    const auto& l = *s.latest;
    document["latest"] = {{"evaluation", l.evaluation},
                          {"time", l.time},
                          {"status", l.status},
                          {"all_passed", l.all_passed},
                          {"geomean", number_or_null(l.geomean)},
                          {"geomean_low", number_or_null(l.geomean_low)},
                          {"geomean_high", number_or_null(l.geomean_high)},
                          {"failing", l.failing}};
  }
  json trend = json::array();
  for (const auto& t : s.trend) {
    trend.push_back(
        {{"evaluation", t.evaluation}, {"geomean", number_or_null(t.geomean)}, {"all_passed", t.all_passed}});
  }
  document["trend"] = trend;
  document["timed_evaluations_since_best"] = s.timed_evaluations_since_best;
  document["last_progress"] = {{"evaluation", s.last_progress.evaluation},
                               {"what", s.last_progress.what},
                               {"timed_evaluations_since", s.last_progress.timed_evaluations_since}};
  document["gate"] = {{"holds", s.gate.holds},
                      {"evaluation", s.gate.evaluation},
                      {"unmet", s.gate.unmet},
                      {"candidate_sha256", s.gate.candidate_sha256}};
  json open = json::array();
  for (const auto& e : s.open_events) open.push_back({{"event", e.event}, {"detail", e.detail}, {"logged", e.logged}});
  document["open_events"] = open;
  document["record_counts"] = s.record_counts;
  json damaged = json::array();
  for (const auto& d : s.damaged_lines) damaged.push_back({{"line", d.line}, {"reason", d.reason}});
  document["damaged_lines"] = damaged;
  document["signatures"] = {{"verified", s.signatures.verified},
                            {"key", s.signatures.key ? json(*s.signatures.key) : json()},
                            {"note", s.signatures.note}};
  return document;
}

}  // namespace kseek
