// Reads the top level of an ECMAScript pattern for a run of plain characters that every match must contain.
// It must never guess: a construct it does not follow ends the run or gives up on the whole pattern.
#include "kseek/core/check/required_literal.hpp"

#include <cctype>
#include <optional>

namespace kseek {
namespace {

constexpr std::string_view kSpecial = "^$\\.*+?()[]{}|";

bool is_special(char c) { return kSpecial.find(c) != std::string_view::npos; }

// The index just past the character class that opens at `open`, or nothing where its end is not certain: a class
// starting with ']' (literal in POSIX grammars, empty in ECMAScript) or holding '[' (POSIX [:name:] classes).
std::optional<std::size_t> past_class(std::string_view p, std::size_t open) {
  std::size_t i = open + 1;
  if (i < p.size() && p[i] == '^') ++i;
  if (i < p.size() && p[i] == ']') return std::nullopt;
  for (; i < p.size(); ++i) {
    if (p[i] == '\\') {
      ++i;
    } else if (p[i] == '[') {
      return std::nullopt;
    } else if (p[i] == ']') {
      return i + 1;
    }
  }
  return std::nullopt;
}

// The index just past the group that opens at `open` (classes and escapes inside it skipped), or nothing.
std::optional<std::size_t> past_group(std::string_view p, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < p.size();) {
    if (p[i] == '\\') {
      i += 2;
    } else if (p[i] == '[') {
      auto end = past_class(p, i);
      if (!end) return std::nullopt;
      i = *end;
    } else {
      if (p[i] == '(') ++depth;
      if (p[i] == ')' && --depth == 0) return i + 1;
      ++i;
    }
  }
  return std::nullopt;
}

// Escapes of a letter that match one character of a class or nothing (an assertion): they end a run. Any other
// escape of a letter or digit (\x41, \u0041, \cA, \0, back-references) is one this reader does not follow.
bool is_class_or_assertion_escape(char c) { return std::string_view("dDwWsSbB").find(c) != std::string_view::npos; }

}  // namespace

std::string required_literal(std::string_view p) {
  std::string best;
  std::string run;
  const auto end_run = [&] {
    if (run.size() > best.size()) best = run;
    run.clear();
  };
  for (std::size_t i = 0; i < p.size();) {
    const char c = p[i];
    std::optional<char> literal;
    std::size_t next = i + 1;
    if (c == '\\') {
      if (i + 1 >= p.size()) return {};
      const char e = p[i + 1];
      next = i + 2;
      if (std::isalnum(static_cast<unsigned char>(e))) {
        if (!is_class_or_assertion_escape(e)) return {};
      } else {
        literal = e;  // an escaped punctuation character stands for itself
      }
    } else if (c == '|') {
      return {};  // a top-level alternation: no single run is common to every branch without more analysis
    } else if (c == '(') {
      auto end = past_group(p, i);
      if (!end) return {};
      next = *end;
    } else if (c == '[') {
      auto end = past_class(p, i);
      if (!end) return {};
      next = *end;
    } else if (c == '{') {
      const auto close = p.find('}', i);
      if (close == std::string_view::npos) return {};
      next = close + 1;
    } else if (!is_special(c)) {
      literal = c;
    }
    // Everything else ('.', anchors, quantifiers, a stray ')' or ']') matches no fixed character here.

    if (literal && next < p.size() && (p[next] == '*' || p[next] == '?' || p[next] == '{')) {
      // The character may be absent or repeated a counted number of times: it ends the run without joining it.
      literal.reset();
    }
    if (literal) {
      run += *literal;
      // `x+`: one x is certain, but what follows it in the pattern need not follow it in the text.
      if (next < p.size() && p[next] == '+') end_run();
    } else {
      end_run();
    }
    i = next;
  }
  end_run();
  return best;
}

}  // namespace kseek
