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
       {"references",
        {{"computed", 7},
         {"from_cache", 0},
         {"stored", 7},
         {"note", "a store failed"},
         {"cache_store_seconds", {{"staging", 1.5}, {"copy", 0.25}, {"file", 2.0}, {"wipe", 0.5}}}}}},
      {{"scenario", "C"}, {"status", "CRASHED"}, {"stage_seconds", {{"setup", 1.0}}}},  // no references reported
      {{"scenario", "D"},
       {"status", "PASSED"},
       {"references",
        {{"computed", 1},
         {"from_cache", 2},
         {"stored", 1},
         {"cache_store_seconds", {{"staging", 0.5}, {"copy", 0.25}, {"file", 1.0}, {"wipe", 0.25}}},
         {"cache_load_seconds", {{"staging", 0.125}, {"copy", 0.5}, {"file", 0.75}, {"wipe", 0.125}}}}}},
  });
  const RecordStages s = stage_summary({.scenarios = 5.0, .total = 5.0}, outcomes(scenarios));
  ASSERT_TRUE(s.references);
  EXPECT_EQ(s.references->computed, 12);
  EXPECT_EQ(s.references->from_cache, 5);
  EXPECT_EQ(s.references->stored, 9);
  ASSERT_TRUE(s.references->cache_store_seconds && s.references->cache_load_seconds);
  EXPECT_DOUBLE_EQ(s.references->cache_store_seconds->at("staging"), 2.0);
  EXPECT_DOUBLE_EQ(s.references->cache_store_seconds->at("file"), 3.0);
  EXPECT_DOUBLE_EQ(s.references->cache_load_seconds->at("copy"), 0.5);
  EXPECT_DOUBLE_EQ(s.summed_over_scenarios->at("reference_cache"), 0.25);
  const std::string text = render_stage_summary(s);
  EXPECT_NE(text.find("references: 12 computed, 5 from the reference cache (9 stored in it)"), std::string::npos)
      << text;
  // Where the cache's time went, step by step, so a slow store names its bound.
  EXPECT_NE(text.find("reference cache, storing: staging 2.0 s \xC2\xB7 copy 0.5 s \xC2\xB7 file 3.0 s \xC2\xB7 "
                      "wipe 0.8 s"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("reference cache, loading: staging 0.1 s \xC2\xB7 copy 0.5 s \xC2\xB7 file 0.8 s \xC2\xB7 "
                      "wipe 0.1 s\n"),
            std::string::npos)
      << text;
  // Stores written by the worker's background writer (since 2026-12-04) say how long the worker waited for them; the
  // line then tells the waited part from the work done behind other work.
  const json background =
      json::array({{{"scenario", "E"},
                    {"status", "PASSED"},
                    {"stage_seconds", {{"reference_cache", 2.0}}},
                    {"references",
                     {{"computed", 3},
                      {"from_cache", 0},
                      {"stored", 3},
                      {"cache_store_seconds",
                       {{"staging", 0.5}, {"copy", 0.25}, {"file", 4.0}, {"wipe", 0.75}, {"waited", 1.25}}}}}}});
  const std::string background_text = render_stage_summary(stage_summary({}, outcomes(background)));
  EXPECT_NE(background_text.find("reference cache, storing: staging 0.5 s \xC2\xB7 copy 0.2 s \xC2\xB7 waited 1.2 s "
                                 "(in the background: file 4.0 s \xC2\xB7 wipe 0.8 s)\n"),
            std::string::npos)
      << background_text;
  EXPECT_EQ(stage_summary({}, outcomes(json::array({scenarios[0]}))).references->cache_store_seconds, std::nullopt)
      << "no scenario reported store steps: none summed";
  EXPECT_FALSE(stage_summary({}, outcomes(json::array({scenarios[2]}))).references) << "none reported: none summed";
}

TEST(StageSummary, WithoutWorkersPrintsOnlyThePhases) {
  const RecordStages s = stage_summary({.build = 1.0, .total = 1.0}, {});
  const std::string text = render_stage_summary(s);
  EXPECT_EQ(text.find("summed over"), std::string::npos) << text;
}

}  // namespace
}  // namespace kseek
