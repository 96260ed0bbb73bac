// The campaign verbs: each opens the campaign (which checks its config hash), reads the log, computes, appends.
// It must never append a record before the computation it reports has succeeded, never print, and never decide
// from the log without the campaign lock when what it appends must be there at most once.
#include "campaign_actions.hpp"

#include <algorithm>
#include <array>
#include <chrono>

#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/campaign/campaign_engine.hpp"
#include "kseek/core/eval/evaluation_record.hpp"
#include "kseek/core/util/subprocess.hpp"
#include "kseek/core/util/shell.hpp"
#include "evaluation_use_case.hpp"
#include "question_library.hpp"

namespace kseek::cli {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

ActionResult usage_error(const std::string& message) {
  return {kExitUsage, {{"status", "ERROR"}, {"error", message}}};
}

// The order in which events claim the one question an evaluation may bring.
int event_priority(const std::string& name) {
  static const std::array<const char*, 6> order = {"suspicious-win", "correctness-regression", "completion-claim",
                                                   "limit-claim",    "stagnation",             "start"};
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (name == order[i]) return static_cast<int>(i);
  }
  return static_cast<int>(order.size());
}

json event_json(const CampaignEvent& e) { return {{"event", e.name}, {"detail", e.detail}, {"evaluation", e.evaluation}}; }

// Logs every event the log implies but does not hold yet; returns them.
Result<std::vector<CampaignEvent>> log_pending_events(const Campaign& campaign) {
  auto log = campaign.read_log();
  if (!log) return log.error();
  auto events = pending_events(campaign.config(), log->records, std::chrono::system_clock::now());
  for (const auto& e : events) {
    if (auto a = campaign.append("event", event_json(e)); !a) return a.error();
  }
  return events;
}

// Picks and logs the question for `event`; null when questions are off or no item fits.
Result<json> ask_and_log(const GlobalOptions& options, const Campaign& campaign, const std::string& event,
                         const std::string& via) {
  if (!campaign.config().questions) return json();
  const PackLibrary library = collect_question_packs(with_campaign(options, campaign.config()));
  auto packs = load_campaign_packs(campaign.config(), library.all());
  if (!packs) return packs.error();
  auto log = campaign.read_log();
  if (!log) return log.error();
  auto chosen = select_question(*packs, campaign.config(), event, log->records);
  if (!chosen) return json();
  json record = {{"event", event}, {"id", chosen->id}, {"pack", chosen->pack}, {"text", chosen->text},
                 {"source", chosen->source}, {"via", via}};
  if (chosen->source == "human") record["steer_id"] = std::stoi(chosen->id.substr(chosen->id.find('-') + 1));
  if (auto a = campaign.append("question", record); !a) return a.error();
  return record;
}

json gate_json(const GateResult& gate) {
  json terms = json::array();
  for (const auto& t : gate.terms) terms.push_back({{"source", t.source}, {"holds", t.holds}, {"explanation", t.explanation}});
  return {{"holds", gate.holds}, {"evaluation", gate.evaluation}, {"candidate_sha256", gate.candidate_sha256},
          {"evidence_problem", gate.evidence_problem}, {"terms", terms}, {"unmet", gate.unmet()}};
}

}  // namespace

ActionResult record_campaign_evaluation(const GlobalOptions& options, const fs::path& dir, const json& eval_record,
                                        const std::string& via) {
  auto campaign = Campaign::open(dir, false);
  if (!campaign) return usage_error(campaign.error().message);
  // One hold from the evaluation's entry to its events and question: each event is judged on its own evaluation.
  auto held = campaign->lock();
  if (!held) return usage_error(held.error().message);
  auto summary = campaign->record_evaluation(eval_record);
  if (!summary) return usage_error(summary.error().message);
  auto events = log_pending_events(*campaign);
  if (!events) return usage_error(events.error().message);
  json out = {{"status", "OK"}, {"evaluation", summary->number}, {"record_file", summary->record_file},
              {"events", json::array()}, {"question", json()}};
  for (const auto& e : *events) out["events"].push_back(event_json(e));
  if (!events->empty()) {
    const auto pressing = std::min_element(events->begin(), events->end(), [](const auto& a, const auto& b) {
      return event_priority(a.name) < event_priority(b.name);
    });
    auto question = ask_and_log(options, *campaign, pressing->name, via);
    if (!question) return usage_error(question.error().message);
    out["question"] = *question;
  }
  auto log = campaign->read_log();
  if (!log) return usage_error(log.error().message);
  out["gate"] = gate_json(compute_gate(*campaign, *log));
  return {kExitOk, out};
}

