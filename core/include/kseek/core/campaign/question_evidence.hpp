// Evidence about questions from campaign logs: what followed each question asked, the rule that promotes an item
// to `trace`, and the draft pack harvested from the questions people asked.
// It must never count an outcome it cannot see: a question with too few evaluations after it is `pending`.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kseek/core/campaign/record_log.hpp"

namespace kseek {

struct QuestionOutcomes {
  std::string id;
  std::string pack;
  std::string text;
  int asked = 0;
  int improvement = 0;  // a timed, fully passing evaluation beat the best so far within the next K evaluations
  int regression = 0;   // correctness broke within the next K evaluations, before any improvement
  int nothing = 0;      // K evaluations followed and neither happened
  int pending = 0;      // fewer than K evaluations followed, none improved yet
  std::vector<std::string> campaigns_improved;  // distinct campaigns where an improvement followed
  bool eligible_for_trace = false;              // the promotion rule (docs/question-packs.md)
};

struct CampaignLog {
  std::string name;  // the campaign's folder, for reporting
  std::vector<LogRecord> records;
  double min_improvement = 0.01;  // the campaign's threshold (what counts as an improvement)
};

// Outcomes per question id over all logs, the K evaluations after each ask deciding it.
std::vector<QuestionOutcomes> question_outcomes(const std::vector<CampaignLog>& logs, int within_evaluations);

// The promotion rule: asked at least twice, an improvement after at least half of the asks whose outcome is known,
// in at least two distinct campaigns.
bool eligible_for_trace(const QuestionOutcomes& outcome);

// Questions people asked (`kseek steer`), near-duplicates grouped (word-set similarity), as a draft pack
// (kseek.questions/1, every item `unverified`) for a person to edit and lint.
nlohmann::json harvest_human_questions(const std::vector<CampaignLog>& logs, const std::string& pack_id);

}  // namespace kseek
