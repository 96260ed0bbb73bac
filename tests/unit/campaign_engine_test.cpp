// Unit tests of the campaign store and engine: a scripted campaign from synthetic records fires each event exactly
// when it should and never twice; questions rotate; the gate refuses stale, foreign and altered evidence.
// It must never depend on a GPU: every record is synthetic and goes through the real store.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/campaign/campaign_engine.hpp"
#include "kseek/core/campaign/record_log.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/sha256.hpp"
#include "support/campaign_fixture.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;
using testing::CampaignFixture;
using testing::SyntheticScenario;
using Clock = std::chrono::system_clock;

std::vector<SyntheticScenario> passing(double ratio) {
  return {{"S01", "PASSED", ratio}, {"S02", "PASSED", ratio}, {"S03", "PASSED", ratio}};
}

// Logs whatever the engine says is pending now and returns the names, in order.
std::vector<std::string> step(const Campaign& campaign, Clock::time_point now = Clock::now()) {
  auto log = campaign.read_log();
  EXPECT_TRUE(log.ok());
  std::vector<std::string> names;
  for (const auto& e : pending_events(campaign.config(), log->records, now)) {
    names.push_back(e.name);
    EXPECT_TRUE(campaign.append("event", {{"event", e.name}, {"detail", e.detail}, {"evaluation", e.evaluation}}).ok());
  }
  return names;
}

using Names = std::vector<std::string>;

TEST(CampaignEngine, ScriptedCampaignFiresEachEventExactlyWhenItShould) {
  CampaignFixture f(testing::synthetic_config());
  const Campaign c = f.open();
  EXPECT_EQ(step(c), Names{"start"});
  EXPECT_EQ(step(c), Names{}) << "start must not fire twice";

  f.evaluate(passing(1.00), 1.00);  // A/A: no gain over the seed
  EXPECT_EQ(step(c), Names{});
  f.evaluate(passing(1.05), 1.05);  // a real improvement: 1.05 >= 1.01 and its interval clears 1.0
  EXPECT_EQ(step(c), Names{});
  f.evaluate(passing(1.055), 1.055);  // within the minimum gain of the best: one without progress
  EXPECT_EQ(step(c), Names{});
  f.evaluate(passing(1.05), 1.05);  // two
  EXPECT_EQ(step(c), Names{});
  const auto fifth = f.evaluate(passing(1.052), 1.052);  // three: stagnation
  EXPECT_EQ(step(c), Names{"stagnation"});
  EXPECT_EQ(step(c), Names{}) << "the same evaluation must not raise stagnation twice";

  f.evaluate({{"S01"}, {"S02"}, {"S03", "FAILED"}}, std::nullopt);  // a correctness break after passing
  EXPECT_EQ(step(c), Names{"correctness-regression"});
  f.evaluate({{"S01"}, {"S02"}, {"S03", "FAILED"}}, std::nullopt);  // still broken: not a new regression
  EXPECT_EQ(step(c), Names{});

  f.evaluate(passing(1.70), 1.70);  // 1.70 > 1.5 x best (1.05): questioned
  EXPECT_EQ(step(c), Names{"suspicious-win"});

  f.evaluate({{"S01"}, {"S02", "MISTRUSTED"}, {"S03"}}, std::nullopt);  // below the physics floor
  EXPECT_EQ(step(c), Names{"suspicious-win"}) << "a physics-floor hit is suspicious, not a regression";

  auto log = c.read_log();
  ASSERT_TRUE(log.ok());
  int stagnation_events = 0;
  for (const auto& r : log->records) {
    if (r.value.value("event", "") == "stagnation") {
      ++stagnation_events;
      EXPECT_EQ(r.value.value("evaluation", 0), fifth.number);
    }
  }
  EXPECT_EQ(stagnation_events, 1);
}

TEST(CampaignEngine, ASingleScenarioJumpIsQuestionedThoughTheGeomeanMovesLittle) {
  CampaignFixture f(testing::synthetic_config());
  const Campaign c = f.open();
  EXPECT_EQ(step(c), Names{"start"});
  f.evaluate(passing(1.0), 1.0);
  EXPECT_EQ(step(c), Names{});
  // A new path takes S02 only: 1.6x there, the geomean 1.17 (below 1.5 x the best).
  f.evaluate({{"S01", "PASSED", 1.0}, {"S02", "PASSED", 1.6}, {"S03", "PASSED", 1.0}}, 1.17);
  EXPECT_EQ(step(c), Names{"suspicious-win"});
  auto log = c.read_log();
  ASSERT_TRUE(log.ok());
  std::string detail;
  for (const auto& r : log->records) {
    if (r.value.value("event", "") == "suspicious-win") detail = r.value.value("detail", "");
  }
  EXPECT_NE(detail.find("S02 1.60x"), std::string::npos) << detail;
  EXPECT_EQ(detail.find("S01"), std::string::npos) << detail;
  // The same scenario holding its gain is not a new jump; another 1.2x on top of 1.6 is not one either.
  f.evaluate({{"S01", "PASSED", 1.0}, {"S02", "PASSED", 1.9}, {"S03", "PASSED", 1.0}}, 1.24);
  EXPECT_EQ(step(c), Names{});
}

