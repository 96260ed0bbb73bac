// ARCHITECTURE.md's table of what each folder must never include, checked on the sources: a change that makes
// the worker reach into the CLI, or a plugin into core, fails here instead of in a review.
// It must never read anything but #include lines.
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;

const fs::path kRoot = fs::path(KSEEK_FIXTURE_CANDIDATES).parent_path().parent_path().parent_path();

// Every "kseek/core/<folder>/" a file under `dir` includes, as "<file>: <folder>".
std::multimap<std::string, std::string> core_includes(const fs::path& dir) {
  static const std::regex kInclude(R"re(^\s*#\s*include\s*"kseek/core/([a-z_]+)/)re");
  std::multimap<std::string, std::string> found;
  if (!fs::is_directory(dir)) return found;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const auto ext = entry.path().extension();
    if (ext != ".cpp" && ext != ".hpp" && ext != ".h" && ext != ".cu" && ext != ".cuh") continue;
    std::ifstream in(entry.path());
    std::smatch m;
    for (std::string line; std::getline(in, line);) {
      if (std::regex_search(line, m, kInclude)) found.emplace(m[1].str(), fs::relative(entry.path(), kRoot).string());
    }
  }
  return found;
}

void expect_never(const std::string& folder, const std::set<std::string>& forbidden) {
  for (const auto& sub : {kRoot / "core/src" / folder, kRoot / "core/include/kseek/core" / folder}) {
    for (const auto& [included, file] : core_includes(sub)) {
      EXPECT_FALSE(forbidden.count(included)) << file << " includes kseek/core/" << included << "/, which " << folder
                                              << "/ must never include (ARCHITECTURE.md)";
    }
  }
}

TEST(IncludeRules, EachCoreFolderIncludesOnlyWhatArchitectureMdAllows) {
  ASSERT_TRUE(fs::exists(kRoot / "ARCHITECTURE.md")) << kRoot;
  ASSERT_FALSE(core_includes(kRoot / "core/src/eval").empty()) << "the scan finds nothing: it would prove nothing";
  const std::set<std::string> everything = {"util",     "plugin",    "build",  "check", "worker", "eval",
                                            "campaign", "questions", "report", "mcp",   "app",    "cli"};
  auto all_but = [&](std::set<std::string> allowed) {
    std::set<std::string> out;
    for (const auto& f : everything) {
      if (!allowed.count(f)) out.insert(f);
    }
    return out;
  };
  expect_never("util", all_but({"util"}));
  expect_never("check", all_but({"check", "util"}));
  expect_never("plugin", {"eval", "worker", "campaign", "cli", "mcp", "report", "app"});
  expect_never("build", {"eval", "worker", "campaign", "cli", "mcp", "report", "app"});
  expect_never("worker", {"cli", "campaign", "mcp", "report", "app"});
  expect_never("eval", {"cli", "campaign", "mcp", "report", "app"});
  expect_never("campaign", {"cli", "mcp", "worker", "app"});
  expect_never("questions", {"campaign", "cli", "mcp", "worker", "eval", "app"});
  expect_never("report", {"cli", "worker", "mcp", "app"});
  expect_never("mcp", {"worker", "cli", "eval", "app"});
  expect_never("app", {"cli", "mcp", "worker", "report"});
}

TEST(IncludeRules, WorkerTakesOnlyTheTimingStatisticsFromEval) {
  for (const auto& dir : {kRoot / "core/src/worker", kRoot / "core/include/kseek/core/worker"}) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      std::ifstream file(entry.path());
      for (std::string line; std::getline(file, line);) {
        if (line.find("#include \"kseek/core/eval/") == std::string::npos) continue;
        EXPECT_NE(line.find("eval/timing_statistics.hpp"), std::string::npos) << entry.path() << ": " << line;
      }
    }
  }
}

