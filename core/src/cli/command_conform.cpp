// `kseek conform --plugin ID`: the plugin conformance suite's CPU half for any plugin, in the installed kseek.
// It must never report PASSED for a plugin that failed a check, nor share its build cache with evaluations.
#include <memory>

#include "commands.hpp"
#include "kseek/core/plugin/plugin_conformance.hpp"
#include "kseek/core/util/table.hpp"

namespace kseek::cli {

void register_conform_command(CLI::App& app, GlobalOptions& options, int& exit_code) {
  auto* command = app.add_subcommand("conform",
                                     "Check a plugin against the conformance suite (names, sets, layouts, "
                                     "packs, seed and device library builds)");
  auto plugin_id = std::make_shared<std::string>();
  command->add_option("--plugin", *plugin_id, "Plugin id, e.g. ops.residual_rmsnorm")->required();
  command->callback([&options, &exit_code, plugin_id] {
    PluginRegistry registry;
    load_plugins(options, registry);
    auto loaded = registry.require(*plugin_id);
    if (!loaded) {
      exit_code = fail(options, kExitUsage, "ERROR", loaded.error().message);
      return;
    }
    // Its own folder under the cache: conformance builds never evict or shadow an evaluation's entries.
    std::optional<BuildCache> cache;
    if (!options.no_cache) {
      cache = BuildCache(
          conformance_cache_folder(options.cache_dir.empty() ? BuildCache::default_folder() : options.cache_dir));
    }
    const auto checks = check_plugin_conformance(**loaded, cache);
    bool failed = false;
    for (const auto& check : checks) failed = failed || check.status == "FAILED";
    // A library in the folders given that did not load at all is a failure of the folder the author asked about.
    std::vector<std::string> unloaded;
    for (const auto& problem : registry.problems()) unloaded.push_back(problem.path.string() + ": " + problem.message);
    exit_code = failed ? kExitVerdict : kExitOk;
    if (options.json) {
      nlohmann::json out = {{"status", failed ? "FAILED" : "PASSED"},
                            {"plugin", *plugin_id},
                            {"library", (*loaded)->path.string()},
                            {"checks", nlohmann::json::array()},
                            {"libraries_not_loaded", unloaded}};
      for (const auto& check : checks) out["checks"].push_back(to_json(check));
      print_json(out);
      return;
    }
    Table table({"check", "status", "what"});
    for (const auto& check : checks) table.add_row({check.name, check.status, check.summary});
    std::cout << fmt::format("{} ({})\n", *plugin_id, (*loaded)->path.string()) << table.render();
    for (const auto& check : checks) {
      for (const auto& problem : check.problems) std::cout << fmt::format("  {}: {}\n", check.name, problem);
    }
    for (const auto& line : unloaded) std::cout << "  note: a library that did not load: " << line << "\n";
    std::cout << (failed ? "FAILED\n" : "PASSED (CPU half)\n");
  });
}

}  // namespace kseek::cli
