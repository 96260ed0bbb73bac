// Fuzz target: parse_goal and evaluate_goal on goal text, optionally a NUL byte and a JSON evaluation record.
// It must never crash, throw or recurse; canonical text is a fixed point with the same verdict; no record, no term met.
#include <string>

#include "kseek/core/campaign/goal_expression.hpp"
#include "support/fuzz_target.hpp"

namespace kseek::fuzz {

int fuzz_goal_expression(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = as_text(data, size);
  const std::size_t split = input.find('\0');
  const std::string_view text = input.substr(0, split);
  nlohmann::json record;  // null: no evaluation yet
  if (split != std::string_view::npos) {
    record = nlohmann::json::parse(input.substr(split + 1), nullptr, /*allow_exceptions=*/false);
    if (record.is_discarded()) record = nullptr;
  }
  (void)goal_caret_excerpt(text, text.size() / 2);
  const auto goal = parse_goal(text);
  if (!goal) {
    if (goal.error().message.rfind("goal:", 0) != 0) violated("goal_expression", "error without goal:LINE:COLUMN");
    return 0;
  }
  const std::string canonical = to_string(*goal);
  const auto again = parse_goal(canonical);
  if (!again) violated("goal_expression", "the canonical text of a parsed goal does not parse");
  if (to_string(*again) != canonical) violated("goal_expression", "the canonical text is not a fixed point");
  const GoalVerdict verdict = evaluate_goal(*goal, record);
  if (verdict.holds && verdict.terms.empty()) violated("goal_expression", "a goal holds with no term");
  for (const auto& term : verdict.terms) {
    if (verdict.holds && !term.holds) violated("goal_expression", "the goal holds but one of its terms does not");
    if (record.is_null() && term.holds) violated("goal_expression", "a term holds with no evaluation");
  }
  // The canonical text keeps every grouping that changes a value (products round by their grouping), so it must
  // reach the same verdict, term by term, as the text it came from.
  const GoalVerdict canonical_verdict = evaluate_goal(*again, record);
  if (canonical_verdict.holds != verdict.holds || canonical_verdict.terms.size() != verdict.terms.size()) {
    violated("goal_expression", "the canonical text reaches another verdict");
  }
  for (std::size_t i = 0; i < verdict.terms.size() && i < canonical_verdict.terms.size(); ++i) {
    if (canonical_verdict.terms[i].holds != verdict.terms[i].holds) {
      violated("goal_expression", "a term of the canonical text reaches another verdict");
    }
  }
  (void)verdict.unmet();
  return 0;
}

}  // namespace kseek::fuzz

KSEEK_FUZZ_ENTRY(fuzz_goal_expression)