TEST(CampaignEngine, AGoalTermMetForTheFirstTimeIsProgressThoughTheGeomeanMovesLessThanTheNoise) {
  CampaignConfig config = testing::synthetic_config();
  config.goal = "all_passed and geomean >= 1.5 and ratio(\"S01\") >= 1.2";
  CampaignFixture f(config);
  const Campaign c = f.open();
  EXPECT_EQ(step(c), Names{"start"});
  f.evaluate(passing(1.05), 1.05);  // a real improvement: the best is 1.05
  EXPECT_EQ(step(c), Names{});
  f.evaluate(passing(1.052), 1.052);  // one without progress
  EXPECT_EQ(step(c), Names{});
  f.evaluate(passing(1.05), 1.05);  // two
  EXPECT_EQ(step(c), Names{});
  // Three timed evaluations since the best, but S01 now meets its term (1.25 >= 1.2) while the geomean gains 0.6 %:
  // progress, so no stagnation.
  const auto met = f.evaluate({{"S01", "PASSED", 1.25}, {"S02", "PASSED", 1.0}, {"S03", "PASSED", 1.0}}, 1.056);
  EXPECT_EQ(met.goal_terms_met, (std::vector<std::string>{"all_passed", "ratio(\"S01\") >= 1.2"}));
  EXPECT_EQ(step(c), Names{});
  const auto later = Clock::now() + std::chrono::minutes(30);
  EXPECT_EQ(step(c, later), Names{}) << "the time window restarts at the progress";
  // The same term held again is not new: three more bring the event.
  const std::vector<SyntheticScenario> held = {{"S01", "PASSED", 1.25}, {"S02", "PASSED", 1.0}, {"S03", "PASSED", 1.0}};
  f.evaluate(held, 1.056);
  EXPECT_EQ(step(c), Names{});
  f.evaluate(held, 1.056);
  EXPECT_EQ(step(c), Names{});
  f.evaluate(held, 1.056);
  EXPECT_EQ(step(c), Names{"stagnation"});
  // A new term met while the geomean falls by more than the noise (1 %) is not progress.
  CampaignFixture g(config);
  const Campaign d = g.open();
  EXPECT_EQ(step(d), Names{"start"});
  g.evaluate(passing(1.30), 1.30);
  g.evaluate(passing(1.30), 1.30);
  g.evaluate(passing(1.30), 1.30);
  EXPECT_EQ(step(d), Names{});
  g.evaluate({{"S01", "PASSED", 1.25}, {"S02", "PASSED", 1.0}, {"S03", "PASSED", 1.0}}, 1.08);
  EXPECT_EQ(step(d), Names{"stagnation"});
}

// Progress on an unmet goal term: `ratio("S01") >= 1.5 * ratio("S02")` reads two scenarios, so its noise on each
// evaluation is the sum of their relative half-widths. S03 holds the geomean still.
CampaignConfig two_scenario_term_config() {
  CampaignConfig config = testing::synthetic_config();
  config.goal = "all_passed and geomean >= 2.0 and ratio(\"S01\") >= 1.5 * ratio(\"S02\")";
  return config;
}
constexpr const char* kTwoScenarioTerm = "ratio(\"S01\") >= 1.5 * ratio(\"S02\")";

std::vector<SyntheticScenario> rows(double s01, double s02, double half_width) {
  return {{"S01", "PASSED", s01, half_width}, {"S02", "PASSED", s02, half_width}, {"S03", "PASSED", 1.0, half_width}};
}

// The best (1.05, an improvement) and two evaluations without progress, the term at 1.0 / 1.5 = 0.67 of its target.
void two_without_progress(CampaignFixture& f, const Campaign& c, double half_width = 0.005) {
  EXPECT_EQ(step(c), Names{"start"});
  for (int i = 0; i < 3; ++i) {
    f.evaluate(rows(1.0, 1.0, half_width), 1.05);
    EXPECT_EQ(step(c), Names{});
  }
}

std::string last_detail(const Campaign& c, const std::string& event) {
  auto log = c.read_log();
  EXPECT_TRUE(log.ok());
  std::string detail;
  for (const auto& r : log->records) {
    if (r.value.value("event", "") == event) detail = r.value.value("detail", "");
  }
  return detail;
}

TEST(CampaignProgress, AnUnmetTermMovedBeyondTheNoiseIsProgressAndRestartsTheCount) {
  CampaignFixture f(two_scenario_term_config());
  const Campaign c = f.open();
  two_without_progress(f, c);
  // S01 1.0 -> 1.1: the term moves 0.67 -> 0.73 of its target (+10 %), past min_improvement (1 %) and past the noise
  // of both evaluations (0.005/1.1 + 0.005/1.0 now, 0.005 + 0.005 before: about 2 %); the geomean moves 0.5 %.
  const auto moved = f.evaluate(rows(1.1, 1.0, 0.005), 1.055);
  ASSERT_FALSE(moved.goal_term_values.empty());
  const auto logged = std::find_if(moved.goal_term_values.begin(), moved.goal_term_values.end(),
                                   [](const LoggedTermValue& v) { return v.term == kTwoScenarioTerm; });
  ASSERT_NE(logged, moved.goal_term_values.end());
  EXPECT_NEAR(logged->closeness, 1.1 / 1.5, 1e-12);
  EXPECT_EQ(logged->scenarios, (std::vector<std::string>{"S01", "S02"}));
  EXPECT_FALSE(logged->reads_summary);
  EXPECT_EQ(step(c), Names{}) << "the third timed evaluation since the best moved an unmet term: no stagnation";

  const CampaignStatus status = campaign_status(c, *c.read_log());
  const std::string expected =
      fmt::format("evaluation {} moved {} from 0.67 to 0.73 of its target", moved.number, kTwoScenarioTerm);
  EXPECT_EQ(status.last_progress.evaluation, moved.number);
  EXPECT_EQ(status.last_progress.what, expected);
  EXPECT_EQ(status.last_progress.timed_evaluations_since, 0);
  EXPECT_EQ(to_json(status)["last_progress"]["what"], expected);

  // The count restarts there: three more evaluations holding the same value bring the event, which names the move.
  f.evaluate(rows(1.1, 1.0, 0.005), 1.055);
  EXPECT_EQ(step(c), Names{});
  f.evaluate(rows(1.1, 1.0, 0.005), 1.055);
  EXPECT_EQ(step(c), Names{});
  f.evaluate(rows(1.1, 1.0, 0.005), 1.055);
  EXPECT_EQ(step(c), Names{"stagnation"});
  const std::string detail = last_detail(c, "stagnation");
  EXPECT_NE(detail.find("; last progress: " + expected), std::string::npos) << detail;
  EXPECT_NE(detail.find("best geomean 1.0500, evaluation 1"), std::string::npos) << detail;
}

