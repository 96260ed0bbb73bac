// Style rules for question packs that the schema cannot express (one question, no recipe, no duplicates...).
// It must never rewrite a pack: it only reports findings, each naming the file, line, item and rule.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kseek/core/questions/question_pack.hpp"

namespace kseek {

enum class LintSeverity { kError, kWarning };

struct LintFinding {
  std::string file;
  std::size_t line = 0;
  std::string item_id;  // empty for pack-level findings
  std::string rule;     // stable name, e.g. "question.one-question-mark"
  std::string message;
  LintSeverity severity = LintSeverity::kError;
};

std::string_view to_string(LintSeverity severity);

inline constexpr std::size_t kMaxQuestionCharacters = 200;

// Rules (all errors unless noted):
//   pack.version-format       pack.version is MAJOR.MINOR.PATCH (digits only)
//   pack.architecture         pack.architecture, when set, is sm_NN or sm_NNa (is_pack_architecture)
//   item.id-prefix            every item id starts with "<pack id>."
//   item.duplicate-id         no two items share an id
//   item.duplicate-text       no two items share a text (lowercased, whitespace collapsed)
//   question.one-question-mark text ends with '?' and contains exactly one '?' (one question, not two)
//   question.too-long         text is at most kMaxQuestionCharacters characters (UTF-8 code points)
//   question.contains-recipe  text must not carry its answer: see kRecipePhrases in question_lint.cpp
//   item.no-trigger           (warning) an item with no trigger is never asked
std::vector<LintFinding> lint_question_pack(const QuestionPack& pack, std::string_view text,
                                            std::string_view file_name);

bool has_lint_errors(const std::vector<LintFinding>& findings);

}  // namespace kseek
