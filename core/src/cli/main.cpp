// Entry point of `kseek`: global options, subcommands, exit codes.
// It must never let an exception escape as a crash: every failure becomes a message and an exit code.
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli_context.hpp"
#include "commands.hpp"
#include "kseek/sdk/version.hpp"

int main(int argc, char** argv) {
  using namespace kseek::cli;
  CLI::App app{"kseek: steer a coding agent through a CUDA kernel optimisation campaign"};
  app.require_subcommand(0, 1);
  app.fallthrough();  // global options (--json, --plugin-dir...) may follow the subcommand
  GlobalOptions options;
  app.set_version_flag("--version", std::string("kseek ") + KSEEK_SDK_VERSION + " (" KSEEK_BUILD_FINGERPRINT ")");
  app.add_option("--plugin-dir", options.plugin_dirs, "Extra folder to load plugins from (repeatable)")
      ->type_name("DIR");
  app.add_option("--cache-dir", options.cache_dir, "Build cache folder (default: $KSEEK_CACHE_DIR or ~/.cache)")
      ->type_name("DIR");
  app.add_flag("--no-cache", options.no_cache, "Compile without reading or writing the build cache");
  app.add_flag("--json", options.json, "Print one JSON document instead of tables");

  int exit_code = kExitOk;
  register_plugins_command(app, options, exit_code);
  register_scenarios_command(app, options, exit_code);
  register_contract_command(app, options, exit_code);
  register_conform_command(app, options, exit_code);
  register_build_commands(app, options, exit_code);
  register_eval_command(app, options, exit_code);
  register_report_command(app, options, exit_code);
  register_merge_command(app, options, exit_code);
  register_compare_command(app, options, exit_code);
  register_slurm_command(app, options, exit_code);
  register_doctor_command(app, options, exit_code);
  register_worker_command(app, options, exit_code);
  register_questions_command(app, options, exit_code);
  register_campaign_commands(app, options, exit_code);
  register_hook_command(app, options, exit_code);
  register_mcp_command(app, options, exit_code);
  register_new_plugin_command(app, options, exit_code);
  register_run_command(app, options, exit_code);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  } catch (const std::exception& e) {
    // A defect, or a file whose shape nothing checked: a message and an exit code, never an abort.
    std::cerr << "kseek: internal error: " << e.what() << " (please report it with the command that caused it)\n";
    return kExitUsage;
  }
  if (argc == 1) {
    std::cout << app.help();
    return kExitUsage;
  }
  return exit_code;
}
