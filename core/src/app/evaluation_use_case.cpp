// How `kseek eval` and the MCP server's `eval` tool evaluate (evaluation_use_case.hpp).
#include "kseek/core/app/evaluation_use_case.hpp"

#include <fmt/format.h>

#include "kseek/core/app/peer_figures.hpp"
#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/util/files.hpp"

namespace kseek::app {
namespace {

// Inside a campaign (no --plugin): the selection and constraints come from campaign.json alone, because the record is
// the gate's evidence: a narrower set, other constraints, one shard or another arch would prove less than the goal
// says.
Result<void> take_campaign_settings(EvaluationRequest& args, AppOptions& options, nlohmann::json& constraints_override,
                                    std::optional<PeerFiguresCommand>& peer_figures) {
  auto campaign = Campaign::open(args.campaign_dir.empty() ? std::filesystem::current_path() : args.campaign_dir);
  if (!campaign) return campaign.error();
  for (const auto& [given, option] : {std::pair{!args.set_name.empty(), "--set"},
                                      {!args.scenario_ids.empty(), "--scenarios"},
                                      {!args.constraints_file.empty(), "--constraints"},
                                      {!args.shard.empty(), "--shard"},
                                      {!args.settings.functional_arch.empty(), "--functional-arch"}}) {
    if (given) {
      return make_error(
          fmt::format("inside a campaign `kseek eval` evaluates what campaign.json selects, and {} would "
                      "record less than that; edit campaign.json and run `kseek reconfigure`, or give "
                      "--plugin to evaluate outside the campaign's record",
                      option));
    }
  }
  const CampaignConfig& c = campaign->config();
  options = with_campaign(options, c);  // the plugin folders `init --plugin-dir` recorded
  args.campaign_dir = campaign->dir();
  args.plugin_id = c.plugin;
  args.set_name = c.set;
  args.scenario_ids = c.scenarios;
  if (!args.file.empty()) {
    return make_error(
        fmt::format("inside a campaign `kseek eval` evaluates {} only; give --plugin to evaluate "
                    "another file outside the campaign's record",
                    campaign->candidate_path().string()));
  }
  args.file = campaign->candidate_path();
  if (!c.constraints.is_null()) constraints_override = c.constraints;
  peer_figures = c.peer_figures;
  if (c.eval) {
    auto& sampling = args.settings.sampling;
    sampling.min_rounds = c.eval->min_rounds.value_or(sampling.min_rounds);
    sampling.settled_rounds = c.eval->settled_rounds.value_or(sampling.settled_rounds);
    sampling.max_rounds = c.eval->max_rounds.value_or(sampling.max_rounds);
    sampling.time_budget_seconds = c.eval->time_budget.value_or(sampling.time_budget_seconds);
    sampling.target_relative_half_width = c.eval->target_ci.value_or(sampling.target_relative_half_width);
    args.settings.scenario_timeout_seconds = c.eval->scenario_timeout.value_or(args.settings.scenario_timeout_seconds);
  }
  return Ok{};
}

EvaluationOutcome usage(std::string message) {
  EvaluationOutcome outcome;
  outcome.error = std::move(message);
  outcome.record = {{"status", "ERROR"}, {"error", outcome.error}};
  return outcome;
}

}  // namespace

EvaluationVerdict verdict_of(const EvaluationRecord& record) {
  if (record.status == RecordStatus::kNeedsGpu) return EvaluationVerdict::kNeedsGpu;
  if (record.status != RecordStatus::kComplete) return EvaluationVerdict::kNotAllPassed;
  for (const auto& r : record.scenario_list()) {
    if (!r.passed()) return EvaluationVerdict::kNotAllPassed;
  }
  return EvaluationVerdict::kAllPassed;
}

EvaluationOutcome run_evaluation(const AppOptions& given_options, EvaluationRequest args,
                                 const std::function<void(const EvaluationStart&)>& started,
                                 const ProgressSink& progress) {
  AppOptions options = given_options;
  nlohmann::json constraints_override;
  std::optional<PeerFiguresCommand> peer_figures;
  if (args.plugin_id.empty()) {
    if (auto taken = take_campaign_settings(args, options, constraints_override, peer_figures); !taken) {
      return usage(taken.error().message + " (outside a campaign, give --plugin ID)");
    }
  }
  PluginRegistry registry;
  load_plugins(options, registry);
  auto loaded = registry.require(args.plugin_id);
  if (!loaded) return usage(loaded.error().message);
  const Plugin& plugin = *(*loaded)->plugin;
  auto scenarios = select_scenarios(plugin, args.set_name, args.scenario_ids);
  if (!scenarios) return usage(scenarios.error().message);
  auto constraints = load_constraints(plugin, args.constraints_file);
  if (!constraints) return usage(constraints.error().message);
  if (!constraints_override.is_null()) {
    try {
      from_json(constraints_override, *constraints);
    } catch (const std::exception& e) {
      return usage(fmt::format("campaign.json 'constraints': {}", e.what()));
    }
  }
  if (auto valid = validate_sampling_policy(args.settings.sampling); !valid) return usage(valid.error().message);
  if (!args.gpus.empty()) {
    auto gpus = parse_gpu_selection(args.gpus);
    if (!gpus) return usage(gpus.error().message);
    args.settings.devices = gpus->ordinals;
    args.settings.all_devices = gpus->all;
  }
  if (!args.shard.empty()) {
    auto shard = parse_shard(args.shard);
    if (!shard) return usage(shard.error().message);
    if (args.settings.input_seed == 0)
      return usage("--shard needs --input-seed N: every shard must draw the same inputs");
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
    if (!seed) return usage(seed.error().message);
    input.candidate = *seed;
    input.candidate_path = "(seed) " + seed->name;
  } else {
    auto text = read_file(args.file);
    if (!text) return usage(text.error().message);
    input.candidate = {args.file.filename().string(), std::move(*text)};
    // In a campaign the record names the candidate relative to the campaign folder, so records can be shared.
    input.candidate_path = args.campaign_dir.empty() ? args.file.string() : args.file.filename().string();
  }
  args.settings.measure_time = !args.correctness_only;
  auto reference_cache = choose_reference_cache(options, !args.campaign_dir.empty(), args.no_reference_cache);
  if (!reference_cache) return usage(reference_cache.error().message);
  args.settings.reference_cache = std::move(*reference_cache);

  BuildService service = make_build_service(options);
  if (started) started({input.candidate_path, args.plugin_id, input.scenarios.size()});
  EvaluationOutcome outcome;
  try {
    outcome.record = evaluate(input, args.settings, service, progress);
  } catch (const std::exception& e) {  // e.g. kseek cannot find its own executable to start workers
    return usage(fmt::format("the evaluation could not start: {}", e.what()));
  }
  outcome.notes = service.notes();
  // Peers are measured after the kernels, on the same machine, and only where the evaluation reached a GPU: a figure
  // from another run is what this is here to avoid.
  if (peer_figures && outcome.record.contains("status") && outcome.record["status"] == "COMPLETE") {
    outcome.record["peer_figures"] = to_json(measure_peer_figures(*peer_figures, args.campaign_dir));
  }
  if (!args.out_file.empty()) {
    if (auto written = write_file_atomically(args.out_file, outcome.record.dump(2) + "\n"); !written) {
      outcome.write_problem = written.error().message;
    }
  }
  // In a campaign the record is stored and logged; events and the question for them follow from the log.
  if (!args.campaign_dir.empty()) {
    auto logged = record_campaign_evaluation(options, args.campaign_dir, outcome.record, args.via);
    if (!logged) return usage(logged.error().message);
    outcome.follow_up = std::move(*logged);
  }
  auto typed = evaluation_record_from_json(outcome.record);
  if (!typed) return usage("kseek wrote a record it cannot read: " + typed.error().message);
  outcome.typed = std::move(*typed);
  outcome.verdict = verdict_of(*outcome.typed);
  return outcome;
}

}  // namespace kseek::app
