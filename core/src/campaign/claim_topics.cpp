// Topics of a claim's text by word cues (claim_topics.hpp).
#include "kseek/core/campaign/claim_topics.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "kseek/core/questions/question_pack.hpp"

namespace kseek {
namespace {

struct TopicCues {
  std::string_view topic;
  std::array<std::string_view, 12> cues;  // lower-case substrings; a cue that starts a word must follow a non-letter
};

// Substrings, matched at a word start. Short and specific: a cue that also reads as another topic's ("memory" is both
// bandwidth and shared memory) is left out rather than guessed, and so are words that name what a claim is about
// rather than its reason ("fp8", "e4m3": the data types of half the attention scenarios; "streaming", as in
// streaming multiprocessor).
constexpr TopicCues kCues[] = {
    {"bandwidth",
     {"bandwidth", "hbm", "dram", "memory-bound", "memory bound", "bytes", "tb/s", "gb/s", "copy speed", "l2 "}},
    {"compute",
     {"tensor core", "tensor-core", "tflop", "flop", "compute-bound", "compute bound", "wgmma", "hgmma", "mma ", "fma",
      "issue rate"}},
    {"latency", {"latency", "stall", "in flight", "pipeline depth", "dependency", "scoreboard"}},
    {"numerics",
     {"precision", "accura", "tolerance", "rounding", "accumulat", "numeric", "overflow", "underflow", "error",
      "exactness"}},
    {"occupancy", {"occupancy", "register", "shared memory", "smem", "spill", "ctas per sm", "warps per sm"}},
    {"launch", {"launch", "host ", "synchroni", "overhead", "prologue", "epilogue"}},
    {"balance", {"imbalance", "load balanc", "tail effect", "wave quantization", "uneven", "idle sms", "straggler"}},
};

bool starts_word(const std::string& text, std::size_t at) {
  return at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1]));
}

bool names(const std::string& text, std::string_view cue) {
  for (std::size_t at = text.find(cue); at != std::string::npos; at = text.find(cue, at + 1)) {
    if (starts_word(text, at)) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> claim_topics(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::vector<std::string> out;
  for (std::string_view topic : kQuestionTopics) {
    for (const auto& entry : kCues) {
      if (entry.topic != topic) continue;
      const bool found = std::any_of(entry.cues.begin(), entry.cues.end(),
                                     [&](std::string_view cue) { return !cue.empty() && names(lower, cue); });
      if (found) out.emplace_back(topic);
    }
  }
  return out;
}

}  // namespace kseek
