// `kseek eval` end to end: builds (candidate, seed, plugin device library, harness kernels), then one GPU worker
// process per scenario under a watchdog (on one GPU, or on several at once from a shared queue), then verdicts,
// the geomean and a schema-versioned record; shards of one evaluation and their merge.
// It must never hold a CUDA context itself: everything that touches the GPU runs in `kseek __worker`.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kseek/core/build/build_service.hpp"
#include "kseek/core/eval/evaluation_record.hpp"
#include "kseek/core/eval/timing_statistics.hpp"
#include "kseek/core/plugin/plugin_registry.hpp"
#include "kseek/core/worker/gpu_description.hpp"
#include "kseek/core/worker/gpu_probe.hpp"
#include "kseek/core/worker/scenario_job.hpp"

namespace kseek {

// One part of an evaluation split over several machines (`--shard i/N`); count 0: the whole selection.
struct ShardSpec {
  int index = 0;
  int count = 0;
};

// Whether the workers may keep the plugin's references across evaluations (worker/reference_cache.hpp), where, and up
// to how many bytes. The application layer decides (never inside a campaign); the default is off.
struct ReferenceCacheChoice {
  std::filesystem::path folder;  // empty: off
  std::uint64_t max_bytes = 0;   // 0: off
  std::string off_because;       // for the record, when off
  bool on() const { return !folder.empty() && max_bytes > 0; }
  std::string describe() const;  // the record's settings.reference_cache: "on" or "off (why)"
};

struct EvaluationSettings {
  int device = 0;  // the GPU when `devices` is empty and `all_devices` false
  bool measure_time = true;
  SamplingPolicy sampling;
  double scenario_timeout_seconds = 120.0;  // watchdog per scenario, on top of the sampling budget
  std::uint64_t input_seed = 0;             // 0: drawn from the clock (and recorded)
  std::filesystem::path worker_executable;  // a kseek (workers, and builds beside the candidate); empty: this one
  // Non-empty: build and run every scenario for this arch instead of the one it requires (a plugin offering a
  // portable seed for it), to validate scenarios, references and correctness on a GPU of another generation.
  // Timings are then recorded as not representative of the scenario's target.
  std::string functional_arch;
  GeomeanOptions geomean;
  // Several GPUs at once (`--gpus`): these ordinals, or every one a probe finds when all_devices is set. Each GPU
  // runs one worker at a time and takes the next scenario from a queue ordered by estimated cost, largest first.
  std::vector<int> devices;
  bool all_devices = false;
  ShardSpec shard;
  bool worker_per_scenario = false;  // a fresh worker process for every scenario (SchedulerOptions::reuse_workers)
  ReferenceCacheChoice reference_cache;
};

struct EvaluationInput {
  const LoadedPlugin* plugin = nullptr;
  SourceFile candidate;
  std::string candidate_path;  // for the record
  std::vector<Scenario> scenarios;
  Constraints constraints;
  std::string set_name;  // for a shard's record: merged shards must come from one selection
};

// Progress lines for people while an evaluation runs (one per scenario); may be empty.
using ProgressSink = std::function<void(const nlohmann::json& scenario_result)>;

// The record (docs/result-schema.md). record["status"] is "COMPLETE", "NEEDS_GPU" or "BUILD_FAILED".
nlohmann::json evaluate(const EvaluationInput& input, const EvaluationSettings& settings, BuildService& builds,
                        const ProgressSink& progress = {});

// The harness's own device source (embedded at build time).
SourceFile harness_kernels_source();

// ---- pieces of `evaluate`, public for the scheduler's and the merge's tests --------------------------------------

// A rough estimate of a scenario's wall time in its worker (start-up, references over three input sets, the timing
// budget): what the multi-GPU queue and the shard split balance. Monotone in the scenario's FLOPs and bytes.
double estimated_scenario_seconds(const Scenario& scenario, const EvaluationSettings& settings);

// The cost-balanced deterministic split: items in decreasing cost (ties: lower index first), each to the shard with
// the least cost so far (ties: lower shard). Returns each item's shard. `shards` >= 1.
std::vector<int> split_into_shards(const std::vector<double>& costs, int shards);

// "i/N" with 0 <= i < N; "0,1,3" (distinct ordinals >= 0) or "all" (empty list, all = true).
Result<ShardSpec> parse_shard(std::string_view text);
struct GpuSelection {
  std::vector<int> ordinals;
  bool all = false;
};
Result<GpuSelection> parse_gpu_selection(std::string_view text);

// A GPU the scheduler may use: its description, read once from its probe, and the probe itself (identity, bandwidth,
// peaks), as the record keeps it.
struct GpuTarget {
  GpuDescription gpu;
  GpuProbe probe;
};

// The target of an available probe, or the error that names the probe's wrong key.
Result<GpuTarget> gpu_target(const GpuProbe& probe);

// Probes each ordinal in its own worker (`kseek __worker --probe`, concurrently). With `all`, probes 0, 1, 2...
// until an ordinal does not exist. Every probe comes back with its ordinal; an available one with its peaks; one that
// is not, or whose worker wrote something unreadable, with the problem.
std::vector<GpuProbe> probe_gpus(const std::filesystem::path& executable, const GpuSelection& gpus,
                                 const std::filesystem::path& work_folder);

// The probed GPUs an evaluation uses: the available ones of the first available GPU's model (one evaluation is one
// model). `not_used` says why each other probed GPU was left out, each distinct reason once ("" when none).
struct UsableGpus {
  std::vector<GpuTarget> gpus;
  std::string not_used;
};
UsableGpus usable_gpus(const std::vector<GpuProbe>& probes);

// One scenario ready for a worker; the GPU that takes it fills in the job's device and peaks.
struct PreparedScenario {
  ScenarioJob job;
  std::string arch;  // what the binaries were built for
  double estimated_seconds = 0;
};

struct SchedulerOptions {
  std::filesystem::path executable;         // `kseek` (or a stand-in worker in tests)
  std::filesystem::path work_folder;        // job and result files
  double scenario_timeout_seconds = 120.0;  // the watchdog: this + the time budget + the references' share
  double time_budget_seconds = 10.0;
  bool functional_arch = false;  // timings are marked not representative
  bool largest_first = false;    // queue order: by estimated cost (several GPUs) or as given (one)
  bool record_gpu = false;       // each result says which GPU ran it ("gpu": {ordinal, uuid})
  // One serving worker per GPU runs scenario after scenario (its context and plugin kept, each scenario's memory
  // scrubbed and freed after it); false: a fresh process per scenario.
  bool reuse_workers = true;
};

// Runs every scenario in a worker on one of `gpus` (one thread per GPU, one worker per GPU at a time: a serving worker
// kept from scenario to scenario, or a fresh one each, as options.reuse_workers says). A worker that crashes or hangs
// costs its scenario only; the next starts in a fresh worker and the other GPUs go on. Results come back in the order
// of `scenarios`; `progress` is called (serialised) as each finishes.
std::vector<nlohmann::json> run_scenarios(const std::vector<PreparedScenario>& scenarios,
                                          const std::vector<GpuTarget>& gpus, const SchedulerOptions& options,
                                          const ProgressSink& progress = {});

// A worker's result (run_scenarios), read once where it enters the record: the scenario's id and name from its job,
// the job's input seed where the result has none. One that is not a scenario outcome (a stand-in worker's, a damaged
// file) is that worker's crash, CRASHED with the reading error: every scenario keeps a verdict its readers accept.
ScenarioOutcome outcome_of_worker(const nlohmann::json& result, const PreparedScenario& prepared);

// A record's "summary" from its scenarios: status counts, and the geomean over the PASSED scenarios with a timing
// (each ratio clamped first).
RecordSummary summarize(const std::vector<ScenarioOutcome>& scenarios, const GeomeanOptions& geomean);

// ---- shards -------------------------------------------------------------------------------------------------------

struct RecordFile {
  std::string file;  // for error messages
  nlohmann::json record;
};

// One record from the shard records of one evaluation (`kseek merge`). Errors name the files: records that differ in
// plugin, candidate, seed, input seed, settings, kseek version or selection; a shard missing or given twice; a
// scenario covered twice or not at all. The merged record has every shard's scenarios in the selection's order, the
// summary recomputed (with the records' own geomean clamp), "merged_from", and status BUILD_FAILED / NEEDS_GPU when
// any shard has it (the message names the files).
Result<nlohmann::json> merge_shard_records(const std::vector<RecordFile>& shards);

}  // namespace kseek