void print_campaign_follow_up(const json& f) {
  std::cout << fmt::format("campaign: logged as evaluation {} ({})\n", f.value("evaluation", 0), f.value("record_file", ""));
  for (const auto& e : f.value("events", json::array())) {
    std::cout << fmt::format("event {}: {}\n", e.value("event", ""), e.value("detail", ""));
  }
  if (f.contains("question") && f["question"].is_object()) {
    std::cout << fmt::format("question ({}): {}\n", f["question"].value("id", ""), f["question"].value("text", ""));
  }
  if (f.contains("gate")) {
    const auto& g = f["gate"];
    if (g.value("holds", false)) {
      std::cout << "goal: met for the current candidate\n";
    } else {
      std::cout << "goal: not met\n";
      for (const auto& u : g.value("unmet", json::array())) std::cout << "  - " << u.get<std::string>() << "\n";
    }
  }
}

ActionResult campaign_eval(const GlobalOptions& options, const fs::path& dir, const CampaignEvalOptions& eval) {
  auto campaign = Campaign::open(dir);
  if (!campaign) return usage_error(campaign.error().message);
  // In this process, through the same use case as `kseek eval`: the candidate's builds run in capped compiler
  // processes and every scenario in its own GPU worker, so a broken candidate cannot take the caller down.
  EvaluationRequest request;
  request.campaign_dir = campaign->dir();
  request.correctness_only = eval.correctness_only;
  request.settings.device = eval.device;
  request.settings.input_seed = eval.input_seed;
  request.via = "mcp";
  GlobalOptions quiet = options;
  quiet.json = true;  // nothing for people on this process's streams (the MCP server's stdout is its protocol)
  const EvaluationOutcome outcome = run_evaluation(quiet, request);
  if (!outcome.error.empty()) return {outcome.exit_code, {{"status", "ERROR"}, {"error", outcome.error}}};
  const EvaluationRecord& record = *outcome.typed;
  json compact = {{"status", std::string(to_string(record.status))}, {"exit_code", outcome.exit_code}};
  if (record.message) compact["message"] = *record.message;
  if (outcome.record.contains("summary")) compact["summary"] = outcome.record["summary"];
  if (!outcome.follow_up.is_null()) compact["campaign"] = outcome.follow_up;
  compact["scenarios"] = json::array();
  for (const auto& s : record.scenario_list()) {
    json entry = {{"scenario", s.scenario}, {"status", std::string(to_string(s.status))}};
    if (s.message && !s.message->empty()) entry["message"] = *s.message;
    if (s.timing) entry["ratio"] = s.timing->ratio;
    compact["scenarios"].push_back(entry);
  }
  return {outcome.exit_code, compact};
}

ActionResult campaign_status_action(const GlobalOptions&, const fs::path& dir) {
  auto campaign = Campaign::open(dir);
  if (!campaign) return usage_error(campaign.error().message);
  auto log = campaign->read_log();
  if (!log) return usage_error(log.error().message);
  json status = campaign_status(*campaign, *log);
  status["status"] = "OK";
  return {kExitOk, status};
}

ActionResult campaign_ask(const GlobalOptions& options, const fs::path& dir, const std::string& event_in,
                          const std::string& via) {
  auto campaign = Campaign::open(dir);
  if (!campaign) return usage_error(campaign.error().message);
  // Events, the open event and its question are read and logged under one hold: hooks fire together.
  auto held = campaign->lock();
  if (!held) return usage_error(held.error().message);
  std::string event = event_in;
  if (!event.empty() && std::find(std::begin(kCampaignEvents), std::end(kCampaignEvents), event) == std::end(kCampaignEvents)) {
    std::string known;
    for (auto e : kCampaignEvents) known += (known.empty() ? "" : ", ") + std::string(e);
    return usage_error(fmt::format("unknown event '{}' (events: {})", event, known));
  }
  auto events = log_pending_events(*campaign);
  if (!events) return usage_error(events.error().message);
  if (event.empty()) {
    auto log = campaign->read_log();
    if (!log) return usage_error(log.error().message);
    if (auto open = unanswered_event(log->records)) event = open->name;
  }
  // With no open event only a person's waiting question can be asked (select_question puts it first).
  auto question = ask_and_log(options, *campaign, event, via);
  if (!question) return usage_error(question.error().message);
  json out = {{"status", "OK"}, {"event", event.empty() ? json() : json(event)}, {"question", *question}};
  if (question->is_null() && event.empty()) {
    out["note"] = "no open event: every event so far has had its question";
  } else if (question->is_null()) {
    out["note"] = campaign->config().questions ? "no question in the campaign's packs fits this event"
                                                : "questions are off in this campaign (a control campaign)";
  }
  return {kExitOk, out};
}

