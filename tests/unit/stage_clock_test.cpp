// StageClock: nested stages are charged exclusively and add up to the elapsed time.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kseek/core/worker/stage_clock.hpp"

namespace kseek {
namespace {

TEST(StageClock, ChargesTheInnermostOpenStageAndSumsToTheElapsedTime) {
  double now = 100.0;
  StageClock clock([&] { return now; });
  now += 1.0;  // before any scope: other
  {
    StageClock::Scope inputs(clock, WorkerStage::kInputs);
    now += 2.0;
    {
      StageClock::Scope checks(clock, WorkerStage::kChecks);  // a fingerprint inside the fill
      now += 0.5;
    }
    now += 3.0;  // back in inputs
  }
  {
    StageClock::Scope timed(clock, WorkerStage::kTimed);
    now += 4.0;
  }
  now += 0.25;
  StageClock::Scope last(clock, WorkerStage::kSeed);  // closes the open interval of "other"
  EXPECT_DOUBLE_EQ(clock.seconds(WorkerStage::kInputs), 5.0);
  EXPECT_DOUBLE_EQ(clock.seconds(WorkerStage::kChecks), 0.5);
  EXPECT_DOUBLE_EQ(clock.seconds(WorkerStage::kTimed), 4.0);
  EXPECT_DOUBLE_EQ(clock.seconds(WorkerStage::kOther), 1.25);
  EXPECT_DOUBLE_EQ(clock.total(), 10.75);
  const nlohmann::json j = clock.to_json();
  EXPECT_EQ(j.size(), static_cast<std::size_t>(WorkerStage::kCount));
  EXPECT_DOUBLE_EQ(j.at("inputs").get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(j.at("references").get<double>(), 0.0);
}

}  // namespace
}  // namespace kseek
