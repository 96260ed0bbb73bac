// JSON round-trip of ScenarioJob.
// It must never drop a field: a job file is also the reproducer of a scenario's run.
#include "kseek/core/worker/scenario_job.hpp"

namespace kseek {

nlohmann::json verdict_result(Status status, std::string_view message) {
  return {{"status", to_string(status)}, {"message", message}};
}

void to_json(nlohmann::json& j, const ScenarioJob& v) {
  j = {{"plugin_path", v.plugin_path},
       {"plugin_id", v.plugin_id},
       {"scenario", v.scenario},
       {"candidate_cubin", v.candidate_cubin},
       {"seed_cubin", v.seed_cubin},
       {"plugin_library_cubin", v.plugin_library_cubin},
       {"harness_cubin", v.harness_cubin},
       {"input_seed", v.input_seed},
       {"device", v.device},
       {"measure_time", v.measure_time},
       {"warmup_launches", v.warmup_launches},
       {"sampling",
        {{"target_relative_half_width", v.sampling.target_relative_half_width},
         {"min_rounds", v.sampling.min_rounds},
         {"settled_rounds", v.sampling.settled_rounds},
         {"max_rounds", v.sampling.max_rounds},
         {"time_budget_seconds", v.sampling.time_budget_seconds}}},
       {"peak_flops", v.peak_flops},
       {"floor_flops", v.floor_flops},
       {"peak_bytes_per_second", v.peak_bytes_per_second},
       {"peak_source", v.peak_source},
       {"max_workspace_bytes", v.max_workspace_bytes},
       {"reference_cache_folder", v.reference_cache_folder},
       {"reference_cache_bytes", v.reference_cache_bytes}};
}

void from_json(const nlohmann::json& j, ScenarioJob& v) {
  j.at("plugin_path").get_to(v.plugin_path);
  j.at("plugin_id").get_to(v.plugin_id);
  j.at("scenario").get_to(v.scenario);
  j.at("candidate_cubin").get_to(v.candidate_cubin);
  j.at("seed_cubin").get_to(v.seed_cubin);
  j.at("plugin_library_cubin").get_to(v.plugin_library_cubin);
  j.at("harness_cubin").get_to(v.harness_cubin);
  j.at("input_seed").get_to(v.input_seed);
  j.at("device").get_to(v.device);
  j.at("measure_time").get_to(v.measure_time);
  j.at("warmup_launches").get_to(v.warmup_launches);
  const auto& s = j.at("sampling");
  s.at("target_relative_half_width").get_to(v.sampling.target_relative_half_width);
  s.at("min_rounds").get_to(v.sampling.min_rounds);
  s.at("settled_rounds").get_to(v.sampling.settled_rounds);
  s.at("max_rounds").get_to(v.sampling.max_rounds);
  s.at("time_budget_seconds").get_to(v.sampling.time_budget_seconds);
  j.at("peak_flops").get_to(v.peak_flops);
  v.floor_flops = j.value("floor_flops", 0.0);
  j.at("peak_bytes_per_second").get_to(v.peak_bytes_per_second);
  j.at("peak_source").get_to(v.peak_source);
  j.at("max_workspace_bytes").get_to(v.max_workspace_bytes);
  // A job written without them (a reproducer from before the cache) runs with the cache off.
  if (j.contains("reference_cache_folder")) j.at("reference_cache_folder").get_to(v.reference_cache_folder);
  if (j.contains("reference_cache_bytes")) j.at("reference_cache_bytes").get_to(v.reference_cache_bytes);
}

}  // namespace kseek