TEST(CampaignProgress, AMoveWithinTheNoiseIsNotProgress) {
  CampaignFixture f(two_scenario_term_config());
  const Campaign c = f.open();
  two_without_progress(f, c, 0.05);
  // The same +10 % move, but each scenario's interval is +-5 %: the noise of both evaluations is about 19 %.
  f.evaluate(rows(1.1, 1.0, 0.05), 1.055);
  EXPECT_EQ(step(c), Names{"stagnation"});
  EXPECT_EQ(last_detail(c, "stagnation").find("last progress"), std::string::npos);
}

TEST(CampaignProgress, AMoveSmallerThanTheMinimumImprovementIsNotProgress) {
  CampaignFixture f(two_scenario_term_config());
  const Campaign c = f.open();
  two_without_progress(f, c, 0.0001);
  // +0.8 %: far beyond its noise (about 0.04 %), but below min_improvement (1 %).
  f.evaluate(rows(1.008, 1.0, 0.0001), 1.05);
  EXPECT_EQ(step(c), Names{"stagnation"});
}

TEST(CampaignProgress, AMoveOfATermAlreadyMetIsNotProgress) {
  CampaignFixture f(two_scenario_term_config());
  const Campaign c = f.open();
  EXPECT_EQ(step(c), Names{"start"});
  // The term is met from the first evaluation on (1.0 >= 1.5 x 0.6), which is also the best.
  for (int i = 0; i < 3; ++i) {
    f.evaluate(rows(1.0, 0.6, 0.005), 1.05);
    EXPECT_EQ(step(c), Names{});
  }
  // +15 % further past its target is no longer a move toward it.
  f.evaluate(rows(1.15, 0.6, 0.005), 1.055);
  EXPECT_EQ(step(c), Names{"stagnation"});
}

TEST(CampaignProgress, ALogLineWithoutTheNoiseDataNeverCountsAMoveAndNeverFails) {
  // An older kseek logged neither the terms' values nor (earlier still) the scenarios' intervals.
  auto old_line = [](int number, double s01, bool intervals, nlohmann::json term_values) {
    nlohmann::json scenarios = nlohmann::json::array();
    const std::vector<std::pair<std::string, double>> ratios = {{"S01", s01}, {"S02", 1.0}, {"S03", 1.0}};
    for (const auto& [id, ratio] : ratios) {
      nlohmann::json row = {{"id", id}, {"status", "PASSED"}, {"ratio", ratio}};
      if (intervals) {
        row["ci_low"] = ratio - 0.005;
        row["ci_high"] = ratio + 0.005;
      }
      scenarios.push_back(row);
    }
    nlohmann::json line = {{"number", number},       {"status", "COMPLETE"},
                           {"all_passed", true},     {"geomean", 1.05},
                           {"geomean_low", 1.04},    {"geomean_high", 1.06},
                           {"scenarios", scenarios}, {"goal_terms_met", nlohmann::json::array({"all_passed"})}};
    if (!term_values.is_null()) line["goal_term_values"] = std::move(term_values);
    return line;
  };
  {
    // Three lines from before kseek logged term values, then a line of today's with a +10 % move: no earlier value.
    CampaignFixture f(two_scenario_term_config());
    const Campaign c = f.open();
    EXPECT_EQ(step(c), Names{"start"});
    for (int n = 1; n <= 3; ++n) ASSERT_TRUE(c.append("evaluation", old_line(n, 1.0, true, nullptr)).ok());
    EXPECT_EQ(step(c), Names{});
    f.evaluate(rows(1.1, 1.0, 0.005), 1.055);
    EXPECT_EQ(step(c), Names{"stagnation"});
  }
  {
    // Term values but no intervals, then lines whose values are malformed in every way a reader can meet.
    CampaignFixture f(two_scenario_term_config());
    const Campaign c = f.open();
    EXPECT_EQ(step(c), Names{"start"});
    auto value = [](double closeness) {
      return nlohmann::json::array({{{"term", kTwoScenarioTerm},
                                     {"closeness", closeness},
                                     {"scenarios", {"S01", "S02"}},
                                     {"reads_summary", false}}});
    };
    ASSERT_TRUE(c.append("evaluation", old_line(1, 1.0, false, value(1.0 / 1.5))).ok());
    ASSERT_TRUE(c.append("evaluation", old_line(2, 1.0, false, value(1.0 / 1.5))).ok());
    ASSERT_TRUE(c.append("evaluation", old_line(3, 1.0, false, value(1.0 / 1.5))).ok());
    EXPECT_EQ(step(c), Names{});
    ASSERT_TRUE(c.append("evaluation", old_line(4, 1.3, false, value(1.3 / 1.5))).ok());
    EXPECT_EQ(step(c), Names{"stagnation"}) << "a +30 % move with no interval to judge it by is not counted";
    const nlohmann::json malformed = nlohmann::json::array(
        {"not an object",
         {{"term", kTwoScenarioTerm}, {"closeness", "0.9"}, {"scenarios", {"S01", "S02"}}},
         {{"term", kTwoScenarioTerm}, {"closeness", -1.0}, {"scenarios", {"S01", "S02"}}},
         {{"term", kTwoScenarioTerm}, {"closeness", 0.95}, {"scenarios", "S01"}},
         {{"term", kTwoScenarioTerm}, {"closeness", 0.97}, {"scenarios", {"S01", 2}}},  // no reads_summary: assumed
         {{"closeness", 0.99}, {"scenarios", {"S01"}}, {"reads_summary", false}}});
    ASSERT_TRUE(c.append("evaluation", old_line(5, 1.4, true, malformed)).ok());
    ASSERT_TRUE(c.append("evaluation", old_line(6, 1.4, true, "not an array")).ok());
    EXPECT_EQ(step(c), Names{});
    ASSERT_TRUE(c.append("evaluation", old_line(7, 1.5, true, value(1.5 / 1.5 - 0.01))).ok());
    // Evaluation 5's 0.97 is the term's best earlier value, and its line does not say whether the term reads a figure
    // of the whole record: no noise, so even +2 % beyond this line's own noise (0.8 %) does not count.
    EXPECT_EQ(step(c), Names{"stagnation"});
    auto log = c.read_log();
    ASSERT_TRUE(log.ok());
    EXPECT_EQ(campaign_status(c, *log).last_progress.what, "evaluation 1 set the best geomean 1.0500");
  }
}

