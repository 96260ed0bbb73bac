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
};

struct RecordComparison {
  std::string plugin;
  std::vector<ScenarioComparison> scenarios;  // in record A's order
  std::vector<std::string> only_in_a;         // scenario ids one record has and the other lacks
  std::vector<std::string> only_in_b;
  int timed = 0;                       // scenarios both records timed
  double geomean_ratio_of_ratios = 1;  // over the timed scenarios
  double geomean_speedup = 1;
  int b_faster = 0;                // timed scenarios whose interval lies above 1
  int b_slower = 0;                // ... below 1
  std::vector<std::string> notes;  // what makes the comparison weaker: other GPU, other kseek, other set
};

// Fails when the records belong to different plugins, or share no scenario; a scenario id whose name differs
// between the two is an error too (the ids then name different problems).
Result<RecordComparison> compare_records(const EvaluationRecord& a, const EvaluationRecord& b);

}  // namespace kseek
