// What the evaluator's own files share and nothing outside core/src/eval may use: the reference-time bound behind
// the watchdog and the shard estimate, and the compute capability an arch name asks for.
// It must never grow into a second public API: what tests need is declared in kseek/core/eval/evaluator.hpp.
#pragma once

#include <chrono>
#include <string_view>

#include "kseek/sdk/types.hpp"

namespace kseek::evaluation_parts {

using Clock = std::chrono::steady_clock;

// Seconds one scenario's worker may spend in references (correctness sets and, when timed, the timed phase's full
// checks), from deliberately slow rates.
double worker_reference_seconds_bound(const Scenario& scenario, bool measure_time);

int compute_capability_of_arch(std::string_view arch);  // "sm_90a" -> 90

}  // namespace kseek::evaluation_parts
