// `kseek build` (compile, check, show per-kernel resources), `kseek check` (constraints only) and the hidden
// `kseek __build` an evaluation starts to build beside its candidate.
// It must never report OK for a candidate whose binary broke a constraint.
#include <memory>

#include "commands.hpp"
#include "kseek/core/build/background_build.hpp"
#include "kseek/core/build/compile_diagnostics.hpp"
#include "kseek/core/build/ptxas_report.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/table.hpp"

namespace kseek::cli {
namespace {

struct BuildArgs {
  std::filesystem::path file;
  std::string plugin_id;
  std::string arch;
  std::filesystem::path constraints_file;
};

void print_violations(const CandidateBuild& build) {
  for (const auto& v : build.constraints.violations) {
    std::cout << fmt::format("  rule {}: {}\n    symbol: {}\n    found in: {}\n", v.rule, v.description, v.symbol,
                             v.where);
  }
}

void print_build(const CandidateBuild& build, const std::filesystem::path& file, bool show_resources) {
  const auto& stages = build.compile.stages;
  const std::string where_the_time_went =
      stages.processes == 0
          ? std::string()
          : fmt::format(": front end {:.2f} s, ptxas {:.2f} s ({} at a time), link {:.2f} s", stages.front_end_seconds,
                        stages.ptxas_seconds, stages.processes, stages.link_seconds);
  std::cout << fmt::format("{}: {} ({}, NVRTC {}, {}, {:.2f} s{})\n", file.string(), to_string(build.status),
                           build.arch, build.compile.nvrtc_version, build.compile.cache_hit ? "cache hit" : "compiled",
                           build.compile.seconds, where_the_time_went);
  if (build.status == Status::kCompileError) {
    std::cout << "  " << build.message << "\n";
    // The message already states the first error (build_service): show its source line, not the error again.
    bool first = true;
    for (const auto& d : build.compile.diagnostics) {
      if (d.severity != "error") continue;
      const bool stated =
          first && d.line > 0 && build.message.find(fmt::format("{}:{}:", d.file, d.line)) != std::string::npos;
      first = false;
      if (!stated) {
        std::cout << format_diagnostic(d) << "\n";
      } else if (!d.source_line.empty()) {
        std::cout << fmt::format("  {:>5} | {}\n", d.line, d.source_line);
      }
    }
    return;
  }
  if (build.status == Status::kConstraintViolation) {
    print_violations(build);
    return;
  }
  if (show_resources) {
    Table table({"kernel", "registers", "spill st", "spill ld", "stack", "static smem", "barriers"});
    for (const auto& k : build.compile.kernels) {
      table.add_row({k.kernel, std::to_string(k.registers), fmt::format("{} B", k.spill_store_bytes),
                     fmt::format("{} B", k.spill_load_bytes), fmt::format("{} B", k.stack_frame_bytes),
                     fmt::format("{} B", k.static_shared_bytes), std::to_string(k.barriers)});
    }
    std::cout << table.render({1, 2, 3, 4, 5, 6});
    std::vector<KernelNotes> notes;
    for (const auto& k : build.compile.kernels) notes.push_back({k.kernel, k.ptxas_notes});
    std::cout << format_ptxas_notes(group_ptxas_notes(notes), build.compile.ptxas_notes, "");
  }
  std::cout << fmt::format("constraints: {} names inspected, no violation\n", build.constraints.names_inspected);
}

int run_build(const GlobalOptions& options, const BuildArgs& args, bool show_resources) {
  PluginRegistry registry;
  load_plugins(options, registry);
  auto loaded = registry.require(args.plugin_id);
  if (!loaded) return fail(options, kExitUsage, "ERROR", loaded.error().message);
  const Plugin& plugin = *(*loaded)->plugin;
  auto text = read_file(args.file);
  if (!text) return fail(options, kExitUsage, "ERROR", text.error().message);
  auto constraints = load_constraints(plugin, args.constraints_file);
  if (!constraints) return fail(options, kExitUsage, "ERROR", constraints.error().message);
  const auto info = plugin.info();
  const std::string arch = args.arch.empty() ? info.target_archs.front() : args.arch;

  BuildService service = make_build_service(options);
  SourceFile source{args.file.filename().string(), std::move(*text)};
  const CandidateBuild build =
      service.build_and_check(make_compile_request(plugin, std::move(source), arch, *constraints), *constraints);
  for (const auto& note : service.notes()) std::cerr << "note: " << note << "\n";
  if (options.json) {
    auto j = to_json(build);
    j["file"] = args.file.string();
    j["plugin"] = args.plugin_id;
    if (!show_resources) {
      j.erase("kernels");
      j["rules"] = constraints->forbidden_symbols;
      j["forbid_device_launch"] = constraints->forbid_device_launch;
    }
    print_json(j);
  } else {
    print_build(build, args.file, show_resources);
  }
  return build.status == Status::kOk ? kExitOk : kExitVerdict;
}

void add_common_options(CLI::App* command, BuildArgs& args) {
  command->add_option("FILE", args.file, "Candidate .cu file")->required();
  command->add_option("--plugin", args.plugin_id, "Plugin id, e.g. attention.fa3")->required();
  command->add_option("--arch", args.arch, "Target architecture (default: the plugin's first, e.g. sm_90a)");
  command->add_option("--constraints", args.constraints_file,
                      "JSON file overriding the plugin's default constraints (a campaign's)");
}

}  // namespace

void register_build_commands(CLI::App& app, GlobalOptions& options, int& exit_code) {
  auto build_args = std::make_shared<BuildArgs>();
  auto* build = app.add_subcommand("build", "Compile a candidate with NVRTC, check constraints, show resources");
  add_common_options(build, *build_args);
  build->callback([&options, &exit_code, build_args] { exit_code = run_build(options, *build_args, true); });

  auto check_args = std::make_shared<BuildArgs>();
  auto* check = app.add_subcommand("check", "Check a candidate's built binary against the constraints");
  add_common_options(check, *check_args);
  check->callback([&options, &exit_code, check_args] { exit_code = run_build(options, *check_args, false); });

  // Started by an evaluation to build its seed, library and harness beside its candidate (build/background_build.hpp).
  auto request_file = std::make_shared<std::string>();
  auto* beside = app.add_subcommand("__build", "Build requests into a cache (started by kseek eval)");
  beside->group("");  // hidden from --help: not a user command
  beside->add_option("REQUESTS", *request_file)->required();
  beside->callback([&exit_code, request_file] { exit_code = serve_background_builds(*request_file, std::cout); });
}

}  // namespace kseek::cli
