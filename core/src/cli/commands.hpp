// The `kseek` subcommands, each registered on the CLI11 app with its own options.
// It must never share mutable state between commands except the exit code they report.
#pragma once

#include <CLI/CLI.hpp>

#include "cli_context.hpp"

namespace kseek::cli {

void register_plugins_command(CLI::App& app, GlobalOptions& options, int& exit_code);
void register_scenarios_command(CLI::App& app, GlobalOptions& options, int& exit_code);
void register_conform_command(CLI::App& app, GlobalOptions& options, int& exit_code);   // plugin conformance (CPU half)
void register_contract_command(CLI::App& app, GlobalOptions& options, int& exit_code);  // an operator's CONTRACT.md
void register_build_commands(CLI::App& app, GlobalOptions& options, int& exit_code);    // build, check
void register_eval_command(CLI::App& app, GlobalOptions& options, int& exit_code);
void register_report_command(CLI::App& app, GlobalOptions& options, int& exit_code);   // campaign HTML + markdown
void register_merge_command(CLI::App& app, GlobalOptions& options, int& exit_code);    // shard records -> one
void register_compare_command(CLI::App& app, GlobalOptions& options, int& exit_code);  // two records, A/B
void register_slurm_command(CLI::App& app, GlobalOptions& options, int& exit_code);    // slurm submit
void register_doctor_command(CLI::App& app, GlobalOptions& options, int& exit_code);
void register_worker_command(CLI::App& app, GlobalOptions& options, int& exit_code);
void register_questions_command(CLI::App& app, GlobalOptions& options, int& exit_code);  // lint, list, install
void register_campaign_commands(CLI::App& app, GlobalOptions& options,
                                int& exit_code);  // init, status, ask, claim, steer, gate, reconfigure
void register_hook_command(CLI::App& app, GlobalOptions& options, int& exit_code);  // hook stop|session-start|post-tool
void register_mcp_command(CLI::App& app, GlobalOptions& options, int& exit_code);   // MCP server over stdio
void register_new_plugin_command(CLI::App& app, GlobalOptions& options, int& exit_code);  // scaffold
void register_run_command(CLI::App& app, GlobalOptions& options, int& exit_code);  // campaign runner (agent sessions)

}  // namespace kseek::cli
