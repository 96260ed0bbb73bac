// Where an evaluation's time went: the phases the evaluator runs itself (builds, GPU probes, the scenarios) and,
// summed over the scenarios, the stages their workers reported (setup, inputs, references, candidate and seed runs,
// checks, timed windows) plus the cost of starting each worker. `kseek eval` prints it; the record keeps it as
// "stage_seconds".
// It must never read a clock: it only adds up what the evaluator and the workers measured.
#pragma once

#include <string>
#include <vector>

#include "kseek/core/eval/evaluation_record.hpp"

namespace kseek {

struct EvaluationPhases {
  double build = 0;      // candidate, seed, plugin library and harness builds (cache hits included)
  double probe = 0;      // probing the GPUs in workers
  double scenarios = 0;  // from the first scenario's worker start to the last one's result
  double total = 0;      // the evaluation's wall time
};

// {"build", "probe", "scenarios", "total", "summed_over_scenarios": {"worker_process", "worker_start", "setup", ...,
// "timed", "timed_kernels", "other"}, "scenario_count"}. worker_process is a scenario's wall time less what its worker
// measured from its own start: process creation, exit, and reading its result.
RecordStages stage_summary(const EvaluationPhases& phases, const std::vector<ScenarioOutcome>& scenarios);

// Lines for a terminal: the phases, then the scenarios' stages (largest first, zero stages left out), then how many
// references were computed, read from the reference cache and stored in it (where scenarios reported them).
std::string render_stage_summary(const RecordStages& summary);

}  // namespace kseek
