// Where one scenario's worker time goes, by stage: every interval of the worker's life is charged to exactly one
// stage (the innermost one open), so the stages of a scenario add up to its total. GPU work is charged to the stage
// that waits for it; a stage that only enqueues must synchronise before it closes, or its kernels are charged to
// whichever stage waits next.
// It must never change what the worker does: it reads a clock and nothing else.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <functional>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace kseek {

enum class WorkerStage : std::size_t {
  kSetup,           // modules, plans, allocations
  kInputs,          // filling input sets and fingerprinting them
  kReferences,      // the plugin's references (gold and same precision) computed
  kReferenceCache,  // references read from the reference cache or written to it: what it costs, beside what it saves
  kCandidate,       // untimed candidate runs: correctness, and re-runs of timed launches
  kSeed,            // untimed seed runs: its own sanity and the distance checks
  kChecks,          // guards, fingerprints of outputs, comparisons, copies of outputs
  kTimed,           // cache flushes and the timed windows themselves
  kOther,           // everything no stage claims
  kCount,
};

std::string_view to_string(WorkerStage stage);

class StageClock {
 public:
  using Now = std::function<double()>;  // seconds on a monotonic clock
  explicit StageClock(Now now = {});

  // Charges time to `stage` from construction until destruction, then to the stage that was open before.
  class Scope {
   public:
    Scope(StageClock& clock, WorkerStage stage);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    StageClock& clock_;
    WorkerStage previous_;
  };

  double seconds(WorkerStage stage) const;
  double total() const;
  // {"setup": s, "inputs": s, ...}: every stage, zeros included, so records have one shape.
  nlohmann::json to_json() const;

 private:
  void switch_to(WorkerStage stage);
  Now now_;
  double last_ = 0;
  WorkerStage current_ = WorkerStage::kOther;
  std::array<double, static_cast<std::size_t>(WorkerStage::kCount)> seconds_{};
};

}  // namespace kseek
