// Reads a limit or completion claim out of a coding agent's last message, for the stop hook (docs/campaigns.md).
// It must never read a claim into a message that only reports progress, plans, asks or quotes; when unsure it answers none.
#include "kseek/core/campaign/claim_classifier.hpp"

#include <algorithm>
#include <cctype>

namespace kseek {

std::string_view claim_kind_name(ClaimKind kind) {
  switch (kind) {
    case ClaimKind::kDone: return "done";
    case ClaimKind::kLimit: return "limit";
    case ClaimKind::kNone: break;
  }
  return "none";
}

// Limit phrases win: "done because the kernel is at the bandwidth limit" is a claim about a limit.
ClaimReading read_claim(std::string_view message) {
  std::string m(message);
  std::transform(m.begin(), m.end(), m.begin(), [](unsigned char c) { return std::tolower(c); });
  static const char* limit_phrases[] = {"hardware limit", "bandwidth limit", "bandwidth-bound", "memory-bound", "memory bound",
                                        "compute-bound", "at the limit", "theoretical peak", "theoretical maximum",
                                        "cannot go faster", "can't go faster", "roofline", "physical limit",
                                        "no further improvement is possible", "fundamental limit"};
  static const char* done_phrases[] = {"task is complete", "work is complete", "i am done", "i'm done", "all done",
                                       "optimization is complete", "optimisation is complete", "finished the optimi",
                                       "goal is met", "goal has been met", "nothing left to", "completed the task"};
  for (const char* p : limit_phrases) {
    if (m.find(p) != std::string::npos) return {ClaimKind::kLimit, std::string(message)};
  }
  for (const char* p : done_phrases) {
    if (m.find(p) != std::string::npos) return {ClaimKind::kDone, std::string(message)};
  }
  return {};
}

}  // namespace kseek
