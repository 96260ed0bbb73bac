// The `kseek` subcommands, each registered on the CLI11 app with its own options.
// It must never share mutable state between commands except the exit code they report.
#pragma once

#include <CLI/CLI.hpp>

#include "cli_context.hpp"

namespace kseek::cli {

void register_plugins_command(CLI::App& app, GlobalOptions& options, int& exit_code);
void register_scenarios_command(CLI::App& app, GlobalOptions& options, int& exit_code);
void register_build_commands(CLI::App& app, GlobalOptions& options, int& exit_code);  // build, check
void register_eval_command(CLI::App& app, GlobalOptions& options, int& exit_code);
void register_doctor_command(CLI::App& app, GlobalOptions& options, int& exit_code);
void register_worker_command(CLI::App& app, GlobalOptions& options, int& exit_code);
void register_questions_command(CLI::App& app, GlobalOptions& options, int& exit_code);  // lint, list, install

}  // namespace kseek::cli
