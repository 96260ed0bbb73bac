// Plugin discovery and loading with Boost.DLL (only calls present in both Boost 1.74 and 1.83).
// It must never construct or call a C++ object of a plugin whose descriptor did not check out.
#include "kseek/core/plugin/plugin_registry.hpp"

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <optional>

#include <fmt/format.h>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>

#ifndef KSEEK_RELATIVE_PLUGIN_DIR
#error "KSEEK_RELATIVE_PLUGIN_DIR must be defined by the build"
#endif

namespace kseek {
namespace fs = std::filesystem;
namespace {

// Libraries are parked here and never closed: code of a plugin may still be referenced by objects
// (vtables, std::function, strings with static storage) until the very end of the process.
std::deque<boost::dll::shared_library>& parked_libraries() {
  static auto* libraries = new std::deque<boost::dll::shared_library>();
  return *libraries;
}

std::string major_minor(std::string_view version) {
  const auto first = version.find('.');
  if (first == std::string_view::npos) return std::string(version);
  const auto second = version.find('.', first + 1);
  return std::string(version.substr(0, second));
}

}  // namespace

bool sdk_versions_compatible(std::string_view ours, std::string_view theirs) {
  return major_minor(ours) == major_minor(theirs);
}

std::string fingerprint_field(std::string_view fingerprint, std::string_view key) {
  std::size_t start = 0;
  while (start <= fingerprint.size()) {
    auto end = fingerprint.find(';', start);
    if (end == std::string_view::npos) end = fingerprint.size();
    const auto item = fingerprint.substr(start, end - start);
    const auto eq = item.find('=');
    if (eq != std::string_view::npos && item.substr(0, eq) == key) {
      return std::string(item.substr(eq + 1));
    }
    start = end + 1;
  }
  return {};
}

std::vector<fs::path> PluginRegistry::search_path(const std::vector<fs::path>& extra) {
  std::vector<fs::path> folders = extra;
  if (const char* env = std::getenv("KSEEK_PLUGIN_PATH"); env != nullptr) {
    std::string_view list(env);
    std::size_t start = 0;
    while (start <= list.size()) {
      auto end = list.find(':', start);
      if (end == std::string_view::npos) end = list.size();
      if (end > start) folders.emplace_back(std::string(list.substr(start, end - start)));
      start = end + 1;
    }
  }
  boost::dll::fs::error_code ec;
  const fs::path program = boost::dll::program_location(ec);
  if (!ec) {
    folders.push_back((program.parent_path() / KSEEK_RELATIVE_PLUGIN_DIR).lexically_normal());
  }
  return folders;
}

void PluginRegistry::load_folders(const std::vector<fs::path>& folders) {
  for (const auto& folder : folders) {
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) continue;  // an absent folder in a search path is normal
    std::vector<fs::path> libraries;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
      if (entry.is_regular_file() && entry.path().extension() == ".so") libraries.push_back(entry.path());
    }
    std::sort(libraries.begin(), libraries.end());  // a stable order makes duplicate-id handling stable
    for (const auto& library : libraries) {
      auto opened = open_library(library);
      if (!opened) problems_.push_back({library, opened.error().message});
    }
  }
}

Result<const LoadedPlugin*> PluginRegistry::load_file(const fs::path& path) {
  auto opened = open_library(path);
  if (!opened) return opened.error();
  if (const auto* loaded = materialize(*opened); loaded != nullptr) return loaded;
  return make_error(problems_.back().message);
}

