// `kseek conform` through the real binary: an in-tree plugin passes every CPU check, a plugin with known gaps fails
// with each problem named, and conformance builds keep to their own cache folder. It must never need a GPU.
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"
#include "support/temp_folder.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST(ConformCommand, AnInTreePluginPassesAndItsBuildsStayInTheirOwnCacheFolder) {
  const testing::TempFolder cache{"kseek_conform_cache"};
  const auto run = testing::run_command("'" + std::string(KSEEK_EXE) + "' --json --cache-dir '" +
                                        cache.path().string() + "' conform --plugin example.softmax 2>/dev/null");
  const json out = testing::json_output(run, "conform");
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_EQ(out.value("status", ""), "PASSED") << run.out;
  std::set<std::string> names;
  for (const auto& check : out["checks"]) {
    names.insert(check["check"]);
    if (check["check"] != "gpu") EXPECT_EQ(check["status"], "PASSED") << check.dump();
  }
  EXPECT_EQ(names, (std::set<std::string>{"descriptor-and-info", "names-read-back", "layouts", "packs-lint",
                                          "seed-builds", "device-library-builds", "gpu"}));
  EXPECT_TRUE(fs::is_directory(cache.path() / "conform")) << "the seed's build is cached under conform/";
  for (const auto& entry : fs::directory_iterator(cache.path())) EXPECT_EQ(entry.path().filename(), "conform");
}

TEST(ConformCommand, APluginWithGapsFailsWithEachProblemNamed) {
  // The loader's fixture plugin ships no device library (inputs and references): conform must say so.
  const auto run = testing::run_kseek(
      "--json --plugin-dir '" + std::string(KSEEK_FIXTURE_GOOD_DIR) + "' conform --plugin test.fixture", "conform");
  const json out = testing::json_output(run, "conform");
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_EQ(out.value("status", ""), "FAILED") << run.out;
  std::size_t problems = 0;
  for (const auto& check : out["checks"]) {
    if (check["status"] == "FAILED") EXPECT_FALSE(check["problems"].empty()) << check.dump();
    problems += check["problems"].size();
  }
  EXPECT_GT(problems, 0u) << run.out;
  EXPECT_EQ(testing::run_kseek("conform --plugin no.such.plugin", "conform").exit_code, 2);
}

}  // namespace
}  // namespace kseek
