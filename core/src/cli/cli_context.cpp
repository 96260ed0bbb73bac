// Shared plumbing of the commands.
// It must never print to stdout in JSON mode anything but one JSON document.
#include "cli_context.hpp"

#include <algorithm>

#include "kseek/core/util/files.hpp"

namespace kseek::cli {

GlobalOptions with_campaign(const GlobalOptions& options, const CampaignConfig& config) {
  GlobalOptions out = options;
  for (const auto& dir : config.plugin_dirs) out.plugin_dirs.emplace_back(dir);
  for (const auto& file : config.pack_files) out.pack_files.emplace_back(file);
  return out;
}

void load_plugins(const GlobalOptions& options, PluginRegistry& registry) {
  registry.load_folders(PluginRegistry::search_path(options.plugin_dirs));
}

BuildService make_build_service(const GlobalOptions& options) {
  if (options.no_cache) return BuildService(std::nullopt);
  return BuildService(BuildCache(options.cache_dir.empty() ? BuildCache::default_folder() : options.cache_dir));
}

int fail(const GlobalOptions& options, int code, const std::string& status, const std::string& message) {
  if (options.json) {
    print_json({{"status", status}, {"error", message}});
  } else {
    std::cerr << "kseek: " << message << "\n";
  }
  return code;
}

void print_json(const nlohmann::json& j) { std::cout << j.dump(2) << "\n"; }

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

std::string human_bytes(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.2f} MB", bytes / 1e6);
  if (bytes >= 1e3) return fmt::format("{:.1f} kB", bytes / 1e3);
  return fmt::format("{:.0f} B", bytes);
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
      return make_error(fmt::format("scenario '{}' is not in set '{}' and does not parse: {}", id, set,
                                    parsed.error().message));
    }
    parsed->id = fmt::format("U{:02}", chosen.size() + 1);
    chosen.push_back(std::move(*parsed));
  }
  return chosen;
}

}  // namespace kseek::cli
