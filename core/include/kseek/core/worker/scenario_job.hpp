// The contract between `kseek eval` and one GPU worker process: a job (what to run, with which binaries and
// settings) and its result, both JSON files. It must never carry anything the worker could not re-derive or
// check itself: binaries travel as files named by path, results are plain values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kseek/core/eval/timing_statistics.hpp"
#include "kseek/core/status.hpp"
#include "kseek/sdk/types.hpp"

namespace kseek {

// The timed phase's full checks (worker/scenario_runner.cpp): each timed candidate launch is drawn for the correctness
// rule with references on its own inputs with this probability, after it ran, and at least this many are made per
// scenario. The parent sizes its watchdog with them: each costs one set of references.
inline constexpr double kTimedReferenceCheckProbability = 0.125;
inline constexpr std::size_t kMinTimedReferenceChecks = 4;

struct ScenarioJob {
  std::string plugin_path;  // the worker loads the plugin itself
  std::string plugin_id;
  Scenario scenario;
  std::string candidate_cubin;  // paths of cubins built by the parent
  std::string seed_cubin;
  std::string plugin_library_cubin;
  std::string harness_cubin;
  std::uint64_t input_seed = 0;  // recorded: the scenario's inputs are reproducible from it
  int device = 0;
  bool measure_time = true;
  int warmup_launches = 3;  // per side, never counted and never used to size the sample (T3)
  SamplingPolicy sampling;
  double peak_flops = 0;             // the device's dense bf16 rate (for % of peak)
  double floor_flops = 0;            // its fastest rate (fp8, sparsity): the physics floor's, so no honest
                                     // kernel in any precision is flagged; 0 = peak_flops
  double peak_bytes_per_second = 0;  // for % of peak and the physics floor
  std::string peak_source;           // "measured" or "declared"
  std::uint64_t max_workspace_bytes = 8ull << 30;
  // The reference cache (worker/reference_cache.hpp): its folder and size bound; an empty folder or a bound of 0 is
  // off, which is what the parent sends for a campaign's evaluation.
  std::string reference_cache_folder;
  std::uint64_t reference_cache_bytes = 0;
};

void to_json(nlohmann::json& j, const ScenarioJob& v);
void from_json(const nlohmann::json& j, ScenarioJob& v);

// A result that carries only a verdict ({"status", "message"}): a scenario that never reached the protocol's end, as
// the worker, the process that starts it and the scheduler report it. The status is spelled by to_string(Status),
// the one mapping between the enum and the record's text.
nlohmann::json verdict_result(Status status, std::string_view message);

}  // namespace kseek
