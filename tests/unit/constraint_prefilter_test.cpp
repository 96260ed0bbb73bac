// The constraint checker's substring prefilter: what it reads from a pattern, and that it never changes a finding.
#include <cstdint>
#include <map>
#include <random>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "kseek/core/check/binary_names.hpp"
#include "kseek/core/check/constraint_checker.hpp"
#include "kseek/core/check/required_literal.hpp"
#include "kseek/core/plugin/plugin_registry.hpp"

namespace kseek {
namespace {

// Every rule a shipped plugin declares by default, and the device-launch rule the checker adds.
std::vector<SymbolRule> shipped_rules() {
  PluginRegistry registry;
  registry.load_folders({KSEEK_TREE_PLUGIN_DIR});
  std::vector<SymbolRule> rules;
  for (const auto& loaded : registry.plugins()) {
    for (auto& rule : loaded->plugin->default_constraints().forbidden_symbols) {
      rule.id = loaded->id + "/" + rule.id;  // the softmax and attention plugins both name a rule no-cudnn
      rules.push_back(std::move(rule));
    }
  }
  rules.push_back(device_launch_rule());
  return rules;
}

// Patterns whose syntax the reader must either follow or give up on; each is also matched against the corpus.
const std::vector<std::string> kTrickyPatterns = {
    "ab*c",         "ab+c",         "ab?c",           "ab{2}c",    "a(bc)?d",        "a|cutlass",
    "x\\.y",        "\\x41BC",      "\\bcute\\b",     "[:]cute::", "[^]]cute",       "[[:alpha:]]cute",
    "cu(?=te)te::", "cu(?!x)te",    "(cu)\\1te",      "\\d+cudnn", "cute::.*Layout", "^_ZN\\d+cutlass",
    "::$",          "(a|b)+cublas", "cub{1,2}las",    "cublas+Lt", "c.te::",         "[a-z]{3}::",
    "cu\\+te",      "(?:cute)::",   "cudnn_?frontend"};

TEST(RequiredLiteral, ReadsTheShippedShapesAndGivesUpWhereUnsure) {
  EXPECT_EQ(required_literal("(^|[^A-Za-z0-9_])cutlass::"), "cutlass::");
  EXPECT_EQ(required_literal("(^|[^A-Za-z0-9_])cudnn(_frontend)?::"), "cudnn");
  EXPECT_EQ(required_literal("^cublas[A-Z_]"), "cublas");
  EXPECT_EQ(required_literal("^__cudaCDP"), "__cudaCDP");
  EXPECT_EQ(required_literal("(^|_)cudaLaunchDevice"), "cudaLaunchDevice");
  EXPECT_EQ(required_literal("ab*c"), "a");      // b may be absent
  EXPECT_EQ(required_literal("xab+cd"), "xab");  // one b is certain, what follows it is not
  EXPECT_EQ(required_literal("x\\.yz"), "x.yz");
  EXPECT_EQ(required_literal("a|cutlass"), "");         // alternation at the top
  EXPECT_EQ(required_literal("\\x41BC"), "");           // an escape it does not follow
  EXPECT_EQ(required_literal("(cu)\\1te"), "");         // a back-reference
  EXPECT_EQ(required_literal("[[:alpha:]]cute"), "");   // a POSIX class inside a class
  EXPECT_EQ(required_literal("[^]]cute"), "");          // a class whose end depends on the grammar
  EXPECT_EQ(required_literal("cu.*Layout"), "Layout");  // the longest run wins
}

// Names built from the pieces the rules look for, glued with the characters around them that the patterns test
// (scope boundaries, underscores, letters), plain and Itanium-mangled so that the demangled spelling differs.
std::vector<std::string> name_corpus(std::uint64_t seed, std::size_t count) {
  const std::vector<std::string> pieces = {"cutlass",
                                           "cute",
                                           "cublas",
                                           "cublasLt",
                                           "cublasdx",
                                           "cudnn",
                                           "cudnn_frontend",
                                           "cudaLaunchDevice",
                                           "V2",
                                           "cudaGetParameterBuffer",
                                           "cudaGraphLaunch",
                                           "cudaStreamTailLaunch",
                                           "cudaStreamFireAndForget",
                                           "__cudaCDP2",
                                           "Layout",
                                           "Sgemm",
                                           "gemm",
                                           "my",
                                           "kseek",
                                           "x",
                                           "A",
                                           "Z",
                                           "bc",
                                           "d",
                                           "te",
                                           "las",
                                           "b"};
  const std::vector<std::string> glue = {"",  "",  "",  "_", "::", " ", "(",  ")", "<",  ">", ",",
                                         "0", "9", ".", "$", "]",  ":", "\\", "+", "AA", "aa"};
  std::mt19937_64 rng(seed);
  const auto pick = [&](const std::vector<std::string>& from) { return from[rng() % from.size()]; };
  const auto identifier = [&] {
    std::string id = pick(pieces);
    if (rng() % 3 == 0) id += pick(pieces);
    return id;
  };
  std::vector<std::string> names;
  for (std::size_t i = 0; i < count; ++i) {
    if (rng() % 4 == 0) {
      // _ZN<len>a<len>b...Ev demangles to a::b::...(): "::" appears only in the readable spelling.
      std::string mangled = "_ZN";
      const int parts = 1 + static_cast<int>(rng() % 3);
      for (int p = 0; p < parts; ++p) {
        const std::string id = identifier();
        mangled += std::to_string(id.size()) + id;
      }
      names.push_back(mangled + "Ev");
      continue;
    }
    std::string name;
    const int parts = 1 + static_cast<int>(rng() % 4);
    for (int p = 0; p < parts; ++p) name += pick(glue) + pick(pieces);
    names.push_back(name + pick(glue));
  }
  return names;
}

using Finding = std::tuple<std::string, std::string, std::string, std::string>;

std::vector<Finding> findings(const RuleMatcher& matcher, const std::string& name) {
  std::vector<Finding> out;
  for (const auto& v : matcher.match({BinaryName{name, "test name"}}))
    out.emplace_back(v.rule, v.symbol, v.raw_symbol, v.where);
  return out;
}

// The prefilter only skips regex searches that could not match: every name gets the findings it gets without it.
TEST(RuleMatcher, PrefilterChangesNoFinding) {
  std::vector<SymbolRule> rules = shipped_rules();
  ASSERT_GE(rules.size(), 6u) << "expected the shipped plugins' rules; is " << KSEEK_TREE_PLUGIN_DIR << " built?";
  for (std::size_t i = 0; i < kTrickyPatterns.size(); ++i) {
    rules.push_back({fmt::format("tricky-{}", i), "", {kTrickyPatterns[i]}});
  }
  auto with = RuleMatcher::compile(rules, NamePrefilter::required_literal);
  auto without = RuleMatcher::compile(rules, NamePrefilter::none);
  ASSERT_TRUE(with && without);

  constexpr std::uint64_t kSeed = 20261202;
  SCOPED_TRACE(fmt::format("name corpus seed {}", kSeed));
  std::vector<std::string> names = name_corpus(kSeed, 6000);
  // Every pattern's own text as a name too: the shortest strings that hold a pattern's literal.
  for (const auto& rule : rules) {
    for (const auto& pattern : rule.patterns) names.push_back(pattern);
  }
  std::map<std::string, int> hits_per_rule;
  for (const auto& name : names) {
    const auto expected = findings(*without, name);
    ASSERT_EQ(findings(*with, name), expected) << "name '" << name << "'";
    for (const auto& f : expected) ++hits_per_rule[std::get<0>(f)];
  }
  // The corpus must exercise every shipped rule, or an equality above proves little.
  for (const auto& rule : shipped_rules()) {
    EXPECT_GT(hits_per_rule[rule.id], 0) << "no name of the corpus breaks " << rule.id;
  }
}

// The reader's promise, checked directly: wherever a regex finds a match, the text holds the required literal.
TEST(RequiredLiteral, EveryMatchHoldsIt) {
  std::vector<std::string> patterns = kTrickyPatterns;
  for (const auto& rule : shipped_rules()) patterns.insert(patterns.end(), rule.patterns.begin(), rule.patterns.end());
  constexpr std::uint64_t kSeed = 7;
  SCOPED_TRACE(fmt::format("name corpus seed {}", kSeed));
  const std::vector<std::string> names = name_corpus(kSeed, 3000);
  int named = 0;
  for (const auto& pattern : patterns) {
    const std::string required = required_literal(pattern);
    if (!required.empty()) ++named;
    const std::regex regex(pattern, std::regex::ECMAScript);
    for (const auto& name : names) {
      std::smatch m;
      if (!std::regex_search(name, m, regex)) continue;
      EXPECT_NE(m[0].str().find(required), std::string::npos) << "pattern '" << pattern << "' matched '" << m[0].str()
                                                              << "' in '" << name << "' without '" << required << "'";
    }
  }
  EXPECT_GT(named, 20) << "the reader should name a literal for most of these patterns";
}

}  // namespace
}  // namespace kseek
