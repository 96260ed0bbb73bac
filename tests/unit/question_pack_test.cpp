// Unit tests of the question-pack parser and linter, with every pack written inline.
// It must never read a pack from disk: each test shows the exact text it checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "kseek/core/questions/question_lint.hpp"
#include "kseek/core/questions/question_pack.hpp"

namespace kseek {
namespace {

// A valid pack around `items` (each item starts on its own line, the first on line 5); tests break one thing each.
std::string make_pack(const std::string& items, const std::string& version = "1.0.0", const std::string& id = "core") {
  return R"({
  "format": "kseek.questions/1",
  "pack": {"id": ")" +
         id + R"(", "version": ")" + version +
         R"(", "description": "test pack", "architecture": null, "license": "CC-BY-4.0"},
  "items": [)" +
         items + R"(
  ]
})";
}

std::string make_item(const std::string& id, const std::string& text,
                      const std::string& triggers = R"(["stagnation"])") {
  return R"(
    {"id": ")" +
         id + R"(", "text": ")" + text + R"(", "triggers": )" + triggers +
         R"(, "intent": "measure", "requires_other_implementation": false, "provenance": "unverified", "notes": "n"})";
}

const std::string kGoodItem = make_item("core.stagnation.01", "Which measurement would tell you where the time goes?");

std::vector<std::string> rules_of(const std::vector<LintFinding>& findings) {
  std::vector<std::string> rules;
  for (const auto& f : findings) rules.push_back(f.rule);
  return rules;
}

std::vector<LintFinding> lint_text(const std::string& text) {
  auto pack = parse_question_pack(text, "p.json");
  EXPECT_TRUE(pack.ok()) << pack.error().message;
  if (!pack) return {};
  return lint_question_pack(*pack, text, "p.json");
}

bool fires(const std::vector<LintFinding>& findings, const std::string& rule) {
  const auto rules = rules_of(findings);
  return std::find(rules.begin(), rules.end(), rule) != rules.end();
}

TEST(QuestionPack, ValidPackParsesAndLintsClean) {
  const auto text = make_pack(
      kGoodItem + "," + make_item("core.start.01", "What limits this kernel today?", R"(["start","limit-claim"])"));
  auto pack = parse_question_pack(text, "p.json");
  ASSERT_TRUE(pack.ok()) << pack.error().message;
  EXPECT_EQ(pack->id, "core");
  EXPECT_EQ(pack->version, "1.0.0");
  EXPECT_FALSE(pack->architecture.has_value());
  ASSERT_EQ(pack->items.size(), 2u);
  EXPECT_EQ(pack->items[0].line, 5u);
  EXPECT_EQ(pack->items[1].line, 6u);
  EXPECT_EQ(pack->items[1].triggers, (std::vector<std::string>{"start", "limit-claim"}));
  const auto findings = lint_question_pack(*pack, text, "p.json");
  EXPECT_TRUE(findings.empty()) << findings.front().rule;
  EXPECT_FALSE(has_lint_errors(findings));
}

TEST(QuestionPack, ArchitectureStringIsKept) {
  auto text = make_pack(kGoodItem);
  text.replace(text.find("null"), 4, "\"sm_90\"");
  auto pack = parse_question_pack(text, "p.json");
  ASSERT_TRUE(pack.ok()) << pack.error().message;
  EXPECT_EQ(pack->architecture.value_or(""), "sm_90");
}

TEST(QuestionPackParse, SyntaxErrorNamesLineAndColumn) {
  const std::string text = "{\n  \"format\": \"kseek.questions/1\",\n  \"pack\": {\"id\": \"core\",, }\n}";
  auto pack = parse_question_pack(text, "bad.json");
  ASSERT_FALSE(pack.ok());
  EXPECT_EQ(pack.error().message.rfind("bad.json:3:25: JSON syntax error: ", 0), 0u) << pack.error().message;
}

TEST(QuestionPackParse, TruncatedDocumentIsASyntaxError) {
  auto pack = parse_question_pack("{\n  \"format\": ", "cut.json");
  ASSERT_FALSE(pack.ok());
  EXPECT_NE(pack.error().message.find("cut.json:2:"), std::string::npos) << pack.error().message;
}

