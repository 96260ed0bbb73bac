// Two evaluation records of one plugin compared scenario by scenario: is candidate B faster than candidate A? The
// A/B an agent runs between two drafts (each `kseek eval FILE --out ...`, ideally in one session on one GPU).
// It must never present a comparison across plugins, nor across scenarios whose names differ, as a speedup.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kseek/core/eval/evaluation_record.hpp"
#include "kseek/sdk/result.hpp"

namespace kseek {

// What a timed scenario's interval of ratio_of_ratios says. Across two GPUs an interval clear of 1 can still be the
// machines' doing (see kDefaultMachineAllowance), so it is a verdict only when it also clears the allowance's band.
enum class RowVerdict {
  kUnclear,              // the interval contains 1 (or the scenario was not timed by both)
  kBFaster,              // the interval lies above 1, and above 1 + allowance across two GPUs
  kBSlower,              // ... below 1, and below 1 / (1 + allowance) across two GPUs
  kWithinMachineSpread,  // clear of 1 but inside [1 / (1 + a), 1 + a]: two GPUs can differ that much on their own
};

// Stable names for programs (`unclear`, `b_faster`, `b_slower`, `within_machine_spread`).
const char* to_string(RowVerdict verdict);

// The between-machine allowance when the records come from two GPUs. Each record's interval holds only its own run's
// noise; another GPU of the same model moves the candidate's kernels and the seed's by different amounts, which the
// ratio of ratios does not divide out. Measured on H200s (fa3-h200 campaign): evaluations 19 and 20, byte-identical
// kernels on two GPUs, had 3 of 26 rows clear of 1 (H01 1.0075 [1.0009, 1.0128], H07 1.0066, H08 1.0061); between
// evaluations 16 and 17, which changed only fp8 code, unchanged 16-bit rows moved by up to 2.7 % (H10 0.973).
constexpr double kDefaultMachineAllowance = 0.03;

struct CompareOptions {
  // Applied only when the records come from two GPUs (different uuids, or different models); 0 labels on the runs'
  // own intervals alone. Must be in [0, 1).
  double machine_allowance = kDefaultMachineAllowance;
};

// One scenario both records timed. Each record measured its candidate against the plugin's seed in the same rounds,
// so the ratio of the two records' ratios cancels what moved between the runs (clocks, another process on the GPU)
// as far as it moved the seed too; `seed_drift` says how far that was.
struct ScenarioComparison {
  std::string scenario;  // the id
  std::string name;
  Status status_a = Status::kNotRunnable;
  Status status_b = Status::kNotRunnable;
  bool timed = false;         // both PASSED with a timing
  double candidate_ms_a = 0;  // medians
  double candidate_ms_b = 0;
  double speedup = 1;          // candidate_ms_a / candidate_ms_b: > 1 means B is faster (raw times)
  double seed_drift = 1;       // seed_ms_b / seed_ms_a: the same kernel's time in run B against run A
  double ratio_of_ratios = 1;  // ratio_b / ratio_a: > 1 means B is faster, with the seed's drift taken out
  double low = 1;              // a conservative 95% interval of ratio_of_ratios: ci_low_b / ci_high_a
  double high = 1;             // ... ci_high_b / ci_low_a
  RowVerdict verdict = RowVerdict::kUnclear;
};

struct RecordComparison {
  std::string plugin;
  std::vector<ScenarioComparison> scenarios;  // in record A's order
  std::vector<std::string> only_in_a;         // scenario ids one record has and the other lacks
  std::vector<std::string> only_in_b;
  int timed = 0;                       // scenarios both records timed
  double geomean_ratio_of_ratios = 1;  // over the timed scenarios
  double geomean_speedup = 1;
  int b_faster = 0;                // timed scenarios whose verdict is kBFaster
  int b_slower = 0;                // ... kBSlower
  std::vector<std::string> notes;  // what makes the comparison weaker: other GPU, other kseek, other set; the rule used
  bool across_machines = false;    // the records name two GPUs (different uuids or models)
  double machine_allowance = 0;    // the allowance applied: options' value across machines, else 0
  int within_machine_spread = 0;   // timed scenarios clear of 1 but inside the allowance's band
};

// Fails when the records belong to different plugins, or share no scenario; a scenario id whose name differs
// between the two is an error too (the ids then name different problems), and so is an allowance outside [0, 1).
Result<RecordComparison> compare_records(const EvaluationRecord& a, const EvaluationRecord& b,
                                         const CompareOptions& options = {});

}  // namespace kseek
