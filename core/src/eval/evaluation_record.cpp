// The evaluation record's one JSON reading and one JSON writing. Each level's keys are listed once, in `bind_keys`, and
// both directions walk that list. It must never drop a key it does not model, nor accept a key of the wrong type.
#include "kseek/core/eval/evaluation_record.hpp"

#include <array>

#include <fmt/format.h>

#include "kseek/core/util/json_binding.hpp"

namespace kseek {
using nlohmann::json;

namespace {

constexpr std::array<std::pair<RecordStatus, std::string_view>, 3> kRecordStatusNames = {{
    {RecordStatus::kComplete, "COMPLETE"},
    {RecordStatus::kNeedsGpu, "NEEDS_GPU"},
    {RecordStatus::kBuildFailed, "BUILD_FAILED"},
}};

}  // namespace

// ---- the two enums' names, for json_binding
// --------------------------------------------------------------------------

std::optional<std::string> read_enum(std::string_view text, Status& out) {
  auto status = parse_status(text);
  if (!status) return status.error().message;
  out = *status;
  return std::nullopt;
}

std::optional<std::string> read_enum(std::string_view text, RecordStatus& out) {
  const auto status = record_status_from_string(text);
  if (!status) return fmt::format("expected COMPLETE, NEEDS_GPU or BUILD_FAILED, found \"{}\"", text);
  out = *status;
  return std::nullopt;
}

// ---- the keys of each level, listed once (in namespace kseek: json_binding finds them by argument-dependent lookup)

template <class Io>
void bind_keys(Io& io, OutputCheck& v) {
  io("set", v.set);
  io("output", v.output);
  io("max_error", v.max_error);
  io("mean_error", v.mean_error);
  io("nonfinite", v.nonfinite);
  io("allowed_max_error", v.allowed_max_error);
  io("allowed_mean_error", v.allowed_mean_error);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, CorrectnessOutcome& v) {
  io("input_sets", v.input_sets);
  io("deterministic", v.deterministic);
  io("outputs", v.outputs);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, TimingOutcome& v) {
  io("rounds", v.rounds);
  io("seed_median_ms", v.seed_median_ms);
  io("candidate_median_ms", v.candidate_median_ms);
  io("ratio", v.ratio);
  io("ci_low", v.ci_low);
  io("ci_high", v.ci_high);
  io("confidence", v.confidence);
  io("meets_confidence", v.meets_confidence);
  io("relative_half_width", v.relative_half_width);
  io("ratio_of_medians", v.ratio_of_medians);
  io("outlier_rounds", v.outlier_rounds);
  io("stop_reason", v.stop_reason);
  io("timed_output_checks", v.timed_output_checks);
  io("timed_reference_launches", v.timed_reference_launches);
  io("timed_reference_checks", v.timed_reference_checks);
  io("candidate_tflops", v.candidate_tflops);
  io("seed_tflops", v.seed_tflops);
  io("candidate_gbps", v.candidate_gbps);
  io("seed_gbps", v.seed_gbps);
  io("percent_of_peak_flops", v.percent_of_peak_flops);
  io("percent_of_peak_bandwidth", v.percent_of_peak_bandwidth);
  io("physics_floor_ms", v.physics_floor_ms);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, RecordedLaunch& v) {
  io("kernel", v.kernel);
  io("grid", v.grid);
  io("block", v.block);
  io("cluster", v.cluster);
  io("dynamic_smem_bytes", v.dynamic_smem_bytes);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, RecordedPlan& v) {
  io("launches", v.launches);
  io("workspace_bytes", v.workspace_bytes);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, ScenarioPlans& v) {
  io("candidate", v.candidate);
  io("seed", v.seed);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, WorkerOutput& v) {
  io("bytes", v.bytes);
  io("text", v.text);
  io("truncated", v.truncated);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, MeasuringGpu& v) {
  io("ordinal", v.ordinal);
  io("uuid", v.uuid);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, ReferenceCounts& v) {
  io("computed", v.computed);
  io("from_cache", v.from_cache);
  io("stored", v.stored);
  io("cache_load_seconds", v.cache_load_seconds);
  io("cache_store_seconds", v.cache_store_seconds);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, ScenarioOutcome& v) {
  io("scenario", v.scenario);
  io("name", v.name);
  io("status", v.status);
  io("message", v.message);
  io("input_seed", v.input_seed);
  io("wall_seconds", v.wall_seconds);
  io("gpu", v.gpu);
  io("shard", v.shard);
  io("functional_arch", v.functional_arch);
  io("gpu_unusable", v.gpu_unusable);
  io("worker_job", v.worker_job);
  io("worker_ended", v.worker_ended);
  io("seconds", v.seconds);
  io("stage_seconds", v.stage_seconds);
  io("references", v.references);
  io("plan", v.plan);
  io("correctness", v.correctness);
  io("timing", v.timing);
  io("worker_output", v.worker_output);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, ClampedRatio& v) {
  io("scenario", v.scenario);
  io("raw", v.raw);
  io("clamped", v.clamped);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, GeomeanSummary& v) {
  io("value", v.value);
  io("ci_low", v.ci_low);
  io("ci_high", v.ci_high);
  io("scenarios", v.scenarios);
  io("clamped", v.clamped);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, RecordSummary& v) {
  io("scenarios", v.scenarios);
  io("status_counts", v.status_counts);
  io("geomean", v.geomean);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, PluginIdentity& v) {
  io("id", v.id);
  io("version", v.version);
  io("path", v.path);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, SourceIdentity& v) {
  io("file", v.file);
  io("sha256", v.sha256);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, RecordSettings& v) {
  io("measure_time", v.measure_time);
  io("functional_arch", v.functional_arch);
  io("geomean_clamp", v.geomean_clamp);
  io("reference_cache", v.reference_cache);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, BuiltKernel& v) {
  io("kernel", v.kernel);
  io("registers", v.registers);
  io("spill_store_bytes", v.spill_store_bytes);
  io("spill_load_bytes", v.spill_load_bytes);
  io("ptxas_notes", v.ptxas_notes);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, RecordedBuild& v) {
  io("role", v.role);
  io("status", v.status);
  io("message", v.message);
  io("build_seconds", v.build_seconds);
  io("cache_hit", v.cache_hit);
  io("names_inspected", v.names_inspected);
  io("kernels", v.kernels);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, RecordEnvironment& v) {
  io("nvrtc_version", v.nvrtc_version);
  io("cuda_headers_version", v.cuda_headers_version);
  io("name", v.name);
  io("uuid", v.uuid);
  io("driver_version", v.driver_version);
  io("compute_capability", v.compute_capability);
  io("copy_bandwidth_bytes_per_second", v.copy_bandwidth_bytes_per_second);
  io("gpus", v.gpus);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, RecordStages& v) {
  io("build", v.build);
  io("probe", v.probe);
  io("scenarios", v.scenarios);
  io("total", v.total);
  io("scenario_count", v.scenario_count);
  io("summed_over_scenarios", v.summed_over_scenarios);
  io("references", v.references);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, ShardBlock& v) {
  io("index", v.index);
  io("count", v.count);
  io("selection", v.selection);
  io("scenarios", v.scenarios);
  io("host", v.host);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, MergedShard& v) {
  io("file", v.file);
  io("shard", v.shard);
  io("status", v.status);
  io("host", v.host);
  io("created_at", v.created_at);
  io("wall_seconds", v.wall_seconds);
  io("message", v.message);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, PeerFigures& v) {
  io("command", v.command);
  io("seconds", v.seconds);
  io("error", v.error);
  io("about", v.about);
  io("scenarios", v.scenarios);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, EvaluationRecord& v) {
  io("schema", v.schema);
  io("kseek_version", v.kseek_version);
  io("created_at", v.created_at);
  io("status", v.status);
  io("message", v.message);
  io("plugin", v.plugin);
  io("candidate", v.candidate);
  io("seed", v.seed);
  io("input_seed", v.input_seed);
  io("synthetic", v.synthetic);
  io("settings", v.settings);
  io("builds", v.builds);
  io("environment", v.environment);
  io("timings_representative", v.timings_representative);
  io("scenarios", v.scenarios);
  io("summary", v.summary);
  io("wall_seconds", v.wall_seconds);
  io("stage_seconds", v.stage_seconds);
  io("shard", v.shard);
  io("merged_from", v.merged_from);
  io("peer_figures", v.peer_figures);
  io.unmodelled(v.unmodelled);
}

using json_binding::read_bound;
using json_binding::write_bound;

std::string_view to_string(RecordStatus status) {
  for (const auto& [s, name] : kRecordStatusNames) {
    if (s == status) return name;
  }
  return "COMPLETE";
}

std::optional<RecordStatus> record_status_from_string(std::string_view text) {
  for (const auto& [s, name] : kRecordStatusNames) {
    if (name == text) return s;
  }
  return std::nullopt;
}

const std::vector<ScenarioOutcome>& EvaluationRecord::scenario_list() const {
  static const std::vector<ScenarioOutcome> kNone;
  return scenarios ? *scenarios : kNone;
}

bool EvaluationRecord::all_passed() const {
  const auto& list = scenario_list();
  if (list.empty()) return false;
  for (const auto& s : list) {
    if (!s.passed()) return false;
  }
  return true;
}

Result<EvaluationRecord> evaluation_record_from_json(const json& record) {
  if (!record.is_object()) return make_error("evaluation record: expected a JSON object");
  if (!record.contains("schema") || record["schema"] != kEvalRecordSchema) {
    return make_error(fmt::format("evaluation record: schema is {}, expected {}",
                                  record.contains("schema") ? record["schema"].dump() : "missing", kEvalRecordSchema));
  }
  if (!record.contains("status")) return make_error("evaluation record: status is missing");
  return read_bound<EvaluationRecord>(record, "evaluation record");
}

json to_json(const EvaluationRecord& record) { return write_bound(record); }

Result<ScenarioOutcome> scenario_outcome_from_json(const json& outcome) {
  if (!outcome.is_object() || !outcome.contains("status")) {
    return make_error("scenario outcome: expected an object with a status");
  }
  return read_bound<ScenarioOutcome>(outcome, "scenario outcome");
}

json to_json(const ScenarioOutcome& outcome) { return write_bound(outcome); }

Result<RecordedBuild> recorded_build_from_json(const json& build) { return read_bound<RecordedBuild>(build, "build"); }

Result<RecordEnvironment> record_environment_from_json(const json& environment) {
  return read_bound<RecordEnvironment>(environment, "environment");
}

json to_json(const RecordSummary& summary) { return write_bound(summary); }

json to_json(const RecordStages& stages) { return write_bound(stages); }

json to_json(const PeerFigures& figures) { return write_bound(figures); }

}  // namespace kseek
