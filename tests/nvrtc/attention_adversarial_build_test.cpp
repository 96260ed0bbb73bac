// CPU (nvrtc) checks of the attention.fa3 adversarial corpus: files whose verdict needs no GPU (COMPILE_ERROR,
// CONSTRAINT_VIOLATION) get it from `kseek build`; every other file must build clean and name only valid scenarios, so
// a typo in the corpus fails here instead of on a GPU; every row of the attack table (docs/trust.md) has its file.
// It must never need a GPU, and never accept a file without an expect line.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gpu/adversarial_corpus.hpp"
#include "support/run_command.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kRoot = fs::path(KSEEK_ADVERSARIAL_DIR);
const fs::path kCorpus = kRoot / "attention_fa3";

kseek::testing::CommandRun kseek(const std::string& args) {
  return kseek::testing::run_kseek(args, "nvrtc-attention-corpus");
}

class AttentionCorpusBuild : public ::testing::TestWithParam<std::string> {};

TEST_P(AttentionCorpusBuild, GetsItsBuildVerdictAndNamesValidScenarios) {
  const fs::path file = kRoot / GetParam();
  const std::string plugin = kseek::testing::plugin_of_entry(GetParam());
  const auto expected = kseek::testing::read_corpus_expectation(file);
  ASSERT_FALSE(expected.status.empty()) << file << " lacks a '// expect: STATUS' first line";
  ASSERT_FALSE(expected.scenarios.empty()) << file << " lacks a '// scenarios: ...' line (attention has no tiny set)";

  // Built for the plugin's own first target (sm_100a for attention.fa4): what CI can check without that GPU.
  std::string args = "--json build '" + file.string() + "' --plugin " + plugin;
  args += kseek::testing::constraints_option(file, expected);
  const auto build = kseek::testing::json_output(kseek(args), "kseek build " + GetParam());
  const std::string status = build.value("status", "");
  const bool decided_by_build = expected.status == "COMPILE_ERROR" || expected.status == "CONSTRAINT_VIOLATION";
  if (decided_by_build) {
    EXPECT_EQ(status, expected.status) << GetParam() << " (" << expected.why << "):\n" << build.dump(2);
  } else {
    ASSERT_EQ(status, "OK") << GetParam() << " must build clean so that its " << expected.status
                            << " is decided on the GPU:\n"
                            << build.value("message", "") << "\n"
                            << build.value("log", "");
    bool has_plan = false;
    for (const auto& k : build["kernels"]) has_plan = has_plan || k.value("kernel", "") == "kseek_plan";
    EXPECT_TRUE(has_plan) << GetParam() << " exports no kseek_plan";
  }

  for (const auto& name : kseek::testing::split_scenarios(expected.scenarios)) {
    const auto run = kseek("--json scenarios --plugin " + plugin + " --scenario '" + name + "'");
    EXPECT_EQ(run.exit_code, 0) << GetParam() << ": scenario '" << name << "' is not valid:\n" << run.out;
  }
}

INSTANTIATE_TEST_SUITE_P(AttentionFa3, AttentionCorpusBuild,
                         ::testing::ValuesIn(kseek::testing::corpus_entries(kRoot, "attention_fa3")),
                         [](const auto& info) { return kseek::testing::entry_test_name(info.param); });
INSTANTIATE_TEST_SUITE_P(AttentionFa4, AttentionCorpusBuild,
                         ::testing::ValuesIn(kseek::testing::corpus_entries(kRoot, "attention_fa4")),
                         [](const auto& info) { return kseek::testing::entry_test_name(info.param); });

TEST(AttentionCorpus, CoversEveryRowOfTheAdversarialTable) {
  // Candidate rows need a file `<row>_*.cu`; H8 (campaign files) and C1 (the seed itself) need none, and the README
  // must say where they are covered instead.
  std::set<std::string> prefixes;
  for (const auto& f : kseek::testing::corpus_files(kCorpus)) prefixes.insert(f.substr(0, f.find('_')));
  for (const char* row : {"w1", "w2", "w3", "w4", "w5", "w6", "w7", "w8", "w9", "w10", "w11", "r1", "r2", "r3", "r4",
                          "t1", "t2", "t3", "t4", "h1", "h2", "h3", "h4", "h5", "h6",  "h7",  "h9", "c2", "c3"}) {
    EXPECT_TRUE(prefixes.count(row)) << "no " << row << "_*.cu in " << kCorpus;
  }
  std::ifstream readme(kCorpus / "README.md");
  const std::string text((std::istreambuf_iterator<char>(readme)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("H8"), std::string::npos) << "README.md must say where H8 is covered";
  EXPECT_NE(text.find("C1"), std::string::npos) << "README.md must say where C1 is covered";
}

TEST(AttentionCorpus, TheTrustTableNamesEveryCorpusFileWithTheVerdictItsHeaderDeclares) {
  // docs/trust.md is what people read: each of its rows `| ROW | \`file.cu\` | EXPECTED | ...` must name a corpus
  // file that exists and declares EXPECTED, and every corpus file must have its row.
  std::ifstream doc(kRoot.parent_path().parent_path() / "docs" / "trust.md");
  ASSERT_TRUE(doc.good()) << "docs/trust.md is missing";
  static const std::regex kRow(R"(^\| [A-Z][0-9]+( \(FA4\))? \| `([a-z0-9_/]+\.cu)` \| ([A-Z_]+) \|.*)");
  std::set<std::string> in_table;
  std::smatch m;
  for (std::string line; std::getline(doc, line);) {
    if (!std::regex_match(line, m, kRow)) continue;
    const std::string entry = m[2].str().find('/') == std::string::npos ? "attention_fa3/" + m[2].str() : m[2].str();
    in_table.insert(entry);
    const auto header = kseek::testing::read_corpus_expectation(kRoot / entry);
    EXPECT_EQ(header.status, m[3].str()) << entry << ": docs/trust.md says " << m[3].str();
  }
  for (const char* folder : {"attention_fa3", "attention_fa4"}) {
    for (const auto& entry : kseek::testing::corpus_entries(kRoot, folder)) {
      EXPECT_TRUE(in_table.count(entry)) << entry << " has no row in docs/trust.md";
    }
  }
}

}  // namespace
