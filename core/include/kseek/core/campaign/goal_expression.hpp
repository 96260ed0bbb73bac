// Campaign goals: a small boolean language (`geomean >= 1.10 and all_passed`) over the latest `kseek.eval/1` record.
// It must never throw, crash or recurse without bound, whatever goal text or evaluation record it is given.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kseek/sdk/result.hpp"

namespace kseek {

// Parentheses and `not` each open one level; a goal nested deeper is rejected by parse_goal.
inline constexpr std::size_t kMaxGoalNesting = 64;

enum class GoalType { kBool, kNumber, kString };
enum class GoalCompare { kLess, kLessEqual, kGreater, kGreaterEqual, kEqual, kNotEqual };
enum class GoalArithmetic { kMultiply, kDivide };

// One node of a parsed goal. Every node's type was checked by parse_goal, so evaluation needs no type errors.
struct GoalNode {
  enum class Kind { kNumber, kString, kBool, kIdentifier, kCall, kNot, kAnd, kOr, kCompare, kProduct };
  Kind kind = Kind::kBool;
  GoalType type = GoalType::kBool;
  double number = 0;                          // kNumber
  bool boolean = false;                       // kBool
  std::string name;                           // kString: the decoded text; kIdentifier, kCall: the name
  GoalCompare compare = GoalCompare::kEqual;  // kCompare
  std::vector<GoalArithmetic> arithmetic;     // kProduct: the operator before operands[i + 1], left to right
  std::vector<std::size_t> operands;  // indices into GoalExpression::nodes; kAnd, kOr, kProduct have two or more
  std::size_t begin = 0;              // byte span in the source, parentheses included when the node was
  std::size_t end = 0;                // written inside them
};

// A parsed, type-checked goal. Build it only with parse_goal.
struct GoalExpression {
  std::string source;
  std::vector<GoalNode> nodes;  // operands come before the nodes that use them
  std::size_t root = 0;
};

// Grammar (docs/goals.md): or  := and {"or" and};  and := cmp {"and" cmp};  cmp := product [op product];
// product := unary {("*" | "/") unary};  unary := "not" unary | primary;
// primary := number | string | true | false | name | name "(" string ")" | "(" or ")".
// Errors read `goal:LINE:COLUMN: problem` (column in characters, 1-based), then the source line and a caret.
Result<GoalExpression> parse_goal(std::string_view text);

// The canonical text of a goal: parse_goal(to_string(g)) has the same tree as g.
std::string to_string(const GoalExpression& goal);

// The line of `text` holding byte `offset` and a caret line under it, each indented two spaces; long lines are
// cut to a window around the caret, marked with "...".
std::string goal_caret_excerpt(std::string_view text, std::size_t offset);

// The two sides of a term that is one comparison of numbers (`tflops("H12") >= 1.5 * tflops("H01")`), as this record
// gave them: how near an unmet term is to its target (goal_closeness), not only whether it holds.
struct GoalTermSides {
  GoalCompare compare = GoalCompare::kGreaterEqual;
  double lhs = 0;
  double rhs = 0;
};

// One operand of the goal's top-level `and` (the whole goal when it has none).
struct GoalTerm {
  std::string source;  // the exact text of the term in the goal, parentheses included
  bool holds = false;
  std::string explanation;  // the record's values behind the verdict, or what the record lacks to decide it
  // Set only when the term is a comparison of numbers and both sides are finite numbers on this record.
  std::optional<GoalTermSides> sides;
  // The scenarios whose timing the term reads (ratio, tflops, gbps, peak_*_percent), by the record's id (its label
  // where it has none), once each in goal order: their intervals are the noise on its sides. A peer's figure is not a
  // scenario's timing and is not listed.
  std::vector<std::string> scenarios_read;
  // The term also reads a figure of the whole record (geomean, min_ratio, passed, all_passed, ...), whose noise is no
  // one scenario's interval.
  bool reads_summary = false;
};

// How near a comparison's sides are to holding, as a fraction of its target: lhs / rhs for `>` and `>=`, rhs / lhs for
// `<` and `<=` (1 or more where it holds). Nothing for `==` and `!=`, which have no direction, or where a side is not a
// positive finite number: a fraction of a zero or negative target says nothing about distance.
std::optional<double> goal_closeness(const GoalTermSides& sides);

struct GoalVerdict {
  bool holds = false;  // every term holds (and there is at least one)
  std::vector<GoalTerm> terms;

  // "source: explanation" for each term that does not hold, in goal order.
  std::vector<std::string> unmet() const;
};

// Evaluates `goal` on an evaluation record; a null record means no evaluation yet. Anything the record lacks
// (a field, a scenario, a finite number) makes the terms that need it unmet, with the reason as explanation.
GoalVerdict evaluate_goal(const GoalExpression& goal, const nlohmann::json& record);

}  // namespace kseek
