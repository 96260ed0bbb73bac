// A campaign of an out-of-tree plugin with installed packs, through the real `kseek`: init records the plugin folder
// and the packs it took (and says which it left out), and later commands load them without being told again; the
// contract and the candidate headers are in the campaign. It must never need a GPU.
#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kseek/core/util/files.hpp"
#include "support/run_command.hpp"
#include "support/temp_folder.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

void write_pack(const fs::path& file, const std::string& id, const std::string& architecture) {
  std::ofstream(file) << json{{"format", "kseek.questions/1"},
                              {"pack",
                               {{"id", id},
                                {"version", "1.0.0"},
                                {"description", "d"},
                                {"license", "CC-BY-4.0"},
                                {"architecture", architecture}}},
                              {"items", json::array({{{"id", id + ".a"},
                                                      {"text", "What did the profile of " + id + " show?"},
                                                      {"triggers", {"limit-claim"}},
                                                      {"intent", "measure"},
                                                      {"requires_other_implementation", false},
                                                      {"provenance", "unverified"}}})}}
                             .dump(2);
}

class CampaignPluginDir : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(packs_);
    write_pack(packs_ / "fits.json", "fits", "sm_90");
    write_pack(packs_ / "blackwell.json", "blackwell", "sm_100a");
    write_pack(packs_ / "named.json", "named", "hopper");
    write_pack(packs_ / "core.json", "core", "sm_90a");  // same id as a built-in pack
  }
  std::string env() const { return "KSEEK_QUESTION_PATH='" + packs_.string() + "' "; }
  testing::CommandRun run(const std::string& args) {
    return testing::run_command(env() + "KSEEK_CACHE_DIR=\"${TMPDIR:-/tmp}/kseek-campaign-plugin-dir-cache\" '" +
                                std::string(KSEEK_EXE) + "' " + args + " 2>/dev/null");
  }
  const testing::TempFolder temp_{"kseek_campaign_plugin_dir"};
  const fs::path packs_ = temp_.path() / "packs";
  const fs::path dir_ = temp_.path() / "c";
};

TEST_F(CampaignPluginDir, InitRecordsThePluginFolderAndTheInstalledPacksThatFit) {
  const auto init =
      run("--json init '" + dir_.string() + "' --plugin-dir '" + KSEEK_FIXTURE_GOOD_DIR + "' --plugin test.fixture");
  ASSERT_EQ(init.exit_code, 0) << init.out;
  const json out = testing::json_output(init, "init");
  const json config = json::parse(*read_file(dir_ / "campaign.json"));
  ASSERT_EQ(config["plugin_dirs"].size(), 1u) << config.dump(2);
  EXPECT_EQ(fs::path(config["plugin_dirs"][0].get<std::string>()),
            fs::absolute(KSEEK_FIXTURE_GOOD_DIR).lexically_normal());
  // One id, one pack: the installed "core" replaces the built-in one and is pinned like the other installed pack taken.
  std::set<std::string> pinned;
  for (const auto& f : config["pack_files"]) pinned.insert(fs::path(f.get<std::string>()).filename().string());
  EXPECT_EQ(pinned, (std::set<std::string>{"fits.json", "core.json"})) << config.dump(2);
  EXPECT_EQ(std::count(config["packs"].begin(), config["packs"].end(), "core"), 1) << config.dump(2);
  std::map<std::string, std::string> left_out;
  for (const auto& n : out["installed_packs"]["left_out"]) left_out[n["pack"]] = n["reason"];
  ASSERT_EQ(left_out.size(), 2u) << out.dump(2);
  EXPECT_NE(left_out["blackwell"].find("sm_100a"), std::string::npos) << left_out["blackwell"];
  EXPECT_NE(left_out["named"].find("not sm_NN or sm_NNa"), std::string::npos) << left_out["named"];

  // Later commands find the plugin and the pinned packs without --plugin-dir or KSEEK_QUESTION_PATH.
  auto eval = testing::run_kseek("--json eval --campaign '" + dir_.string() + "'", "campaign-plugin-dir");
  const json record = testing::json_output(eval, "eval in the campaign");
  EXPECT_NE(record.value("status", ""), "ERROR") << eval.out;
  EXPECT_EQ(eval.out.find("no plugin"), std::string::npos) << eval.out;
  auto ask =
      testing::run_kseek("--json ask --campaign '" + dir_.string() + "' --event limit-claim", "campaign-plugin-dir");
  ASSERT_EQ(ask.exit_code, 0) << ask.out;
  const std::string pack = testing::json_output(ask, "ask")["question"].value("pack", "");
  EXPECT_TRUE(pack == "fits" || pack == "core") << "a pinned pack is asked: " << ask.out;

  // The contract travels: CONTRACT.md and the headers, and AGENTS.md names only files that exist.
  EXPECT_TRUE(fs::exists(dir_ / "include/kseek/device/launch_plan.h"));
  const std::string contract = *read_file(dir_ / "CONTRACT.md");
  for (const char* section : {"## Operator semantics", "## Candidate ABI", "## Constraints", "## Tolerance rule",
                              "## How to evaluate", "no-cutlass"}) {
    EXPECT_NE(contract.find(section), std::string::npos) << section;
  }
  const std::string agents = *read_file(dir_ / "AGENTS.md");
  EXPECT_EQ(agents.find("docs/"), std::string::npos) << "docs/ is not in the campaign";
  static const std::regex kQuoted(R"(`((?:include/)?[A-Za-z0-9_./-]+\.(?:md|h|cu|json))`)");
  for (std::sregex_iterator it(agents.begin(), agents.end(), kQuoted), end; it != end; ++it) {
    EXPECT_TRUE(fs::exists(dir_ / (*it)[1].str())) << "AGENTS.md names " << (*it)[1].str();
  }
}

TEST_F(CampaignPluginDir, NamingAPackForAnotherArchitectureOrAnInvalidOneIsRefused) {
  auto named = run("init '" + dir_.string() + "' --plugin-dir '" + KSEEK_FIXTURE_GOOD_DIR +
                   "' --plugin test.fixture --packs named");
  EXPECT_EQ(named.exit_code, 2);
  EXPECT_FALSE(fs::exists(dir_ / "campaign.json"));
  auto lint = testing::run_kseek("questions lint '" + (packs_ / "named.json").string() + "'", "campaign-plugin-dir");
  EXPECT_EQ(lint.exit_code, 1) << lint.out;
  EXPECT_NE(lint.out.find("pack.architecture"), std::string::npos) << lint.out;
}

TEST_F(CampaignPluginDir, ContractCommandPrintsTheContract) {
  auto contract = testing::run_kseek("contract --plugin example.softmax", "campaign-plugin-dir");
  ASSERT_EQ(contract.exit_code, 0) << contract.out;
  EXPECT_NE(contract.out.find("# Contract of `example.softmax`"), std::string::npos) << contract.out;
  EXPECT_NE(contract.out.find("kseek/example/softmax_problem.h"), std::string::npos) << contract.out;
  EXPECT_NE(contract.out.find("no-cudnn"), std::string::npos) << contract.out;
  EXPECT_EQ(testing::run_kseek("contract --plugin no.such", "campaign-plugin-dir").exit_code, 2);
}

}  // namespace
}  // namespace kseek