TEST(CampaignProgress, AGeomeanLostBeyondTheMinimumImprovementVetoesATermMove) {
  CampaignFixture f(two_scenario_term_config());
  const Campaign c = f.open();
  two_without_progress(f, c);
  // The same +10 % move as in the first test, while the geomean falls 1.05 -> 1.03 (-1.9 %, beyond the 1 % allowed).
  f.evaluate(rows(1.1, 1.0, 0.005), 1.03);
  EXPECT_EQ(step(c), Names{"stagnation"});
  // Within 1 % of the best it counts.
  CampaignFixture g(two_scenario_term_config());
  const Campaign d = g.open();
  two_without_progress(g, d);
  g.evaluate(rows(1.1, 1.0, 0.005), 1.041);
  EXPECT_EQ(step(d), Names{});
}

TEST(CampaignEngine, StagnationByTimeFiresOncePerWindow) {
  CampaignFixture f(testing::synthetic_config());
  const Campaign c = f.open();
  EXPECT_EQ(step(c), Names{"start"});
  f.evaluate(passing(1.0), 1.0);
  EXPECT_EQ(step(c), Names{});
  const auto later = Clock::now() + std::chrono::minutes(61);
  EXPECT_EQ(step(c, later), Names{"stagnation"});
  EXPECT_EQ(step(c, later + std::chrono::minutes(10)), Names{}) << "once per 60-minute window";
  EXPECT_EQ(step(c, later + std::chrono::minutes(62)), Names{"stagnation"});
}

LogRecord record_at(std::size_t line, std::string type, Clock::time_point t, nlohmann::json fields = {}) {
  fields["type"] = std::move(type);
  fields["time"] = utc_timestamp(t);
  return log_record(line, std::move(fields));
}

TEST(CampaignEngine, WorkingTimeLeavesOutTheGapsThatEndWhereAnAgentSessionStarts) {
  using std::chrono::minutes;
  const auto t0 = Clock::now() - std::chrono::hours(20);
  const nlohmann::json startup = {{"hook", "session-start"}, {"session_id", "b"}, {"session_source", "startup"}};
  const std::vector<LogRecord> log = {
      record_at(1, "hook", t0 - minutes(60), startup),  // before `since`: ignored
      record_at(2, "evaluation", t0),
      record_at(3, "question", t0 + minutes(30)),
      record_at(4, "hook", t0 + minutes(570), startup),
      record_at(5, "hook", t0 + minutes(575), {{"hook", "post-tool"}, {"session_id", "b"}}),
      record_at(6, "hook", t0 + minutes(900), startup),  // past `now`: ignored
  };
  const WorkingTime w = working_time(log, t0, t0 + minutes(590));
  EXPECT_NEAR(w.counted_minutes, 30.0 + 5.0 + 15.0, 0.05);
  EXPECT_NEAR(w.between_sessions_minutes, 540.0, 0.05);
  // Without session starts the wall clock stays.
  const WorkingTime plain = working_time({log[1], log[2], log[4]}, t0, t0 + minutes(590));
  EXPECT_NEAR(plain.counted_minutes, 590.0, 0.05);
  EXPECT_EQ(plain.between_sessions_minutes, 0.0);
  // A compaction or a clear inside a session, or a session start whose host named no source, ends no break.
  for (const char* source : {"compact", "clear", ""}) {
    nlohmann::json inside = {{"hook", "session-start"}, {"session_id", "b"}};
    if (*source != '\0') inside["session_source"] = source;
    const WorkingTime w2 =
        working_time({log[1], log[2], record_at(4, "hook", t0 + minutes(570), inside)}, t0, t0 + minutes(590));
    EXPECT_NEAR(w2.counted_minutes, 590.0, 0.05) << "source '" << source << "'";
  }
  // Records are taken in time order: a session start logged after a record whose clock ran ahead still ends the break.
  const WorkingTime skewed = working_time({log[1], log[2], log[4], log[3]}, t0, t0 + minutes(590));
  EXPECT_NEAR(skewed.counted_minutes, 50.0, 0.05);
  EXPECT_NEAR(skewed.between_sessions_minutes, 540.0, 0.05);
}

TEST(CampaignEngine, StagnationByTimeCountsNoTimeBetweenAgentSessions) {
  CampaignFixture f(testing::synthetic_config());
  const Campaign c = f.open();
  EXPECT_EQ(step(c), Names{"start"});
  f.evaluate(passing(1.0), 1.0);
  EXPECT_EQ(step(c), Names{});
  auto log = c.read_log();
  ASSERT_TRUE(log.ok());
  const auto next_session = Clock::now() + std::chrono::hours(9);
  auto records = log->records;
  records.push_back(record_at(
      records.size() + 1, "hook", next_session,
      {{"hook", "session-start"}, {"session_id", "next"}, {"decision", "inject"}, {"session_source", "startup"}}));
  auto names = [&](const std::vector<LogRecord>& r, Clock::time_point now) {
    Names out;
    for (const auto& e : pending_events(c.config(), r, now)) out.push_back(e.name);
    return out;
  };
  EXPECT_EQ(names(records, next_session + std::chrono::minutes(10)), Names{})
      << "nine hours between sessions are not an hour without progress";
  const auto events = pending_events(c.config(), records, next_session + std::chrono::minutes(61));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].name, "stagnation");
  EXPECT_NE(events[0].detail.find("between agent sessions not counted"), std::string::npos) << events[0].detail;
  EXPECT_EQ(names(log->records, next_session + std::chrono::minutes(10)), Names{"stagnation"})
      << "without a session record the wall clock counts, as before";
}

