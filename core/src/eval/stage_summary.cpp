// Adds up the evaluator's phases and the workers' stage clocks (see the header).
#include "kseek/core/eval/stage_summary.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace kseek {

using nlohmann::json;

json stage_summary(const EvaluationPhases& phases, const json& scenario_results) {
  json summed = json::object();
  std::size_t count = 0;
  for (const auto& r : scenario_results) {
    if (!r.is_object() || !r.contains("stage_seconds") || !r["stage_seconds"].is_object()) continue;
    ++count;
    const json& stages = r["stage_seconds"];
    for (const auto& [stage, seconds] : stages.items()) {
      if (seconds.is_number()) summed[stage] = summed.value(stage, 0.0) + seconds.get<double>();
    }
    // What the worker did not see of its own life: process creation and exit, writing and reading its result.
    const double inside = stages.value("worker_start", 0.0) +
                          (r.contains("seconds") ? r["seconds"].value("total", 0.0) : 0.0);
    summed["worker_process"] = summed.value("worker_process", 0.0) + std::max(0.0, r.value("wall_seconds", 0.0) - inside);
  }
  return {{"build", phases.build},
          {"probe", phases.probe},
          {"scenarios", phases.scenarios},
          {"total", phases.total},
          {"scenario_count", count},
          {"summed_over_scenarios", summed}};
}

std::string render_stage_summary(const json& summary) {
  std::string out = fmt::format("time: {:.1f} s in all = build {:.1f} s + GPU probe {:.1f} s + scenarios {:.1f} s",
                                summary.value("total", 0.0), summary.value("build", 0.0), summary.value("probe", 0.0),
                                summary.value("scenarios", 0.0));
  const double rest = summary.value("total", 0.0) - summary.value("build", 0.0) - summary.value("probe", 0.0) -
                      summary.value("scenarios", 0.0);
  if (rest >= 0.05) out += fmt::format(" + other {:.1f} s", rest);
  out += "\n";
  const json summed = summary.value("summed_over_scenarios", json::object());
  if (summed.empty()) return out;
  std::vector<std::pair<std::string, double>> stages;
  for (const auto& [stage, seconds] : summed.items()) {
    if (stage == "timed_kernels" || !seconds.is_number() || seconds.get<double>() < 0.05) continue;
    stages.emplace_back(stage, seconds.get<double>());
  }
  std::stable_sort(stages.begin(), stages.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  out += fmt::format("  summed over {} scenario workers:", summary.value("scenario_count", 0));
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const auto& [stage, seconds] = stages[i];
    out += fmt::format("{} {} {:.1f} s", i == 0 ? "" : " \xC2\xB7", stage, seconds);
    if (stage == "timed" && summed.contains("timed_kernels")) {
      out += fmt::format(" (kernels {:.1f} s)", summed.value("timed_kernels", 0.0));
    }
  }
  out += "\n";
  return out;
}

}  // namespace kseek
