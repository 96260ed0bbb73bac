// The `kseek.eval/1` evaluation record as a value type (docs/result-schema.md), with its one JSON reading and writing.
// It must never drop a key: whatever a level does not model is kept in that level's `unmodelled` and written back.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kseek/core/status.hpp"
#include "kseek/sdk/result.hpp"

namespace kseek {

inline constexpr std::string_view kEvalRecordSchema = "kseek.eval/1";

// A field is std::optional exactly where some record kseek writes leaves its key out: reading then writing a record
// gives back the same JSON. Plain fields that a record lacks read as their defaults.

enum class RecordStatus {
  kComplete,     // every scenario has a verdict
  kNeedsGpu,     // built and checked; no GPU could be used (`message` says why)
  kBuildFailed,  // the seed or the harness kernels did not build
};
std::string_view to_string(RecordStatus status);
std::optional<RecordStatus> record_status_from_string(std::string_view text);

// One output tensor compared on one input set (also a row of `timing.timed_reference_checks`, with its input seed).
struct OutputCheck {
  int set = 0;
  std::string output;
  double max_error = 0;
  double mean_error = 0;
  std::int64_t nonfinite = 0;
  double allowed_max_error = 0;
  double allowed_mean_error = 0;
  nlohmann::json unmodelled = nlohmann::json::object();  // reference_*, seed_*, distance_to_seed_*, bounds, input_seed
};

struct CorrectnessOutcome {
  int input_sets = 0;
  bool deterministic = false;
  std::vector<OutputCheck> outputs;
  nlohmann::json unmodelled = nlohmann::json::object();
};

// Seed time over candidate time: > 1 is faster. Medians in milliseconds.
struct TimingOutcome {
  int rounds = 0;
  double seed_median_ms = 0;
  double candidate_median_ms = 0;
  double ratio = 1;
  double ci_low = 1;
  double ci_high = 1;
  double confidence = 0.95;
  bool meets_confidence = false;
  double relative_half_width = 0;
  double ratio_of_medians = 1;
  std::vector<int> outlier_rounds;
  std::string stop_reason;
  int timed_output_checks = 0;
  std::optional<int> timed_reference_launches;
  std::optional<std::vector<OutputCheck>> timed_reference_checks;
  double candidate_tflops = 0;
  double seed_tflops = 0;
  double candidate_gbps = 0;
  double seed_gbps = 0;
  double percent_of_peak_flops = 0;
  double percent_of_peak_bandwidth = 0;
  double physics_floor_ms = 0;
  nlohmann::json unmodelled = nlohmann::json::object();  // e.g. `representative` with --functional-arch
};

struct RecordedLaunch {
  std::string kernel;
  std::vector<std::int64_t> grid, block, cluster;
  std::uint64_t dynamic_smem_bytes = 0;
  nlohmann::json unmodelled = nlohmann::json::object();
};

struct RecordedPlan {
  std::vector<RecordedLaunch> launches;
  std::uint64_t workspace_bytes = 0;
  nlohmann::json unmodelled = nlohmann::json::object();
};

struct ScenarioPlans {
  std::optional<RecordedPlan> candidate;
  std::optional<RecordedPlan> seed;
  nlohmann::json unmodelled = nlohmann::json::object();
};

// What the GPU worker printed (never passed through to kseek's own output).
struct WorkerOutput {
  std::uint64_t bytes = 0;
  std::string text;
  bool truncated = false;
  nlohmann::json unmodelled = nlohmann::json::object();
};

struct MeasuringGpu {
  int ordinal = 0;
  std::string uuid;
  nlohmann::json unmodelled = nlohmann::json::object();
};

// Stage or step name -> seconds (`worker_start`, `setup`, ... `timed_kernels`; `setup`, `correctness`, `timing`,
// `total`; the reference cache's `staging`, `copy`, `file`, `wipe`).
using StageSeconds = std::map<std::string, double>;

// How a scenario's references (or, summed, an evaluation's) were had: computed by the plugin, or read from the
// reference cache; how many computed ones were stored in it.
struct ReferenceCounts {
  int computed = 0;
  int from_cache = 0;
  int stored = 0;
  // Where the reference cache's time went, by step (`staging`: page-locked host memory allocated, `copy`: to or from
  // the GPU, `file`: the entry read or written and hashed, `wipe`: the host copy zeroed); absent when it did nothing.
  std::optional<StageSeconds> cache_load_seconds;
  std::optional<StageSeconds> cache_store_seconds;
  nlohmann::json unmodelled = nlohmann::json::object();  // `note`: entries discarded, stores that failed
};

struct ScenarioOutcome {
  std::string scenario;  // the id
  std::string name;
  Status status = Status::kNotRunnable;
  std::optional<std::string> message;
  std::optional<std::uint64_t> input_seed;
  std::optional<double> wall_seconds;  // worker start to verdict, as the parent saw it; absent where nothing ran
  std::optional<MeasuringGpu> gpu;
  std::optional<int> shard;
  std::optional<std::string> functional_arch;
  std::optional<bool> gpu_unusable;
  std::optional<int> worker_job;              // which job of its worker process this was: 0 for a fresh process's first
  std::optional<std::string> worker_ended;    // why its worker process ended after it (absent: it could go on)
  std::optional<StageSeconds> seconds;        // inside the worker
  std::optional<StageSeconds> stage_seconds;  // inside the worker, every interval charged to one stage
  std::optional<ReferenceCounts> references;
  std::optional<ScenarioPlans> plan;
  std::optional<CorrectnessOutcome> correctness;
  std::optional<TimingOutcome> timing;
  std::optional<WorkerOutput> worker_output;
  nlohmann::json unmodelled = nlohmann::json::object();