Result<std::size_t> PluginRegistry::open_library(const fs::path& path) {
  const std::string file = path.string();
  for (std::size_t i = 0; i < plugins_.size(); ++i) {
    std::error_code ec;
    if (fs::equivalent(plugins_[i]->path, path, ec)) return i;
  }

  boost::dll::shared_library library;
  try {
    library.load(boost::dll::fs::path(path), boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    return make_error(fmt::format("{}: not a loadable shared library ({})", file, e.what()));
  }
  if (!library.has(KSEEK_PLUGIN_DESCRIPTOR_SYMBOL)) {
    return make_error(
        fmt::format("{}: not a kernelseek plugin (no '{}' symbol)", file, KSEEK_PLUGIN_DESCRIPTOR_SYMBOL));
  }
  const auto describe = library.get<const kseek_plugin_descriptor_t*()>(KSEEK_PLUGIN_DESCRIPTOR_SYMBOL);
  const kseek_plugin_descriptor_t* descriptor = describe();
  if (descriptor == nullptr) {
    return make_error(fmt::format("{}: '{}' returned no descriptor", file, KSEEK_PLUGIN_DESCRIPTOR_SYMBOL));
  }
  if (descriptor->abi_version != KSEEK_PLUGIN_ABI_VERSION) {
    return make_error(
        fmt::format("{}: plugin ABI version {}, this kseek expects {} (rebuild the plugin "
                    "against SDK {})",
                    file, descriptor->abi_version, KSEEK_PLUGIN_ABI_VERSION, KSEEK_SDK_VERSION));
  }
  if (descriptor->descriptor_size != sizeof(kseek_plugin_descriptor_t)) {
    return make_error(fmt::format("{}: descriptor size {}, this kseek expects {}", file, descriptor->descriptor_size,
                                  sizeof(kseek_plugin_descriptor_t)));
  }
  const std::string sdk_version = descriptor->sdk_version ? descriptor->sdk_version : "";
  const std::string fingerprint = descriptor->build_fingerprint ? descriptor->build_fingerprint : "";
  const std::string id = descriptor->plugin_id ? descriptor->plugin_id : "";
  if (!sdk_versions_compatible(KSEEK_SDK_VERSION, sdk_version)) {
    return make_error(fmt::format("{}: built against SDK {}, this kseek has SDK {} (rebuild the plugin)", file,
                                  sdk_version, KSEEK_SDK_VERSION));
  }
  const std::string their_stdlib = fingerprint_field(fingerprint, "stdlib");
  if (their_stdlib != KSEEK_STDLIB_ABI) {
    return make_error(
        fmt::format("{}: C++ standard library ABI '{}', this kseek uses '{}' (rebuild the plugin "
                    "with the same standard library)",
                    file, their_stdlib, KSEEK_STDLIB_ABI));
  }
  if (id.empty()) return make_error(fmt::format("{}: descriptor has an empty plugin id", file));
  if (const auto other = index_of_id(id); other < plugins_.size()) {
    return make_error(fmt::format("{}: plugin id '{}' is already provided by {}; ignoring this copy", file, id,
                                  plugins_[other]->path.string()));
  }
  for (const char* symbol : {KSEEK_PLUGIN_CREATE_SYMBOL, KSEEK_PLUGIN_DESTROY_SYMBOL}) {
    if (!library.has(symbol)) {
      return make_error(fmt::format("{}: plugin '{}' lacks the '{}' symbol", file, id, symbol));
    }
  }

  auto& create = library.get<void*()>(KSEEK_PLUGIN_CREATE_SYMBOL);

  parked_libraries().push_back(std::move(library));
  auto loaded = std::make_unique<LoadedPlugin>();
  loaded->path = path;
  loaded->id = id;
  loaded->version = descriptor->plugin_version ? descriptor->plugin_version : "";
  loaded->sdk_version = sdk_version;
  loaded->build_fingerprint = fingerprint;
  plugins_.push_back(std::move(loaded));
  factories_.push_back(&create);
  return plugins_.size() - 1;
}

const LoadedPlugin* PluginRegistry::materialize(std::size_t index) const {
  LoadedPlugin& loaded = *plugins_[index];
  if (factories_[index] == nullptr) return &loaded;
  const std::string file = loaded.path.string();
  std::optional<std::string> problem;
  auto* plugin = static_cast<Plugin*>(factories_[index]());
  if (plugin == nullptr) {
    problem = fmt::format("{}: plugin '{}' failed to construct", file, loaded.id);
  } else if (const std::string object_id = plugin->info().id; object_id != loaded.id) {
    problem = fmt::format("{}: descriptor says id '{}', the plugin object says '{}'", file, loaded.id, object_id);
  }
  if (problem) {
    problems_.push_back({loaded.path, std::move(*problem)});
    plugins_.erase(plugins_.begin() + static_cast<std::ptrdiff_t>(index));
    factories_.erase(factories_.begin() + static_cast<std::ptrdiff_t>(index));
    return nullptr;
  }
  loaded.plugin = plugin;  // never destroyed: see parked_libraries()
  factories_[index] = nullptr;
  return &loaded;
}

void PluginRegistry::materialize_all() const {
  for (std::size_t i = 0; i < plugins_.size();) {
    if (materialize(i) != nullptr) ++i;  // a failed entry was removed: the next one now has index i
  }
}

std::size_t PluginRegistry::index_of_id(std::string_view id) const {
  for (std::size_t i = 0; i < plugins_.size(); ++i) {
    if (plugins_[i]->id == id) return i;
  }
  return plugins_.size();
}

std::size_t PluginRegistry::objects_created() const {
  return static_cast<std::size_t>(std::count(factories_.begin(), factories_.end(), nullptr));
}

const std::vector<std::unique_ptr<LoadedPlugin>>& PluginRegistry::plugins() const {
  materialize_all();
  return plugins_;
}

const std::vector<PluginProblem>& PluginRegistry::problems() const {
  materialize_all();  // an object that fails its id check is a problem too
  return problems_;
}

const LoadedPlugin* PluginRegistry::find(std::string_view id) const {
  const auto index = index_of_id(id);
  return index < plugins_.size() ? materialize(index) : nullptr;
}

Result<const LoadedPlugin*> PluginRegistry::require(std::string_view id) const {
  if (const auto* plugin = find(id); plugin != nullptr) return plugin;
  materialize_all();  // the message lists only plugins that passed every check
  std::string known;
  for (const auto& plugin : plugins_) known += (known.empty() ? "" : ", ") + plugin->id;
  std::string message = fmt::format("no plugin '{}' is loaded (loaded: {})", id, known.empty() ? "none" : known);
  for (const auto& problem : problems_) message += fmt::format("; {}", problem.message);
  message += "; add its folder with --plugin-dir or KSEEK_PLUGIN_PATH";
  return make_error(std::move(message));
}

}  // namespace kseek