QuestionPack pack(std::string id, std::optional<std::string> arch, std::vector<Question> items) {
  QuestionPack p;
  p.id = std::move(id);
  p.version = "1";
  p.architecture = std::move(arch);
  p.items = std::move(items);
  return p;
}

Question item(std::string id, std::vector<std::string> triggers, bool other = false) {
  Question q;
  q.id = id;
  q.text = "Question " + id + "?";
  q.triggers = std::move(triggers);
  q.intent = "measure";
  q.requires_other_implementation = other;
  q.provenance = "unverified";
  return q;
}

// Selects a question for `event` `times` times, logging each as asked; the ids in order (short when none fits).
std::vector<std::string> ask_in_turn(const Campaign& c, const std::vector<QuestionPack>& packs,
                                     const std::string& event, int times) {
  std::vector<std::string> asked;
  for (int i = 0; i < times; ++i) {
    auto log = c.read_log();
    auto q = select_question(packs, c.config(), event, log->records);
    if (!q) break;
    asked.push_back(q->id);
    EXPECT_TRUE(c.append("question",
                         {{"event", event}, {"id", q->id}, {"pack", q->pack}, {"text", q->text}, {"source", q->source}})
                    .ok());
  }
  return asked;
}

TEST(CampaignEngine, AQuestionTheRecordAnswersIsAskedOnlyWhenNothingElseFits) {
  CampaignFixture f(testing::synthetic_config());
  const Campaign c = f.open();
  Question by_record = item("w1", {"suspicious-win"});
  by_record.answered_by_record = true;
  const std::vector<QuestionPack> packs = {
      pack("core", std::nullopt, {by_record, item("w2", {"suspicious-win"}), item("w3", {"suspicious-win"})})};
  // w1 comes first in the pack and was never asked, yet w2 and w3 take turns: its answer is in every record.
  EXPECT_EQ(ask_in_turn(c, packs, "suspicious-win", 4), (std::vector<std::string>{"w2", "w3", "w2", "w3"}));
  const std::vector<QuestionPack> alone = {pack("core", std::nullopt, {by_record, item("s1", {"stagnation"})})};
  auto log = c.read_log();
  auto q = select_question(alone, c.config(), "suspicious-win", log->records);
  ASSERT_TRUE(q.has_value()) << "with nothing else for the event it is still asked";
  EXPECT_EQ(q->id, "w1");
}

TEST(CampaignEngine, QuestionsRotateLeastRecentlyAskedNeverTheLastAndFilterByArchAndPeer) {
  CampaignFixture f(testing::synthetic_config());
  const Campaign c = f.open();
  const std::vector<QuestionPack> packs = {
      pack("core", std::nullopt,
           {item("q1", {"start"}), item("q2", {"start", "stagnation"}), item("q3", {"stagnation"}, true)}),
      pack("hopper", "sm_90", {item("h1", {"start"})}), pack("blackwell", "sm_100", {item("b1", {"start"})})};
  EXPECT_EQ(ask_in_turn(c, packs, "start", 4), (std::vector<std::string>{"q1", "q2", "h1", "q1"}))
      << "b1 is for another architecture";

  auto log = c.read_log();
  auto stagnation = select_question(packs, c.config(), "stagnation", log->records);
  ASSERT_TRUE(stagnation.has_value());
  EXPECT_EQ(stagnation->id, "q2") << "q3 needs another implementation, and none is declared";
  // q2 was the last question asked: with q3 out of reach nothing else fits, so nothing is asked.
  ASSERT_TRUE(c.append("question", {{"event", "stagnation"}, {"id", "q2"}, {"source", "bank"}}).ok());
  log = c.read_log();
  EXPECT_FALSE(select_question(packs, c.config(), "stagnation", log->records).has_value());
  CampaignConfig with_peer = c.config();
  with_peer.peer = "upstream FA3";
  auto q3 = select_question(packs, with_peer, "stagnation", log->records);
  ASSERT_TRUE(q3.has_value());
  EXPECT_EQ(q3->id, "q3");

  CampaignConfig control = c.config();
  control.questions = false;
  EXPECT_FALSE(select_question(packs, control, "start", log->records).has_value()) << "a control campaign asks nothing";
}

Question tagged(std::string id, std::vector<std::string> topics) {
  Question q = item(std::move(id), {"limit-claim"});
  q.topics = std::move(topics);
  return q;
}