TEST(QuestionPackParse, UnknownItemFieldNamesTheItemLine) {
  auto item = make_item("core.x.02", "What is measured?");
  item.insert(item.rfind('}'), R"(, "answer": "use TMA")");
  auto pack = parse_question_pack(make_pack(kGoodItem + "," + item), "p.json");
  ASSERT_FALSE(pack.ok());
  EXPECT_NE(pack.error().message.find("p.json:6:6: item 1: unknown field \"answer\""), std::string::npos)
      << pack.error().message;
}

TEST(QuestionPackParse, UnknownPackFieldIsAnError) {
  auto text = make_pack(kGoodItem);
  text.insert(text.find("\"license\""), "\"author\": \"me\", ");
  auto pack = parse_question_pack(text, "p.json");
  ASSERT_FALSE(pack.ok());
  EXPECT_NE(pack.error().message.find("p.json:3:3: \"pack\": unknown field \"author\""), std::string::npos)
      << pack.error().message;
}

TEST(QuestionPackParse, MissingRequiredFieldIsAnError) {
  auto item = kGoodItem;
  const auto at = item.find(R"("intent": "measure", )");
  item.erase(at, std::string(R"("intent": "measure", )").size());
  auto pack = parse_question_pack(make_pack(item), "p.json");
  ASSERT_FALSE(pack.ok());
  EXPECT_NE(pack.error().message.find("p.json:5:6: item 0: missing required field \"intent\""), std::string::npos)
      << pack.error().message;
}

TEST(QuestionPackParse, MissingItemIdFallsBackToThePackLine) {
  auto pack = parse_question_pack(make_pack(R"({"text": "Why?"})"), "p.json");
  ASSERT_FALSE(pack.ok());
  EXPECT_EQ(pack.error().message.rfind("p.json:3:3: item 0: ", 0), 0u) << pack.error().message;
}

TEST(QuestionPackParse, BadEnumValuesAreErrors) {
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {R"("stagnation")", R"("bored")"}, {R"("measure")", R"("guess")"}, {R"("unverified")", R"("folklore")"}}) {
    auto item = kGoodItem;
    item.replace(item.find(from), from.size(), to);
    auto pack = parse_question_pack(make_pack(item), "p.json");
    ASSERT_FALSE(pack.ok()) << to;
    EXPECT_NE(pack.error().message.find(to), std::string::npos) << pack.error().message;
  }
}

TEST(QuestionPackParse, WrongFormatAndWrongTypesAreErrors) {
  auto text = make_pack(kGoodItem);
  text.replace(text.find("kseek.questions/1"), 17, "kseek.questions/2");
  EXPECT_FALSE(parse_question_pack(text, "p.json").ok());
  auto item = kGoodItem;
  item.replace(item.find("false"), 5, "\"no\"");
  auto pack = parse_question_pack(make_pack(item), "p.json");
  ASSERT_FALSE(pack.ok());
  EXPECT_NE(pack.error().message.find("requires_other_implementation"), std::string::npos);
}

TEST(QuestionPackParse, AnsweredByRecordIsAnOptionalBoolean) {
  auto plain = parse_question_pack(make_pack(kGoodItem), "p.json");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_FALSE(plain->items.at(0).answered_by_record) << "absent means false";
  auto item = kGoodItem;
  item.replace(item.find(R"("provenance")"), 0, R"("answered_by_record": true, )");
  auto marked = parse_question_pack(make_pack(item), "p.json");
  ASSERT_TRUE(marked.ok()) << marked.error().message;
  EXPECT_TRUE(marked->items.at(0).answered_by_record);
  item.replace(item.find("true"), 4, "\"yes\"");
  auto wrong = parse_question_pack(make_pack(item), "p.json");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("\"answered_by_record\" must be true or false"), std::string::npos)
      << wrong.error().message;
}

TEST(QuestionPackParse, TopicsAreAnOptionalListOfKnownTopics) {
  auto plain = parse_question_pack(make_pack(kGoodItem), "p.json");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_TRUE(plain->items.at(0).topics.empty()) << "absent means a question for any claim";
  auto item = kGoodItem;
  item.replace(item.find(R"("provenance")"), 0, R"("topics": ["numerics", "bandwidth"], )");
  auto tagged = parse_question_pack(make_pack(item), "p.json");
  ASSERT_TRUE(tagged.ok()) << tagged.error().message;
  EXPECT_EQ(tagged->items.at(0).topics, (std::vector<std::string>{"numerics", "bandwidth"}));
  auto unknown = item;
  unknown.replace(unknown.find("\"bandwidth\""), 11, "\"vibes\"");
  auto bad = parse_question_pack(make_pack(unknown), "p.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("unknown topic \"vibes\""), std::string::npos) << bad.error().message;
  auto scalar = kGoodItem;
  scalar.replace(scalar.find(R"("provenance")"), 0, R"("topics": "numerics", )");
  auto wrong = parse_question_pack(make_pack(scalar), "p.json");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("\"topics\" must be an array"), std::string::npos) << wrong.error().message;
}

