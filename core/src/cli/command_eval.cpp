// `kseek eval`: a candidate (default: the seed, an A/A run) against the seed on a plugin's scenarios; a table
// for people, a schema-versioned JSON record for programs. It must never pretend to have evaluated: without a
// GPU it builds and checks, says what needs a GPU, and exits 3.
#include <memory>

#include <fmt/ranges.h>

#include "campaign_actions.hpp"
#include "commands.hpp"
#include "eval_progress.hpp"
#include "kseek/core/app/evaluation_use_case.hpp"
#include "kseek/core/build/ptxas_report.hpp"
#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/eval/evaluator.hpp"
#include "kseek/core/eval/stage_summary.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/table.hpp"

namespace kseek::cli {
namespace {

using EvalArgs = app::EvaluationRequest;

std::vector<std::string> table_row(const ScenarioOutcome& r) {
  std::string error, seed_ms, cand_ms, ratio, tflops, peak;
  if (r.correctness && !r.correctness->outputs.empty()) {
    double worst = 0;
    for (const auto& o : r.correctness->outputs) {
      const double share = o.allowed_max_error > 0 ? o.max_error / o.allowed_max_error : 0;
      if (share >= worst) {
        worst = share;
        error = fmt::format("{:.2g}/{:.2g}", o.max_error, o.allowed_max_error);
      }
    }
  }
  if (r.timing) {
    const auto& t = *r.timing;
    seed_ms = fmt::format("{:.4f}", t.seed_median_ms);
    cand_ms = fmt::format("{:.4f}", t.candidate_median_ms);
    const double half = std::max(t.ci_high - t.ratio, t.ratio - t.ci_low);
    ratio = fmt::format("{:.3f} ±{:.3f}", t.ratio, half);
    tflops = fmt::format("{:.1f}", t.candidate_tflops);
    peak = fmt::format("{:.0f}% / {:.0f}%", t.percent_of_peak_flops, t.percent_of_peak_bandwidth);
  }
  std::string detail = r.message.value_or("");
  if (detail.size() > 90) detail = detail.substr(0, 87) + "...";
  return {r.scenario,
          std::string(to_string(r.status)),
          error,
          seed_ms,
          cand_ms,
          ratio,
          tflops,
          peak,
          fmt::format("{:.1f}", r.wall_seconds.value_or(0.0)),
          detail};
}

// A recorded build's ptxas notes as `kseek eval` prints them under its build line (records before 2026-12-04 have
// none).
std::string ptxas_notes_text(const RecordedBuild& build) {
  std::vector<KernelNotes> kernels;
  for (const auto& k : build.kernels.value_or(std::vector<BuiltKernel>{})) {
    kernels.push_back({k.kernel, k.ptxas_notes.value_or(std::vector<std::string>{})});
  }
  std::vector<std::string> build_notes;
  if (const auto it = build.unmodelled.find("ptxas_notes"); it != build.unmodelled.end() && it->is_array()) {
    for (const auto& note : *it) {
      if (note.is_string()) build_notes.push_back(note.get<std::string>());
    }
  }
  return format_ptxas_notes(group_ptxas_notes(kernels), build_notes, "  ");
}

// What `kseek eval` prints for people: builds, the GPU, the scenario table, the geomean, where the time went.
void print_record(const EvaluationRecord& record, const EvalArgs& args, Table& table) {
  for (const auto& b : record.builds.value_or(std::vector<RecordedBuild>{})) {
    std::string resources;
    if (b.kernels && !b.kernels->empty()) {
      int max_registers = 0;
      std::uint64_t spills = 0;
      for (const auto& k : *b.kernels) {
        max_registers = std::max(max_registers, k.registers);
        spills += k.spill_store_bytes + k.spill_load_bytes;
      }
      resources = fmt::format("{} kernels, max {} registers, {} B spilled, {} names checked, ", b.kernels->size(),
                              max_registers, spills, b.names_inspected.value_or(0));
    }
    if (b.build_seconds) {
      resources += fmt::format("{:.2f} s", *b.build_seconds);
      if (b.unmodelled.value("built_beside_the_candidate", false)) {
        resources += " (beside the candidate)";
      } else if (b.cache_hit.value_or(false)) {
        resources += " (cached)";
      }
    }
    const std::string message = b.message.value_or("");
    std::cout << fmt::format("build {:<22} {:<20} {}{}{}\n", b.role, to_string(b.status), resources,
                             resources.empty() || message.empty() ? "" : "; ", message);
    std::cout << ptxas_notes_text(b);
  }
  if (record.environment && record.environment->name) {
    const auto& env = *record.environment;
    std::cout << fmt::format("GPU {} ({}, driver {}), copy bandwidth {:.2f} TB/s\n", *env.name, env.uuid.value_or(""),
                             env.driver_version.value_or(0), env.copy_bandwidth_bytes_per_second.value_or(0.0) / 1e12);
  }
  if (!args.settings.functional_arch.empty()) {
    std::cout << fmt::format(
        "functional run: every scenario built and run for {}; timings are not representative "
        "of the scenarios' own target\n",
        args.settings.functional_arch);
  }
  if (record.scenarios) {
    for (const auto& r : *record.scenarios) table.add_row(table_row(r));
    std::cout << table.render({3, 4, 6, 8});
    // Whatever a worker printed (a candidate's device printf, the driver) never reaches this output; say it exists.
    for (const auto& r : *record.scenarios) {
      if (!r.worker_output) continue;
      std::cout << fmt::format(
          "{}: the GPU worker printed {} bytes (a candidate's printf?); {} kept in the record's "
          "worker_output\n",
          r.scenario, r.worker_output->bytes, r.worker_output->truncated ? "the first part is" : "all of it is");
    }
  }
  if (record.summary && record.summary->geomean) {
    const auto& g = *record.summary->geomean;
    std::cout << fmt::format("geomean {:.4f} [{:.4f}, {:.4f}] over {} scenarios\n", g.value, g.ci_low, g.ci_high,
                             g.scenarios);
  }
  if (record.stage_seconds) {
    std::cout << render_stage_summary(*record.stage_seconds);
  } else if (record.wall_seconds) {
    std::cout << fmt::format("total wall time {:.1f} s\n", *record.wall_seconds);
  }
  if (record.message) std::cout << *record.message << "\n";
}

int run_eval(const GlobalOptions& options, const EvalArgs& args) {
  Table table({"scenario", "status", "max err/allowed", "seed ms", "cand ms", "ratio ±95%", "TFLOP/s", "%peak F/B",
               "wall s", "detail"});
  // A live line on a terminal, one line per scenario otherwise, nothing with --json (eval_progress.hpp).
  std::unique_ptr<EvalProgress> live_progress;
  const auto started = [&](const app::EvaluationStart& start) {
    if (!options.json) {
      std::cerr << fmt::format("evaluating {} on {} scenarios of {}\n", start.candidate_path, start.scenarios,
                               start.plugin_id);
    }
    live_progress = std::make_unique<EvalProgress>(std::cerr, stderr_progress_mode(options.json), start.scenarios);
  };
  const auto progress = [&](const nlohmann::json& r) {
    if (auto outcome = scenario_outcome_from_json(r); outcome && live_progress)
      live_progress->scenario_finished(*outcome);
  };
  const app::EvaluationOutcome outcome = app::run_evaluation(options, args, started, progress);
  if (live_progress) live_progress->finish();
  if (!outcome.error.empty()) return fail(options, exit_code_of(outcome), "ERROR", outcome.error);
  for (const auto& note : outcome.notes) std::cerr << "note: " << note << "\n";
  if (!outcome.write_problem.empty()) std::cerr << "kseek: " << outcome.write_problem << "\n";
  // The campaign directory the use case settled on is in the follow-up; print_record only needs the settings.
  if (options.json) {
    if (!outcome.follow_up) {
      print_json(outcome.record);
    } else {
      nlohmann::json out = outcome.record;
      out["campaign"] = app::to_json(*outcome.follow_up);
      print_json(out);
    }
  } else {
    print_record(*outcome.typed, args, table);
    if (const auto& peers = outcome.typed->peer_figures) {
      const std::string command = fmt::format("{}", fmt::join(peers->command, " "));
      if (peers->error) {
        std::cout << fmt::format("peers: {} gave no figures ({:.1f} s): {}\n", command, peers->seconds, *peers->error);
      } else {
        std::cout << fmt::format("peers: {} measured {} scenarios in {:.1f} s (the record's peer_figures)\n", command,
                                 peers->scenarios.size(), peers->seconds);
      }
    }
    if (outcome.follow_up) print_campaign_follow_up(*outcome.follow_up);
  }
  return exit_code_of(outcome);
}

}  // namespace

void register_eval_command(CLI::App& app, GlobalOptions& options, int& exit_code) {
  auto args = std::make_shared<EvalArgs>();
  auto* command = app.add_subcommand("eval", "Evaluate a candidate against the seed (default: the seed itself)");
  command->add_option("FILE", args->file, "Candidate .cu file (default: the plugin's seed, an A/A run)");
  command->add_option("--plugin", args->plugin_id,
                      "Plugin id, e.g. attention.fa3 (omit inside a campaign: its candidate is evaluated and logged)");
  command->add_option("--campaign", args->campaign_dir, "Campaign folder (default: the one holding the current folder)")
      ->type_name("DIR");
  command->add_option("--set", args->set_name, "Scenario set (default: the plugin's default)");
  command
      ->add_option(
          "--scenarios,--scenario", args->scenario_ids,
          "Scenario ids of the set (H01,H03 or H01;H03), or key=value names of any configuration, separated by ';'")
      ->delimiter(';');
  command->add_option("--constraints", args->constraints_file, "JSON file overriding the plugin's constraints");
  command->add_option("--out", args->out_file, "Write the JSON record to this file (atomically)");
  command->add_option("--device", args->settings.device, "GPU ordinal")->capture_default_str();
  command
      ->add_option("--gpus", args->gpus,
                   "Run on several GPUs at once: 'all' or ordinals such as 0,1 (one worker "
                   "per GPU, largest scenarios first)")
      ->type_name("all|0,1,...");
  command
      ->add_option("--shard", args->shard,
                   "Evaluate only part I of N of the scenarios (cost-balanced split); "
                   "needs --input-seed; combine the parts with kseek merge")
      ->type_name("I/N");
  command->add_flag("--correctness-only", args->correctness_only, "Check correctness, skip timing");
  command
      ->add_option("--target-ci", args->settings.sampling.target_relative_half_width,
                   "Stop sampling when the ratio's 95% interval is within this relative half-width")
      ->capture_default_str();
  command
      ->add_option("--min-rounds", args->settings.sampling.min_rounds,
                   "Timed rounds always measured; a sample under --settled-rounds stops only on an interval 4x "
                   "tighter than --target-ci")
      ->capture_default_str();
  command
      ->add_option("--settled-rounds", args->settings.sampling.settled_rounds,
                   "From this many timed rounds, an interval within --target-ci stops sampling")
      ->capture_default_str();
  command->add_option("--max-rounds", args->settings.sampling.max_rounds, "Timed rounds at most")
      ->capture_default_str();
  command
      ->add_option("--time-budget", args->settings.sampling.time_budget_seconds,
                   "Seconds of timed rounds per scenario at most")
      ->capture_default_str();
  command
      ->add_option("--scenario-timeout", args->settings.scenario_timeout_seconds,
                   "Watchdog: seconds a scenario may take beyond its time budget before the worker is killed")
      ->capture_default_str();
  command
      ->add_option("--functional-arch", args->settings.functional_arch,
                   "Build and run every scenario for this arch (e.g. sm_90a) to check correctness on another GPU "
                   "generation; timings are marked not representative")
      ->type_name("ARCH");
  command->add_flag("--worker-per-scenario", args->settings.worker_per_scenario,
                    "Start a fresh GPU worker process for every scenario (default: one worker per GPU runs scenario "
                    "after scenario, each scenario's memory scrubbed and freed after it; a crash or timeout still "
                    "costs one scenario)");
  command->add_option("--input-seed", args->settings.input_seed,
                      "Seed of the random inputs (default: drawn and recorded)");
  command->add_flag("--no-reference-cache", args->no_reference_cache,
                    "Compute every reference instead of reading those an earlier evaluation stored for the same "
                    "inputs (a campaign's evaluation never reads them; size: KSEEK_REFERENCE_CACHE_BYTES)");
  // `--seed` names the starting kernel file in `kseek init`; here it was the input seed until 2026-12. A clear error,
  // not a silent reinterpretation, for scripts written before.
  command
      ->add_option_function<std::string>("--seed",
                                         [](const std::string&) {
                                           throw CLI::ValidationError(
                                               "--seed",
                                               "kseek eval takes the input seed as --input-seed N (--seed "
                                               "names a starting kernel file, in kseek init only)");
                                         })
      ->group("");
  command->callback([&options, &exit_code, args] { exit_code = run_eval(options, *args); });
}

}  // namespace kseek::cli
