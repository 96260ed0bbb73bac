// The SDK's scenario grammar: names parse to values and back to the same canonical text, defaults drop out of the
// canonical form, and every error names the key and its column.
#include <gtest/gtest.h>

#include "kseek/sdk/scenario_grammar.hpp"

namespace kseek {
namespace {

ScenarioGrammar softmax_like() {
  ScenarioGrammar g;
  g.integer("rows", 1, 1 << 20, "rows of x")
      .integer("cols", 1, 1 << 20, "columns of x")
      .choice("dtype", {"bf16", "fp16", "fp32"}, "element type")
      .number("scale", true, "logit scale", 1.0);
  return g;
}

TEST(ScenarioGrammar, ParsesAndFormatsTheCanonicalName) {
  const auto g = softmax_like();
  auto v = g.parse("dtype=fp16,cols=4096,rows=8,scale=0.125");
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v->integer("rows"), 8);
  EXPECT_EQ(v->integer("cols"), 4096);
  EXPECT_EQ(v->choice("dtype"), "fp16");
  EXPECT_DOUBLE_EQ(v->number("scale"), 0.125);
  EXPECT_EQ(g.canonical(*v), "rows=8,cols=4096,dtype=fp16,scale=0.125");
  auto again = g.parse(g.canonical(*v));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(g.canonical(*again), g.canonical(*v));
}

TEST(ScenarioGrammar, ADefaultIsFilledInAndLeftOutOfTheCanonicalName) {
  const auto g = softmax_like();
  auto v = g.parse("rows=2,cols=3,dtype=bf16,scale=1");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(g.canonical(*v), "rows=2,cols=3,dtype=bf16");
  auto w = g.parse("rows=2,cols=3,dtype=bf16");
  ASSERT_TRUE(w.ok());
  EXPECT_DOUBLE_EQ(w->number("scale"), 1.0);
}

TEST(ScenarioGrammar, NumbersAreTheFloatTheyDenoteAndFormatShortest) {
  const auto g = softmax_like();
  auto v = g.parse("rows=1,cols=1,dtype=fp32,scale=0.1000000001");  // the same float as 0.1
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(g.canonical(*v), "rows=1,cols=1,dtype=fp32,scale=0.1");
}

struct BadName {
  const char* name;
  const char* expected;  // a fragment of the message
};

TEST(ScenarioGrammar, EveryErrorNamesTheKeyAndItsColumn) {
  const auto g = softmax_like();
  for (const BadName& bad : {
           BadName{"", "column 1: the name is empty"},
           BadName{"rows=2,cols=3", "column 14: missing key 'dtype'"},
           BadName{"rows=2,cols=x,dtype=bf16", "column 13: cols='x' is not an integer"},
           BadName{"rows=0,cols=3,dtype=bf16", "column 6: rows=0 is out of range (1 to 1048576)"},
           BadName{"rows=2,cols=3,dtype=int8", "column 21: dtype='int8' is not one of bf16, fp16, fp32"},
           BadName{"rows=2,rows=3,cols=3,dtype=bf16", "column 8: key 'rows' appears twice"},
           BadName{"rows=2,cols=3,dtype=bf16,heads=4",
                   "column 26: unknown key 'heads' (known: rows, cols, dtype, scale)"},
           BadName{"rows=2,cols=3,dtype=bf16,scale=-1", "scale=-1 must be a positive, finite fp32 value"},
           BadName{"rows=2,cols=3,dtype=bf16,scale=1e39", "finite fp32 value"},
           BadName{"rows=2,,dtype=bf16", "column 8: '' is not key=value"},
       }) {
    auto v = g.parse(bad.name);
    ASSERT_FALSE(v.ok()) << bad.name;
    EXPECT_NE(v.error().message.find(bad.expected), std::string::npos) << bad.name << " -> " << v.error().message;
    EXPECT_NE(
        v.error().message.find("(expected rows=1..1048576,cols=1..1048576,dtype=bf16|fp16|fp32[,scale=NUMBER>0])"),
        std::string::npos)
        << v.error().message;
  }
}

TEST(ScenarioGrammar, ColumnsCountCharactersNotBytes) {
  ScenarioGrammar g;
  g.choice("dtype", {"b\xC3\xA9"}, "element type");  // a choice spelled with a two-byte character
  auto v = g.parse("dtype=b\xC3\xA9,x=1");           // "bé": two bytes, one character
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message.find("column 10: unknown key 'x'"), std::string::npos) << v.error().message;
}

}  // namespace
}  // namespace kseek
