// Unit tests of the evidence about questions: what followed each ask within K evaluations, the `trace` promotion
// rule, and the harvest of people's questions into a draft pack. It must never need a campaign folder: logs are built
// record by record, as the store would write them.
#include <gtest/gtest.h>

#include "kseek/core/campaign/question_evidence.hpp"

namespace kseek {
namespace {

using nlohmann::json;

class LogBuilder {
 public:
  LogBuilder& evaluation(bool all_passed, std::optional<double> geomean, double half_width = 0.005) {
    json e = {{"type", "evaluation"}, {"number", ++evaluations_}, {"status", "COMPLETE"}, {"all_passed", all_passed}};
    if (geomean) {
      e["geomean"] = *geomean;
      e["geomean_low"] = *geomean - half_width;
      e["geomean_high"] = *geomean + half_width;
    }
    return add(e);
  }
  LogBuilder& question(const std::string& id, const std::string& source = "bank", const std::string& text = "") {
    return add({{"type", "question"},
                {"id", id},
                {"pack", source == "human" ? "human" : "core"},
                {"event", "stagnation"},
                {"text", text.empty() ? "Question " + id + "?" : text},
                {"source", source}});
  }
  CampaignLog build(const std::string& name) const { return {name, records_, 0.01}; }

 private:
  LogBuilder& add(json value) {
    records_.push_back(log_record(records_.size() + 1, std::move(value)));
    return *this;
  }
  std::vector<LogRecord> records_;
  int evaluations_ = 0;
};

const QuestionOutcomes& find(const std::vector<QuestionOutcomes>& all, const std::string& id) {
  for (const auto& o : all) {
    if (o.id == id) return o;
  }
  throw std::runtime_error("no outcome for " + id);
}

TEST(QuestionEvidence, EachAskIsDecidedByTheNextKEvaluations) {
  const CampaignLog log = LogBuilder()
                              .evaluation(true, 1.00)
                              .question("improves")
                              .evaluation(true, 1.00)  // noise
                              .evaluation(true, 1.05)  // a real gain over the seed: improvement
                              .question("breaks")
                              .evaluation(false, std::nullopt)  // correctness broke first: regression
                              .evaluation(true, 1.20)
                              .question("idle")
                              .evaluation(true, 1.201)  // within the noise of 1.20, twice: nothing
                              .evaluation(true, 1.199)
                              .question("waiting")
                              .evaluation(true, 1.20)  // only one evaluation so far: pending
                              .build("c1");
  const auto outcomes = question_outcomes({log}, 2);
  ASSERT_EQ(outcomes.size(), 4u);
  EXPECT_EQ(find(outcomes, "improves").improvement, 1);
  EXPECT_EQ(find(outcomes, "breaks").regression, 1);
  EXPECT_EQ(find(outcomes, "idle").nothing, 1);
  EXPECT_EQ(find(outcomes, "waiting").pending, 1);
  for (const auto& o : outcomes) EXPECT_EQ(o.asked, 1) << o.id;
  // With K = 1 the gain two evaluations later no longer counts for the first question.
  EXPECT_EQ(find(question_outcomes({log}, 1), "improves").nothing, 1);
}

TEST(QuestionEvidence, TraceNeedsImprovementsInTwoCampaigns) {
  auto campaign = [](const std::string& name) { return LogBuilder().question("q").evaluation(true, 1.10).build(name); };
  const auto one = question_outcomes({campaign("a")}, 3);
  EXPECT_FALSE(find(one, "q").eligible_for_trace) << "asked once, one campaign";
  const auto same_campaign_twice = question_outcomes(
      {LogBuilder().question("q").evaluation(true, 1.10).question("q").evaluation(true, 1.25).build("a")}, 3);
  EXPECT_EQ(find(same_campaign_twice, "q").improvement, 2);
  EXPECT_FALSE(find(same_campaign_twice, "q").eligible_for_trace) << "two asks, but one campaign";
  const auto two = question_outcomes({campaign("a"), campaign("b")}, 3);
  EXPECT_TRUE(find(two, "q").eligible_for_trace);
  const auto mostly_nothing = question_outcomes(
      {campaign("a"), campaign("b"),
       LogBuilder().question("q").evaluation(true, 1.0).evaluation(true, 1.0).evaluation(true, 1.0).build("c"),
       LogBuilder().question("q").evaluation(true, 1.0).evaluation(true, 1.0).evaluation(true, 1.0).build("d"),
       LogBuilder().question("q").evaluation(true, 1.0).evaluation(true, 1.0).evaluation(true, 1.0).build("e")},
      3);
  EXPECT_FALSE(find(mostly_nothing, "q").eligible_for_trace) << "2 improvements in 5 known outcomes is under half";
}

TEST(QuestionEvidence, HarvestGroupsNearDuplicatePeopleQuestionsIntoADraftPack) {
  const CampaignLog a = LogBuilder()
                            .question("steer-1", "human", "Which scenario is furthest from the bandwidth roofline?")
                            .question("core.x", "bank", "A bank question is not harvested?")
                            .build("a");
  const CampaignLog b =
      LogBuilder()
          .question("steer-1", "human", "Which scenario is the furthest from the bandwidth roofline?")
          .question("steer-2", "human", "Was the register count measured before and after the change?")
          .build("b");
  const json pack = harvest_human_questions({a, b}, "people");
  EXPECT_EQ(pack["format"], "kseek.questions/1");
  ASSERT_EQ(pack["items"].size(), 2u) << pack.dump(2);
  EXPECT_EQ(pack["items"][0]["id"], "people-001");
  EXPECT_NE(pack["items"][0]["notes"].get<std::string>().find("asked 2 time(s) in 2 campaign(s)"), std::string::npos);
  EXPECT_NE(pack["items"][0]["notes"].get<std::string>().find("variants:"), std::string::npos);
  EXPECT_EQ(pack["items"][1]["text"], "Was the register count measured before and after the change?");
  for (const auto& item : pack["items"]) EXPECT_EQ(item["provenance"], "unverified");
}

}  // namespace
}  // namespace kseek