TEST(CampaignEngine, AClaimIsQuestionedOnTheTopicItsWordsName) {
  CampaignFixture f(testing::synthetic_config());
  const Campaign c = f.open();
  // In pack order a general question comes first; without a claim topic it is the one asked, as before.
  Question stagnation_bw = tagged("s_bw", {"bandwidth"});
  stagnation_bw.triggers = {"stagnation", "completion-claim"};
  Question stagnation_num = tagged("s_num", {"numerics"});
  stagnation_num.triggers = {"stagnation", "completion-claim"};
  const std::vector<QuestionPack> packs = {
      pack("core", std::nullopt,
           {item("any", {"limit-claim"}), tagged("bw", {"bandwidth"}), tagged("tc", {"compute"}),
            tagged("num", {"numerics"}), stagnation_bw, stagnation_num})};
  const auto ask = [&](const std::string& claim) {
    EXPECT_TRUE(c.append("claim", {{"kind", "limit"}, {"text", claim}, {"source", "cli"}}).ok());
    auto log = c.read_log();
    auto q = select_question(packs, c.config(), "limit-claim", log->records);
    return q ? q->id : std::string("none");
  };
  // fa3-h200, session 15: the claim was about the fp8 accumulator's error, and got an instruction-count question. It
  // names compute once (wgmma) and numerics twice: the numerics question comes first though "tc" is earlier in the
  // pack.
  EXPECT_EQ(ask("fp8 S = Q K^T on Hopper's e4m3 wgmma cannot pass this set's correctness rule: max error 0.77 against "
                "0.126 allowed; the fp8 accumulator off by up to 0.45 logits"),
            "num");
  EXPECT_EQ(ask("The wgmma issue rate bounds it, whatever the accumulator does"), "tc")
      << "compute named twice, numerics once";
  EXPECT_EQ(ask("Decode is at 95 % of the HBM bandwidth: this is the limit"), "bw");
  EXPECT_EQ(ask("This is as fast as it gets"), "any") << "no topic named: the order of the pack";
  // A claim naming a topic no question has gets the questions for any claim before those about other topics.
  EXPECT_EQ(ask("Occupancy is the limit: two CTAs per SM"), "any");
  // A numerics claim, then other events: stagnation does not read it (pack order: s_bw), and once the claim has had
  // its question, a completion-claim event with no claim of its own (a plain stop) does not inherit its words.
  EXPECT_EQ(ask("The rounding of the fp8 accumulator is the limit"), "num");
  auto log = c.read_log();
  auto stagnation = select_question(packs, c.config(), "stagnation", log->records);
  ASSERT_TRUE(stagnation.has_value());
  EXPECT_EQ(stagnation->id, "s_bw");
  auto unclaimed = select_question(packs, c.config(), "completion-claim", log->records);
  ASSERT_TRUE(unclaimed.has_value());
  EXPECT_EQ(unclaimed->id, "s_num") << "with the claim still unanswered its words choose";
  ASSERT_TRUE(c.append("question", {{"event", "limit-claim"}, {"id", "num"}, {"source", "bank"}}).ok());
  log = c.read_log();
  unclaimed = select_question(packs, c.config(), "completion-claim", log->records);
  ASSERT_TRUE(unclaimed.has_value());
  EXPECT_EQ(unclaimed->id, "s_bw") << "an answered claim's words chose it";
}

TEST(CampaignEngine, AHumanQuestionGoesFirstAndOnlyOnce) {
  CampaignFixture f(testing::synthetic_config());
  const Campaign c = f.open();
  const std::vector<QuestionPack> packs = {pack("core", std::nullopt, {item("q1", {"stagnation"})})};
  ASSERT_TRUE(c.append("steer", {{"text", "Where does the time go in the decode shapes?"}, {"steer_id", 1}}).ok());
  auto log = c.read_log();
  auto q = select_question(packs, c.config(), "stagnation", log->records);
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->source, "human");
  EXPECT_EQ(q->text, "Where does the time go in the decode shapes?");
  ASSERT_TRUE(
      c.append("question", {{"event", "stagnation"}, {"id", q->id}, {"source", "human"}, {"steer_id", 1}}).ok());
  log = c.read_log();
  q = select_question(packs, c.config(), "stagnation", log->records);
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->id, "q1");
}

TEST(CampaignEngine, TwoSteersQueuedAreDeliveredOneAfterTheOther) {
  CampaignFixture f(testing::synthetic_config());
  const Campaign c = f.open();
  ASSERT_TRUE(c.append("steer", {{"text", "first"}, {"steer_id", 1}}).ok());
  ASSERT_TRUE(c.append("steer", {{"text", "second"}, {"steer_id", 2}}).ok());
  EXPECT_EQ(pending_steers(c.read_log()->records).size(), 2u);
  ASSERT_TRUE(c.append("question", {{"event", "start"}, {"id", "steer-1"}, {"source", "human"}, {"steer_id", 1}}).ok());
  // One delivered, one still waiting: the post-tool hook and select_question both see the second.
  const auto waiting = pending_steers(c.read_log()->records);
  ASSERT_EQ(waiting.size(), 1u);
  EXPECT_EQ(waiting.begin()->second, "second");
}

TEST(CampaignGate, NeedsEvidenceForTheCurrentCandidateThatNobodyAltered) {
  CampaignFixture f(testing::synthetic_config());
  Campaign c = f.open();
  auto gate = [&] {
    auto log = c.read_log();
    return compute_gate(c, *log);
  };
  GateResult g = gate();
  EXPECT_FALSE(g.holds);
  EXPECT_NE(g.evidence_problem.find("no completed evaluation"), std::string::npos) << g.evidence_problem;

  f.evaluate(passing(1.02), 1.02);
  g = gate();
  EXPECT_FALSE(g.holds);
  EXPECT_TRUE(g.evidence_problem.empty()) << g.evidence_problem;
  ASSERT_EQ(g.terms.size(), 2u);
  EXPECT_TRUE(g.terms[0].holds);
  EXPECT_FALSE(g.terms[1].holds);

  const auto good = f.evaluate(passing(1.12), 1.12);
  g = gate();
  EXPECT_TRUE(g.holds) << (g.unmet().empty() ? "" : g.unmet().front());
  EXPECT_EQ(g.evaluation, good.number);

  // The candidate changes: the evidence belongs to another candidate.
  f.edit_candidate("// candidate v2\n");
  g = gate();
  EXPECT_FALSE(g.holds);
  EXPECT_NE(g.evidence_problem.find("no completed evaluation of the current candidate"), std::string::npos);

  // Back to v1 bytes, written after the evaluation (a checkout, a copy to the GPU machine): the same bytes are the
  // same candidate, and its evaluation is evidence whatever the file's time.
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  f.edit_candidate("// candidate v1\n");
  const auto now = fs::file_time_type::clock::now();
  fs::last_write_time(f.dir() / "candidate.cu", now + std::chrono::seconds(30));
  g = gate();
  EXPECT_TRUE(g.holds) << g.evidence_problem;
  EXPECT_EQ(g.evaluation, good.number);

  // An edited record file is not evidence (H8).
  const fs::path record = c.state_dir() / good.record_file;
  auto text = read_file(record);
  ASSERT_TRUE(text.ok());
  std::string forged = *text;
  forged.replace(forged.find("1.12"), 4, "1.99");
  ASSERT_TRUE(write_file_atomically(record, forged).ok());
  g = gate();
  EXPECT_FALSE(g.holds);
  EXPECT_NE(g.evidence_problem.find("changed after kseek wrote it"), std::string::npos) << g.evidence_problem;
}

