// Exclusive stage accounting for the worker (see the header).
#include "kseek/core/worker/stage_clock.hpp"

#include <nlohmann/json.hpp>

namespace kseek {

std::string_view to_string(WorkerStage stage) {
  switch (stage) {
    case WorkerStage::kSetup: return "setup";
    case WorkerStage::kInputs: return "inputs";
    case WorkerStage::kReferences: return "references";
    case WorkerStage::kReferenceCache: return "reference_cache";
    case WorkerStage::kCandidate: return "candidate";
    case WorkerStage::kSeed: return "seed";
    case WorkerStage::kChecks: return "checks";
    case WorkerStage::kTimed: return "timed";
    case WorkerStage::kOther:
    case WorkerStage::kCount: break;
  }
  return "other";
}

StageClock::StageClock(Now now) : now_(std::move(now)) {
  if (!now_) {
    now_ = [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
  }
  last_ = now_();
}

void StageClock::switch_to(WorkerStage stage) {
  const double t = now_();
  seconds_[static_cast<std::size_t>(current_)] += t - last_;
  last_ = t;
  current_ = stage;
}

StageClock::Scope::Scope(StageClock& clock, WorkerStage stage) : clock_(clock), previous_(clock.current_) {
  clock_.switch_to(stage);
}

StageClock::Scope::~Scope() { clock_.switch_to(previous_); }

double StageClock::seconds(WorkerStage stage) const { return seconds_[static_cast<std::size_t>(stage)]; }

double StageClock::total() const {
  double sum = 0;
  for (double s : seconds_) sum += s;
  return sum;
}

nlohmann::json StageClock::to_json() const {
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t i = 0; i < seconds_.size(); ++i)
    out[std::string(to_string(static_cast<WorkerStage>(i)))] = seconds_[i];
  return out;
}

}  // namespace kseek
