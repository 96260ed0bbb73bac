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

TEST(StageSummary, WithoutWorkersPrintsOnlyThePhases) {
  const RecordStages s = stage_summary({.build = 1.0, .total = 1.0}, {});
  const std::string text = render_stage_summary(s);
  EXPECT_EQ(text.find("summed over"), std::string::npos) << text;
}

}  // namespace
}  // namespace kseek
