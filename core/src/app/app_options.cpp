// The parts every use case finds the same way: plugins, packs, the build cache, scenarios and constraints.
// It must never print: a problem is returned or kept in the registry for the caller to show.
#include "kseek/core/app/app_options.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kseek/core/util/files.hpp"

namespace kseek::app {

AppOptions with_campaign(const AppOptions& options, const CampaignConfig& config) {
  AppOptions out = options;
  for (const auto& dir : config.plugin_dirs) out.plugin_dirs.emplace_back(dir);
  for (const auto& file : config.pack_files) out.pack_files.emplace_back(file);
  return out;
}

void load_plugins(const AppOptions& options, PluginRegistry& registry) {
  registry.load_folders(PluginRegistry::search_path(options.plugin_dirs));
}

BuildService make_build_service(const AppOptions& options) {
  if (options.no_cache) return BuildService(std::nullopt);
  return BuildService(BuildCache(options.cache_dir.empty() ? BuildCache::default_folder() : options.cache_dir));
}

Result<Constraints> load_constraints(const Plugin& plugin, const std::filesystem::path& override_file) {
  Constraints constraints = plugin.default_constraints();
  if (override_file.empty()) return constraints;
  auto text = read_file(override_file);
  if (!text) return text.error();
  try {
    const auto j = nlohmann::json::parse(*text);
    if (!j.is_object()) {
      return make_error(fmt::format("{}: constraints must be a JSON object", override_file.string()));
    }
    from_json(j, constraints);
  } catch (const std::exception& e) {
    return make_error(fmt::format("{}: {}", override_file.string(), e.what()));
  }
  return constraints;
}

Result<std::vector<Scenario>> select_scenarios(const Plugin& plugin, const std::string& set_name,
                                               const std::vector<std::string>& ids) {
  const std::string set = set_name.empty() ? plugin.info().default_set : set_name;
  auto all = plugin.scenarios(set);
  if (!all) return all.error();
  if (ids.empty()) return all;
  std::vector<Scenario> chosen;
  for (const auto& id : ids) {
    auto it = std::find_if(all->begin(), all->end(), [&](const Scenario& s) { return s.id == id || s.name == id; });
    if (it != all->end()) {
      chosen.push_back(*it);
      continue;
    }
    auto parsed = plugin.scenario_from_name(id);  // a user-written key=value name
    if (!parsed) {
      return make_error(
          fmt::format("scenario '{}' is not in set '{}' and does not parse: {}", id, set, parsed.error().message));
    }
    parsed->id = fmt::format("U{:02}", chosen.size() + 1);
    chosen.push_back(std::move(*parsed));
  }
  return chosen;
}

}  // namespace kseek::app
