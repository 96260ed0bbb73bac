// The attention plugins' ownership rule (ARCHITECTURE.md, docs/plugin-guide.md), checked on the sources: the shared
// code names no family, and no plugin folder reaches into another plugin's folder by a relative path.
// It must never judge device code or candidate-facing headers: their texts are kept byte-identical (GPU measurements).
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;

const fs::path kRoot = fs::path(KSEEK_SOURCE_DIR);
const fs::path kPlugins = kRoot / "plugins";

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The families are the attention_<name> folders other than attention_common: a new family is covered without
// editing this test.
std::vector<std::string> family_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kPlugins)) {
    const std::string folder = entry.path().filename().string();
    if (entry.is_directory() && folder.rfind("attention_", 0) == 0 && folder != "attention_common")
      names.push_back(folder.substr(std::string("attention_").size()));
  }
  return names;
}

// attention_common's host code: its sources, its C++ headers (.hpp) and its CMakeLists. Left out: device/ and seeds/
// (kernel texts) and the .h/.cuh headers every candidate compiles.
std::vector<fs::path> common_host_files() {
  const fs::path common = kPlugins / "attention_common";
  std::vector<fs::path> files = {common / "CMakeLists.txt"};
  for (const auto& dir : {common / "src", common / "include"}) {
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      const auto ext = entry.path().extension();
      if (ext == ".cpp" || ext == ".hpp") files.push_back(entry.path());
    }
  }
  return files;
}

TEST(AttentionPluginLayout, SharedCodeNamesNoFamily) {
  const auto families = family_names();
  ASSERT_GE(families.size(), 2u) << "the scan must see the family plugins under " << kPlugins;
  const auto files = common_host_files();
  ASSERT_GE(files.size(), 10u) << "the scan finds too few files: it would prove nothing";
  for (const std::string& family : families) {
    // "fa3" as a word or part of one (Family::fa3, attention_fa3, "FA3-only"), in any case.
    const std::regex mention(family, std::regex::icase);
    for (const fs::path& file : files) {
      std::istringstream text(read_text(file));
      int number = 0;
      for (std::string line; std::getline(text, line);) {
        ++number;
        EXPECT_FALSE(std::regex_search(line, mention))
            << fs::relative(file, kRoot).string() << ":" << number << " names the family '" << family
            << "'; what differs between families belongs to AttentionFamily (attention_family.hpp): " << line;
      }
    }
  }
}

TEST(AttentionPluginLayout, NoPluginReachesIntoAnotherPluginsFolder) {
  const std::regex sibling(R"(\.\./(attention_[a-z0-9_]+|example_[a-z0-9_]+))");
  int scanned = 0;
  for (const auto& plugin : fs::directory_iterator(kPlugins)) {
    if (!plugin.is_directory()) continue;
    for (const auto& entry : fs::recursive_directory_iterator(plugin.path())) {
      const auto ext = entry.path().extension();
      if (entry.path().filename() != "CMakeLists.txt" && ext != ".cpp" && ext != ".hpp" && ext != ".cmake") continue;
      ++scanned;
      const std::string text = read_text(entry.path());
      std::smatch m;
      EXPECT_FALSE(std::regex_search(text, m, sibling))
          << fs::relative(entry.path(), kRoot).string() << " reaches into ../" << m[1].str()
          << "; share a file through attention_common (or the SDK) instead";
    }
  }
  EXPECT_GE(scanned, 10) << "the scan finds too few files: it would prove nothing";
}

}  // namespace
