// Question packs (format `kseek.questions/1`): the value types and the strict parser that reads them.
// It must never accept an unknown field, a missing required field or a value outside the documented sets.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kseek/core/util/text_position.hpp"
#include "kseek/sdk/result.hpp"

namespace kseek {

inline constexpr std::string_view kQuestionPackFormat = "kseek.questions/1";

// The documented value sets; a pack using anything else is rejected by the parser.
inline constexpr std::string_view kQuestionTriggers[] = {
    "start", "stagnation", "limit-claim", "completion-claim", "suspicious-win", "correctness-regression"};
inline constexpr std::string_view kQuestionIntents[] = {"measure", "change-layer", "challenge-limit",
                                                        "scope",   "verify-win",   "correctness"};
inline constexpr std::string_view kQuestionProvenances[] = {"trace", "unverified"};
// What a question is about, for matching it to a claim's words (claim_topics.hpp); an item without topics fits any.
inline constexpr std::string_view kQuestionTopics[] = {"bandwidth", "compute", "latency", "numerics",
                                                       "occupancy", "launch",  "balance"};

// One item. Required: id, text, triggers, intent, requires_other_implementation, provenance. Optional: notes,
// answered_by_record, topics.
struct Question {
  std::string id;
  std::string text;
  std::vector<std::string> triggers;
  std::string intent;
  bool requires_other_implementation = false;
  // kseek's evaluation answers it for every candidate by construction (e.g. one build is both checked and timed):
  // asked only when no other question fits the event, since its answer teaches the agent nothing.
  bool answered_by_record = false;
  // What it challenges (kQuestionTopics): a limit or completion claim that names one of them gets such a question
  // first. Empty: a question for any claim.
  std::vector<std::string> topics;
  std::string provenance;
  std::string notes;
  std::size_t line = 0;  // line of the item's "id" in the source text (the pack's line when not found)
};

// Required: format, pack.{id, version, description, license}, items. Optional: pack.architecture (null or "sm_90").
struct QuestionPack {
  std::string id;
  std::string version;
  std::string description;
  std::optional<std::string> architecture;
  std::string license;
  std::vector<Question> items;
  std::size_t line = 1;  // line of the "pack" key
};

// Errors read `file:line:column: problem`; JSON syntax errors point at the offending byte, schema errors
// at the offending item's "id" (or the pack's line when the item has none).
Result<QuestionPack> parse_question_pack(std::string_view text, std::string_view file_name);

// True for what a pack's architecture may be: `sm_` then two or three digits, then at most one letter (sm_90,
// sm_90a, sm_100a). Anything else ("hopper") would match no campaign's arch, and the pack would never be asked.
bool is_pack_architecture(std::string_view architecture);

// Byte offset of the `occurrence`-th (0-based) `"id": "<item_id>"` in `text`, if any.
std::optional<std::size_t> find_item_id_offset(std::string_view text, std::string_view item_id,
                                               std::size_t occurrence = 0);

}  // namespace kseek
