// `kseek eval`: a candidate (default: the seed, an A/A run) against the seed on a plugin's scenarios; a table
// for people, a schema-versioned JSON record for programs. It must never pretend to have evaluated: without a
// GPU it builds and checks, says what needs a GPU, and exits 3.
#include <memory>

#include "campaign_actions.hpp"
#include "commands.hpp"
#include "eval_progress.hpp"
#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/eval/evaluator.hpp"
#include "kseek/core/eval/stage_summary.hpp"
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
  nlohmann::json constraints_override;  // from campaign.json
  std::filesystem::path out_file;
  EvaluationSettings settings;
  bool correctness_only = false;
  std::filesystem::path campaign_dir;  // set when evaluating a campaign's candidate (no --plugin given)
  std::string gpus;   // --gpus all|0,1,...
  std::string shard;  // --shard I/N
};

// Inside a campaign (no --plugin): the selection and constraints come from campaign.json alone, because the record is
// the gate's evidence: a narrower set, other constraints, one shard or another arch would prove less than the goal says.
Result<void> take_campaign_settings(EvalArgs& args, GlobalOptions& options) {
  auto campaign = Campaign::open(args.campaign_dir.empty() ? std::filesystem::current_path() : args.campaign_dir);
  if (!campaign) return campaign.error();
  for (const auto& [given, option] : {std::pair{!args.set_name.empty(), "--set"},
                                      {!args.scenario_ids.empty(), "--scenarios"},
                                      {!args.constraints_file.empty(), "--constraints"},
                                      {!args.shard.empty(), "--shard"},
                                      {!args.settings.functional_arch.empty(), "--functional-arch"}}) {
    if (given) {
      return make_error(fmt::format("inside a campaign `kseek eval` evaluates what campaign.json selects, and {} would "
                                    "record less than that; edit campaign.json and run `kseek reconfigure`, or give "
                                    "--plugin to evaluate outside the campaign's record", option));
    }
  }
  const CampaignConfig& c = campaign->config();
  options = with_campaign(options, c);  // the plugin folders `init --plugin-dir` recorded
  args.campaign_dir = campaign->dir();
  args.plugin_id = c.plugin;
  args.set_name = c.set;
  args.scenario_ids = c.scenarios;
  if (!args.file.empty()) {
    return make_error(fmt::format("inside a campaign `kseek eval` evaluates {} only; give --plugin to evaluate "
                                  "another file outside the campaign's record", campaign->candidate_path().string()));
  }
  args.file = campaign->candidate_path();
  if (!c.constraints.is_null()) args.constraints_override = c.constraints;
  const auto& e = c.eval;
  if (e.is_object()) {
    auto& sampling = args.settings.sampling;
    sampling.min_rounds = e.value("min_rounds", sampling.min_rounds);
    sampling.max_rounds = e.value("max_rounds", sampling.max_rounds);
    sampling.time_budget_seconds = e.value("time_budget", sampling.time_budget_seconds);
    sampling.target_relative_half_width = e.value("target_ci", sampling.target_relative_half_width);
    args.settings.scenario_timeout_seconds = e.value("scenario_timeout", args.settings.scenario_timeout_seconds);
  }
  return Ok{};
}

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
  return {r.scenario, std::string(to_string(r.status)), error, seed_ms, cand_ms, ratio, tflops, peak,
          fmt::format("{:.1f}", r.wall_seconds), detail};
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
      resources = fmt::format("{} kernels, max {} registers, {} B spilled, {} names checked, {:.2f} s{}",
                              b.kernels->size(), max_registers, spills, b.names_inspected.value_or(0),
                              b.build_seconds.value_or(0.0), b.cache_hit.value_or(false) ? " (cached)" : "");
    }
    std::cout << fmt::format("build {:<22} {:<20} {}{}\n", b.role, to_string(b.status), resources,
                             b.message.value_or(""));
  }
  if (record.environment && record.environment->name) {
    const auto& env = *record.environment;
    std::cout << fmt::format("GPU {} ({}, driver {}), copy bandwidth {:.2f} TB/s\n", *env.name, env.uuid.value_or(""),
                             env.driver_version.value_or(0), env.copy_bandwidth_bytes_per_second.value_or(0.0) / 1e12);
  }
  if (!args.settings.functional_arch.empty()) {
    std::cout << fmt::format("functional run: every scenario built and run for {}; timings are not representative "
                             "of the scenarios' own target\n", args.settings.functional_arch);
  }
  if (record.scenarios) {
    for (const auto& r : *record.scenarios) table.add_row(table_row(r));
    std::cout << table.render({3, 4, 6, 8});
    // Whatever a worker printed (a candidate's device printf, the driver) never reaches this output; say it exists.
    for (const auto& r : *record.scenarios) {
      if (!r.worker_output) continue;
      std::cout << fmt::format("{}: the GPU worker printed {} bytes (a candidate's printf?); {} kept in the record's "
                               "worker_output\n", r.scenario, r.worker_output->bytes,
                               r.worker_output->truncated ? "the first part is" : "all of it is");
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

int run_eval(const GlobalOptions& given_options, EvalArgs& args) {
  GlobalOptions options = given_options;
  if (args.plugin_id.empty()) {
    if (auto taken = take_campaign_settings(args, options); !taken) {
      return fail(options, kExitUsage, "ERROR", taken.error().message + " (outside a campaign, give --plugin ID)");
    }
  }
  PluginRegistry registry;
  load_plugins(options, registry);
  auto loaded = registry.require(args.plugin_id);
  if (!loaded) return fail(options, kExitUsage, "ERROR", loaded.error().message);
  const Plugin& plugin = *(*loaded)->plugin;
  auto scenarios = select_scenarios(plugin, args.set_name, args.scenario_ids);
  if (!scenarios) return fail(options, kExitUsage, "ERROR", scenarios.error().message);
  auto constraints = load_constraints(plugin, args.constraints_file);
  if (!constraints) return fail(options, kExitUsage, "ERROR", constraints.error().message);
  if (!args.constraints_override.is_null()) {
    try {
      from_json(args.constraints_override, *constraints);
    } catch (const std::exception& e) {
      return fail(options, kExitUsage, "ERROR", fmt::format("campaign.json 'constraints': {}", e.what()));
    }
  }
  if (auto valid = validate_sampling_policy(args.settings.sampling); !valid) {
    return fail(options, kExitUsage, "ERROR", valid.error().message);
  }

  if (!args.gpus.empty()) {
    auto gpus = parse_gpu_selection(args.gpus);
    if (!gpus) return fail(options, kExitUsage, "ERROR", gpus.error().message);
    args.settings.devices = gpus->ordinals;
    args.settings.all_devices = gpus->all;
  }
  if (!args.shard.empty()) {
    auto shard = parse_shard(args.shard);
    if (!shard) return fail(options, kExitUsage, "ERROR", shard.error().message);
    if (args.settings.input_seed == 0) {
      return fail(options, kExitUsage, "ERROR", "--shard needs --input-seed N: every shard must draw the same inputs");
    }
    args.settings.shard = *shard;
  }

  EvaluationInput input;
  input.plugin = *loaded;
  input.set_name = args.set_name.empty() ? plugin.info().default_set : args.set_name;
  input.scenarios = std::move(*scenarios);
  input.constraints = *constraints;
  if (args.file.empty()) {
    const std::string arch = input.scenarios.empty() || input.scenarios.front().required_arch.empty()
                                 ? plugin.info().target_archs.front()
                                 : input.scenarios.front().required_arch;
    auto seed = plugin.seed_source(args.settings.functional_arch.empty() ? arch : args.settings.functional_arch);
    if (!seed) return fail(options, kExitUsage, "ERROR", seed.error().message);
    input.candidate = *seed;
    input.candidate_path = "(seed) " + seed->name;
  } else {
    auto text = read_file(args.file);
    if (!text) return fail(options, kExitUsage, "ERROR", text.error().message);
    input.candidate = {args.file.filename().string(), std::move(*text)};
    // In a campaign the record names the candidate relative to the campaign folder, so records can be shared.
    input.candidate_path = args.campaign_dir.empty() ? args.file.string() : args.file.filename().string();
  }
  args.settings.measure_time = !args.correctness_only;

  BuildService service = make_build_service(options);
  Table table({"scenario", "status", "max err/allowed", "seed ms", "cand ms", "ratio ±95%", "TFLOP/s", "%peak F/B",
               "wall s", "detail"});
  if (!options.json) std::cerr << fmt::format("evaluating {} on {} scenarios of {}\n", input.candidate_path, input.scenarios.size(), args.plugin_id);
  // A live line on a terminal, one line per scenario otherwise, nothing with --json (eval_progress.hpp).
  EvalProgress live_progress(std::cerr, stderr_progress_mode(options.json), input.scenarios.size());
  auto progress = [&](const nlohmann::json& r) {
    if (auto outcome = scenario_outcome_from_json(r)) live_progress.scenario_finished(*outcome);
  };
  const nlohmann::json record = evaluate(input, args.settings, service, progress);
  live_progress.finish();
  for (const auto& note : service.notes()) std::cerr << "note: " << note << "\n";

  if (!args.out_file.empty()) {
    if (auto written = write_file_atomically(args.out_file, record.dump(2) + "\n"); !written) {
      std::cerr << "kseek: " << written.error().message << "\n";
    }
  }
  // In a campaign the record is stored and logged; events and the question for them follow from the log.
  nlohmann::json follow_up;
  if (!args.campaign_dir.empty()) {
    ActionResult logged = record_campaign_evaluation(options, args.campaign_dir, record, "cli");
    if (logged.exit_code != kExitOk) {
      std::cerr << "kseek: " << logged.document.value("error", std::string("the evaluation could not be logged")) << "\n";
      return kExitUsage;
    }
    follow_up = std::move(logged.document);
  }
  const auto typed = evaluation_record_from_json(record);
  if (!typed) return fail(options, kExitUsage, "ERROR", "kseek wrote a record it cannot read: " + typed.error().message);
  if (options.json) {
    if (follow_up.is_null()) {
      print_json(record);
    } else {
      nlohmann::json out = record;
      out["campaign"] = follow_up;
      print_json(out);
    }
  } else {
    print_record(*typed, args, table);
    if (!follow_up.is_null()) print_campaign_follow_up(follow_up);
  }
  if (typed->status == RecordStatus::kNeedsGpu) return kExitNeedsGpu;
  if (typed->status != RecordStatus::kComplete) return kExitVerdict;
  for (const auto& r : typed->scenario_list()) {
    if (!r.passed()) return kExitVerdict;
  }
  return kExitOk;
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
  command->add_option("--scenarios,--scenario", args->scenario_ids,
                      "Scenario ids of the set, or key=value names of any configuration, separated by ';'")
      ->delimiter(';');
  command->add_option("--constraints", args->constraints_file, "JSON file overriding the plugin's constraints");
  command->add_option("--out", args->out_file, "Write the JSON record to this file (atomically)");
  command->add_option("--device", args->settings.device, "GPU ordinal")->capture_default_str();
  command->add_option("--gpus", args->gpus, "Run on several GPUs at once: 'all' or ordinals such as 0,1 (one worker "
                                            "per GPU, largest scenarios first)")->type_name("all|0,1,...");
  command->add_option("--shard", args->shard, "Evaluate only part I of N of the scenarios (cost-balanced split); "
                                              "needs --input-seed; combine the parts with kseek merge")->type_name("I/N");
  command->add_flag("--correctness-only", args->correctness_only, "Check correctness, skip timing");
  command->add_option("--target-ci", args->settings.sampling.target_relative_half_width,
                      "Stop sampling when the ratio's 95% interval is within this relative half-width")
      ->capture_default_str();
  command->add_option("--min-rounds", args->settings.sampling.min_rounds, "Timed rounds always measured")->capture_default_str();
  command->add_option("--max-rounds", args->settings.sampling.max_rounds, "Timed rounds at most")->capture_default_str();
  command->add_option("--time-budget", args->settings.sampling.time_budget_seconds,
                      "Seconds of timed rounds per scenario at most")->capture_default_str();
  command->add_option("--scenario-timeout", args->settings.scenario_timeout_seconds,
                      "Watchdog: seconds a scenario may take beyond its time budget before the worker is killed")
      ->capture_default_str();
  command->add_option("--functional-arch", args->settings.functional_arch,
                      "Build and run every scenario for this arch (e.g. sm_90a) to check correctness on another GPU "
                      "generation; timings are marked not representative")
      ->type_name("ARCH");
  command->add_option("--input-seed", args->settings.input_seed,
                      "Seed of the random inputs (default: drawn and recorded)");
  // `--seed` names the starting kernel file in `kseek init`; here it was the input seed until 2026-12. A clear error,
  // not a silent reinterpretation, for scripts written before.
  command
      ->add_option_function<std::string>("--seed",
                                         [](const std::string&) {
                                           throw CLI::ValidationError(
                                               "--seed", "kseek eval takes the input seed as --input-seed N (--seed "
                                                         "names a starting kernel file, in kseek init only)");
                                         })
      ->group("");
  command->callback([&options, &exit_code, args] { exit_code = run_eval(options, *args); });
}

}  // namespace kseek::cli