ActionResult campaign_claim(const GlobalOptions& options, const fs::path& dir, const std::string& kind,
                            const std::string& text, const std::string& source) {
  if (kind != "limit" && kind != "done") return usage_error(fmt::format("unknown claim '{}' (claims: limit, done)", kind));
  if (text.empty()) return usage_error("a claim needs its text: what limit, or why the work is done");
  auto campaign = Campaign::open(dir);
  if (!campaign) return usage_error(campaign.error().message);
  auto held = campaign->lock();
  if (!held) return usage_error(held.error().message);
  auto hash = campaign->candidate_sha256();
  if (!hash) return usage_error(hash.error().message);
  if (auto a = campaign->append("claim", {{"kind", kind}, {"text", text}, {"candidate_sha256", *hash}, {"source", source}}); !a) {
    return usage_error(a.error().message);
  }
  const std::string event = kind == "limit" ? "limit-claim" : "completion-claim";
  const std::string excerpt = text.size() > 160 ? text.substr(0, 157) + "..." : text;
  if (auto a = campaign->append("event", {{"event", event}, {"detail", excerpt}, {"evaluation", 0}}); !a) {
    return usage_error(a.error().message);
  }
  auto log = campaign->read_log();
  if (!log) return usage_error(log.error().message);
  const GateResult gate = compute_gate(*campaign, *log);
  json out = {{"status", "OK"}, {"claim", kind}, {"gate", gate_json(gate)}, {"question", json()}};
  // A completion claim with the goal met needs no question; every other claim gets one.
  if (!(kind == "done" && gate.holds)) {
    auto question = ask_and_log(options, *campaign, event, source);
    if (!question) return usage_error(question.error().message);
    out["question"] = *question;
  }
  return {kExitOk, out};
}

ActionResult campaign_steer(const GlobalOptions&, const fs::path& dir, const std::string& text) {
  if (text.empty()) return usage_error("a steering question needs its text");
  auto campaign = Campaign::open(dir);
  if (!campaign) return usage_error(campaign.error().message);
  auto held = campaign->lock();  // the next steer id is read and taken in one step
  if (!held) return usage_error(held.error().message);
  auto log = campaign->read_log();
  if (!log) return usage_error(log.error().message);
  int next = 1;
  for (const auto& r : log->records) {
    if (r.value.value("type", "") == "steer") next = std::max(next, r.value.value("steer_id", 0) + 1);
  }
  if (auto a = campaign->append("steer", {{"text", text}, {"steer_id", next}}); !a) return usage_error(a.error().message);
  return {kExitOk, {{"status", "OK"}, {"steer_id", next}, {"text", text},
                    {"note", "the agent receives it at its next hook or `kseek ask`"}}};
}

ActionResult campaign_gate(const GlobalOptions&, const fs::path& dir, const std::string& caller) {
  auto campaign = Campaign::open(dir);
  if (!campaign) return usage_error(campaign.error().message);
  auto log = campaign->read_log();
  if (!log) return usage_error(log.error().message);
  const GateResult gate = compute_gate(*campaign, *log);
  json record = gate_json(gate);
  record["caller"] = caller;
  if (auto a = campaign->append("gate", record); !a) return usage_error(a.error().message);
  record["status"] = gate.holds ? "MET" : "UNMET";
  record["goal"] = campaign->config().goal;
  return {gate.holds ? kExitOk : kExitVerdict, record};
}

}  // namespace kseek::cli