  bool passed() const { return status == Status::kPassed; }
};

struct ClampedRatio {
  std::string scenario;
  double raw = 1;
  double clamped = 1;
  nlohmann::json unmodelled = nlohmann::json::object();
};

struct GeomeanSummary {
  double value = 1;
  double ci_low = 1;
  double ci_high = 1;
  int scenarios = 0;
  std::vector<ClampedRatio> clamped;
  nlohmann::json unmodelled = nlohmann::json::object();
};

struct RecordSummary {
  int scenarios = 0;
  std::map<std::string, int> status_counts;  // spelled as the statuses are
  std::optional<GeomeanSummary> geomean;     // absent when no scenario passed with a timing
  nlohmann::json unmodelled = nlohmann::json::object();
};

struct PluginIdentity {
  std::string id;
  std::string version;
  std::string path;  // the library's file name only
  nlohmann::json unmodelled = nlohmann::json::object();
};

struct SourceIdentity {
  std::string file;
  std::string sha256;
  nlohmann::json unmodelled = nlohmann::json::object();
};

struct RecordSettings {
  bool measure_time = true;
  std::optional<std::string> functional_arch;
  std::optional<std::vector<double>> geomean_clamp;
  std::optional<std::string> reference_cache;            // "on", or "off (why)"
  nlohmann::json unmodelled = nlohmann::json::object();  // sampling target, rounds, budget, watchdog
};

struct BuiltKernel {
  std::string kernel;
  int registers = 0;
  std::uint64_t spill_store_bytes = 0;
  std::uint64_t spill_load_bytes = 0;
  std::optional<std::vector<std::string>> ptxas_notes;  // code ptxas did not make as written (absent: older records)
  nlohmann::json unmodelled = nlohmann::json::object();  // the other ptxas figures
};

struct RecordedBuild {
  std::string role;  // candidate, seed, plugin device library, harness kernels
  Status status = Status::kOk;
  std::optional<std::string> message;
  std::optional<double> build_seconds;
  std::optional<bool> cache_hit;
  std::optional<int> names_inspected;
  std::optional<std::vector<BuiltKernel>> kernels;
  nlohmann::json unmodelled = nlohmann::json::object();  // options, diagnostics, violations, cache key...
};

struct RecordEnvironment {
  std::optional<std::string> nvrtc_version;
  std::optional<std::string> cuda_headers_version;
  std::optional<std::string> name;
  std::optional<std::string> uuid;
  std::optional<std::int64_t> driver_version;
  std::optional<std::string> compute_capability;
  std::optional<double> copy_bandwidth_bytes_per_second;
  std::optional<nlohmann::json> gpus;                    // with --gpus: every probe, as the worker wrote it
  nlohmann::json unmodelled = nlohmann::json::object();  // the rest of the probe: memory, clocks, peaks...
};

struct RecordStages {
  double build = 0;
  double probe = 0;
  double scenarios = 0;
  double total = 0;
  int scenario_count = 0;
  std::optional<StageSeconds> summed_over_scenarios;
  std::optional<ReferenceCounts> references;  // summed over the scenarios that report them
  nlohmann::json unmodelled = nlohmann::json::object();
};

struct ShardBlock {
  int index = 0;
  int count = 0;
  std::vector<std::string> selection;  // every selected scenario id, in order
  std::vector<std::string> scenarios;  // this shard's ids
  std::string host;
  nlohmann::json unmodelled = nlohmann::json::object();  // split, set
};

struct MergedShard {
  std::string file;
  int shard = 0;
  std::string status;
  std::string host;
  std::string created_at;
  double wall_seconds = 0;
  std::optional<std::string> message;
  nlohmann::json unmodelled = nlohmann::json::object();
};

// Figures of peer implementations (another library's kernel on the same problem) that a campaign's peer command
// measured on the same machine right after the evaluation (campaign.json "peer_figures"; docs/campaigns.md). They are
// part of the signed record, so a goal can compare against a peer of the same run (`peer("H01", "cudnn_tflops")`).
struct PeerFigures {
  std::vector<std::string> command;          // as campaign.json gave it
  double seconds = 0;                        // the command's wall time
  std::optional<std::string> error;          // it failed, timed out or wrote nothing usable: why (scenarios then empty)
  std::map<std::string, std::string> about;  // the document's top-level strings (e.g. the GPU and library versions)
  std::map<std::string, std::map<std::string, double>> scenarios;  // scenario id -> figure name -> value
  nlohmann::json unmodelled = nlohmann::json::object();
};

struct EvaluationRecord {
  std::string schema = std::string(kEvalRecordSchema);
  std::string kseek_version;
  std::string created_at;
  RecordStatus status = RecordStatus::kComplete;
  std::optional<std::string> message;
  PluginIdentity plugin;
  SourceIdentity candidate;
  std::optional<SourceIdentity> seed;
  std::optional<std::uint64_t> input_seed;
  std::optional<bool> synthetic;  // measured by a stand-in worker (tests); the campaign gate refuses it
  std::optional<RecordSettings> settings;
  std::optional<std::vector<RecordedBuild>> builds;
  std::optional<RecordEnvironment> environment;
  std::optional<bool> timings_representative;
  std::optional<std::vector<ScenarioOutcome>> scenarios;
  std::optional<RecordSummary> summary;
  std::optional<double> wall_seconds;
  std::optional<RecordStages> stage_seconds;
  std::optional<ShardBlock> shard;
  std::optional<std::vector<MergedShard>> merged_from;
  std::optional<PeerFigures> peer_figures;
  nlohmann::json unmodelled = nlohmann::json::object();

  const std::vector<ScenarioOutcome>& scenario_list() const;
  bool all_passed() const;  // at least one scenario, and every one PASSED
};

// Errors name the key path that is wrong (`scenarios[3].timing.ratio: expected a number, found "x"`).
Result<EvaluationRecord> evaluation_record_from_json(const nlohmann::json& record);
nlohmann::json to_json(const EvaluationRecord& record);

// One scenario's outcome alone, as a worker result and a record's `scenarios[i]` are written.
Result<ScenarioOutcome> scenario_outcome_from_json(const nlohmann::json& outcome);
nlohmann::json to_json(const ScenarioOutcome& outcome);

// Parts of a record that another component writes in the record's shape (a build's JSON from build/, a GPU probe
// from the worker), read once where they enter the record, by the same reader as a whole record.
Result<RecordedBuild> recorded_build_from_json(const nlohmann::json& build);
Result<RecordEnvironment> record_environment_from_json(const nlohmann::json& environment);
nlohmann::json to_json(const PeerFigures& figures);

// The parts the evaluator computes from typed scenarios, written into its JSON record.
nlohmann::json to_json(const RecordSummary& summary);
nlohmann::json to_json(const RecordStages& stages);

}  // namespace kseek