TEST(CampaignGate, AShardOrAFunctionalRunIsNotEvidenceEvenWhenSigned) {
  for (const char* kind : {"shard", "functional"}) {
    CampaignFixture f(testing::synthetic_config());
    nlohmann::json record = testing::synthetic_record(f.candidate(), passing(1.2), 1.2);
    if (std::string_view(kind) == "shard") {
      record["shard"] = {{"index", 0}, {"count", 2}};
    } else {
      record["settings"]["functional_arch"] = "sm_90a";
    }
    Campaign c = f.open();
    ASSERT_TRUE(c.record_evaluation(record).ok());
    const GateResult g = compute_gate(c, *c.read_log());
    EXPECT_FALSE(g.holds) << kind;
    EXPECT_NE(g.evidence_problem.find("does not cover the campaign's selection"), std::string::npos)
        << kind << ": " << g.evidence_problem;
  }
}

TEST(CampaignEvents, AnUnsignedEventLineCannotCloseAnEvent) {
  CampaignFixture f(testing::synthetic_config());
  Campaign c = f.open();
  auto open_events = [&] {
    auto log = c.read_log();
    return pending_events(c.config(), log->records, Clock::now());
  };
  ASSERT_FALSE(open_events().empty()) << "the start event is open";
  // An agent logs the start event itself, with a right checksum and no signature, to silence the question.
  ASSERT_TRUE(
      append_record(
          c.log_path(),
          {{"type", "event"}, {"time", utc_timestamp()}, {"event", "start"}, {"evaluation", 0}, {"detail", "forged"}})
          .ok());
  const auto events = open_events();
  EXPECT_TRUE(std::any_of(events.begin(), events.end(), [](const auto& e) { return e.name == "start"; }))
      << "an unsigned event line was taken as kseek's";
}

TEST(CampaignGate, ALineWithARightChecksumButNoSignatureIsNotEvidence) {
  CampaignFixture f(testing::synthetic_config());
  Campaign c = f.open();
  // An agent can compute sha256: it writes a record file and a log line whose checksums are right.
  f.edit_candidate("// candidate v3, never evaluated\n");
  const auto forged_record = testing::synthetic_record(f.candidate(), {{"S01", "PASSED", 1.5}}, 1.5);
  const std::string text = forged_record.dump(1) + "\n";
  ASSERT_TRUE(write_file_atomically(c.state_dir() / "evaluations" / "0099.json", text).ok());
  ASSERT_TRUE(append_record(c.log_path(), {{"type", "evaluation"},
                                           {"time", utc_timestamp()},
                                           {"number", 99},
                                           {"candidate_sha256", sha256_hex(f.candidate())},
                                           {"record_file", "evaluations/0099.json"},
                                           {"record_sha256", sha256_hex(text)},
                                           {"status", "COMPLETE"},
                                           {"all_passed", true},
                                           {"geomean", 1.5}})
                  .ok());
  ASSERT_TRUE(read_records(c.log_path())->damaged.empty()) << "the forged line has a valid checksum";
  // The campaign reads it as what it is: a line kseek did not write, reported and never used as a record.
  auto log = c.read_log();
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(log->damaged.size(), 1u);
  EXPECT_EQ(log->damaged[0].reason, kNotSignedReason);
  for (const auto& r : log->records) EXPECT_NE(r.value.value("number", 0), 99) << "the forged evaluation was read";
  const GateResult g = compute_gate(c, *log);
  EXPECT_FALSE(g.holds);
  EXPECT_NE(g.evidence_problem.find("kseek did not sign"), std::string::npos) << g.evidence_problem;

  // The same goes for a forged config record that would bless an edited campaign.json.
  auto config_text = read_file(f.dir() / "campaign.json");
  std::string edited = *config_text;
  edited.replace(edited.find("geomean >= 1.10"), 15, "geomean >= 0.10");
  ASSERT_TRUE(write_file_atomically(f.dir() / "campaign.json", edited).ok());
  ASSERT_TRUE(append_record(c.log_path(),
                            {{"type", "config"}, {"time", utc_timestamp()}, {"config_sha256", sha256_hex(edited)}})
                  .ok());
  auto reopened = Campaign::open(f.dir());
  ASSERT_FALSE(reopened.ok());
  EXPECT_NE(reopened.error().message.find("was changed outside kseek"), std::string::npos) << reopened.error().message;
}

TEST(CampaignStore, ConcurrentEvaluationsGetTheirOwnNumbersAndALeftoverFileIsNeverReplaced) {
  CampaignFixture f(testing::synthetic_config());
  // A record file a crashed attempt left behind, with no log entry: its number is skipped, its bytes kept.
  const fs::path leftover = f.open().state_dir() / "evaluations" / "0001.json";
  ASSERT_TRUE(write_file_atomically(leftover, "{\"crashed\": true}\n").ok());

  constexpr int kWriters = 6;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto c = Campaign::open(f.dir());
      const bool ok =
          c && c->record_evaluation(testing::synthetic_record(f.candidate(), passing(1.0 + w / 100.0), 1.0 + w / 100.0))
                   .ok();
      ::_exit(ok ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }

  Campaign c = f.open();
  auto log = c.read_log();
  ASSERT_TRUE(log.ok());
  std::set<int> numbers;
  for (const auto& r : log->records) {
    auto e = evaluation_of(r);
    if (!e) continue;
    EXPECT_TRUE(numbers.insert(e->number).second) << "number " << e->number << " given twice";
    EXPECT_NE(e->number, 1) << "the leftover's number was reused";
    EXPECT_TRUE(c.load_evaluation(*e).ok()) << "evaluation " << e->number << "'s record does not match its log entry";
  }
  EXPECT_EQ(numbers.size(), static_cast<std::size_t>(kWriters));
  EXPECT_EQ(*read_file(leftover), "{\"crashed\": true}\n");
}

