// `kseek new-plugin` without a compiler: the files it writes (every placeholder replaced, names derived from the id),
// and the inputs it refuses with a message naming the problem. Building and loading what it writes is the export
// test's job (tests/export/run_export_test.cmake, step new_plugin).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"
#include "support/temp_folder.hpp"

namespace {

namespace fs = std::filesystem;

class NewPluginCommand : public ::testing::Test {
 protected:
  kseek::testing::CommandRun run(const std::string& args) {
    return kseek::testing::run_kseek(args, "new-plugin-test", /*merge_stderr=*/true);
  }

  static std::string slurp(const fs::path& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  const kseek::testing::TempFolder temp_{"kseek_new_plugin"};
  const fs::path& root_ = temp_.path();
};

TEST_F(NewPluginCommand, WritesACompleteProjectWithEveryPlaceholderReplaced) {
  const fs::path dir = root_ / "fresh";
  const auto result = run("new-plugin acme.row_scale '" + dir.string() + "' --json");
  ASSERT_EQ(result.exit_code, 0) << result.out;
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["status"], "OK");
  EXPECT_EQ(json["plugin"], "acme.row_scale");
  const std::vector<std::string> expected = {"CMakeLists.txt",
                                             "README.md",
                                             "device/acme_row_scale_device.cu",
                                             "device/acme_row_scale_device_params.h",
                                             "include/acme_row_scale/problem.h",
                                             "packs/acme_row_scale.json",
                                             "seed/acme_row_scale_seed.cu",
                                             "src/acme_row_scale_plugin.cpp"};
  EXPECT_EQ(json["files"].get<std::vector<std::string>>(), expected);
  static const std::regex kPlaceholder(R"(@[A-Z_]+@)");
  for (const auto& file : expected) {
    const std::string text = slurp(dir / file);
    EXPECT_FALSE(text.empty()) << file;
    EXPECT_FALSE(std::regex_search(text, kPlaceholder)) << file << " still holds a template placeholder";
  }
  EXPECT_NE(slurp(dir / "src/acme_row_scale_plugin.cpp")
                .find("KSEEK_PLUGIN(acme_row_scale_plugin::ScaffoldPlugin, "
                      "\"acme.row_scale\""),
            std::string::npos);
  EXPECT_NE(slurp(dir / "CMakeLists.txt").find("find_package(kernelseek"), std::string::npos);
  const auto pack = nlohmann::json::parse(slurp(dir / "packs/acme_row_scale.json"));
  EXPECT_EQ(pack["pack"]["id"], "acme-row-scale");
  const auto lint = run("questions lint '" + (dir / "packs/acme_row_scale.json").string() + "'");
  EXPECT_EQ(lint.exit_code, 0) << lint.out;
}

TEST_F(NewPluginCommand, TheArchOptionReachesTheSeedAndThePlugin) {
  const fs::path dir = root_ / "blackwell";
  ASSERT_EQ(run("new-plugin acme.scale '" + dir.string() + "' --arch sm_100a").exit_code, 0);
  EXPECT_NE(slurp(dir / "src/acme_scale_plugin.cpp").find("kTargetArch = \"sm_100a\""), std::string::npos);
  EXPECT_NE(slurp(dir / "CMakeLists.txt").find("seed/sm_100a.cu=seed/acme_scale_seed.cu"), std::string::npos);
}

TEST_F(NewPluginCommand, RefusesAFolderThatHoldsFilesAndWritesNothing) {
  const fs::path dir = root_ / "used";
  fs::create_directories(dir);
  std::ofstream(dir / "mine.txt") << "keep me";
  const auto result = run("new-plugin acme.scale '" + dir.string() + "'");
  EXPECT_EQ(result.exit_code, 2) << result.out;
  EXPECT_NE(result.out.find("is not empty"), std::string::npos) << result.out;
  EXPECT_FALSE(fs::exists(dir / "CMakeLists.txt"));
  EXPECT_EQ(slurp(dir / "mine.txt"), "keep me");
}

TEST_F(NewPluginCommand, RefusesBadNamesAndArchitecturesWithTheReason) {
  for (const std::string bad : {"Acme.Scale", "acme..scale", "9lives", "acme-scale", "a.b;rm"}) {
    const auto result = run("new-plugin '" + bad + "' '" + (root_ / "x").string() + "'");
    EXPECT_EQ(result.exit_code, 2) << bad << ": " << result.out;
    EXPECT_NE(result.out.find("is not a valid id"), std::string::npos) << bad << ": " << result.out;
  }
  const auto arch = run("new-plugin acme.scale '" + (root_ / "y").string() + "' --arch hopper");
  EXPECT_EQ(arch.exit_code, 2) << arch.out;
  EXPECT_NE(arch.out.find("not an NVRTC architecture"), std::string::npos) << arch.out;
  EXPECT_FALSE(fs::exists(root_ / "x"));
  EXPECT_FALSE(fs::exists(root_ / "y"));
}

}  // namespace
