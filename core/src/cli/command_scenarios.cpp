// `kseek scenarios`: the scenarios of a plugin's set, or how one user-written scenario name was read.
// It must never accept a name the plugin could not parse: the plugin's error is shown as it is.
#include <memory>

#include "commands.hpp"
#include "kseek/core/util/table.hpp"

namespace kseek::cli {

void register_scenarios_command(CLI::App& app, GlobalOptions& options, int& exit_code) {
  auto* command = app.add_subcommand("scenarios", "List a plugin's scenarios, or read one scenario name");
  struct Args {
    std::string plugin_id, set_name, scenario_name;
  };
  auto args = std::make_shared<Args>();
  command->add_option("--plugin", args->plugin_id, "Plugin id, e.g. attention.fa3")->required();
  command->add_option("--set", args->set_name, "Scenario set (default: the plugin's default set)");
  command->add_option("--scenario", args->scenario_name, "A key=value scenario name to parse and show");
  command->callback([&options, &exit_code, args] {
    const auto& [plugin_id, set_name, scenario_name] = *args;
    PluginRegistry registry;
    load_plugins(options, registry);
    auto loaded = registry.require(plugin_id);
    if (!loaded) {
      exit_code = fail(options, kExitUsage, "ERROR", loaded.error().message);
      return;
    }
    const Plugin& plugin = *(*loaded)->plugin;
    std::vector<Scenario> scenarios;
    std::string shown_set;
    if (!scenario_name.empty()) {
      auto scenario = plugin.scenario_from_name(scenario_name);
      if (!scenario) {
        exit_code = fail(options, kExitUsage, "ERROR",
                         fmt::format("scenario '{}': {}", scenario_name, scenario.error().message));
        return;
      }
      scenarios.push_back(std::move(*scenario));
    } else {
      shown_set = set_name.empty() ? plugin.info().default_set : set_name;
      auto listed = plugin.scenarios(shown_set);
      if (!listed) {
        exit_code = fail(options, kExitUsage, "ERROR", listed.error().message);
        return;
      }
      scenarios = std::move(*listed);
    }
    if (options.json) {
      print_json({{"status", "OK"},
                  {"plugin", plugin_id},
                  {"set", shown_set},
                  {"count", scenarios.size()},
                  {"scenarios", scenarios}});
    } else {
      Table table({"id", "GFLOP", "GB", "arch", "name"});
      for (const auto& s : scenarios) {
        table.add_row({s.id, fmt::format("{:.1f}", s.flops / 1e9), fmt::format("{:.3f}", s.bytes / 1e9),
                       s.required_arch, s.name});
      }
      std::cout << table.render({1, 2});
      if (!shown_set.empty())
        std::cout << fmt::format("{} scenarios in set '{}' of {}\n", scenarios.size(), shown_set, plugin_id);
    }
    exit_code = kExitOk;
  });
}

}  // namespace kseek::cli
