// `kseek eval`: builds and checks the candidate and its seed for every scenario's architecture, then hands
// the run to a GPU. It must never pretend to have evaluated: without a GPU it says what needs one.
#include <map>
#include <memory>
#include <set>

#include "commands.hpp"
#include "kseek/core/driver/driver_library.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/table.hpp"

namespace kseek::cli {
namespace {

struct EvalArgs {
  std::filesystem::path file;  // empty: the plugin's seed evaluated against itself
  std::string plugin_id;
  std::string set_name;
  std::vector<std::string> scenario_ids;
  std::filesystem::path constraints_file;
};

Result<std::vector<Scenario>> select_scenarios(const Plugin& plugin, const EvalArgs& args) {
  const std::string set = args.set_name.empty() ? plugin.info().default_set : args.set_name;
  auto all = plugin.scenarios(set);
  if (!all) return all.error();
  if (args.scenario_ids.empty()) return all;
  std::vector<Scenario> chosen;
  for (const auto& id : args.scenario_ids) {
    auto it = std::find_if(all->begin(), all->end(), [&](const Scenario& s) { return s.id == id || s.name == id; });
    if (it != all->end()) {
      chosen.push_back(*it);
      continue;
    }
    auto parsed = plugin.scenario_from_name(id);  // a user-written key=value name
    if (!parsed) return make_error(fmt::format("scenario '{}' is not in set '{}' and does not parse: {}", id, set,
                                               parsed.error().message));
    chosen.push_back(std::move(*parsed));
  }
  return chosen;
}

int run_eval(const GlobalOptions& options, const EvalArgs& args) {
  PluginRegistry registry;
  load_plugins(options, registry);
  auto loaded = registry.require(args.plugin_id);
  if (!loaded) return fail(options, kExitUsage, "ERROR", loaded.error().message);
  const Plugin& plugin = *(*loaded)->plugin;
  const PluginInfo info = plugin.info();
  auto scenarios = select_scenarios(plugin, args);
  if (!scenarios) return fail(options, kExitUsage, "ERROR", scenarios.error().message);
  auto constraints = load_constraints(plugin, args.constraints_file);
  if (!constraints) return fail(options, kExitUsage, "ERROR", constraints.error().message);

  std::set<std::string> archs;
  for (const auto& s : *scenarios) archs.insert(s.required_arch.empty() ? info.target_archs.front() : s.required_arch);

  BuildService service = make_build_service(options);
  std::vector<std::pair<std::string, CandidateBuild>> builds;  // (role, build)
  bool all_ok = true;
  for (const auto& arch : archs) {
    auto seed = plugin.seed_source(arch);
    if (!seed) return fail(options, kExitUsage, "ERROR", seed.error().message);
    SourceFile candidate = *seed;
    if (!args.file.empty()) {
      auto text = read_file(args.file);
      if (!text) return fail(options, kExitUsage, "ERROR", text.error().message);
      candidate = SourceFile{args.file.filename().string(), std::move(*text)};
    }
    builds.emplace_back("seed", service.build_and_check(make_compile_request(plugin, *seed, arch, *constraints), *constraints));
    if (!args.file.empty()) {
      builds.emplace_back("candidate", service.build_and_check(make_compile_request(plugin, candidate, arch, *constraints),
                                                               *constraints));
    }
  }
  for (const auto& [role, build] : builds) all_ok = all_ok && build.status == Status::kOk;

  const DriverStatus driver = probe_driver();
  std::string gpu_verdict;
  if (!driver.loaded) {
    gpu_verdict = fmt::format("needs a GPU: {}", driver.problem);
  } else {
    gpu_verdict = fmt::format("a GPU is present ({}), but this kseek build has no GPU evaluator yet: correctness "
                              "and timing were not run",
                              driver.gpus.front().name);
  }

  if (options.json) {
    nlohmann::json j_builds = nlohmann::json::array();
    for (const auto& [role, build] : builds) {
      auto j = to_json(build);
      j["role"] = role;
      j_builds.push_back(std::move(j));
    }
    print_json({{"status", all_ok ? "NOT_EVALUATED" : "BUILD_FAILED"},
                {"plugin", args.plugin_id},
                {"scenario_count", scenarios->size()},
                {"scenarios", *scenarios},
                {"builds", j_builds},
                {"gpu", {{"available", driver.loaded}, {"detail", driver.loaded ? "" : driver.problem}}},
                {"message", gpu_verdict}});
  } else {
    Table table({"role", "arch", "status", "build", "kernels", "max regs", "spills", "detail"});
    for (const auto& [role, build] : builds) {
      int max_registers = 0;
      std::uint64_t spills = 0;
      for (const auto& k : build.compile.kernels) {
        max_registers = std::max(max_registers, k.registers);
        spills += k.spill_store_bytes + k.spill_load_bytes;
      }
      table.add_row({role, build.arch, std::string(to_string(build.status)),
                     fmt::format("{:.2f} s{}", build.compile.seconds, build.compile.cache_hit ? " (cached)" : ""),
                     std::to_string(build.compile.kernels.size()), std::to_string(max_registers),
                     fmt::format("{} B", spills), build.message});
    }
    std::cout << fmt::format("{} scenarios of {} selected\n", scenarios->size(), args.plugin_id);
    std::cout << table.render();
    std::cout << gpu_verdict << "\n";
  }
  if (!all_ok) return kExitVerdict;
  return kExitNeedsGpu;
}

}  // namespace

void register_eval_command(CLI::App& app, GlobalOptions& options, int& exit_code) {
  auto args = std::make_shared<EvalArgs>();
  auto* command = app.add_subcommand("eval", "Evaluate a candidate against the seed (default: the seed itself)");
  command->add_option("FILE", args->file, "Candidate .cu file (default: the plugin's seed, an A/A run)");
  command->add_option("--plugin", args->plugin_id, "Plugin id, e.g. attention.fa3")->required();
  auto* set = command->add_option("--set", args->set_name, "Scenario set (default: the plugin's default)");
  command->add_option("--scenarios", args->scenario_ids, "Scenario ids or key=value names")
      ->delimiter(';')
      ->excludes(set);
  command->add_option("--constraints", args->constraints_file, "JSON file overriding the plugin's constraints");
  command->callback([&options, &exit_code, args] { exit_code = run_eval(options, *args); });
}

}  // namespace kseek::cli
