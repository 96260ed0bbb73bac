// Adds up the evaluator's phases and the workers' stage clocks (see the header).
#include "kseek/core/eval/stage_summary.hpp"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace kseek {
namespace {

// Adds one scenario's reference-cache steps into the evaluation's sums (absent stays absent).
void add_steps(std::optional<StageSeconds>& sum, const std::optional<StageSeconds>& steps) {
  if (!steps) return;
  if (!sum) sum.emplace();
  for (const auto& [step, seconds] : *steps) (*sum)[step] += seconds;
}

// "  reference cache, loading: staging 2.6 s · copy 0.4 s · file 10.3 s · wipe 2.2 s", or nothing when it did not.
// Stores whose file and wipe steps ran on the worker's background writer also have `waited`, the part of them the
// worker waited for: "  reference cache, storing: staging 2.6 s · copy 0.4 s · waited 3.1 s (in the background:
// file 10.3 s · wipe 2.2 s)".
std::string render_cache_steps(std::string_view what, const std::optional<StageSeconds>& steps) {
  if (!steps) return "";
  const auto seconds = [&](const char* step) {
    const auto found = steps->find(step);
    return found == steps->end() ? 0.0 : found->second;
  };
  const char* dot = " \xC2\xB7";
  std::string out = fmt::format("  reference cache, {}: staging {:.1f} s{} copy {:.1f} s", what, seconds("staging"),
                                dot, seconds("copy"));
  if (steps->count("waited") != 0) {
    return out + fmt::format("{} waited {:.1f} s (in the background: file {:.1f} s{} wipe {:.1f} s)\n", dot,
                             seconds("waited"), seconds("file"), dot, seconds("wipe"));
  }
  return out + fmt::format("{} file {:.1f} s{} wipe {:.1f} s\n", dot, seconds("file"), dot, seconds("wipe"));
}

}  // namespace

RecordStages stage_summary(const EvaluationPhases& phases, const std::vector<ScenarioOutcome>& scenarios) {
  StageSeconds summed;
  int count = 0;
  for (const auto& r : scenarios) {
    if (!r.stage_seconds) continue;
    ++count;
    for (const auto& [stage, seconds] : *r.stage_seconds) summed[stage] += seconds;
    // What the worker did not see of its own life: process creation and exit, writing and reading its result.
    double inside = 0.0;
    for (const char* outside_the_protocol : {"worker_start", "worker_cleanup"}) {
      const auto stage = r.stage_seconds->find(outside_the_protocol);
      if (stage != r.stage_seconds->end()) inside += stage->second;
    }
    if (r.seconds && r.seconds->count("total")) inside += r.seconds->at("total");
    summed["worker_process"] += std::max(0.0, r.wall_seconds.value_or(0.0) - inside);
  }
  std::optional<ReferenceCounts> references;
  for (const auto& r : scenarios) {
    if (!r.references) continue;
    if (!references) references.emplace();
    references->computed += r.references->computed;
    references->from_cache += r.references->from_cache;
    references->stored += r.references->stored;
    add_steps(references->cache_load_seconds, r.references->cache_load_seconds);
    add_steps(references->cache_store_seconds, r.references->cache_store_seconds);
  }
  RecordStages stages;
  stages.build = phases.build;
  stages.probe = phases.probe;
  stages.scenarios = phases.scenarios;
  stages.total = phases.total;
  stages.scenario_count = count;
  stages.summed_over_scenarios = std::move(summed);
  stages.references = references;
  return stages;
}

std::string render_stage_summary(const RecordStages& summary) {
  std::string out = fmt::format("time: {:.1f} s in all = build {:.1f} s + GPU probe {:.1f} s + scenarios {:.1f} s",
                                summary.total, summary.build, summary.probe, summary.scenarios);
  const double rest = summary.total - summary.build - summary.probe - summary.scenarios;
  if (rest >= 0.05) out += fmt::format(" + other {:.1f} s", rest);
  out += "\n";
  const StageSeconds summed = summary.summed_over_scenarios.value_or(StageSeconds{});
  if (summed.empty()) return out;
  std::vector<std::pair<std::string, double>> stages;
  for (const auto& [stage, seconds] : summed) {
    if (stage == "timed_kernels" || seconds < 0.05) continue;
    stages.emplace_back(stage, seconds);
  }
  std::stable_sort(stages.begin(), stages.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  out += fmt::format("  summed over {} scenario workers:", summary.scenario_count);
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const auto& [stage, seconds] = stages[i];
    out += fmt::format("{} {} {:.1f} s", i == 0 ? "" : " \xC2\xB7", stage, seconds);
    if (stage == "timed" && summed.count("timed_kernels")) {
      out += fmt::format(" (kernels {:.1f} s)", summed.at("timed_kernels"));
    }
  }
  out += "\n";
  if (summary.references) {
    const ReferenceCounts& r = *summary.references;
    out += fmt::format("  references: {} computed, {} from the reference cache ({} stored in it)\n", r.computed,
                       r.from_cache, r.stored);
    out += render_cache_steps("loading", r.cache_load_seconds);
    out += render_cache_steps("storing", r.cache_store_seconds);
  }
  return out;
}

}  // namespace kseek
