// Finds, loads and keeps operator plugins (Boost.DLL): the descriptor is checked before any C++ object
// crosses. It must never unload a library: plugin objects and their code live as long as the process.
// A plugin object is created, and its info().id checked against the descriptor, only when that plugin is first asked
// for (find, require, load_file, or plugins() and problems(), which list them all): info() can be costly (an attention
// plugin builds its scenario sets to count them), and a command or worker that uses one plugin should not pay it for
// every plugin in the folder (issue 20).
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
  Plugin* plugin =
      nullptr;  // owned by the registry for the process lifetime; set on every entry the registry hands out
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

  // Loads every `*.so` in each folder and checks its descriptor; libraries that fail are recorded as problems, not
  // fatal. No plugin object is created yet.
  void load_folders(const std::vector<std::filesystem::path>& folders);

  // Loads one library and creates its plugin object; the error names the file and, for a mismatch, both versions.
  Result<const LoadedPlugin*> load_file(const std::filesystem::path& path);

  // The plugin with this id, its object created and checked on the first ask; null when none is loaded or its object
  // failed the check (then a problem says why).
  const LoadedPlugin* find(std::string_view id) const;
  // Like find, but the error lists the plugins that are loaded and the problems seen.
  Result<const LoadedPlugin*> require(std::string_view id) const;

  // Every plugin, each object created and checked; those that failed are problems instead.
  const std::vector<std::unique_ptr<LoadedPlugin>>& plugins() const;
  const std::vector<PluginProblem>& problems() const;

  // How many plugin objects exist so far (tests: loading a folder creates none).
  std::size_t objects_created() const;

 private:
  // Checks the library's descriptor and keeps it; the index of its entry, whose object does not exist yet.
  Result<std::size_t> open_library(const std::filesystem::path& path);
  // Creates the object of entry `index` and checks its id; on failure the entry becomes a problem and is removed.
  const LoadedPlugin* materialize(std::size_t index) const;
  void materialize_all() const;
  std::size_t index_of_id(std::string_view id) const;  // plugins_.size() when none

  // Mutable: creating an object on the first ask is invisible to callers but for its cost (see the file comment).
  mutable std::vector<std::unique_ptr<LoadedPlugin>> plugins_;
  mutable std::vector<void* (*)()> factories_;  // parallel to plugins_: the factory while the object does not exist
  mutable std::vector<PluginProblem> problems_;
};

// True when `ours` can use a plugin built with SDK `theirs` (same major and minor while below 1.0).
bool sdk_versions_compatible(std::string_view ours, std::string_view theirs);

// Reads one field ("stdlib", "sdk", ...) of a "key=value;..." fingerprint; empty when absent.
std::string fingerprint_field(std::string_view fingerprint, std::string_view key);

}  // namespace kseek
