// Lint rules for question packs: a question asks, it never answers, and each one is asked once.
// It must never report a finding without the file, the line and the rule that produced it.
#include "kseek/core/questions/question_lint.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>

namespace kseek {
namespace {

// Phrases that turn a question into a recipe ("Use TMA?" tells the agent what to do instead of asking what
// it would learn). Matched case-insensitively at word boundaries. Imperative verbs only count where a clause
// starts (start of text, or after , ; : ( or a dash), so "What would you use to measure it?" is fine while
// "Use TMA, is that faster?" is not. The other phrases count anywhere.
constexpr std::string_view kImperativeRecipeVerbs[] = {"use", "try", "set", "replace", "switch to", "add", "remove"};
constexpr std::string_view kRecipePhrases[] = {"you should", "you need to",  "you must",   "the fix",
                                               "the answer", "the solution", "instead of", "the trick"};

std::string normalised(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isspace(c)) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += static_cast<char>(std::tolower(c));
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool at_clause_start(const std::string& s, std::size_t at) {
  std::size_t i = at;
  while (i > 0 && s[i - 1] == ' ') --i;
  if (i == 0) return true;
  const char before = s[i - 1];
  return before == ',' || before == ';' || before == ':' || before == '(' || before == '-' || before == '.';
}

// The first recipe phrase in `text`, or empty.
std::string find_recipe(std::string_view text) {
  const std::string s = normalised(text);
  auto scan = [&](std::string_view phrase, bool clause_start_only) -> bool {
    for (std::size_t at = s.find(phrase); at != std::string::npos; at = s.find(phrase, at + 1)) {
      const std::size_t end = at + phrase.size();
      if (at > 0 && is_word_char(s[at - 1])) continue;
      if (end < s.size() && is_word_char(s[end])) continue;
      if (clause_start_only && !at_clause_start(s, at)) continue;
      return true;
    }
    return false;
  };
  for (auto phrase : kRecipePhrases) {
    if (scan(phrase, false)) return std::string(phrase);
  }
  for (auto verb : kImperativeRecipeVerbs) {
    if (scan(verb, true)) return std::string(verb);
  }
  return {};
}

std::size_t code_points(std::string_view s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

bool is_semver(std::string_view v) {
  int parts = 0;
  std::size_t digits = 0;
  for (char c : v) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      ++digits;
    } else if (c == '.' && digits > 0) {
      ++parts;
      digits = 0;
    } else {
      return false;
    }
  }
  return parts == 2 && digits > 0;
}

}  // namespace

std::string_view to_string(LintSeverity severity) { return severity == LintSeverity::kError ? "error" : "warning"; }

bool has_lint_errors(const std::vector<LintFinding>& findings) {
  return std::any_of(findings.begin(), findings.end(),
                     [](const LintFinding& f) { return f.severity == LintSeverity::kError; });
}

std::vector<LintFinding> lint_question_pack(const QuestionPack& pack, std::string_view text,
                                            std::string_view file_name) {
  std::vector<LintFinding> findings;
  auto add = [&](std::size_t line, std::string item_id, std::string rule, std::string message,
                 LintSeverity severity = LintSeverity::kError) {
    findings.push_back(
        {std::string(file_name), line, std::move(item_id), std::move(rule), std::move(message), severity});
  };
  std::size_t pack_line = pack.line;
  if (auto at = text.find("\"version\""); at != std::string_view::npos) pack_line = position_of_offset(text, at).line;
  if (!is_semver(pack.version)) {
    add(pack_line, "", "pack.version-format", fmt::format("version \"{}\" is not MAJOR.MINOR.PATCH", pack.version));
  }

  if (pack.architecture && !is_pack_architecture(*pack.architecture)) {
    std::size_t arch_line = pack.line;
    if (auto at = text.find("\"architecture\""); at != std::string_view::npos)
      arch_line = position_of_offset(text, at).line;
    add(arch_line, "", "pack.architecture",
        fmt::format("architecture \"{}\" is not sm_NN or sm_NNa (e.g. sm_90a): campaigns select packs by it, so this "
                    "pack would never be asked",
                    *pack.architecture));
  }

  std::map<std::string, std::size_t> id_lines, text_lines;  // first line seen
  const std::string prefix = pack.id + ".";
  for (const auto& q : pack.items) {
    const std::size_t line = q.line == 0 ? pack.line : q.line;
    if (q.id.rfind(prefix, 0) != 0 || q.id.size() == prefix.size()) {
      add(line, q.id, "item.id-prefix", fmt::format("id '{}' does not start with the pack id '{}'", q.id, prefix));
    }
    if (auto [it, fresh] = id_lines.emplace(q.id, line); !fresh) {
      add(line, q.id, "item.duplicate-id", fmt::format("id '{}' is already used on line {}", q.id, it->second));
    }
    if (auto [it, fresh] = text_lines.emplace(normalised(q.text), line); !fresh) {
      add(line, q.id, "item.duplicate-text", fmt::format("the same question is already asked on line {}", it->second));
    }
    const auto marks = std::count(q.text.begin(), q.text.end(), '?');
    std::string_view trimmed = q.text;
    while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back()))) trimmed.remove_suffix(1);
    if (marks != 1 || trimmed.empty() || trimmed.back() != '?') {
      add(line, q.id, "question.one-question-mark",
          fmt::format("text must be one question ending with '?' (found {} '?'{})", marks,
                      !trimmed.empty() && trimmed.back() == '?' ? "" : ", not at the end"));
    }
    if (const auto n = code_points(q.text); n > kMaxQuestionCharacters) {
      add(line, q.id, "question.too-long",
          fmt::format("text has {} characters, the limit is {}", n, kMaxQuestionCharacters));
    }
    if (const auto phrase = find_recipe(q.text); !phrase.empty()) {
      add(line, q.id, "question.contains-recipe",
          fmt::format("text contains the recipe phrase \"{}\": ask what to find out, not what to do", phrase));
    }
    if (q.triggers.empty()) {
      add(line, q.id, "item.no-trigger", "no trigger: this question is never asked", LintSeverity::kWarning);
    }
  }
  return findings;
}

}  // namespace kseek
