// What the engine computes from a campaign's log: events, the question for an event, the gate, the status.
// It must never leave to judgement what can be computed, and never trust a record kseek did not write.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/campaign/campaign_status.hpp"
#include "kseek/core/campaign/goal_expression.hpp"
#include "kseek/core/questions/question_pack.hpp"

namespace kseek {

// Event names (docs/campaigns.md); each is also a question trigger.
inline constexpr std::string_view kCampaignEvents[] = {
    "start", "stagnation", "suspicious-win", "correctness-regression", "limit-claim", "completion-claim"};

struct CampaignEvent {
  std::string name;
  std::string detail;  // why, in one sentence with the numbers
  int evaluation = 0;  // the evaluation that raised it (0: none)
};

// A real improvement over the best so far (`best`, its interval's upper end `best_high`): fully passing, timed,
// at least `min_improvement` above the best, and its interval clears the best's interval entirely.
bool is_improvement(const EvaluationSummary& e, double best, double best_high, double min_improvement);

// Time spent on the campaign from `since` to `now`: the wall clock less every gap in the log that ends where an agent
// session starts or resumes (a session-start hook record whose host said `startup` or `resume`), which is time
// between sessions, not time without progress. A clear or a compaction inside a session ends no gap, and a campaign
// whose agent runs without the hooks has no such records and keeps the wall clock. Records are taken in time order
// (their clocks may be different machines'); those outside (since, now] are ignored.
struct WorkingTime {
  double counted_minutes = 0.0;
  double between_sessions_minutes = 0.0;  // left out
};
WorkingTime working_time(const std::vector<LogRecord>& log, std::chrono::system_clock::time_point since,
                         std::chrono::system_clock::time_point now);

// Events the log implies that it does not record yet: `start` before any, and for the newest evaluation
// stagnation / suspicious-win / correctness-regression; claims raise their events when they are recorded.
std::vector<CampaignEvent> pending_events(const CampaignConfig& config, const std::vector<LogRecord>& log,
                                          std::chrono::system_clock::time_point now);

// The newest event recorded in the log that no question has answered yet.
std::optional<CampaignEvent> unanswered_event(const std::vector<LogRecord>& log);

struct SelectedQuestion {
  std::string id;
  std::string pack;
  std::string text;
  std::string event;
  std::string source = "bank";  // "bank" or "human" (a `kseek steer` question waiting for delivery)
};

// A person's steering questions (`kseek steer`) not yet delivered as a question, by steer id, oldest first.
std::map<int, std::string> pending_steers(const std::vector<LogRecord>& log);

// Picks one question for `event`: a pending human question first; else bank items whose triggers include the
// event, from packs for no architecture or the campaign's, `requires_other_implementation` only with a peer;
// never the question asked last; questions the record answers (`answered_by_record`) only when nothing else fits;
// least recently asked first, then pack order. Nothing when questions are off.
std::optional<SelectedQuestion> select_question(const std::vector<QuestionPack>& packs, const CampaignConfig& config,
                                                std::string_view event, const std::vector<LogRecord>& log);

struct GateResult {
  bool holds = false;
  std::vector<GoalTerm> terms;   // each term of the goal with its value
  std::string candidate_sha256;  // of the candidate as it is now
  int evaluation = 0;            // the evaluation used as evidence (0: none)
  std::string evidence_problem;  // why there is no valid evidence, when there is none
  std::vector<std::string> unmet() const;
};

// The goal over the newest evaluation of the current candidate. Evidence is invalid (every term unmet) when
// no evaluation has the candidate's hash, when the candidate file is newer than that evaluation, or when the
// stored record does not match the hash the log holds for it.
GateResult compute_gate(const Campaign& campaign, const LogContents& log);

// Best and latest geomean, trend, unmet goal terms, open events, counts (`kseek status`; to_json for --json).
CampaignStatus campaign_status(const Campaign& campaign, const LogContents& log);

// Loads every pack the campaign names (builtin, user folder, plugin packs).
Result<std::vector<QuestionPack>> load_campaign_packs(const CampaignConfig& config,
                                                      const std::vector<QuestionPack>& available);

}  // namespace kseek
