// `kseek contract --plugin ID`: the operator's contract (CONTRACT.md, as `kseek init` writes it into a campaign).
// It must never print a contract for rules other than those the plugin and kseek apply.
#include <memory>

#include "commands.hpp"
#include "kseek/core/app/operator_contract.hpp"

namespace kseek::cli {

void register_contract_command(CLI::App& app, GlobalOptions& options, int& exit_code) {
  auto* command = app.add_subcommand("contract",
                                     "Print a plugin's contract: semantics, candidate ABI, constraints, "
                                     "tolerance, how to evaluate");
  struct Args {
    std::string plugin_id, set_name, arch;
  };
  auto args = std::make_shared<Args>();
  command->add_option("--plugin", args->plugin_id, "Plugin id, e.g. example.softmax")->required();
  command->add_option("--set", args->set_name, "Scenario set whose tolerances are listed (default: the plugin's)");
  command->add_option("--arch", args->arch, "Target architecture (default: the plugin's first)");
  command->callback([&options, &exit_code, args] {
    PluginRegistry registry;
    load_plugins(options, registry);
    auto loaded = registry.require(args->plugin_id);
    if (!loaded) {
      exit_code = fail(options, kExitUsage, "ERROR", loaded.error().message);
      return;
    }
    const Plugin& plugin = *(*loaded)->plugin;
    auto scenarios = select_scenarios(plugin, args->set_name, {});
    if (!scenarios) {
      exit_code = fail(options, kExitUsage, "ERROR", scenarios.error().message);
      return;
    }
    auto constraints = load_constraints(plugin, {});
    if (!constraints) {
      exit_code = fail(options, kExitUsage, "ERROR", constraints.error().message);
      return;
    }
    const PluginInfo info = plugin.info();
    const std::string arch = args->arch.empty() ? info.target_archs.front() : args->arch;
    const std::string text = app::contract_markdown(plugin, *constraints, arch, *scenarios, "");
    exit_code = kExitOk;
    if (options.json) {
      nlohmann::json headers = nlohmann::json::array();
      for (const auto& h : app::candidate_header_files(plugin)) headers.push_back(h.name);
      print_json({{"status", "OK"}, {"plugin", info.id}, {"arch", arch}, {"headers", headers}, {"contract", text}});
    } else {
      std::cout << text;
    }
  });
}

}  // namespace kseek::cli
