// Scenario-by-scenario comparison of two evaluation records (record_comparison.hpp). Pure: no files, no GPU.
#include "kseek/core/eval/record_comparison.hpp"

#include <cmath>
#include <map>

#include <fmt/format.h>

namespace kseek {
namespace {

const ScenarioOutcome* find(const std::vector<ScenarioOutcome>& list, const std::string& id) {
  for (const auto& s : list) {
    if (s.scenario == id) return &s;
  }
  return nullptr;
}

bool timed(const ScenarioOutcome& s) {
  return s.passed() && s.timing && s.timing->candidate_median_ms > 0 && s.timing->seed_median_ms > 0 &&
         s.timing->ratio > 0 && s.timing->ci_low > 0 && s.timing->ci_high > 0;
}

std::string gpu_name(const EvaluationRecord& r) {
  return r.environment && r.environment->name ? *r.environment->name : std::string("an unnamed GPU");
}

}  // namespace

Result<RecordComparison> compare_records(const EvaluationRecord& a, const EvaluationRecord& b) {
  if (a.plugin.id != b.plugin.id) {
    return make_error(
        fmt::format("the records are of different plugins ({} and {}): their scenarios are different "
                    "problems",
                    a.plugin.id, b.plugin.id));
  }
  RecordComparison out;
  out.plugin = a.plugin.id;
  const auto& list_a = a.scenario_list();
  const auto& list_b = b.scenario_list();
  double log_rr = 0, log_speedup = 0;
  for (const auto& sa : list_a) {
    const ScenarioOutcome* sb = find(list_b, sa.scenario);
    if (sb == nullptr) {
      out.only_in_a.push_back(sa.scenario);
      continue;
    }
    if (sa.name != sb->name) {
      return make_error(
          fmt::format("scenario {} is '{}' in the first record and '{}' in the second: the ids name "
                      "different problems (another set or plugin version); compare records of one set",
                      sa.scenario, sa.name, sb->name));
    }
    ScenarioComparison c;
    c.scenario = sa.scenario;
    c.name = sa.name;
    c.status_a = sa.status;
    c.status_b = sb->status;
    c.timed = timed(sa) && timed(*sb);
    if (c.timed) {
      const TimingOutcome& ta = *sa.timing;
      const TimingOutcome& tb = *sb->timing;
      c.candidate_ms_a = ta.candidate_median_ms;
      c.candidate_ms_b = tb.candidate_median_ms;
      c.speedup = ta.candidate_median_ms / tb.candidate_median_ms;
      c.seed_drift = tb.seed_median_ms / ta.seed_median_ms;
      c.ratio_of_ratios = tb.ratio / ta.ratio;
      c.low = tb.ci_low / ta.ci_high;
      c.high = tb.ci_high / ta.ci_low;
      ++out.timed;
      log_rr += std::log(c.ratio_of_ratios);
      log_speedup += std::log(c.speedup);
      if (c.low > 1) ++out.b_faster;
      if (c.high < 1) ++out.b_slower;
    }
    out.scenarios.push_back(c);
  }
  for (const auto& sb : list_b) {
    if (find(list_a, sb.scenario) == nullptr) out.only_in_b.push_back(sb.scenario);
  }
  if (out.scenarios.empty()) {
    return make_error(
        "the records share no scenario id: nothing to compare (evaluate both candidates on the same "
        "--set or --scenarios)");
  }
  if (out.timed > 0) {
    out.geomean_ratio_of_ratios = std::exp(log_rr / out.timed);
    out.geomean_speedup = std::exp(log_speedup / out.timed);
  }
  if (gpu_name(a) != gpu_name(b)) {
    out.notes.push_back(
        fmt::format("measured on different GPUs ({} and {}): the speedups mix the kernels' change "
                    "with the machines'",
                    gpu_name(a), gpu_name(b)));
  } else if (a.environment && b.environment && a.environment->uuid && b.environment->uuid &&
             *a.environment->uuid != *b.environment->uuid) {
    out.notes.push_back(
        "measured on two GPUs of one model: ratio_of_ratios, which divides out each run's seed, is "
        "the figure to read");
  }
  if (a.kseek_version != b.kseek_version) {
    out.notes.push_back(
        fmt::format("written by different kseek versions ({} and {})", a.kseek_version, b.kseek_version));
  }
  if (a.seed && b.seed && a.seed->sha256 != b.seed->sha256) {
    out.notes.push_back(
        "the two records' seeds differ: ratio_of_ratios then compares against different baselines; "
        "read speedup");
  }
  return out;
}

}  // namespace kseek
