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

const std::optional<std::string>& gpu_uuid(const EvaluationRecord& r) {
  static const std::optional<std::string> kNone;
  return r.environment ? r.environment->uuid : kNone;
}

// Which GPUs the two runs had, as far as the records say: it decides whether the machine allowance applies.
enum class MachinePair { kOneGpu, kUnknown, kTwoGpusOneModel, kTwoModels };

MachinePair machine_pair(const EvaluationRecord& a, const EvaluationRecord& b) {
  const bool both_named = a.environment && a.environment->name && b.environment && b.environment->name;
  if (both_named && *a.environment->name != *b.environment->name) return MachinePair::kTwoModels;
  if (!gpu_uuid(a) || !gpu_uuid(b)) return MachinePair::kUnknown;
  return *gpu_uuid(a) == *gpu_uuid(b) ? MachinePair::kOneGpu : MachinePair::kTwoGpusOneModel;
}

// `allowance` is 0 on one GPU, where the band [1, 1] leaves the runs' own intervals to decide alone.
RowVerdict verdict_of(double low, double high, double allowance) {
  if (low > 1 + allowance) return RowVerdict::kBFaster;
  if (high < 1 / (1 + allowance)) return RowVerdict::kBSlower;
  if (low > 1 || high < 1) return RowVerdict::kWithinMachineSpread;
  return RowVerdict::kUnclear;
}

std::string allowance_rule(double allowance) {
  if (allowance == 0) {
    return "--machine-allowance 0: rows are labelled on the runs' own 95% intervals, which hold neither GPU's "
           "difference from the other";
  }
  return fmt::format(
      "rows are labelled faster or slower only when their interval clears [{:.4f}, {:.4f}] (--machine-allowance "
      "{}); rows clear of 1 but inside it are within the two GPUs' spread",
      1 / (1 + allowance), 1 + allowance, allowance);
}

}  // namespace

const char* to_string(RowVerdict verdict) {
  switch (verdict) {
    case RowVerdict::kBFaster: return "b_faster";
    case RowVerdict::kBSlower: return "b_slower";
    case RowVerdict::kWithinMachineSpread: return "within_machine_spread";
    case RowVerdict::kUnclear: break;
  }
  return "unclear";
}

Result<RecordComparison> compare_records(const EvaluationRecord& a, const EvaluationRecord& b,
                                         const CompareOptions& options) {
  if (!(options.machine_allowance >= 0 && options.machine_allowance < 1)) {
    return make_error(fmt::format(
        "--machine-allowance must be at least 0 and below 1 (got {}): it is the fraction by which two GPUs may "
        "move a row on their own, {} by default, 0 to label on the runs' own intervals",
        options.machine_allowance, kDefaultMachineAllowance));
  }
  if (a.plugin.id != b.plugin.id) {
    return make_error(
        fmt::format("the records are of different plugins ({} and {}): their scenarios are different "
                    "problems",
                    a.plugin.id, b.plugin.id));
  }
  RecordComparison out;
  out.plugin = a.plugin.id;
  const MachinePair machines = machine_pair(a, b);
  out.across_machines = machines == MachinePair::kTwoGpusOneModel || machines == MachinePair::kTwoModels;
  out.machine_allowance = out.across_machines ? options.machine_allowance : 0;
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
      c.verdict = verdict_of(c.low, c.high, out.machine_allowance);
      if (c.verdict == RowVerdict::kBFaster) ++out.b_faster;
      if (c.verdict == RowVerdict::kBSlower) ++out.b_slower;
      if (c.verdict == RowVerdict::kWithinMachineSpread) ++out.within_machine_spread;
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
  // One note says which GPUs and which labelling rule; the first sentence of each is what it said before the rule.
  if (machines == MachinePair::kTwoModels || gpu_name(a) != gpu_name(b)) {
    out.notes.push_back(fmt::format(
        "measured on different GPUs ({} and {}): the speedups mix the kernels' change with the machines'; {}",
        gpu_name(a), gpu_name(b),
        out.across_machines ? allowance_rule(out.machine_allowance)
                            : "one record does not name its GPU, so no machine allowance: rows are labelled on "
                              "the runs' own 95% intervals"));
  } else if (machines == MachinePair::kTwoGpusOneModel) {
    out.notes.push_back(fmt::format(
        "measured on two GPUs of one model ({} and {}): ratio_of_ratios, which divides out each run's seed, is the "
        "figure to read; {}",
        *gpu_uuid(a), *gpu_uuid(b), allowance_rule(out.machine_allowance)));
  } else if (machines == MachinePair::kOneGpu) {
    out.notes.push_back(
        fmt::format("measured on one GPU ({}): rows are labelled on the runs' own 95% intervals, no machine allowance",
                    *gpu_uuid(a)));
  } else {
    out.notes.push_back(
        "the records do not both give their GPU's uuid: rows are labelled on the runs' own 95% intervals, no machine "
        "allowance (if the runs had two GPUs, read rows near 1 with care)");
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