TEST(QuestionLint, OneQuestionMark) {
  EXPECT_FALSE(fires(lint_text(make_pack(kGoodItem)), "question.one-question-mark"));
  EXPECT_TRUE(fires(lint_text(make_pack(make_item("core.a", "Measure the bandwidth."))), "question.one-question-mark"));
  EXPECT_TRUE(fires(lint_text(make_pack(make_item("core.a", "Is it slow? Why?"))), "question.one-question-mark"));
  EXPECT_TRUE(
      fires(lint_text(make_pack(make_item("core.a", "Is it slow? Measure it."))), "question.one-question-mark"));
}

TEST(QuestionLint, TooLong) {
  const std::string at_limit = std::string(199, 'a') + "?";
  EXPECT_FALSE(fires(lint_text(make_pack(make_item("core.a", at_limit))), "question.too-long"));
  EXPECT_TRUE(fires(lint_text(make_pack(make_item("core.a", "a" + at_limit))), "question.too-long"));
}

TEST(QuestionLint, RecipePhrases) {
  for (const std::string text : {"Use TMA for the loads?", "Try a larger tile?", "Is the fix a wider vector load?",
                                 "Should you check occupancy instead of time?", "Is it slow, switch to bf16?",
                                 "What do you think YOU SHOULD change?"}) {
    const auto findings = lint_text(make_pack(make_item("core.a", text)));
    EXPECT_TRUE(fires(findings, "question.contains-recipe")) << text;
  }
  for (const std::string text : {"What would you use to measure the stall reasons?", "Which setting limits occupancy?",
                                 "Has the user tried profiling?", "What does the fixture assume?"}) {
    const auto findings = lint_text(make_pack(make_item("core.a", text)));
    EXPECT_FALSE(fires(findings, "question.contains-recipe")) << text;
  }
}

TEST(QuestionLint, DuplicateIdsAndTexts) {
  const auto text = make_pack(kGoodItem + "," + make_item("core.stagnation.01", "Which other question?") + "," +
                              make_item("core.b", "  which MEASUREMENT would tell you   where the time goes?"));
  const auto findings = lint_text(text);
  ASSERT_EQ(findings.size(), 2u) << findings.front().rule;
  EXPECT_EQ(findings[0].rule, "item.duplicate-id");
  EXPECT_EQ(findings[0].line, 6u);  // the second occurrence, not the first
  EXPECT_EQ(findings[0].item_id, "core.stagnation.01");
  EXPECT_EQ(findings[1].rule, "item.duplicate-text");
  EXPECT_EQ(findings[1].line, 7u);
  EXPECT_EQ(findings[1].file, "p.json");
  EXPECT_TRUE(has_lint_errors(findings));
}

TEST(QuestionLint, IdPrefix) {
  EXPECT_FALSE(fires(lint_text(make_pack(kGoodItem)), "item.id-prefix"));
  EXPECT_TRUE(fires(lint_text(make_pack(make_item("other.a", "Why?"))), "item.id-prefix"));
  EXPECT_TRUE(fires(lint_text(make_pack(make_item("corex.a", "Why?"))), "item.id-prefix"));
  EXPECT_TRUE(fires(lint_text(make_pack(make_item("core.", "Why?"))), "item.id-prefix"));
}

TEST(QuestionLint, VersionFormat) {
  EXPECT_FALSE(fires(lint_text(make_pack(kGoodItem, "10.2.33")), "pack.version-format"));
  for (const std::string version : {"1.0", "1.0.0-rc1", "v1.0.0", "1..0", "1.0.0."}) {
    EXPECT_TRUE(fires(lint_text(make_pack(kGoodItem, version)), "pack.version-format")) << version;
  }
}

TEST(QuestionLint, NoTriggerIsAWarningOnly) {
  const auto findings = lint_text(make_pack(make_item("core.a", "Why?", "[]")));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, "item.no-trigger");
  EXPECT_EQ(findings[0].severity, LintSeverity::kWarning);
  EXPECT_FALSE(has_lint_errors(findings));
}

}  // namespace
}  // namespace kseek
