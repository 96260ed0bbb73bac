// Topics of a claim's text by word cues (claim_topics.hpp).
#include "kseek/core/campaign/claim_topics.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

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

// How often `cue` starts a word of `text`.
int occurrences(const std::string& text, std::string_view cue) {
  int n = 0;
  for (std::size_t at = text.find(cue); at != std::string::npos; at = text.find(cue, at + 1)) {
    if (starts_word(text, at)) ++n;
  }
  return n;
}

}  // namespace

std::vector<std::string> claim_topics(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::vector<std::pair<int, std::string>> named;  // (cue words, topic) in kQuestionTopics order
  for (std::string_view topic : kQuestionTopics) {
    for (const auto& entry : kCues) {
      if (entry.topic != topic) continue;
      int n = 0;
      for (std::string_view cue : entry.cues) n += cue.empty() ? 0 : occurrences(lower, cue);
      if (n > 0) named.emplace_back(n, std::string(topic));
    }
  }
  std::stable_sort(named.begin(), named.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> out;
  for (auto& [n, topic] : named) out.push_back(std::move(topic));
  return out;
}

}  // namespace kseek
