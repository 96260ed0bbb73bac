// The campaign use cases shown as the commands show them: a JSON document and an exit code (campaign_actions.hpp).
// It must never append to a campaign's log itself: every change goes through the use case.
#include "campaign_actions.hpp"

#include "kseek/core/eval/evaluation_record.hpp"

namespace kseek::cli {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

ActionResult usage_error(const std::string& message) { return {kExitUsage, {{"status", "ERROR"}, {"error", message}}}; }

// An outcome shown as its document with kExitOk, or its error as a usage error.
template <class Outcome>
ActionResult shown(const Result<Outcome>& outcome) {
  if (!outcome) return usage_error(outcome.error().message);
  return {kExitOk, app::to_json(*outcome)};
}

}  // namespace

int exit_code_of(const app::EvaluationOutcome& outcome) {
  if (!outcome.error.empty()) return kExitUsage;
  switch (outcome.verdict) {
    case app::EvaluationVerdict::kAllPassed: return kExitOk;
    case app::EvaluationVerdict::kNeedsGpu: return kExitNeedsGpu;
    case app::EvaluationVerdict::kNotAllPassed: break;
  }
  return kExitVerdict;
}

void print_campaign_follow_up(const app::EvaluationFollowUp& f) {
  std::cout << fmt::format("campaign: logged as evaluation {} ({})\n", f.evaluation, f.record_file);
  for (const auto& e : f.events) std::cout << fmt::format("event {}: {}\n", e.name, e.detail);
  if (f.question) std::cout << fmt::format("question ({}): {}\n", f.question->chosen.id, f.question->chosen.text);
  if (f.gate.holds) {
    std::cout << "goal: met for the current candidate\n";
  } else {
    std::cout << "goal: not met\n";
    for (const auto& u : f.gate.unmet()) std::cout << "  - " << u << "\n";
  }
}

ActionResult campaign_eval(const GlobalOptions& options, const fs::path& dir, const CampaignEvalOptions& eval) {
  auto campaign = Campaign::open(dir);
  if (!campaign) return usage_error(campaign.error().message);
  // In this process, through the same use case as `kseek eval`: the candidate's builds run in capped compiler
  // processes and every scenario in its own GPU worker, so a broken candidate cannot take the caller down.
  app::EvaluationRequest request;
  request.campaign_dir = campaign->dir();
  request.correctness_only = eval.correctness_only;
  request.settings.device = eval.device;
  request.settings.input_seed = eval.input_seed;
  request.via = "mcp";
  const app::EvaluationOutcome outcome = app::run_evaluation(options, request);
  const int exit_code = exit_code_of(outcome);
  if (!outcome.error.empty()) return {exit_code, {{"status", "ERROR"}, {"error", outcome.error}}};
  const EvaluationRecord& record = *outcome.typed;
  json compact = {{"status", std::string(to_string(record.status))}, {"exit_code", exit_code}};
  if (record.message) compact["message"] = *record.message;
  if (outcome.record.contains("summary")) compact["summary"] = outcome.record["summary"];
  if (outcome.follow_up) compact["campaign"] = app::to_json(*outcome.follow_up);
  compact["scenarios"] = json::array();
  for (const auto& s : record.scenario_list()) {
    json entry = {{"scenario", s.scenario}, {"status", std::string(to_string(s.status))}};
    if (s.message && !s.message->empty()) entry["message"] = *s.message;
    if (s.timing) entry["ratio"] = s.timing->ratio;
    compact["scenarios"].push_back(entry);
  }
  return {exit_code, compact};
}

ActionResult campaign_status_action(const GlobalOptions&, const fs::path& dir) {
  auto status = app::campaign_status(dir);
  if (!status) return usage_error(status.error().message);
  json document = to_json(*status);
  document["status"] = "OK";
  return {kExitOk, document};
}

ActionResult campaign_ask(const GlobalOptions& options, const fs::path& dir, const std::string& event,
                          const std::string& via) {
  return shown(app::campaign_ask(options, dir, event, via));
}

ActionResult campaign_claim(const GlobalOptions& options, const fs::path& dir, const std::string& kind,
                            const std::string& text, const std::string& source) {
  return shown(app::campaign_claim(options, dir, kind, text, source));
}

ActionResult campaign_steer(const GlobalOptions&, const fs::path& dir, const std::string& text) {
  return shown(app::campaign_steer(dir, text));
}

ActionResult campaign_gate(const GlobalOptions&, const fs::path& dir, const std::string& caller) {
  auto gate = app::campaign_gate(dir, caller);
  if (!gate) return usage_error(gate.error().message);
  return {gate->gate.holds ? kExitOk : kExitVerdict, app::to_json(*gate)};
}

}  // namespace kseek::cli
