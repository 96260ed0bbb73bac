// The campaign use cases of the application layer (kseek/core/app): each verb returns a typed outcome or an error, and
// each outcome has one document, the one the CLI prints with --json and the MCP tool returns.
// It must never need a GPU or a plugin: the campaigns are synthetic and ask no questions (no pack is loaded).
#include <gtest/gtest.h>

#include "kseek/core/app/campaign_use_cases.hpp"
#include "kseek/core/campaign/campaign.hpp"
#include "support/campaign_fixture.hpp"
#include "support/temp_folder.hpp"

namespace kseek {
namespace {

using nlohmann::json;
using testing::CampaignFixture;

CampaignConfig without_questions() {
  CampaignConfig config = testing::synthetic_config();
  config.questions = false;
  return config;
}

std::vector<json> logged(const CampaignFixture& f, const std::string& type) {
  auto log = f.open().read_log();
  EXPECT_TRUE(log) << log.error().message;
  std::vector<json> lines;
  for (const auto& r : log->records) {
    if (r.value.value("type", "") == type) lines.push_back(r.value);
  }
  return lines;
}

TEST(CampaignUseCases, TheGateIsAnOutcomeNotAnExitCodeAndIsLoggedWithItsCaller) {
  CampaignFixture f(without_questions());
  auto unmet = app::campaign_gate(f.dir(), "test");
  ASSERT_TRUE(unmet) << unmet.error().message;
  EXPECT_FALSE(unmet->gate.holds);
  EXPECT_EQ(unmet->goal, "all_passed and geomean >= 1.10");
  const json document = app::to_json(*unmet);
  EXPECT_EQ(document["status"], "UNMET");
  EXPECT_FALSE(document["unmet"].empty());

  f.evaluate({{"S01", "PASSED", 1.2}, {"S02", "PASSED", 1.2}}, 1.2);
  auto met = app::campaign_gate(f.dir(), "test");
  ASSERT_TRUE(met) << met.error().message;
  EXPECT_TRUE(met->gate.holds) << app::to_json(*met).dump();
  EXPECT_EQ(app::to_json(*met)["status"], "MET");
  const auto gates = logged(f, "gate");
  ASSERT_EQ(gates.size(), 2u);
  EXPECT_EQ(gates.back().value("caller", ""), "test");
  EXPECT_FALSE(gates.back().contains("status")) << "the log keeps the gate, not how a command showed it";
}

TEST(CampaignUseCases, AClaimIsTypedAndAnUnknownKindIsAnError) {
  CampaignFixture f(without_questions());
  auto unknown = app::campaign_claim({}, f.dir(), "victory", "it is fast", "test");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("limit, done"), std::string::npos) << unknown.error().message;
  EXPECT_FALSE(app::campaign_claim({}, f.dir(), "done", "", "test"));
  EXPECT_TRUE(logged(f, "claim").empty()) << "a refused claim logs nothing";

  auto claim = app::campaign_claim({}, f.dir(), "limit", "the tensor cores are saturated", "test");
  ASSERT_TRUE(claim) << claim.error().message;
  EXPECT_EQ(claim->kind, ClaimKind::kLimit);
  EXPECT_FALSE(claim->question.has_value()) << "questions are off";
  const json document = app::to_json(*claim);
  EXPECT_EQ(document["claim"], "limit");
  EXPECT_TRUE(document["question"].is_null());
  ASSERT_EQ(logged(f, "claim").size(), 1u);
  bool raised = false;
  for (const auto& e : logged(f, "event")) raised = raised || e.value("event", "") == "limit-claim";
  EXPECT_TRUE(raised);
}

TEST(CampaignUseCases, SteeringQuestionsAreNumberedInTheirOrder) {
  CampaignFixture f(without_questions());
  EXPECT_FALSE(app::campaign_steer(f.dir(), ""));
  auto first = app::campaign_steer(f.dir(), "why this tile size?");
  auto second = app::campaign_steer(f.dir(), "and the pipeline depth?");
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->steer_id, 1);
  EXPECT_EQ(second->steer_id, 2);
  EXPECT_EQ(app::to_json(*second)["text"], "and the pipeline depth?");
}

TEST(CampaignUseCases, AskNamesAnUnknownEventAndSaysWhyThereIsNoQuestion) {
  CampaignFixture f(without_questions());
  auto unknown = app::campaign_ask({}, f.dir(), "boredom", "test");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("stagnation"), std::string::npos) << unknown.error().message;
  auto asked = app::campaign_ask({}, f.dir(), "stagnation", "test");
  ASSERT_TRUE(asked) << asked.error().message;
  EXPECT_FALSE(asked->question.has_value());
  EXPECT_NE(asked->note.find("questions are off"), std::string::npos) << asked->note;
  EXPECT_EQ(app::to_json(*asked)["event"], "stagnation");
}

TEST(CampaignUseCases, AnEvaluationIsStoredLoggedAndFollowedByItsGate) {
  CampaignFixture f(without_questions());
  const json record = testing::synthetic_record(f.candidate(), {{"S01", "PASSED", 1.3}}, 1.3);
  auto follow_up = app::record_campaign_evaluation({}, f.dir(), record, "test");
  ASSERT_TRUE(follow_up) << follow_up.error().message;
  EXPECT_EQ(follow_up->evaluation, 1);
  EXPECT_FALSE(follow_up->record_file.empty());
  EXPECT_TRUE(follow_up->gate.holds) << app::to_json(follow_up->gate).dump();
  const json document = app::to_json(*follow_up);
  for (const char* key : {"status", "evaluation", "record_file", "events", "question", "gate"}) {
    EXPECT_TRUE(document.contains(key)) << key;
  }
  EXPECT_EQ(logged(f, "evaluation").size(), 1u);
  EXPECT_FALSE(app::record_campaign_evaluation({}, f.dir() / "nowhere", record, "test"));
}

TEST(CampaignUseCases, InitCreatesTheCampaignOrNothing) {
  testing::TempFolder temp("kseek_init");
  app::AppOptions options;
  options.plugin_dirs = {KSEEK_TREE_PLUGIN_DIR};
  app::InitRequest request;
  request.dir = temp.path() / "campaign";
  request.plugin_id = "example.softmax";
  request.goal = "all_passed and geomean >= 1.10";
  request.questions = false;

  app::InitRequest wrong = request;
  wrong.goal = "geomean >=";
  auto refused = app::campaign_init(options, wrong, "/usr/bin/true");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("--goal"), std::string::npos) << refused.error().message;
  EXPECT_FALSE(std::filesystem::exists(request.dir / "campaign.json")) << "a refused init creates nothing";

  auto created = app::campaign_init(options, request, "/usr/bin/true");
  ASSERT_TRUE(created) << created.error().message;
  EXPECT_EQ(created->config.plugin, "example.softmax");
  EXPECT_GT(created->scenarios, 0u);
  EXPECT_FALSE(created->config.questions);
  for (const char* file : {"campaign.json", "candidate.cu", "CONTRACT.md", "AGENTS.md", ".mcp.json"}) {
    EXPECT_TRUE(std::filesystem::exists(created->dir / file)) << file;
  }
  const json document = app::to_json(*created);
  EXPECT_EQ(document["status"], "OK");
  EXPECT_EQ(document["config"]["plugin"], "example.softmax");
  EXPECT_FALSE(app::campaign_init(options, request, "/usr/bin/true")) << "a folder that holds a campaign is refused";
}

}  // namespace
}  // namespace kseek
