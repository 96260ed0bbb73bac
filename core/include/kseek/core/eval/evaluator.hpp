// `kseek eval` end to end: builds (candidate, seed, plugin device library, harness kernels), then one GPU worker
// process per scenario under a watchdog, then verdicts, the geomean and a schema-versioned record.
// It must never hold a CUDA context itself: everything that touches the GPU runs in `kseek __worker`.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kseek/core/build/build_service.hpp"
#include "kseek/core/eval/timing_statistics.hpp"
#include "kseek/core/plugin/plugin_registry.hpp"

namespace kseek {

inline constexpr std::string_view kEvalRecordSchema = "kseek.eval/1";

struct EvaluationSettings {
  int device = 0;
  bool measure_time = true;
  SamplingPolicy sampling;
  double scenario_timeout_seconds = 120.0;   // watchdog per scenario, on top of the sampling budget
  std::uint64_t input_seed = 0;              // 0: drawn from the clock (and recorded)
  std::filesystem::path worker_executable;   // empty: this executable
  // Non-empty: build and run every scenario for this arch instead of the one it requires (a plugin offering a
  // portable seed for it), to validate scenarios, references and correctness on a GPU of another generation.
  // Timings are then recorded as not representative of the scenario's target.
  std::string functional_arch;
  GeomeanOptions geomean;
};

struct EvaluationInput {
  const LoadedPlugin* plugin = nullptr;
  SourceFile candidate;
  std::string candidate_path;                // for the record
  std::vector<Scenario> scenarios;
  Constraints constraints;
};

// Progress lines for people while an evaluation runs (one per scenario); may be empty.
using ProgressSink = std::function<void(const nlohmann::json& scenario_result)>;

// The record (docs/result-schema.md). record["status"] is "COMPLETE", "NEEDS_GPU" or "BUILD_FAILED".
nlohmann::json evaluate(const EvaluationInput& input, const EvaluationSettings& settings, BuildService& builds,
                        const ProgressSink& progress = {});

// The harness's own device source (embedded at build time).
SourceFile harness_kernels_source();

// Runs `kseek __worker` with these arguments, waits at most `timeout_seconds`; the result file's JSON, or a
// CRASHED / TIMEOUT verdict naming what happened to the process.
nlohmann::json run_worker(const std::filesystem::path& executable, const std::vector<std::string>& arguments,
                          const std::filesystem::path& result_file, double timeout_seconds);

}  // namespace kseek
