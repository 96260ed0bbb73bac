// ARCHITECTURE.md's table of what each folder must never include, checked on the sources: a change that makes
// the worker reach into the CLI, a plugin into core, or a test into another component's internals fails here instead
// of in a review. It must never read anything but #include lines.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;

const fs::path kRoot = fs::path(KSEEK_FIXTURE_CANDIDATES).parent_path().parent_path().parent_path();

struct Include {
  fs::path file;         // relative to the root
  std::string included;  // the path between the quotes or the angle brackets
  bool angled = false;
};

// Every #include of the files under `dir`, quoted or angled.
std::vector<Include> includes_under(const fs::path& dir) {
  static const std::regex kInclude(R"re(^\s*#\s*include\s*([<"])([^">]+)[">])re");
  std::vector<Include> found;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const auto ext = entry.path().extension();
    if (ext != ".cpp" && ext != ".hpp" && ext != ".h" && ext != ".cu" && ext != ".cuh") continue;
    std::ifstream in(entry.path());
    std::smatch m;
    for (std::string line; std::getline(in, line);) {
      if (std::regex_search(line, m, kInclude))
        found.push_back({fs::relative(entry.path(), kRoot), m[2].str(), m[1].str() == "<"});
    }
  }
  return found;
}

// Every "kseek/core/<folder>/" a file under `dir` includes, as "<file>: <folder>".
std::multimap<std::string, std::string> core_includes(const fs::path& dir) {
  static const std::regex kCore(R"re(^kseek/core/([a-z_]+)/)re");
  std::multimap<std::string, std::string> found;
  if (!fs::is_directory(dir)) return found;
  std::smatch m;
  for (const Include& include : includes_under(dir)) {
    if (!include.angled && std::regex_search(include.included, m, kCore))
      found.emplace(m[1].str(), include.file.string());
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
  std::multimap<std::string, std::string> found;
  for (const Include& include : includes_under(dir)) {
    if (!include.angled) found.emplace(include.file.string(), include.included);
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

// version.hpp is generated from sdk/include/kseek/sdk/version.hpp.in into the build folder.
bool sdk_header(const std::string& included) {
  return fs::exists(kRoot / "sdk/include" / included) || fs::exists(kRoot / "sdk/include" / (included + ".in"));
}
bool core_or_sdk_header(const std::string& included) {
  return fs::exists(kRoot / "core/include" / included) || sdk_header(included);
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
      EXPECT_TRUE(core_or_sdk_header(included))
          << file << " includes " << included << ", which is neither core's nor the SDK's (a plugin's?)";
    }
  }
  EXPECT_GT(seen, 100u) << "the scan finds almost nothing: it would prove nothing";
  // The rule would catch a plugin header: attention's own headers are "kseek/attention/...", found in plugins/ only.
  EXPECT_TRUE(fs::exists(kRoot / "plugins/attention_common/include/kseek/attention/attention_plugin.hpp"));
  EXPECT_FALSE(fs::exists(kRoot / "core/include/kseek/attention/attention_plugin.hpp"));
}

// Their tests (plugins/<name>/tests) included: they are held to their plugin's rule.
TEST(IncludeRules, PluginsIncludeNothingFromCore) {
  const auto found = core_includes(kRoot / "plugins");
  for (const auto& [included, file] : found) ADD_FAILURE() << file << " includes kseek/core/" << included << "/";
  EXPECT_TRUE(fs::is_directory(kRoot / "plugins/attention_fa3")) << "the scan must see the plugins";
}

// ---- tests live beside their subject and include no other component's internals -----------------------------------

// Every header a plugin folder holds, under each name an include reaches it by: relative to include/ and device/ (its
// targets' include folders), src/ (internal headers, by their bare names) and tests/; with the folders holding it
// (two families each have a kseek/attention/problem_features.h).
std::map<std::string, std::set<std::string>> plugin_headers() {
  std::map<std::string, std::set<std::string>> headers;
  for (const auto& plugin : fs::directory_iterator(kRoot / "plugins")) {
    if (!plugin.is_directory()) continue;
    for (const char* sub : {"include", "device", "src", "tests"}) {
      const fs::path base = plugin.path() / sub;
      if (!fs::is_directory(base)) continue;
      for (const auto& entry : fs::recursive_directory_iterator(base)) {
        const auto ext = entry.path().extension();
        if (ext != ".h" && ext != ".hpp" && ext != ".cuh") continue;
        headers[fs::relative(entry.path(), base).string()].insert(plugin.path().filename().string());
      }
    }
  }
  return headers;
}

// The plugin folders holding the header `included` names: by its name, or by a path ending in it
// ("device/attention_device_params.h"); empty when it is no plugin's.
std::set<std::string> plugin_owners(const std::map<std::string, std::set<std::string>>& headers,
                                    const std::string& included) {
  std::set<std::string> owners;
  for (const auto& [name, folders] : headers) {
    if (included == name || included.ends_with("/" + name)) owners.insert(folders.begin(), folders.end());
  }
  return owners;
}

// A path that climbs out of where its include folders put it, or names the plugins' folder.
bool reaches_by_path(const std::string& included) {
  const fs::path path(included);
  return std::any_of(path.begin(), path.end(), [](const fs::path& part) { return part == ".."; }) ||
         included.find("plugins/") != std::string::npos;
}

// Candidates: tests/adversarial and the fixture candidates and seed, compiled by NVRTC, include the candidate-facing
// headers the plugin hands NVRTC with them (the candidate seam), which is what they are there to test.
bool candidate_source(const fs::path& file) {
  const auto ext = file.extension();
  const std::string path = file.generic_string();
  return (ext == ".cu" || ext == ".cuh") &&
         (path.starts_with("tests/adversarial/") || path.starts_with("tests/fixtures/"));
}

// Core's tests test core: they reach a plugin only as kseek does (loaded by the registry, or through `kseek`); a test
// of a plugin's own code lives in plugins/<name>/tests.
TEST(IncludeRules, CoreTestsIncludeNoPluginHeader) {
  const auto headers = plugin_headers();
  // What the rule must catch exists, so a pass means something.
  ASSERT_EQ(plugin_owners(headers, "kseek/attention/attention_plugin.hpp"), std::set<std::string>{"attention_common"});
  ASSERT_EQ(plugin_owners(headers, "attention_device_params.h"), std::set<std::string>{"attention_common"});
  ASSERT_FALSE(plugin_owners(headers, "kseek/attention_fa3/fa3_family.hpp").empty());
  std::size_t seen = 0;
  for (const Include& include : includes_under(kRoot / "tests")) {
    if (candidate_source(include.file)) continue;
    ++seen;
    const std::string& included = include.included;
    if (const auto owners = plugin_owners(headers, included); !owners.empty()) {
      ADD_FAILURE() << include.file.string() << " includes " << included << ", a header of plugins/" << *owners.begin()
                    << ": test the plugin in its own tests/ folder";
    }
    EXPECT_FALSE(reaches_by_path(included))
        << include.file.string() << " includes " << included << " by a path into another component";
    if (included.starts_with("kseek/")) {
      EXPECT_TRUE(core_or_sdk_header(included))
          << include.file.string() << " includes " << included << ", which is neither core's nor the SDK's";
    }
  }
  EXPECT_GT(seen, 300u) << "the scan finds almost nothing: it would prove nothing";
}

// A plugin's tests are held to its sources' rule and include only the SDK, their own plugin's headers (an attention
// family: attention_common's too, as its code does), libraries (GoogleTest...) and test support (tests/support, as
// "support/<name>"). attention_common's tests may include the families' headers: shared code runs only inside a
// family, so that is how they exercise it.
TEST(IncludeRules, PluginTestsIncludeOnlyTheSdkTheirPluginAndTestSupport) {
  const auto headers = plugin_headers();
  std::size_t seen = 0;
  std::set<std::string> plugins_with_tests;
  for (const auto& plugin : fs::directory_iterator(kRoot / "plugins")) {
    const std::string name = plugin.path().filename().string();
    if (!fs::is_directory(plugin.path() / "tests")) continue;
    plugins_with_tests.insert(name);
    std::set<std::string> allowed = {name};
    if (name.starts_with("attention_")) allowed.insert("attention_common");
    if (name == "attention_common") {
      for (const auto& other : fs::directory_iterator(kRoot / "plugins")) {
        if (other.path().filename().string().starts_with("attention_"))
          allowed.insert(other.path().filename().string());
      }
    }
    for (const Include& include : includes_under(plugin.path() / "tests")) {
      ++seen;
      const std::string& included = include.included;
      const std::string where = include.file.string() + " includes " + included;
      if (reaches_by_path(included)) {
        ADD_FAILURE() << where << " by a path into another component";
        continue;
      }
      if (included.starts_with("kseek/core/")) {
        ADD_FAILURE() << where << ": core's internals, which plugins/" << name << " must never include";
        continue;
      }
      if (sdk_header(included)) continue;
      if (!include.angled && included.starts_with("support/") && fs::exists(kRoot / "tests" / included)) continue;
      const auto owners = plugin_owners(headers, included);
      if (!owners.empty()) {
        const bool own = std::any_of(owners.begin(), owners.end(), [&](const auto& o) { return allowed.count(o); });
        EXPECT_TRUE(own) << where << ", a header of plugins/" << *owners.begin() << ", not of " << name;
        continue;
      }
      if (!include.angled && fs::exists(kRoot / include.file.parent_path() / included)) continue;  // beside the test
      EXPECT_TRUE(include.angled && !included.starts_with("kseek/"))
          << where << ", which is neither the SDK's, plugins/" << name << "'s nor test support";
    }
  }
  ASSERT_TRUE(plugins_with_tests.count("attention_common")) << "the scan must see the plugins' tests";
  EXPECT_GT(seen, 30u) << "the scan finds almost nothing: it would prove nothing";
}

}  // namespace
