// Unit tests of campaign goal expressions: grammar, types, error columns, and evaluation on inline records.
// It must never read a record from disk: every test shows the exact goal and record fields it checks.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kseek/core/campaign/goal_expression.hpp"

namespace kseek {
namespace {

using nlohmann::json;

json scenario(const std::string& id, const std::string& name, const std::string& status, double ratio, double low,
              double high) {
  return {{"scenario", id},
          {"name", name},
          {"status", status},
          {"timing", {{"ratio", ratio}, {"ci_low", low}, {"ci_high", high}}}};
}

// Four scenarios: three PASSED, H03 FAILED with a (meaningless) timing ratio of 5 that no goal may see.
json make_record() {
  return {
      {"schema", "kseek.eval/1"},
      {"status", "COMPLETE"},
      {"scenarios",
       {scenario("H01", "hq=8,d=64", "PASSED", 1.2, 1.1, 1.3), scenario("H02", "hq=16,d=64", "PASSED", 0.9, 0.85, 0.95),
        scenario("H03", "hq=16,d=128", "FAILED", 5.0, 4.0, 6.0),
        scenario("H04", "hq=32,d=128", "PASSED", 1.5, 1.4, 1.6)}},
      {"summary",
       {{"scenarios", 4},
        {"status_counts", {{"PASSED", 3}, {"FAILED", 1}}},
        {"geomean", {{"value", 1.18}, {"ci_low", 1.05}, {"ci_high", 1.31}, {"scenarios", 3}}}}}};
}

json all_passed_record() {
  json record = make_record();
  record["scenarios"][2]["status"] = "PASSED";
  return record;
}

GoalExpression parse_ok(const std::string& text) {
  auto goal = parse_goal(text);
  EXPECT_TRUE(goal.ok()) << text << "\n" << (goal.ok() ? "" : goal.error().message);
  return goal.ok() ? std::move(goal).value() : GoalExpression{};
}

bool holds(const std::string& text, const json& record = make_record()) {
  return evaluate_goal(parse_ok(text), record).holds;
}

// The whole verdict of a one-term goal, as "holds|explanation".
std::string single_term(const std::string& text, const json& record = make_record()) {
  const GoalVerdict verdict = evaluate_goal(parse_ok(text), record);
  EXPECT_EQ(verdict.terms.size(), 1u) << text;
  if (verdict.terms.empty()) return "";
  return std::string(verdict.terms[0].holds ? "true|" : "false|") + verdict.terms[0].explanation;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

std::string parse_error(const std::string& text) {
  auto goal = parse_goal(text);
  EXPECT_FALSE(goal.ok()) << "parsed but should not: " << text;
  return goal.ok() ? "" : goal.error().message;
}

// ---------------------------------------------------------------------------------------------------------------

TEST(GoalParse, PrecedenceNotOverComparisonOverAndOverOr) {
  // or < and: `true or false and false` is true only if `and` groups first.
  EXPECT_TRUE(holds("true or false and false"));
  EXPECT_FALSE(holds("(true or false) and false"));
  // and < comparison: `1 < 2 and 3 > 4` is well-typed only if comparisons group first.
  EXPECT_FALSE(holds("1 < 2 and 3 > 4"));
  EXPECT_TRUE(holds("1 < 2 or 3 > 4"));
  // not > and: `not true and false` is (not true) and false = false; not (true and false) would be true.
  EXPECT_FALSE(holds("not true and false"));
  EXPECT_TRUE(holds("not (true and false)"));
  // not > comparison: the tree of `not true == false` is Compare(Not(true), false).
  const GoalExpression goal = parse_ok("not true == false");
  ASSERT_FALSE(goal.nodes.empty());
  const GoalNode& root = goal.nodes[goal.root];
  EXPECT_EQ(root.kind, GoalNode::Kind::kCompare);
  ASSERT_EQ(root.operands.size(), 2u);
  EXPECT_EQ(goal.nodes[root.operands[0]].kind, GoalNode::Kind::kNot);

  const GoalExpression mixed = parse_ok("true or false and true or false");
  EXPECT_EQ(mixed.nodes[mixed.root].kind, GoalNode::Kind::kOr);
  EXPECT_EQ(mixed.nodes[mixed.root].operands.size(), 3u);  // a flat chain, not a left-leaning tree
  EXPECT_EQ(mixed.nodes[mixed.nodes[mixed.root].operands[1]].kind, GoalNode::Kind::kAnd);
}

TEST(GoalParse, EveryOperator) {
  EXPECT_TRUE(holds("1 < 2"));
  EXPECT_FALSE(holds("2 < 2"));
  EXPECT_TRUE(holds("2 <= 2"));
  EXPECT_FALSE(holds("2.5 <= 2"));
  EXPECT_TRUE(holds("3 > 2"));
  EXPECT_FALSE(holds("2 > 2"));
  EXPECT_TRUE(holds("2 >= 2"));
  EXPECT_FALSE(holds("1e-3 >= 0.01"));
  EXPECT_TRUE(holds("1e-3 == 0.001"));
  EXPECT_FALSE(holds("1.10 == 1.1000001"));
  EXPECT_TRUE(holds("1.10 != 1.1000001"));
  EXPECT_FALSE(holds("0.95 != 0.95"));
  EXPECT_TRUE(holds("true == true"));
  EXPECT_FALSE(holds("true == false"));
  EXPECT_TRUE(holds("true != false"));
  EXPECT_FALSE(holds("false != false"));
  EXPECT_TRUE(holds("true and true"));
  EXPECT_FALSE(holds("true and false"));
  EXPECT_FALSE(holds("false and true"));
  EXPECT_TRUE(holds("false or true"));
  EXPECT_FALSE(holds("false or false"));
  EXPECT_TRUE(holds("not false"));
  EXPECT_FALSE(holds("not true"));
  EXPECT_TRUE(holds("not not true"));
  EXPECT_TRUE(holds("1E+2 == 100 and 2.5e1 == 25"));
}

TEST(GoalEval, EveryIdentifierAndFunction) {
  EXPECT_EQ(single_term("geomean >= 1.10"), "true|geomean is 1.18");
  EXPECT_EQ(single_term("geomean >= 1.20"), "false|geomean is 1.18");
  EXPECT_EQ(single_term("geomean_low > 1.05"), "false|geomean_low is 1.05");
  EXPECT_EQ(single_term("geomean_high == 1.31"), "true|geomean_high is 1.31");
  EXPECT_EQ(single_term("min_ratio >= 0.9"), "true|min_ratio is 0.9 (H02)");
  // The FAILED H03's ratio of 5 must not count.
  EXPECT_EQ(single_term("max_ratio < 2"), "true|max_ratio is 1.5 (H04)");
  EXPECT_EQ(single_term("passed == 3"), "true|passed is 3");
  EXPECT_EQ(single_term("scenarios == 4"), "true|scenarios is 4");
  EXPECT_EQ(single_term("failed == 0"), "false|failed is 1 (1 of 4 scenarios did not pass (H03 FAILED))");
  EXPECT_EQ(single_term("all_passed"), "false|1 of 4 scenarios did not pass (H03 FAILED)");
  EXPECT_EQ(single_term("all_passed", all_passed_record()), "true|all 4 scenarios passed");
  EXPECT_EQ(single_term("ratio(\"H01\") == 1.2"), "true|ratio(\"H01\") is 1.2");
  EXPECT_EQ(single_term("ratio_low(\"H01\") == 1.1"), "true|ratio_low(\"H01\") is 1.1");
  EXPECT_EQ(single_term("ratio_high(\"H01\") == 1.3"), "true|ratio_high(\"H01\") is 1.3");
  // A scenario by name as well as by id.
  EXPECT_EQ(single_term("ratio(\"hq=32,d=128\") > 1.4"), "true|ratio(\"hq=32,d=128\") is 1.5");
  EXPECT_EQ(single_term("passed(\"H01\")"), "true|H01 is PASSED");
  EXPECT_EQ(single_term("passed(\"H03\")"), "false|H03 is FAILED");
  EXPECT_EQ(single_term("not passed(\"hq=16,d=128\")"), "true|H03 is FAILED");
  // `passed` is a count alone and a predicate with an argument.
  EXPECT_TRUE(holds("passed == 3 and passed(\"H04\")"));
  // A constant term says so.
  EXPECT_EQ(single_term("true"), "true|constant; it does not depend on the record");
}

TEST(GoalEval, AllPassedNeedsACompleteRecordWithScenarios) {
  json record = all_passed_record();
  record["status"] = "NEEDS_GPU";
  EXPECT_EQ(single_term("all_passed", record), "false|the record's status is NEEDS_GPU, not COMPLETE");
  record = all_passed_record();
  record["scenarios"] = json::array();
  EXPECT_EQ(single_term("all_passed", record), "false|the record has no scenarios");
  // More than five failures: five named, the rest counted.
  record = make_record();
  record["scenarios"] = json::array();
  for (int i = 1; i <= 8; ++i) {
    record["scenarios"].push_back(scenario("S" + std::to_string(i), "n",
                                           i == 4   ? "TIMEOUT"
                                           : i == 2 ? "PASSED"
                                                    : "CRASHED",
                                           1, 1, 1));
  }
  EXPECT_EQ(
      single_term("all_passed", record),
      "false|7 of 8 scenarios did not pass (S1 CRASHED, S3 CRASHED, S4 TIMEOUT, S5 CRASHED, S6 CRASHED, and 2 more)");
}

TEST(GoalEval, TopLevelConjunctionSplitsIntoTerms) {
  const std::string text = "all_passed and geomean >= 1.10  and (ratio(\"H01\") > 2 or passed(\"H03\"))";
  const GoalVerdict verdict = evaluate_goal(parse_ok(text), make_record());
  EXPECT_FALSE(verdict.holds);
  ASSERT_EQ(verdict.terms.size(), 3u);
  EXPECT_EQ(verdict.terms[0].source, "all_passed");
  EXPECT_FALSE(verdict.terms[0].holds);
  EXPECT_EQ(verdict.terms[1].source, "geomean >= 1.10");  // exact text: "1.10", not "1.1"
  EXPECT_TRUE(verdict.terms[1].holds);
  EXPECT_EQ(verdict.terms[1].explanation, "geomean is 1.18");
  EXPECT_EQ(verdict.terms[2].source, "(ratio(\"H01\") > 2 or passed(\"H03\"))");
  EXPECT_FALSE(verdict.terms[2].holds);
  EXPECT_EQ(verdict.terms[2].explanation, "ratio(\"H01\") is 1.2; H03 is FAILED");
  EXPECT_EQ(verdict.unmet(), (std::vector<std::string>{
                                 "all_passed: 1 of 4 scenarios did not pass (H03 FAILED)",
                                 "(ratio(\"H01\") > 2 or passed(\"H03\")): ratio(\"H01\") is 1.2; H03 is FAILED"}));

  const GoalVerdict met = evaluate_goal(parse_ok(text), all_passed_record());
  EXPECT_TRUE(met.holds);
  EXPECT_TRUE(met.unmet().empty());

  // A goal without a top-level `and` is one term; a parenthesised conjunction stays one term.
  EXPECT_EQ(evaluate_goal(parse_ok("geomean > 1 or all_passed"), make_record()).terms.size(), 1u);
  const GoalVerdict grouped = evaluate_goal(parse_ok("(all_passed and passed > 1) and true"), make_record());
  ASSERT_EQ(grouped.terms.size(), 2u);
  EXPECT_EQ(grouped.terms[0].source, "(all_passed and passed > 1)");
}

TEST(GoalEval, NoRecordLeavesEveryTermUnmet) {
  const GoalVerdict verdict = evaluate_goal(parse_ok("true and geomean > 1 and not all_passed"), json());
  EXPECT_FALSE(verdict.holds);
  ASSERT_EQ(verdict.terms.size(), 3u);
  for (const auto& term : verdict.terms) {
    EXPECT_FALSE(term.holds) << term.source;  // even the constant: there is nothing to judge yet
    EXPECT_EQ(term.explanation, "no evaluation of the current candidate");
  }
  EXPECT_EQ(verdict.unmet()[1], "geomean > 1: no evaluation of the current candidate");
}

TEST(GoalEval, OddRecordsMakeTermsUnmetWithTheReason) {
  EXPECT_EQ(single_term("true", json::array()), "false|the evaluation record is a array, not a JSON object");
  EXPECT_EQ(single_term("true", json("text")), "false|the evaluation record is a string, not a JSON object");
  json record = make_record();
  record["schema"] = "kseek.eval/2";
  EXPECT_EQ(single_term("true", record), "false|the record's schema is \"kseek.eval/2\", expected \"kseek.eval/1\"");

  record = make_record();
  record.erase("summary");
  const GoalVerdict verdict = evaluate_goal(parse_ok("passed == 3 and geomean >= 1.1"), record);
  ASSERT_EQ(verdict.terms.size(), 2u);
  EXPECT_TRUE(verdict.terms[0].holds);  // what the record has is still judged
  EXPECT_FALSE(verdict.terms[1].holds);
  EXPECT_EQ(verdict.terms[1].explanation, "geomean is unknown: the record has no summary.geomean.value");

  record = make_record();
  record["summary"]["geomean"]["ci_low"] = "1.0";
  EXPECT_EQ(single_term("geomean_low > 1", record),
            "false|geomean_low is unknown: summary.geomean.ci_low is a string, not a number");
  record = make_record();
  record.erase("status");
  EXPECT_EQ(single_term("all_passed", record), "false|all_passed is unknown: the record has no \"status\" string");
  record = make_record();
  record["scenarios"] = 7;
  EXPECT_EQ(single_term("passed > 0", record), "false|passed is unknown: the record has no \"scenarios\" array");
  record = make_record();
  record["scenarios"][1].erase("status");
  EXPECT_EQ(single_term("ratio(\"H01\") > 0", record),
            "false|ratio(\"H01\") is unknown: scenarios[1] has no \"status\" string");
  record = make_record();
  record["scenarios"][0].erase("timing");
  EXPECT_EQ(single_term("ratio_low(\"H01\") > 0", record),
            "false|ratio_low(\"H01\") is unknown: the record has no H01 timing.ci_low");
  EXPECT_EQ(single_term("min_ratio == 0.9", record), "true|min_ratio is 0.9 (H02)");  // H01 has no ratio, skipped
  record["scenarios"] = json::array({scenario("H03", "n", "FAILED", 5, 4, 6)});
  EXPECT_EQ(single_term("max_ratio > 0", record), "false|max_ratio is unknown: no PASSED scenario has a timing ratio");
}

TEST(GoalEval, UnknownOrFailedScenarioIsUnmetEvenBehindOr) {
  EXPECT_EQ(single_term("ratio(\"H99\") > 1"),
            "false|ratio(\"H99\") is unknown: the record has no scenario with id or name \"H99\"");
  // A true operand must not hide a misspelt scenario.
  EXPECT_EQ(single_term("passed(\"H01\") or passed(\"H1\")"),
            "false|passed(\"H1\") is unknown: the record has no scenario with id or name \"H1\"");
  // Nor may `not` turn "unknown" into "met".
  EXPECT_FALSE(holds("not (ratio(\"H99\") < 1)"));
  // A scenario that did not pass has no ratio, whatever its timing object says.
  EXPECT_EQ(single_term("ratio(\"H03\") > 1"), "false|ratio(\"H03\") is unknown: H03 is FAILED, so it has no ratio");
}

TEST(GoalEval, NullOrNaNGeomeanIsUnknown) {
  json record = make_record();
  record["summary"]["geomean"]["value"] = nullptr;  // how a NaN is written to JSON
  EXPECT_EQ(single_term("geomean >= 1", record), "false|geomean is unknown: summary.geomean.value is null");
  EXPECT_FALSE(holds("not (geomean < 1)", record));
  record["summary"]["geomean"]["value"] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(single_term("geomean < 1", record),
            "false|geomean is unknown: summary.geomean.value is not a finite number");
  record["summary"]["geomean"]["value"] = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(holds("geomean > 1", record));
}

// ---------------------------------------------------------------------------------------------------------------

struct ErrorCase {
  std::string text;
  std::string first_line;
};

TEST(GoalParseErrors, PointAtTheColumn) {
  const std::vector<ErrorCase> cases = {
      {"ratio(\"H14\" >= 1.1", "goal:1:13: expected ')' after argument list"},
      {"", "goal:1:1: expected a value, a name or '(', got the end of the goal"},
      {"geomean >= ", "goal:1:12: expected a value, a name or '(', got the end of the goal"},
      {"true and", "goal:1:9: expected a value, a name or '(', got the end of the goal"},
      {"all_passed and geomean", "goal:1:16: 'and' needs true or false on both sides; geomean is a number"},
      {"geomean >= true",
       "goal:1:9: cannot compare a number with true or false: geomean is a number, true is true or false"},
      {"true < false", "goal:1:6: '<' needs numbers on both sides; true or false compare only with == and !="},
      {"(geomean >= 1.1", "goal:1:16: expected ')' to close the '(' at 1:1, got the end of the goal"},
      {"geomean = 1.1", "goal:1:9: '=' is not an operator; compare with '=='"},
      {"all_passed && true", "goal:1:12: '&' is not an operator; combine with 'and'"},
      {"!all_passed", "goal:1:1: '!' is not an operator; negate with 'not'"},
      {"ratio(H14) > 1", "goal:1:7: the scenario goes in double quotes, as in ratio(\"H14\")"},
      {"ratio(\"a\", \"b\") > 1", "goal:1:1: ratio takes 1 argument, a scenario id or name in double quotes; got 2"},
      {"ratio() > 1", "goal:1:1: ratio takes 1 argument, a scenario id or name in double quotes; got 0"},
      {"ratio(,) > 1", "goal:1:7: expected a scenario id or name in double quotes, got ','"},
      {"speedup(\"H1\") > 1",
       "goal:1:1: unknown function 'speedup' (known: ratio, ratio_low, ratio_high, passed, tflops, gbps, "
       "peak_flops_percent, peak_bandwidth_percent, peer)"},
      {"geomean(\"H1\") > 1", "goal:1:1: geomean is not a function; it takes no argument"},
      {"ratio > 1", "goal:1:1: ratio needs a scenario: ratio(\"H14\")"},
      {"passed(\"\")", "goal:1:8: empty scenario id or name"},
      {"passed(\"H1)", "goal:1:8: unterminated string: missing the closing '\"'"},
      {"passed(\"H\\n\")", "goal:1:10: unknown escape in string: only \\\" and \\\\ are allowed"},
      {"1 < 2 < 3", "goal:1:7: comparisons do not chain; write a < b and b < c"},
      {"geomean >= 1.", "goal:1:14: expected a digit after the decimal point"},
      {"geomean >= 1e", "goal:1:14: expected a digit in the exponent"},
      {"geomean >= 1.1x", "goal:1:15: unexpected 'x' right after a number"},
      {"geomean >= .5", "goal:1:12: a number must start with a digit, as in 0.5"},
      {"1e999 > 1", "goal:1:1: number 1e999 is out of range"},
      {"geomean", "goal:1:1: a goal must be true or false, got a number; compare it, as in geomean >= 1.10"},
      {"\"H1\"", "goal:1:1: a goal must be true or false, got a quoted string; compare it, as in geomean >= 1.10"},
      {"\"H1\" == \"H1\"", "goal:1:1: a quoted string can only be a function argument, as in ratio(\"H14\")"},
      {"not geomean >= 1",
       "goal:1:5: 'not' needs true or false, and geomean is a number ('not' binds tighter than comparisons: write "
       "not (a < b))"},
      {"all_passed geomean", "goal:1:12: expected 'and', 'or' or the end of the goal, got 'geomean'"},
      {"geomean >= 1 $", "goal:1:14: unexpected character '$'"},
      {"all_passed and\n  ratio(\"H1\" > 1", "goal:2:14: expected ')' after argument list"},
  };
  for (const auto& c : cases) EXPECT_EQ(first_line(parse_error(c.text)), c.first_line) << "goal text: " << c.text;
  // Unknown identifiers list what is known.
  EXPECT_EQ(first_line(parse_error("geomaen >= 1"))
                .rfind("goal:1:1: unknown identifier 'geomaen' (known: all_passed, "
                       "geomean, geomean_low, geomean_high, min_ratio, max_ratio, "
                       "passed, scenarios, failed; functions: ",
                       0),
            0u);
}

TEST(GoalParseErrors, CaretSitsUnderTheColumn) {
  EXPECT_EQ(parse_error("ratio(\"H14\" >= 1.1"),
            "goal:1:13: expected ')' after argument list\n"
            "  ratio(\"H14\" >= 1.1\n" +
                std::string(2 + 12, ' ') + "^");
  // Only the offending line is shown, on a later line of the goal.
  EXPECT_EQ(parse_error("all_passed and\n  ratio(\"H1\" > 1\n"),
            "goal:2:14: expected ')' after argument list\n"
            "    ratio(\"H1\" > 1\n" +
                std::string(2 + 13, ' ') + "^");
  // Columns count characters: the two-byte 'é' is one column, so the caret stays under the bad byte.
  const std::string message = parse_error("passed(\"é\") and \x01");
  EXPECT_EQ(message, "goal:1:17: unexpected byte 0x01\n  passed(\"é\") and \x01\n" + std::string(2 + 16, ' ') + "^");
  // Tabs are kept in the caret line so it lines up however they are expanded.
  EXPECT_EQ(goal_caret_excerpt("\ttrue and", 9), "  \ttrue and\n  \t" + std::string(8, ' ') + "^");
}

TEST(GoalParseErrors, NestingIsLimited) {
  const auto nested = [](std::size_t levels) { return std::string(levels, '(') + "true" + std::string(levels, ')'); };
  EXPECT_TRUE(holds(nested(kMaxGoalNesting)));
  EXPECT_EQ(first_line(parse_error(nested(kMaxGoalNesting + 1))),
            "goal:1:65: nesting deeper than 64 levels (each '(' and each 'not' opens one)");
  // Far beyond the limit: a clean error, not a stack overflow.
  EXPECT_EQ(first_line(parse_error(std::string(1'000'000, '('))),
            "goal:1:65: nesting deeper than 64 levels (each '(' and each 'not' opens one)");
  std::string nots;
  for (int i = 0; i < 100000; ++i) nots += "not ";
  EXPECT_EQ(first_line(parse_error(nots + "true")),
            "goal:1:257: nesting deeper than 64 levels (each '(' and each 'not' opens one)");
  std::string mixed;
  for (int i = 0; i < 32; ++i) mixed += "not (";
  EXPECT_TRUE(holds(mixed + "true" + std::string(32, ')')));  // 32 nots of true: true
  EXPECT_FALSE(parse_goal("not " + mixed + "false" + std::string(32, ')')).ok());
}

TEST(GoalParseErrors, VeryLongInput) {
  // A long flat conjunction costs no depth: 20000 terms parse, split and evaluate.
  std::string text = "passed(\"H01\")";
  for (int i = 1; i < 20000; ++i) text += i % 2 ? " and geomean >= 1.1" : " and ratio(\"hq=32,d=128\") > 1";
  const GoalVerdict verdict = evaluate_goal(parse_ok(text), make_record());
  EXPECT_TRUE(verdict.holds);
  EXPECT_EQ(verdict.terms.size(), 20000u);
  EXPECT_EQ(verdict.terms[19999].source, "geomean >= 1.1");
  // An error at the end of a very long line shows a window around the caret, not the whole line.
  const std::string bad = text + " and )";
  const std::size_t offset = bad.size() - 1;
  EXPECT_EQ(parse_error(bad), fmt::format("goal:1:{}: expected a value, a name or '(', got ')'\n  ...{}\n{}^",
                                          offset + 1, bad.substr(offset - 60), std::string(2 + 3 + 60, ' ')));
}

TEST(GoalParse, CanonicalTextRoundTrips) {
  const std::vector<std::pair<std::string, std::string>> canon = {
      {"geomean>=1.10 and all_passed", "geomean >= 1.1 and all_passed"},
      {"((true))", "true"},
      {"(true and false) and true", "(true and false) and true"},
      {"true or (false or true)", "true or (false or true)"},
      {"(true or false) and not (1e-3 < 2)", "(true or false) and not (0.001 < 2)"},
      {"not not passed(\"a\\\"b\")", "not not passed(\"a\\\"b\")"},
      {"(not true) == false", "not true == false"},
      {"not (true == false)", "not (true == false)"},
      {"true or false and ratio_low( \"H1\" )>=0.95", "true or false and ratio_low(\"H1\") >= 0.95"},
  };
  for (const auto& [text, expected] : canon) {
    const std::string canonical = to_string(parse_ok(text));
    EXPECT_EQ(canonical, expected) << text;
    EXPECT_EQ(to_string(parse_ok(canonical)), canonical) << "not a fixed point: " << text;
  }
  EXPECT_EQ(to_string(GoalExpression{}), "");
}

// ---------------------------------------------------------------------------------------------------------------
// Rates from a scenario's timing, and arithmetic on numbers

// H01 a prefill, H14 a decode, H03 FAILED with rates no goal may see; the bandwidth peak is the measured copy.
json timed_record() {
  json record = make_record();
  auto add_rates = [](json& s, double tflops, double gbps, double pf, double pb) {
    s["timing"]["candidate_tflops"] = tflops;
    s["timing"]["candidate_gbps"] = gbps;
    s["timing"]["percent_of_peak_flops"] = pf;
    s["timing"]["percent_of_peak_bandwidth"] = pb;
  };
  add_rates(record["scenarios"][0], 252.1, 310.5, 25.5, 7.25);
  record["scenarios"][1]["scenario"] = "H14";
  add_rates(record["scenarios"][1], 8.5, 3870, 0.86, 90.5);
  add_rates(record["scenarios"][2], 900, 900, 91, 91);
  add_rates(record["scenarios"][3], 500, 400, 50.5, 9.5);
  record["environment"]["peaks"] = {{"bytes_per_second", 4.28e12},
                                    {"bytes_source", "measured (device-to-device copy, read + write)"}};
  return record;
}

TEST(GoalEval, RatesAndPercentagesOfPeakComeFromTheTiming) {
  const json record = timed_record();
  EXPECT_EQ(single_term("tflops(\"H01\") >= 250", record), "true|tflops(\"H01\") is 252.1");
  EXPECT_EQ(single_term("tflops(\"H01\") >= 610", record), "false|tflops(\"H01\") is 252.1");
  EXPECT_EQ(single_term("gbps(\"H14\") > 3800", record), "true|gbps(\"H14\") is 3870");
  EXPECT_EQ(single_term("peak_flops_percent(\"H01\") < 26", record), "true|peak_flops_percent(\"H01\") is 25.5");
  EXPECT_EQ(single_term("peak_bandwidth_percent(\"H14\") >= 90", record),
            "true|peak_bandwidth_percent(\"H14\") is 90.5");
  // By name as well as by id.
  EXPECT_EQ(single_term("tflops(\"hq=32,d=128\") == 500", record), "true|tflops(\"hq=32,d=128\") is 500");
  // A scenario that did not pass has no rate, whatever its timing says; not and or cannot turn that into "met".
  EXPECT_EQ(single_term("tflops(\"H03\") > 1", record),
            "false|tflops(\"H03\") is unknown: H03 is FAILED, so it has no timing that counts");
  EXPECT_FALSE(holds("not (peak_bandwidth_percent(\"H03\") < 50)", record));
  EXPECT_FALSE(holds("gbps(\"H03\") > 1 or true", record));
  // No timing at all, or a field the record lacks.
  json bare = timed_record();
  bare["scenarios"][0].erase("timing");
  EXPECT_EQ(single_term("gbps(\"H01\") > 1", bare),
            "false|gbps(\"H01\") is unknown: the record has no H01 timing.candidate_gbps");
  bare["scenarios"][1]["timing"]["candidate_tflops"] = nullptr;
  EXPECT_EQ(single_term("tflops(\"H14\") < 100", bare),
            "false|tflops(\"H14\") is unknown: H14 timing.candidate_tflops is null");
}

TEST(GoalEval, ZeroRateMeansTheRunnerHadNothingToDivideBy) {
  json record = timed_record();
  record["scenarios"][1]["timing"]["percent_of_peak_bandwidth"] = 0;  // no bandwidth peak for this GPU
  EXPECT_EQ(single_term("peak_bandwidth_percent(\"H14\") < 50", record),
            "false|peak_bandwidth_percent(\"H14\") is unknown: H14 timing.percent_of_peak_bandwidth is 0: no bandwidth "
            "peak was known for the GPU");
  record["scenarios"][1]["timing"]["percent_of_peak_flops"] = 0;
  EXPECT_FALSE(holds("peak_flops_percent(\"H14\") < 1", record));
  record["scenarios"][1]["timing"]["candidate_tflops"] = 0;
  EXPECT_EQ(single_term("tflops(\"H14\") < 1", record),
            "false|tflops(\"H14\") is unknown: H14 timing.candidate_tflops is 0: the plugin counts no FLOPs for it");
}

TEST(GoalEval, BandwidthPercentSaysWhenThePeakWasDeclared) {
  json record = timed_record();
  record["environment"]["peaks"]["bytes_source"] = "declared";
  EXPECT_EQ(single_term("peak_bandwidth_percent(\"H14\") >= 90", record),
            "true|peak_bandwidth_percent(\"H14\") is 90.5 (of a declared bandwidth, not a measured copy)");
}

TEST(GoalParse, ProductsBindTighterThanComparisonsAndRunLeftToRight) {
  EXPECT_TRUE(holds("2 * 3 == 6"));
  EXPECT_TRUE(holds("6 / 2 * 3 == 9"));  // (6 / 2) * 3, not 6 / (2 * 3)
  EXPECT_TRUE(holds("6 / (2 * 3) == 1"));
  EXPECT_TRUE(holds("1 < 2 * 3 and 2 * 3 < 7"));
  EXPECT_FALSE(holds("not (2 * 3 > 5)"));
  const GoalExpression goal = parse_ok("tflops(\"H01\") >= 1.5 * tflops(\"H04\") / 2");
  const GoalNode& root = goal.nodes[goal.root];
  ASSERT_EQ(root.kind, GoalNode::Kind::kCompare);
  const GoalNode& right = goal.nodes[root.operands[1]];
  EXPECT_EQ(right.kind, GoalNode::Kind::kProduct);
  EXPECT_EQ(right.operands.size(), 3u);  // a flat chain
  EXPECT_EQ(right.arithmetic, (std::vector<GoalArithmetic>{GoalArithmetic::kMultiply, GoalArithmetic::kDivide}));
}

TEST(GoalEval, ProductsExplainThemselvesAndNeverMakeUnknownMet) {
  const json record = timed_record();
  // fp8 at least 1.5x the bf16 rate of the same shape, both ways of writing it.
  EXPECT_EQ(single_term("tflops(\"H04\") >= 1.5 * tflops(\"H01\")", record),
            "true|tflops(\"H04\") is 500; tflops(\"H01\") is 252.1; 1.5 * tflops(\"H01\") is 378.15");
  EXPECT_EQ(single_term("tflops(\"H04\") / tflops(\"H01\") >= 2", record),
            "false|tflops(\"H04\") is 500; tflops(\"H01\") is 252.1; tflops(\"H04\") / tflops(\"H01\") is 1.98334");
  // A constant threshold shows its value.
  EXPECT_EQ(single_term("tflops(\"H01\") >= 1.10 * 556", record), "false|tflops(\"H01\") is 252.1; 1.1 * 556 is 611.6");
  // Unknown operands stay unknown through products, `not` and `or`.
  EXPECT_EQ(single_term("tflops(\"H04\") >= 1.5 * tflops(\"H03\")", record),
            "false|tflops(\"H03\") is unknown: H03 is FAILED, so it has no timing that counts");
  EXPECT_FALSE(holds("not (tflops(\"H04\") < 1.5 * tflops(\"H03\")) or false", record));
  // Division by zero and overflow are unknown, not infinite.
  EXPECT_EQ(single_term("geomean / 0 > 1", record), "false|geomean / 0 is unknown: it divides by 0");
  EXPECT_EQ(single_term("not (1e300 * 1e300 > 1)", record),
            "false|1e+300 * 1e+300 is unknown: the result is not a finite number");
  EXPECT_FALSE(holds("0 / 0 == 0 or true", record));
  json slow = record;
  slow["scenarios"][0]["timing"]["candidate_tflops"] = 1e-320;  // positive, yet dividing by it overflows
  EXPECT_EQ(single_term("tflops(\"H04\") / tflops(\"H01\") > 1", slow),
            "false|tflops(\"H04\") / tflops(\"H01\") is unknown: the result is not a finite number");
}

TEST(GoalParseErrors, ArithmeticErrorsPointAtTheColumn) {
  const std::vector<ErrorCase> cases = {
      {"geomean * true > 1", "goal:1:11: '*' needs numbers on both sides; true is true or false"},
      {"all_passed / 2 > 1", "goal:1:1: '/' needs numbers on both sides; all_passed is true or false"},
      {"2 * \"H1\" > 1", "goal:1:5: a quoted string can only be a function argument, as in ratio(\"H14\")"},
      {"geomean + 1 > 2", "goal:1:9: '+' is not an operator; a goal multiplies and divides only ('*', '/')"},
      {"geomean >= -1", "goal:1:12: '-' is not an operator; a goal multiplies and divides only ('*', '/')"},
      {"geomean * > 1", "goal:1:11: expected a value, a name or '(', got '>'"},
      {"2 * tflops(\"H01\")",
       "goal:1:1: a goal must be true or false, got a number; compare it, as in geomean >= 1.10"},
      {"tflops > 1", "goal:1:1: tflops needs a scenario: tflops(\"H14\")"},
      {"gbps(H14) > 1", "goal:1:6: the scenario goes in double quotes, as in gbps(\"H14\")"},
      {"not geomean * 2 > 1",
       "goal:1:5: 'not' needs true or false, and geomean is a number ('not' binds tighter than comparisons: write "
       "not (a < b))"},
      {"all_passed and\n  2 ** 3 > 1", "goal:2:6: expected a value, a name or '(', got '*'"},
  };
  for (const auto& c : cases) EXPECT_EQ(first_line(parse_error(c.text)), c.first_line) << "goal text: " << c.text;
}

TEST(GoalParse, CanonicalProductsRoundTrip) {
  const std::vector<std::pair<std::string, std::string>> canon = {
      {"tflops(\"H12\")>=1.5*tflops( \"H01\" )", "tflops(\"H12\") >= 1.5 * tflops(\"H01\")"},
      {"((2)) * 3 == 6", "2 * 3 == 6"},
      {"(2 * 3) / 4 > 1", "(2 * 3) / 4 > 1"},  // a grouped product keeps its parentheses: the tree is not flat
      {"2 * (3 / 4) > 1", "2 * (3 / 4) > 1"},
      {"not ((1.10 * 556) < geomean)", "not (1.1 * 556 < geomean)"},
      {"(1 * 2 > 1) == true", "(1 * 2 > 1) == true"},
  };
  for (const auto& [text, expected] : canon) {
    const std::string canonical = to_string(parse_ok(text));
    EXPECT_EQ(canonical, expected) << text;
    EXPECT_EQ(to_string(parse_ok(canonical)), canonical) << "not a fixed point: " << text;
  }
  // A long product is one flat node: 20000 factors parse and evaluate without depth.
  std::string text = "1";
  for (int i = 0; i < 20000; ++i) text += i % 2 ? " / 2" : " * 2";
  EXPECT_TRUE(holds(text + " == 1"));
}

TEST(GoalEval, DefaultExpressionIsUnmetNotACrash) {
  const GoalVerdict verdict = evaluate_goal(GoalExpression{}, make_record());
  EXPECT_FALSE(verdict.holds);
  ASSERT_EQ(verdict.terms.size(), 1u);
  EXPECT_EQ(verdict.terms[0].explanation, "the goal was not parsed");
}

}  // namespace
}  // namespace kseek

namespace kseek {
namespace {

json peer_record() {
  json record = timed_record();
  record["peer_figures"] = {
      {"command", {"python3", "peers.py"}},
      {"seconds", 58.3},
      {"about", {{"gpu", "NVIDIA H200"}}},
      {"scenarios", {{"H01", {{"cudnn_tflops", 611.0}, {"fa2_tflops", 333.9}}}, {"H04", {{"cudnn_tflops", 400.0}}}}}};
  return record;
}

TEST(GoalEval, PeerFiguresOfTheSameRunSetTheThreshold) {
  const json record = peer_record();
  EXPECT_EQ(single_term("tflops(\"H04\") >= 1.10 * peer(\"H04\", \"cudnn_tflops\")", record),
            "true|tflops(\"H04\") is 500; peer(\"H04\", \"cudnn_tflops\") is 400; 1.1 * peer(\"H04\", "
            "\"cudnn_tflops\") is 440");
  EXPECT_EQ(single_term("tflops(\"H01\") >= peer(\"H01\", \"cudnn_tflops\")", record),
            "false|tflops(\"H01\") is 252.1; peer(\"H01\", \"cudnn_tflops\") is 611");
  // A scenario's name finds the peer row the command wrote under its id.
  EXPECT_TRUE(holds("peer(\"hq=8,d=64\", \"fa2_tflops\") > 300", record));
}

TEST(GoalEval, AMissingOrFailedPeerFigureIsUnknownAndSaysWhy) {
  json record = peer_record();
  EXPECT_EQ(single_term("tflops(\"H01\") >= peer(\"H01\", \"flash3_tflops\")", record),
            "false|peer(\"H01\", \"flash3_tflops\") is unknown: the peer command gave H01 no figure "
            "\"flash3_tflops\" (it gave: cudnn_tflops, fa2_tflops)");
  EXPECT_EQ(single_term("tflops(\"H14\") >= peer(\"H14\", \"cudnn_tflops\")", record),
            "false|peer(\"H14\", \"cudnn_tflops\") is unknown: the peer command measured no scenario \"H14\"");
  EXPECT_FALSE(holds("not (tflops(\"H14\") < peer(\"H14\", \"cudnn_tflops\"))", record));
  record["peer_figures"]["error"] = "the peer command exited with code 1 (its last line: no GPU)";
  record["peer_figures"]["scenarios"] = json::object();
  EXPECT_EQ(single_term("tflops(\"H04\") >= peer(\"H04\", \"cudnn_tflops\")", record),
            "false|peer(\"H04\", \"cudnn_tflops\") is unknown: the peer command failed: the peer command exited with "
            "code 1 (its last line: no GPU)");
  EXPECT_EQ(single_term("tflops(\"H04\") >= peer(\"H04\", \"cudnn_tflops\")", timed_record()),
            "false|peer(\"H04\", \"cudnn_tflops\") is unknown: the record has no peer figures (campaign.json names no "
            "peer_figures command, or the evaluation did not reach a GPU)");
}

// The campaign engine tells an unmet term's move toward its target from noise with these: the sides of a comparison
// of numbers, its closeness, and the scenarios whose intervals are its noise.
TEST(GoalEval, AComparisonOfNumbersKeepsItsSidesAndTheScenariosItReads) {
  auto term = [](const std::string& text, const json& record) {
    const GoalVerdict verdict = evaluate_goal(parse_ok(text), record);
    EXPECT_EQ(verdict.terms.size(), 1u) << text;
    return verdict.terms.empty() ? GoalTerm{} : verdict.terms[0];
  };
  const GoalTerm fp8 = term("tflops(\"H04\") >= 1.5 * tflops(\"H01\")", timed_record());
  ASSERT_TRUE(fp8.sides.has_value());
  EXPECT_EQ(fp8.sides->compare, GoalCompare::kGreaterEqual);
  EXPECT_DOUBLE_EQ(fp8.sides->lhs, 500);
  EXPECT_DOUBLE_EQ(fp8.sides->rhs, 1.5 * 252.1);
  EXPECT_DOUBLE_EQ(goal_closeness(*fp8.sides).value_or(0), 500 / (1.5 * 252.1));
  EXPECT_EQ(fp8.scenarios_read, (std::vector<std::string>{"H04", "H01"}));
  EXPECT_FALSE(fp8.reads_summary);

  // A peer's figure is no scenario's timing; a scenario named by its name is listed by its id.
  const GoalTerm peer = term("tflops(\"hq=8,d=64\") >= 1.10 * peer(\"H01\", \"cudnn_tflops\")", peer_record());
  ASSERT_TRUE(peer.sides.has_value());
  EXPECT_DOUBLE_EQ(peer.sides->rhs, 1.10 * 611.0);
  EXPECT_EQ(peer.scenarios_read, (std::vector<std::string>{"H01"}));
  EXPECT_FALSE(peer.reads_summary);

  // `<` and `<=` are near their target as the target over the value; the same scenario read twice is listed once.
  const GoalTerm below = term("peak_bandwidth_percent(\"H14\") < 50 * gbps(\"H14\") / gbps(\"H14\")", timed_record());
  ASSERT_TRUE(below.sides.has_value());
  EXPECT_DOUBLE_EQ(goal_closeness(*below.sides).value_or(0), 50 / 90.5);
  EXPECT_EQ(below.scenarios_read, (std::vector<std::string>{"H14"}));

  // A figure of the whole record is marked as such.
  const GoalTerm geomean = term("geomean >= 1.5 * ratio(\"H01\")", timed_record());
  ASSERT_TRUE(geomean.sides.has_value());
  EXPECT_TRUE(geomean.reads_summary);
  EXPECT_EQ(geomean.scenarios_read, (std::vector<std::string>{"H01"}));

  // No sides: a side the record lacks, a term that is not one comparison, a comparison of true or false.
  EXPECT_FALSE(term("tflops(\"H03\") > 1", timed_record()).sides.has_value());
  EXPECT_FALSE(term("not (tflops(\"H01\") < 1)", timed_record()).sides.has_value());
  EXPECT_FALSE(term("tflops(\"H01\") > 1 or gbps(\"H01\") > 1", timed_record()).sides.has_value());
  EXPECT_FALSE(term("passed(\"H01\") == true", timed_record()).sides.has_value());
  EXPECT_FALSE(term("tflops(\"H01\") > 1", json()).sides.has_value()) << "no record, no sides";
  // Parentheses around the whole term keep it one comparison.
  EXPECT_TRUE(term("(tflops(\"H01\") > 1)", timed_record()).sides.has_value());
}

TEST(GoalEval, ClosenessNeedsADirectionAndPositiveSides) {
  EXPECT_DOUBLE_EQ(goal_closeness({GoalCompare::kGreater, 3, 4}).value_or(0), 0.75);
  EXPECT_DOUBLE_EQ(goal_closeness({GoalCompare::kLessEqual, 4, 3}).value_or(0), 0.75);
  EXPECT_DOUBLE_EQ(goal_closeness({GoalCompare::kGreaterEqual, 6, 4}).value_or(0), 1.5) << "a met term is 1 or more";
  EXPECT_FALSE(goal_closeness({GoalCompare::kEqual, 4, 4}).has_value());
  EXPECT_FALSE(goal_closeness({GoalCompare::kNotEqual, 3, 4}).has_value());
  EXPECT_FALSE(goal_closeness({GoalCompare::kGreaterEqual, 3, 0}).has_value());
  EXPECT_FALSE(goal_closeness({GoalCompare::kLess, 0, 4}).has_value());
  EXPECT_FALSE(goal_closeness({GoalCompare::kGreater, -3, 4}).has_value());
  EXPECT_FALSE(goal_closeness({GoalCompare::kGreater, 1e300, 1e-300}).has_value()) << "overflow is no closeness";
  EXPECT_FALSE(goal_closeness({GoalCompare::kGreater, std::numeric_limits<double>::quiet_NaN(), 4}).has_value());
}

TEST(GoalParse, PeerTakesAScenarioAndAFigureInQuotes) {
  EXPECT_EQ(to_string(parse_ok("tflops(\"H01\") >= 1.1 * peer(\"H01\", \"cudnn_tflops\")")),
            "tflops(\"H01\") >= 1.1 * peer(\"H01\", \"cudnn_tflops\")");
  EXPECT_EQ(first_line(parse_error("peer(\"H01\") > 1")),
            "goal:1:1: peer takes 2 arguments, a scenario and a figure in double quotes, as in peer(\"H01\", "
            "\"cudnn_tflops\"); got 1");
  EXPECT_EQ(first_line(parse_error("peer(\"H01\", cudnn) > 1")),
            "goal:1:13: the figure goes in double quotes, as in peer(\"H01\", \"cudnn\")");
  EXPECT_EQ(first_line(parse_error("peer(\"H01\", \"\") > 1")), "goal:1:13: empty figure name");
  EXPECT_EQ(first_line(parse_error("tflops(\"H01\", \"x\") > 1")),
            "goal:1:1: tflops takes 1 argument, a scenario id or name in double quotes; got 2");
}

}  // namespace
}  // namespace kseek
