// `kseek plugins`: what is loaded from where, and every library that could not be used and why.
// It must never hide a problem library: each appears with its one-line reason.
#include <algorithm>

#include "commands.hpp"
#include "kseek/core/util/table.hpp"

namespace kseek::cli {

void register_plugins_command(CLI::App& app, GlobalOptions& options, int& exit_code) {
  auto* command = app.add_subcommand("plugins", "List the plugins found and any library that failed to load");
  command->callback([&options, &exit_code] {
    PluginRegistry registry;
    const auto search = PluginRegistry::search_path(options.plugin_dirs);
    registry.load_folders(search);
    if (options.json) {
      nlohmann::json plugins = nlohmann::json::array();
      for (const auto& loaded : registry.plugins()) {
        nlohmann::json info = loaded->plugin->info();
        info["path"] = loaded->path.string();
        info["sdk_version"] = loaded->sdk_version;
        info["build_fingerprint"] = loaded->build_fingerprint;
        plugins.push_back(std::move(info));
      }
      nlohmann::json problems = nlohmann::json::array();
      for (const auto& problem : registry.problems()) {
        problems.push_back({{"path", problem.path.string()}, {"error", problem.message}});
      }
      nlohmann::json folders = nlohmann::json::array();
      for (const auto& folder : search) folders.push_back(folder.string());
      print_json({{"status", "OK"}, {"plugins", plugins}, {"problems", problems}, {"search_path", folders}});
    } else {
      Table table({"id", "version", "operator", "archs", "scenario sets", "path"});
      for (const auto& loaded : registry.plugins()) {
        const PluginInfo info = loaded->plugin->info();
        std::string archs;
        for (const auto& arch : info.target_archs) archs += (archs.empty() ? "" : ",") + arch;
        std::string sets;
        for (const auto& set : info.scenario_sets)
          sets += fmt::format("{}{} ({})", sets.empty() ? "" : ", ", set.name, set.size);
        table.add_row({info.id, info.version, info.operator_name, archs, sets, loaded->path.string()});
      }
      std::cout << table.render();
      if (registry.plugins().empty()) std::cout << "no plugins found; searched:\n";
      for (const auto& problem : registry.problems()) std::cerr << "warning: " << problem.message << "\n";
      if (registry.plugins().empty()) {
        for (const auto& folder : search) std::cout << "  " << folder.string() << "\n";
      }
    }
    exit_code = registry.plugins().empty() ? kExitUsage : kExitOk;
  });
}

}  // namespace kseek::cli
