// stage_summary: the scenarios' stage clocks are summed, each worker's unseen time is its wall time less what it
// measured, and the rendering names every stage that took time.
#include <gtest/gtest.h>

#include "kseek/core/eval/stage_summary.hpp"

namespace kseek {
namespace {

using nlohmann::json;

std::vector<ScenarioOutcome> outcomes(const json& list) {
  std::vector<ScenarioOutcome> out;
  for (const auto& r : list) out.push_back(scenario_outcome_from_json(r).value());
  return out;
}

TEST(StageSummary, SumsScenarioStagesAndChargesWorkerProcessOverhead) {
  const json scenarios = json::array({
      {{"scenario", "A"},
       {"status", "PASSED"},
       {"wall_seconds", 10.0},
       {"seconds", {{"total", 8.0}}},
       {"stage_seconds", {{"worker_start", 1.0}, {"references", 5.0}, {"timed", 3.0}, {"timed_kernels", 0.5}}}},
      {{"scenario", "B"},
       {"status", "PASSED"},
       {"wall_seconds", 4.0},
       {"seconds", {{"total", 3.0}}},
       {"stage_seconds", {{"worker_start", 0.25}, {"worker_cleanup", 0.25}, {"references", 1.0}, {"inputs", 2.0}}}},
      {{"scenario", "C"}, {"status", "COMPILE_ERROR"}},  // no worker ran: not counted
  });
  const RecordStages s =
      stage_summary({.build = 2.0, .probe = 0.5, .scenarios = 14.2, .total = 17.0}, outcomes(scenarios));
  EXPECT_EQ(s.scenario_count, 2);
  const StageSeconds& summed = s.summed_over_scenarios.value();
  EXPECT_DOUBLE_EQ(summed.at("references"), 6.0);
  EXPECT_DOUBLE_EQ(summed.at("inputs"), 2.0);
  EXPECT_DOUBLE_EQ(summed.at("worker_start"), 1.25);
  EXPECT_DOUBLE_EQ(summed.at("worker_cleanup"), 0.25);
  // The worker measured its start and its clean-up outside the protocol's total: (10 - 9) + (4 - 3.5).
  EXPECT_DOUBLE_EQ(summed.at("worker_process"), 1.5);
  const std::string text = render_stage_summary(s);
  EXPECT_NE(text.find("17.0 s in all"), std::string::npos) << text;
  EXPECT_NE(text.find("build 2.0 s"), std::string::npos) << text;
  EXPECT_NE(text.find("other 0.3 s"), std::string::npos) << text;  // 17 - 2 - 0.5 - 14.2
  EXPECT_NE(text.find("references 6.0 s"), std::string::npos) << text;
  EXPECT_NE(text.find("timed 3.0 s (kernels 0.5 s)"), std::string::npos) << text;
  EXPECT_LT(text.find("references"), text.find("timed"));  // largest first
}

TEST(StageSummary, SumsTheReferenceCountsOfTheScenariosThatReportThem) {
  const json scenarios = json::array({
      {{"scenario", "A"},
       {"status", "PASSED"},
       {"stage_seconds", {{"references", 1.0}, {"reference_cache", 0.25}}},
       {"references", {{"computed", 4}, {"from_cache", 3}, {"stored", 1}}}},
      {{"scenario", "B"},
       {"status", "PASSED"},
       {"stage_seconds", {{"references", 2.0}}},
       {"references", {{"computed", 7}, {"from_cache", 0}, {"stored", 7}, {"note", "a store failed"}}}},
      {{"scenario", "C"}, {"status", "CRASHED"}, {"stage_seconds", {{"setup", 1.0}}}},  // no references reported
  });
  const RecordStages s = stage_summary({.scenarios = 5.0, .total = 5.0}, outcomes(scenarios));
  ASSERT_TRUE(s.references);
  EXPECT_EQ(s.references->computed, 11);
  EXPECT_EQ(s.references->from_cache, 3);
  EXPECT_EQ(s.references->stored, 8);
  EXPECT_DOUBLE_EQ(s.summed_over_scenarios->at("reference_cache"), 0.25);
  const std::string text = render_stage_summary(s);
  EXPECT_NE(text.find("references: 11 computed, 3 from the reference cache (8 stored in it)"), std::string::npos)
      << text;
  EXPECT_FALSE(stage_summary({}, outcomes(json::array({scenarios[2]}))).references) << "none reported: none summed";
}

TEST(StageSummary, WithoutWorkersPrintsOnlyThePhases) {
  const RecordStages s = stage_summary({.build = 1.0, .total = 1.0}, {});
  const std::string text = render_stage_summary(s);
  EXPECT_EQ(text.find("summed over"), std::string::npos) << text;
}

}  // namespace
}  // namespace kseek