// Every "..." include of the files under `dir`, as "<file>: <included path>".
std::multimap<std::string, std::string> quoted_includes(const fs::path& dir) {
  static const std::regex kInclude(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::multimap<std::string, std::string> found;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const auto ext = entry.path().extension();
    if (ext != ".cpp" && ext != ".hpp" && ext != ".h" && ext != ".cu" && ext != ".cuh") continue;
    std::ifstream in(entry.path());
    std::smatch m;
    for (std::string line; std::getline(in, line);) {
      if (std::regex_search(line, m, kInclude)) found.emplace(fs::relative(entry.path(), kRoot).string(), m[1].str());
    }
  }
  return found;
}

// The CLI's own headers sit beside its sources and are included by their bare names ("campaign_actions.hpp"), which
// the folder scan above cannot see: the worker is checked for those names too, and for any path into cli/ or app/.
TEST(IncludeRules, TheWorkerIncludesNothingFromTheCliOrTheApplicationLayer) {
  std::set<std::string> cli_headers;
  for (const auto& entry : fs::directory_iterator(kRoot / "core/src/cli")) {
    if (entry.path().extension() == ".hpp") cli_headers.insert(entry.path().filename().string());
  }
  ASSERT_TRUE(cli_headers.count("cli_context.hpp")) << "the scan must see the CLI's headers";
  std::size_t seen = 0;
  for (const auto& dir : {kRoot / "core/src/worker", kRoot / "core/include/kseek/core/worker"}) {
    for (const auto& [file, included] : quoted_includes(dir)) {
      ++seen;
      const std::string name = fs::path(included).filename().string();
      EXPECT_FALSE(cli_headers.count(name) && included.find('/') == std::string::npos)
          << file << " includes the CLI's " << included;
      EXPECT_EQ(included.find("cli/"), std::string::npos) << file << " includes " << included;
      EXPECT_EQ(included.find("app/"), std::string::npos) << file << " includes " << included;
    }
  }
  EXPECT_GT(seen, 10u) << "the scan finds almost nothing: it would prove nothing";
}

// Core knows plugins only through the SDK: every "kseek/..." header it includes is core's own or the SDK's, and no
// include reaches into plugins/ by a relative path.
TEST(IncludeRules, CoreIncludesNoPluginHeader) {
  std::size_t seen = 0;
  for (const auto& dir : {kRoot / "core/src", kRoot / "core/include", kRoot / "core/device"}) {
    if (!fs::is_directory(dir)) continue;
    for (const auto& [file, included] : quoted_includes(dir)) {
      ++seen;
      EXPECT_EQ(included.find("plugins/"), std::string::npos) << file << " includes " << included;
      if (!included.starts_with("kseek/")) continue;
      // version.hpp is generated from sdk/include/kseek/sdk/version.hpp.in into the build folder.
      const bool known = fs::exists(kRoot / "core/include" / included) ||
                         fs::exists(kRoot / "sdk/include" / included) ||
                         fs::exists(kRoot / "sdk/include" / (included + ".in"));
      EXPECT_TRUE(known) << file << " includes " << included << ", which is neither core's nor the SDK's (a plugin's?)";
    }
  }
  EXPECT_GT(seen, 100u) << "the scan finds almost nothing: it would prove nothing";
  // The rule would catch a plugin header: attention's own headers are "kseek/attention/...", found in plugins/ only.
  EXPECT_TRUE(fs::exists(kRoot / "plugins/attention_common/include/kseek/attention/attention_plugin.hpp"));
  EXPECT_FALSE(fs::exists(kRoot / "core/include/kseek/attention/attention_plugin.hpp"));
}

TEST(IncludeRules, PluginsIncludeNothingFromCore) {
  const auto found = core_includes(kRoot / "plugins");
  for (const auto& [included, file] : found) ADD_FAILURE() << file << " includes kseek/core/" << included << "/";
  EXPECT_TRUE(fs::is_directory(kRoot / "plugins/attention_fa3")) << "the scan must see the plugins";
}

}  // namespace
