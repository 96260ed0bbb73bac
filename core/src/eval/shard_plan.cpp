// How an evaluation is planned before anything runs: each scenario's estimated cost (what the multi-GPU queue and
// the shard split balance), the cost-balanced shard split, and the --shard / --gpus arguments.
// It must never depend on a GPU or a clock: a split must come out the same on every machine.
#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "evaluation_parts.hpp"
#include "kseek/core/eval/evaluator.hpp"
#include "kseek/core/worker/scenario_job.hpp"

namespace kseek {
using evaluation_parts::worker_reference_seconds_bound;

namespace {

// An upper bound on a scenario's references over up to three input sets, from deliberately slow rates (attention's
// fp32 reference measured 3-4 TFLOP/s on an H200): the watchdog and the shard estimate both use it, so a large
// scenario is neither killed while its references run nor under-counted in a split.
double reference_seconds_bound(const Scenario& scenario) {
  constexpr double kReferenceFlopsPerSecond = 1e12;
  constexpr double kReferenceBytesPerSecond = 1e11;
  return 3.0 * (scenario.flops / kReferenceFlopsPerSecond + scenario.bytes / kReferenceBytesPerSecond);
}

}  // namespace

int evaluation_parts::compute_capability_of_arch(std::string_view arch) {
  int value = 0;
  for (char c : arch) {
    if (c >= '0' && c <= '9') value = value * 10 + (c - '0');
  }
  return value;
}

// The references one scenario's worker may compute: reference_seconds_bound covers the correctness phase's input
// sets; timing adds its full checks, whose time stays off the sampling clock: the owed minimum, and (for scenarios
// large enough for the references to matter, which stop near the minimum number of rounds) about two drawn ones.
double evaluation_parts::worker_reference_seconds_bound(const Scenario& scenario, bool measure_time) {
  const double one_set = reference_seconds_bound(scenario) / 3.0;
  return reference_seconds_bound(scenario) +
         (measure_time ? one_set * static_cast<double>(kMinTimedReferenceChecks + 2) : 0.0);
}

double estimated_scenario_seconds(const Scenario& scenario, const EvaluationSettings& settings) {
  // Worker start-up and module loads, then the references, then timing.
  constexpr double kWorkerStartSeconds = 3.0;
  return kWorkerStartSeconds + worker_reference_seconds_bound(scenario, settings.measure_time) +
         (settings.measure_time ? settings.sampling.time_budget_seconds : 0.0);
}

std::vector<int> split_into_shards(const std::vector<double>& costs, int shards) {
  std::vector<std::size_t> order(costs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  std::vector<double> load(static_cast<std::size_t>(std::max(shards, 1)), 0.0);
  std::vector<int> shard_of(costs.size(), 0);
  for (std::size_t i : order) {
    const auto lightest = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    shard_of[i] = static_cast<int>(lightest);
    load[lightest] += costs[i];
  }
  return shard_of;
}

namespace {

std::optional<int> parse_non_negative(std::string_view text) {
  if (text.empty() || text.size() > 6) return std::nullopt;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

}  // namespace

Result<ShardSpec> parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  const auto index = slash == std::string_view::npos ? std::nullopt : parse_non_negative(text.substr(0, slash));
  const auto count = slash == std::string_view::npos ? std::nullopt : parse_non_negative(text.substr(slash + 1));
  if (!index || !count || *count < 1 || *index >= *count) {
    return make_error(fmt::format("--shard '{}': expected I/N with 0 <= I < N, e.g. 0/4", text));
  }
  return ShardSpec{*index, *count};
}

Result<GpuSelection> parse_gpu_selection(std::string_view text) {
  if (text == "all") return GpuSelection{{}, true};
  GpuSelection selection;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t comma = std::min(text.find(',', begin), text.size());
    const auto ordinal = parse_non_negative(text.substr(begin, comma - begin));
    if (!ordinal) return make_error(fmt::format("--gpus '{}': expected 'all' or GPU ordinals such as 0,1,3", text));
    if (std::find(selection.ordinals.begin(), selection.ordinals.end(), *ordinal) != selection.ordinals.end()) {
      return make_error(fmt::format("--gpus '{}': GPU {} is listed twice", text, *ordinal));
    }
    selection.ordinals.push_back(*ordinal);
    begin = comma + 1;
  }
  return selection;
}

}  // namespace kseek
