// What an attention plugin tells the shared code about its family: its legality rules, its scenario sets, the device
// its sizes are estimated for. It must never name a family: every difference between them is a virtual of this class.
#pragma once

#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "kseek/attention/scenario_config.hpp"

namespace kseek::attention {

// A full set's per-cell floor (SCENARIOS.md 5b: "prefill >= 0.3 TFLOP, decode >= 0.8 GB"; other GPUs scale it).
struct SizeFloor {
  double flops = 0;
  double bytes = 0;
};

// Why an interface and not an enum: the shared code used to ask "which family?" in about ten places, so every new
// family meant editing all of them. Here each question is one virtual; a family plugin answers all of them in its own
// folder (plugins/attention_<family>/src), and attention_common cannot tell the families apart.
class AttentionFamily {
 public:
  virtual ~AttentionFamily() = default;

  // A short word for messages and the seed's recorded file name ("<name>_seed_<arch>.cu"); never parsed.
  virtual std::string_view name() const = 0;
  // The peaks that estimated_time_us() and set sizing use (SCENARIOS.md's numbers for the family's reference GPU).
  virtual DevicePeaks reference_device() const = 0;
  // The full sets' floor: a cell meets it when either its FLOPs or its bytes reach it (SCENARIOS.md 5b / 5d).
  virtual SizeFloor size_floor() const = 0;
  // Whether the backend computes scheduler metadata ahead of the timed call; decode-like cells ask for it (aot=1)
  // only where it does.
  virtual bool has_ahead_of_time_metadata() const = 0;

  // Rules every family shares (validate(config)), then this family's own; an error says which family refused.
  Result<void> validate(const AttentionConfig& config) const;
  // kCaseStudySet or kFullSet; any other name is an error that lists the known ones. Each set is built on its first
  // ask and kept: a set is a pure function of the family, and sizing every cell of a full set by bisection costs tens
  // of milliseconds that every plugin load, info() call and worker used to pay again (issue 20). Safe to call from
  // several threads; a set that failed to build keeps its error.
  Result<std::vector<NamedScenario>> scenario_set(std::string_view set_name) const;

 protected:
  // The family's legality rules beyond the shared ones; called only on configs validate(config) accepted.
  virtual Result<void> check_family_rules(const AttentionConfig& config) const = 0;
  // Every member validates for this family; ids and names are unique within a set; order is stable.
  virtual Result<std::vector<NamedScenario>> case_study_set() const = 0;
  virtual Result<std::vector<NamedScenario>> full_set() const = 0;

 private:
  struct KeptSet {
    std::once_flag built;
    std::optional<Result<std::vector<NamedScenario>>> result;
  };
  mutable KeptSet case_study_;
  mutable KeptSet full_;
};

}  // namespace kseek::attention
