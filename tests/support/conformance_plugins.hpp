// Test support: the plugins the conformance suites run over — every plugin of the build's plugin folder, plus the
// folders named in $KSEEK_CONFORMANCE_PLUGIN_DIRS (colon-separated; the export test points it at out-of-tree builds).
// It must never be used by product code, and never hide a library that failed to load.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "kseek/core/plugin/plugin_registry.hpp"

namespace kseek::testing {

inline std::vector<std::filesystem::path> conformance_extra_dirs() {
  std::vector<std::filesystem::path> dirs;
  if (const char* env = std::getenv("KSEEK_CONFORMANCE_PLUGIN_DIRS")) {
    std::stringstream list(env);
    for (std::string dir; std::getline(list, dir, ':');) {
      if (!dir.empty()) dirs.emplace_back(dir);
    }
  }
  return dirs;
}

// Loaded once per process (plugins are never unloaded anyway) and shared by listing and tests.
inline const PluginRegistry& conformance_registry() {
  static const PluginRegistry* registry = [] {
    auto* r = new PluginRegistry();
    std::vector<std::filesystem::path> folders{KSEEK_TREE_PLUGIN_DIR};
    for (auto& dir : conformance_extra_dirs()) folders.push_back(dir);
    r->load_folders(folders);
    return r;
  }();
  return *registry;
}

inline std::vector<std::string> conformance_plugin_ids() {
  std::vector<std::string> ids;
  for (const auto& loaded : conformance_registry().plugins()) ids.push_back(loaded->id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

// The folder a plugin was loaded from, for `kseek --plugin-dir`.
inline std::string conformance_plugin_dir(const std::string& id) {
  const auto* loaded = conformance_registry().find(id);
  return loaded == nullptr ? std::string() : loaded->path.parent_path().string();
}

// Plugin ids are dotted; GoogleTest names are identifiers.
inline std::string test_name_of(std::string id) {
  std::replace_if(
      id.begin(), id.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return id;
}

}  // namespace kseek::testing
