// Finds, loads and keeps operator plugins (Boost.DLL): the descriptor is checked before any C++ object
// crosses. It must never unload a library: plugin objects and their code live as long as the process.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kseek/sdk/plugin.hpp"
#include "kseek/sdk/result.hpp"

namespace kseek {

struct LoadedPlugin {
  std::filesystem::path path;
  std::string id;
  std::string version;
  std::string sdk_version;
  std::string build_fingerprint;
  Plugin* plugin = nullptr;  // owned by the registry for the process lifetime
};

// A library that was found but could not be used, with a one-line reason naming the file.
struct PluginProblem {
  std::filesystem::path path;
  std::string message;
};

class PluginRegistry {
 public:
  PluginRegistry() = default;
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  // The folders searched, in order: `extra` (from --plugin-dir), KSEEK_PLUGIN_PATH (colon-separated),
  // then the built-in folder next to the running executable.
  static std::vector<std::filesystem::path> search_path(const std::vector<std::filesystem::path>& extra);

  // Loads every `*.so` in each folder; libraries that fail are recorded as problems, not fatal.
  void load_folders(const std::vector<std::filesystem::path>& folders);

  // Loads one library; the error names the file and, for a mismatch, both versions.
  Result<const LoadedPlugin*> load_file(const std::filesystem::path& path);

  const LoadedPlugin* find(std::string_view id) const;
  // Like find, but the error lists the plugins that are loaded and the problems seen.
  Result<const LoadedPlugin*> require(std::string_view id) const;

  const std::vector<std::unique_ptr<LoadedPlugin>>& plugins() const { return plugins_; }
  const std::vector<PluginProblem>& problems() const { return problems_; }

 private:
  std::vector<std::unique_ptr<LoadedPlugin>> plugins_;
  std::vector<PluginProblem> problems_;
};

// True when `ours` can use a plugin built with SDK `theirs` (same major and minor while below 1.0).
bool sdk_versions_compatible(std::string_view ours, std::string_view theirs);

// Reads one field ("stdlib", "sdk", ...) of a "key=value;..." fingerprint; empty when absent.
std::string fingerprint_field(std::string_view fingerprint, std::string_view key);

}  // namespace kseek