TEST(CampaignStore, RefusesAnEditedConfigAndAnExistingCampaign) {
  CampaignFixture f(testing::synthetic_config());
  auto text = read_file(f.dir() / "campaign.json");
  ASSERT_TRUE(text.ok());
  std::string edited = *text;
  edited.replace(edited.find("geomean >= 1.10"), 15, "geomean >= 0.10");
  ASSERT_TRUE(write_file_atomically(f.dir() / "campaign.json", edited).ok());
  auto opened = Campaign::open(f.dir());
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.error().message.find("was changed outside kseek"), std::string::npos) << opened.error().message;
  ASSERT_TRUE(write_file_atomically(f.dir() / "campaign.json", *text).ok());
  EXPECT_TRUE(Campaign::open(f.dir()).ok());

  auto again = Campaign::create(f.dir(), testing::synthetic_config(), "x", "y");
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().message.find("already holds a campaign"), std::string::npos);
}

TEST(CampaignStore, ConfigParserNamesTheKeyThatIsWrong) {
  const auto good = to_json(testing::synthetic_config()).dump();
  EXPECT_TRUE(parse_campaign_config(good, "campaign.json").ok());
  struct Case {
    std::string patch_key;
    nlohmann::json value;
    std::string expected;
  };
  for (const Case& k :
       std::vector<Case>{{"questions", "yes", "'questions': must be true or false"},
                         {"candidate", "../escape.cu", "'candidate': must be a plain file name"},
                         {"goalz", "x", "'goalz': unknown key"},
                         {"thresholds", {{"stagnation_evaluations", -1}}, "'thresholds.stagnation_evaluations'"},
                         {"plugin", 7, "'plugin': must be a string"},
                         {"plugin_dirs", {"build/plugins"}, "'plugin_dirs': 'build/plugins' must be an absolute path"},
                         {"pack_files", {"packs/x.json"}, "'pack_files': 'packs/x.json' must be an absolute path"},
                         {"peer_figures", {{"command", nlohmann::json::array()}}, "'peer_figures.command': must name"},
                         {"peer_figures",
                          {{"command", {"python3", "peers.py"}}, {"timeout_seconds", 0}},
                          "'peer_figures.timeout_seconds': must be a positive number"},
                         {"peer_figures", {{"command", {"python3"}}, {"shell", true}}, "shell"},
                         {"peer_figures", {{"command", "python3 peers.py"}}, "peer_figures.command"}}) {
    auto j = nlohmann::json::parse(good);
    j[k.patch_key] = k.value;
    auto parsed = parse_campaign_config(j.dump(), "campaign.json");
    ASSERT_FALSE(parsed.ok()) << k.patch_key;
    EXPECT_NE(parsed.error().message.find(k.expected), std::string::npos) << parsed.error().message;
  }
  // Recorded folders and pack files round-trip.
  auto config = testing::synthetic_config();
  config.plugin_dirs = {"/opt/plugins"};
  config.pack_files = {"/home/me/packs/team.json"};
  auto round = parse_campaign_config(to_json(config).dump(), "campaign.json");
  ASSERT_TRUE(round.ok()) << round.error().message;
  EXPECT_EQ(round->plugin_dirs, config.plugin_dirs);
  EXPECT_EQ(round->pack_files, config.pack_files);
  EXPECT_FALSE(round->peer_figures);
  config.peer_figures = PeerFiguresCommand{{"python3", "peers.py"}, 300.0};
  round = parse_campaign_config(to_json(config).dump(), "campaign.json");
  ASSERT_TRUE(round.ok()) << round.error().message;
  ASSERT_TRUE(round->peer_figures);
  EXPECT_EQ(round->peer_figures->command, config.peer_figures->command);
  EXPECT_EQ(round->peer_figures->timeout_seconds, 300.0);
  auto broken = parse_campaign_config("{\n  \"format\": ", "campaign.json");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().message.find("campaign.json:2:"), std::string::npos) << broken.error().message;
}

// The `kseek status --json` document (and the MCP status tool's) is CampaignStatus's to_json: these keys, no more.
TEST(CampaignStatusDocument, ItsKeysAreTheTypesFieldsAndItsValuesComeFromTheLog) {
  CampaignFixture f(testing::synthetic_config());
  f.evaluate(passing(1.00), 1.00);
  f.evaluate(passing(1.05), 1.05);
  Campaign c = f.open();
  const kseek::CampaignStatus status = campaign_status(c, *c.read_log());
  EXPECT_EQ(status.evaluations, 2);
  ASSERT_TRUE(status.latest.has_value());
  EXPECT_EQ(status.latest->evaluation, 2);
  ASSERT_TRUE(status.latest->geomean.has_value());
  EXPECT_DOUBLE_EQ(*status.latest->geomean, 1.05);
  ASSERT_EQ(status.trend.size(), 2u);
  EXPECT_EQ(status.record_counts.at("evaluation"), 2);

  const nlohmann::json document = to_json(status);
  std::set<std::string> keys;
  for (const auto& [key, value] : document.items()) keys.insert(key);
  const std::set<std::string> expected = {
      "campaign",     "plugin",      "set",           "goal",          "questions",
      "evaluations",  "best",        "latest",        "trend",         "timed_evaluations_since_best",
      "gate",         "open_events", "record_counts", "damaged_lines", "signatures",
      "last_progress"};
  EXPECT_EQ(keys, expected);
  EXPECT_EQ(document["latest"]["geomean"], 1.05);
  EXPECT_EQ(document["trend"][0]["evaluation"], 1);
  EXPECT_EQ(document["gate"]["unmet"].size(), status.gate.unmet.size());
  EXPECT_EQ(document["signatures"]["verified"], status.signatures.verified);
}

}  // namespace
}  // namespace kseek
