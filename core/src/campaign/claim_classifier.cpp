// Reads a limit or completion claim out of a coding agent's last message, for the stop hook (docs/campaigns.md).
// It must never read a claim into a message that only reports progress, plans, asks or quotes; when unsure it answers
// none.
#include "kseek/core/campaign/claim_classifier.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kseek {
namespace {

// How the message is read:
//  1. Text that is not the agent's own assertion goes: fenced code, `> ` block quotes, "quoted" and 'quoted' text,
//     code spans (a span naming a kseek command keeps its words: "`kseek gate` passes" is the agent speaking).
//  2. Sentences end at . ! ? ... and line ends; a sentence ending in ? is a question and asserts nothing.
//  3. Words are lower-cased, contractions opened ("can't" -> can not, "we're" -> we are), numbers become one token.
//     Clauses split at , ; : ( ) and dashes, and before and / but / so / because / which / while / although.
//  4. A cue is a short word pattern for one kind of claim ("at|hit|reached ... limit|roofline|ceiling").
//  5. A cue counts only when asserted: no negation earlier in its clause (scope: the clause), no marker of a
//     question, condition, plan, hypothesis or someone else's words earlier in its sentence (scope: the sentence),
//     not after an infinitive "to", and no "yet", "so far", "until", "unless", "except", "N of M" after it in the
//     clause. Cues that are themselves negative ("no headroom left", "cannot go any faster") start at their negation.
//  6. A message that asserts a kind of claim and also denies it somewhere ("the task is complete for decode ... the
//  goal
//     is not met") claims nothing of that kind. A limit asserted anywhere wins over done; otherwise done; else none.

constexpr std::string_view kNumber = "#";  // the token every number becomes

struct Token {
  std::string text;
  int clause = 0;  // index of the clause within its sentence
};

struct Sentence {
  std::string text;  // normalised, for the reading's report
  std::vector<Token> tokens;
  bool question = false;
};

bool is_word_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '\''; }
bool is_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// Lower-case ASCII; typographic quotes, dashes, ellipses and arrows to ASCII; every other byte above 0x7f to a space.
std::string normalise(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto c = static_cast<unsigned char>(in[i]);
    if (c < 0x80) {
      out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : (c == 0 ? ' ' : static_cast<char>(c));
      continue;
    }
    if (c == 0xe2 && i + 2 < in.size() && static_cast<unsigned char>(in[i + 1]) == 0x80) {
      const auto d = static_cast<unsigned char>(in[i + 2]);
      const char* replacement = nullptr;
      if (d == 0x98 || d == 0x99) replacement = "'";
      if (d == 0x9c || d == 0x9d) replacement = "\"";
      if (d == 0x93 || d == 0x94) replacement = " - ";
      if (d == 0xa6) replacement = "...";
      if (replacement) {
        out += replacement;
        i += 2;
        continue;
      }
    }
    if (c == 0xe2 && i + 2 < in.size() && static_cast<unsigned char>(in[i + 1]) == 0x86 &&
        static_cast<unsigned char>(in[i + 2]) == 0x92) {  // an arrow reads as "to"
      out += " to ";
      i += 2;
      continue;
    }
    out += ' ';
  }
  return out;
}

// One line of prose with quotes and code spans taken out (step 1). Quotes and spans end on the line or not at all.
std::string strip_quoted(std::string_view line) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    const bool opens_single =
        c == '\'' && (i == 0 || !is_alnum(line[i - 1])) && i + 1 < line.size() && is_alnum(line[i + 1]);
    if (c == '`' || c == '"' || opens_single) {
      std::size_t end = line.find(c, i + 1);
      while (opens_single && end != std::string_view::npos && end + 1 < line.size() && is_alnum(line[end + 1])) {
        end = line.find(c, end + 1);  // an apostrophe inside the quote ("it's") does not close it
      }
      if (end == std::string_view::npos) {
        out += ' ';  // an unmatched mark: what follows is not known to be the agent's own words either way
        out += " quoted ";
        break;
      }
      const std::string_view inside = line.substr(i + 1, end - i - 1);
      if (c == '`' && inside.substr(0, 6) == "kseek ") {
        out += ' ';
        out += inside;
        out += ' ';
      } else {
        out += c == '`' ? " code " : " quoted ";
      }
      i = end;
      continue;
    }
    out += c == '*' ? ' ' : c;  // markdown emphasis
  }
  return out;
}

// "can't" -> can not, "we're" -> we are, "that's" -> that is, "seed's" -> seed.
void push_word(std::string word, int clause, std::vector<Token>& tokens) {
  while (!word.empty() && word.back() == '\'') word.pop_back();
  while (!word.empty() && word.front() == '\'') word.erase(0, 1);
  if (word.empty()) return;
  const auto push = [&](std::string w) { tokens.push_back({std::move(w), clause}); };
  for (char c : word) {
    if (c >= '0' && c <= '9') return push(std::string(kNumber));
  }
  if (word == "cannot") return push("can"), push("not");
  const std::size_t apostrophe = word.find('\'');
  if (apostrophe == std::string::npos) return push(std::move(word));
  const std::string stem = word.substr(0, apostrophe);
  const std::string tail = word.substr(apostrophe + 1);
  if (word == "can't") return push("can"), push("not");
  if (word == "won't") return push("will"), push("not");
  if (tail == "t" && stem.size() > 1 && stem.back() == 'n') return push(stem.substr(0, stem.size() - 1)), push("not");
  static const std::array<std::pair<std::string_view, std::string_view>, 5> kSuffixes = {
      {{"re", "are"}, {"ve", "have"}, {"m", "am"}, {"ll", "will"}, {"d", "would"}}};
  for (const auto& [suffix, full] : kSuffixes) {
    if (tail == suffix) return push(stem), push(std::string(full));
  }
  if (tail == "s") {
    static const std::array<std::string_view, 11> kIsPronouns = {"it",  "that", "there",      "what",    "here", "this",
                                                                 "who", "he",   "everything", "nothing", "she"};
    push(stem);
    for (std::string_view p : kIsPronouns) {
      if (stem == p) return push("is");
    }
    return;  // a possessive
  }
  push(stem + tail);
}

bool is_clause_word(std::string_view w) {
  static const std::array<std::string_view, 10> kWords = {"and",   "but",     "so",       "because", "which",
                                                          "while", "whereas", "although", "though",  "then"};
  for (std::string_view k : kWords) {
    if (w == k) return true;
  }
  return false;
}

// Step 3 for one sentence.
Sentence tokenise(std::string text, bool question) {
  Sentence s;
  s.question = question;
  int clause = 0;
  std::string word;
  const auto flush = [&](std::size_t next) {
    if (word.empty()) return;
    const bool so_far = word == "so" && text.compare(text.find_first_not_of(' ', next) == std::string::npos
                                                         ? text.size()
                                                         : text.find_first_not_of(' ', next),
                                                     3, "far") == 0;
    if (is_clause_word(word) && !so_far) {
      if (!s.tokens.empty() && s.tokens.back().clause == clause) ++clause;
    } else {
      push_word(word, clause, s.tokens);
    }
    word.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool decimal_point =
        c == '.' && !word.empty() && i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '9';
    if (is_word_char(c) || decimal_point) {
      word += c;
      continue;
    }
    flush(i);
    const bool spaced_dash = c == '-' && ((i > 0 && text[i - 1] == ' ') || (i + 1 < text.size() && text[i + 1] == ' '));
    if (c == ',' || c == ';' || c == ':' || c == '(' || c == ')' || c == '[' || c == ']' || c == '|' || spaced_dash) {
      if (!s.tokens.empty() && s.tokens.back().clause == clause) ++clause;
    }
  }
  flush(text.size());
  while (!text.empty() && text.back() == ' ') text.pop_back();
  s.text = std::move(text);
  return s;
}

// Steps 1 to 3 for the whole message.
std::vector<Sentence> sentences_of(std::string_view message) {
  const std::string text = normalise(message);
  std::vector<Sentence> out;
  bool in_fence = false;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + begin, end - begin);
    begin = end + 1;
    std::size_t lead = line.find_first_not_of(" \t\r");
    if (lead == std::string_view::npos) continue;
    line.remove_prefix(lead);
    if (line.substr(0, 3) == "```" || line.substr(0, 3) == "~~~") {
      in_fence = !in_fence;
      continue;
    }
    if (in_fence || line.front() == '>') continue;
    const std::string prose = strip_quoted(line);
    std::string current;
    for (std::size_t i = 0; i < prose.size(); ++i) {
      const char c = prose[i];
      current += c;
      const bool terminator = c == '.' || c == '!' || c == '?';
      const bool at_boundary = i + 1 == prose.size() || prose[i + 1] == ' ' || prose[i + 1] == '\t' ||
                               prose[i + 1] == ')' || prose[i + 1] == '*' || prose[i + 1] == '.';
      if (terminator && at_boundary && !(c == '.' && i + 1 < prose.size() && prose[i + 1] == '.')) {
        out.push_back(tokenise(std::move(current), c == '?'));
        current.clear();
      }
    }
    out.push_back(tokenise(std::move(current), false));
  }
  return out;
}

// A cue pattern: words separated by spaces; "a|b|c" alternatives, "opti*" a prefix, "~N" up to N other words (never
// a negation or a number: "at 88% of peak" is a measurement, "goal not met" no claim), "$" the end of the clause.
struct Element {
  std::vector<std::string> words;
  int gap = -1;  // >= 0: this element is a gap of at most `gap` words
  bool clause_end = false;
};

std::vector<Element> parse_pattern(std::string_view pattern) {
  std::vector<Element> out;
  std::size_t i = 0;
  while (i < pattern.size()) {
    std::size_t end = pattern.find(' ', i);
    if (end == std::string_view::npos) end = pattern.size();
    const std::string_view item = pattern.substr(i, end - i);
    i = end + 1;
    if (item.empty()) continue;
    Element e;
    if (item.front() == '~') {
      e.gap = item.size() > 1 ? item[1] - '0' : 1;
    } else if (item == "$") {
      e.clause_end = true;
    } else {
      std::size_t a = 0;
      while (a <= item.size()) {
        std::size_t b = item.find('|', a);
        if (b == std::string_view::npos) b = item.size();
        e.words.emplace_back(item.substr(a, b - a));
        a = b + 1;
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

bool word_matches(const std::vector<std::string>& alternatives, std::string_view token) {
  for (const std::string& a : alternatives) {
    if (!a.empty() && a.back() == '*') {
      if (token.substr(0, a.size() - 1) == std::string_view(a).substr(0, a.size() - 1)) return true;
    } else if (token == a) {
      return true;
    }
  }
  return false;
}

bool in(std::string_view token, std::span<const std::string_view> set) {
  for (std::string_view s : set) {
    if (s.back() == '*' ? token.substr(0, s.size() - 1) == s.substr(0, s.size() - 1) : token == s) return true;
  }
  return false;
}

constexpr std::string_view kNegations[] = {"not",     "no",     "never",  "neither", "nor",
                                           "nothing", "nobody", "hardly", "far",     "nowhere"};

// Words that, earlier in the sentence, make what follows something other than the agent asserting it now.
constexpr std::string_view kNotAsserted[] = {
    // conditions and open questions
    "if", "unless", "once", "until", "when", "whenever", "whether", "assuming", "suppose", "supposing", "before",
    "provided",
    // plans and intentions
    "will", "going", "plan", "plans", "planning", "next", "want", "wants", "try", "trying", "let", "todo", "need",
    "needs", "should", "shall", "intend", "aim", "hope", "gonna",
    // hypotheses and hedges
    "hypothesis", "hypothesize", "hypothesise", "hypothesized", "hypothesised", "suspect", "maybe", "perhaps",
    "possibly", "possible", "might", "may", "could", "would", "probably", "likely", "unlikely", "seems", "seem",
    "seemed", "appears", "appear", "guess", "wonder", "expect", "assume", "premature", "early", "unclear", "unsure",
    "uncertain", "test", "testing", "check", "checking", "verify", "measure", "measuring", "confirm", "see", "whether",
    // someone else's words, or the agent's earlier ones
    "said", "says", "say", "claimed", "claim", "claims", "claiming", "asked", "asks", "ask", "question", "according"};
constexpr std::string_view kNotAssertedMore[] = {"told",     "quoted",    "wrote",     "message",
                                                 "earlier",  "previous",  "predicted", "predicts",
                                                 "suggests", "suggested", "thought",   "reports"};
// After a cue in its clause: the claim is partial or still to come.
constexpr std::string_view kNotYet[] = {"yet", "until", "unless", "except", "if", "once", "whether"};

struct Cue {
  ClaimKind kind;
  std::string_view pattern;
  bool future_form = false;       // "I'll stop here" announces the stop itself: "will" before it is no plan
  bool needs_speed_word = false;  // "X is not possible" is a limit only about speed, gains or the goal
  bool general_only = false;      // "no further gains" is a limit; "no further gains from the swizzle" a result
};

// Step 4. Written from how agents phrase claims, not from the corpus lines.
constexpr Cue kCues[] = {
    // limits reached
    {ClaimKind::kLimit,
     "at|hit|hits|hitting|reached|reach|reaches|reaching|against|touching ~4 "
     "limit|limits|roofline|ceiling|wall|maximum|peak|floor"},
    {ClaimKind::kLimit, "as fast|good|quick as ~4 get|gets|go|goes"},
    {ClaimKind::kLimit, "can|could|will not ~3 faster|quicker"},
    {ClaimKind::kLimit,
     "no|not|nothing ~3 more|further|remaining|meaningful|additional|significant ~2 "
     "room|headroom|gain|gains|speedup|speedups|improvement|improvements|performance|speed",
     false, false, true},
    {ClaimKind::kLimit, "no|not ~2 headroom", false, false, true},
    {ClaimKind::kLimit, "no|not ~2 room ~2 left|remaining"},
    {ClaimKind::kLimit, "no|not ~2 room for|to improvement|improve"},
    {ClaimKind::kLimit, "nothing ~2 more|left|further ~1 to squeeze|extract|gain|find|shave|win"},
    {ClaimKind::kLimit, "not|never ~1 possible|achievable|reachable|attainable|feasible", false, true},
    {ClaimKind::kLimit, "no longer ~1 possible|achievable|reachable|attainable|feasible", false, true},
    {ClaimKind::kLimit, "impossible|unreachable|unattainable|unachievable", false, true},
    {ClaimKind::kLimit, "is|are|be|being ~2 optimal|optimum"},
    {ClaimKind::kLimit, "at ~2 optimum|best"},
    {ClaimKind::kLimit, "is|are the best|fastest ~3 can|could|will|possible|achievable"},
    {ClaimKind::kLimit, "is|are the max|maximum|most|limit|ceiling|roofline ~1 achievable|possible|attainable|$"},
    {ClaimKind::kLimit, "saturat* ~3 bandwidth|memory|bus|dram|hbm|tensor|pipe|pipes|sm|sms|mma|compute|alu|mufu|l2"},
    {ClaimKind::kLimit,
     "no ~3 change|changes|tuning|optimization|optimisation|tweak|tweaks|trick|tricks ~3 can|will|could|would"},
    {ClaimKind::kLimit, "hardware|gpu|physics|silicon ~1 is|are the ~1 bottleneck|limit|limiting"},
    {ClaimKind::kLimit,
     "further|more|additional ~2 tuning|optimization|optimisation|changes|work|tweaking ~1 is|are|will not ~2 "
     "move|help|improve|matter|pay"},
    // done
    {ClaimKind::kDone,
     "task|work|job|optimization|optimisation|campaign|implementation|kernel|everything ~2 is|are|has|have ~2 "
     "complete|completed|finished|done|over"},
    {ClaimKind::kDone,
     "task|work|job|optimization|optimisation|campaign|implementation complete|completed|finished|done $"},
    {ClaimKind::kDone, "i|we am|are|have ~1 done|finished|complete|completed $"},
    {ClaimKind::kDone, "i|we am|are|have ~1 done|finished here|now"},
    {ClaimKind::kDone,
     "i|we am|are|have ~1 done|finished with|on ~2 "
     "task|tasks|campaign|work|kernel|optimization|optimisation|everything"},
    {ClaimKind::kDone,
     "completed|finished|done|concluded|wrapped ~1 the|this|my|our ~2 "
     "task|work|job|campaign|optimization|optimisation|optimizing|optimising"},
    {ClaimKind::kDone, "completed|finished|concluded optimizing|optimising"},
    {ClaimKind::kDone, "complete|completes ~2 the|this ~2 task|work|job|campaign|optimization|optimisation"},
    {ClaimKind::kDone, "goal|goals|target|targets ~3 met|reached|achieved|satisfied|attained|hit|holds"},
    {ClaimKind::kDone,
     "meet|meets|met|satisfy|satisfies|satisfied|reached|reach|reaches|achieved|achieves|hit|hits ~3 "
     "goal|goals|target"},
    {ClaimKind::kDone, "gate ~3 passes|passed|pass|green|met|holds|succeeds|exits"},
    {ClaimKind::kDone, "stop|stopping|calling|call here|now|it", true},
    {ClaimKind::kDone, "stop|stopping for now|today", true},
    {ClaimKind::kDone, "wrap|wraps|wrapping ~1 up|it", true},
    {ClaimKind::kDone, "end|ending|ends|conclude|concluding|close|closing the|this|my ~1 session|campaign|work|task",
     true},
    {ClaimKind::kDone, "i|we am|are|will stop|stopping $", true},
    {ClaimKind::kDone, "i|we am|are|will stop|stopping at #", true},
    {ClaimKind::kDone, "done $"},
    {ClaimKind::kDone, "finished $"},
    {ClaimKind::kDone, "complete $"},
    {ClaimKind::kDone, "mission accomplished"},
    {ClaimKind::kDone, "nothing|no ~2 left|else|further|more ~1 to do"},
    {ClaimKind::kDone, "is everything ~1 for ~2 campaign|task|today|now|this"},
};

// Inside a limit cue these make it a resource limit ("at the register limit"), which says nothing about speed.
constexpr std::string_view kResourceWords[] = {"register", "registers", "occupancy", "smem",   "capacity", "size",
                                               "thread",   "threads",   "block",     "blocks", "grid",     "context",
                                               "token",    "tokens",    "budget",    "time",   "rate",     "quota"};
// Right after a general-only cue these tie it to one change or one comparison.
constexpr std::string_view kSpecificFollows[] = {"from", "over", "with", "since", "in", "on", "for", "after"};

constexpr std::string_view kSpeedWords[] = {"faster", "further",  "gain*", "speed*",   "optimi*", "improv*",
                                            "goal",   "target",   "gap",   "headroom", "#",       "quicker",
                                            "peak",   "roofline", "limit", "ceiling"};

bool cue_is_standalone(const Cue& cue) {
  return cue.pattern.back() == '$' && cue.pattern.find(' ') == cue.pattern.size() - 2;
}

// Matches `elements[e..]` against `clause[t..]`; on success `end` is one past the last matched token.
bool match_from(const std::vector<Element>& elements, std::size_t e, std::span<const Token> clause, std::size_t t,
                std::size_t& end, bool through_negation = false) {
  if (e == elements.size()) {
    end = t;
    return true;
  }
  const Element& element = elements[e];
  if (element.clause_end) return t == clause.size() && match_from(elements, e + 1, clause, t, end, through_negation);
  if (element.gap >= 0) {
    for (int skip = 0; skip <= element.gap; ++skip) {
      if (match_from(elements, e + 1, clause, t + skip, end, through_negation)) return true;
      if (t + skip >= clause.size()) return false;
      const std::string_view w = clause[t + skip].text;
      if (w == kNumber || (in(w, kNegations) && !through_negation)) return false;
    }
    return false;
  }
  if (t >= clause.size() || !word_matches(element.words, clause[t].text)) return false;
  return match_from(elements, e + 1, clause, t + 1, end, through_negation);
}

// What step 5 needs of a sentence, gathered once so that reading stays linear in the message's length.
struct SentenceFacts {
  static constexpr std::size_t kNever = static_cast<std::size_t>(-1);
  std::size_t first_not_asserted = kNever;           // first word of kNotAsserted in the sentence
  std::size_t first_not_asserted_but_will = kNever;  // the same, "will" not counted
  std::vector<std::size_t> first_negation;           // per clause
  std::vector<std::size_t> last_not_yet;             // per clause, kNever when none
  std::vector<bool> speed_word;                      // per clause
  std::vector<std::size_t> last_part_of;             // per clause: the "of" of the last "N of M", kNever when none
};

SentenceFacts facts_of(const Sentence& s) {
  SentenceFacts f;
  const std::size_t clauses = s.tokens.empty() ? 0 : static_cast<std::size_t>(s.tokens.back().clause) + 1;
  f.first_negation.assign(clauses, SentenceFacts::kNever);
  f.last_not_yet.assign(clauses, SentenceFacts::kNever);
  f.speed_word.assign(clauses, false);
  f.last_part_of.assign(clauses, SentenceFacts::kNever);
  for (std::size_t i = 0; i < s.tokens.size(); ++i) {
    const std::string_view w = s.tokens[i].text;
    const auto c = static_cast<std::size_t>(s.tokens[i].clause);
    if (in(w, kNotAsserted) || in(w, kNotAssertedMore)) {
      f.first_not_asserted = std::min(f.first_not_asserted, i);
      if (w != "will") f.first_not_asserted_but_will = std::min(f.first_not_asserted_but_will, i);
    }
    if (in(w, kNegations)) f.first_negation[c] = std::min(f.first_negation[c], i);
    const bool so_far = w == "far" && i > 0 && s.tokens[i - 1].text == "so";
    if (in(w, kNotYet) || so_far) f.last_not_yet[c] = i;
    if (in(w, kSpeedWords)) f.speed_word[c] = true;
    if (w == "of" && i > 0 && i + 1 < s.tokens.size() && s.tokens[i - 1].text == kNumber &&
        s.tokens[i + 1].text == kNumber) {
      f.last_part_of[c] = i;
    }
  }
  return f;
}

// Step 5 for one match of `cue` at tokens [begin, end) of `s`.
bool asserted(const Cue& cue, const Sentence& s, const SentenceFacts& f, std::size_t begin, std::size_t end) {
  if (s.question) return false;
  const auto clause = static_cast<std::size_t>(s.tokens[begin].clause);
  if (f.first_negation[clause] < begin) return false;
  if ((cue.future_form ? f.first_not_asserted_but_will : f.first_not_asserted) < begin) return false;
  if (begin > 0 && s.tokens[begin - 1].text == "to" && s.tokens[begin - 1].clause == s.tokens[begin].clause)
    return false;
  if (f.last_not_yet[clause] != SentenceFacts::kNever && f.last_not_yet[clause] >= end) return false;
  if (f.last_part_of[clause] != SentenceFacts::kNever && f.last_part_of[clause] >= end) return false;  // "on 24 of 26"
  if (cue.kind == ClaimKind::kLimit) {
    for (std::size_t i = begin; i < end; ++i) {
      if (in(s.tokens[i].text, kResourceWords)) return false;
    }
  }
  if (cue.general_only && end < s.tokens.size() && s.tokens[end].clause == s.tokens[begin].clause &&
      in(s.tokens[end].text, kSpecificFollows)) {
    return false;
  }
  return !cue.needs_speed_word || f.speed_word[clause];
}

// A cue whose only obstacle is a negation in its clause: the message denies that claim ("the goal is not met").
// `negated_before`: where a negation must come before to deny it (the cue's start, or its end when the negation sits
// inside the cue: "the goal is not met").
bool denied(const Sentence& s, const SentenceFacts& f, std::size_t begin, std::size_t negated_before) {
  const auto clause = static_cast<std::size_t>(s.tokens[begin].clause);
  return !s.question && f.first_negation[clause] < negated_before && f.first_not_asserted > begin;
}

struct CompiledCue {
  const Cue* cue;
  std::vector<Element> elements;
};

const std::vector<CompiledCue>& compiled_cues() {
  static const std::vector<CompiledCue> cues = [] {
    std::vector<CompiledCue> out;
    for (const Cue& c : kCues) out.push_back({&c, parse_pattern(c.pattern)});
    return out;
  }();
  return cues;
}

struct SentenceVerdict {
  bool asserts = false;  // some cue of the kind is asserted
  bool denies = false;   // some cue of the kind is negated
};

SentenceVerdict judge(const Sentence& s, ClaimKind kind) {
  SentenceVerdict v;
  const std::span<const Token> all(s.tokens);
  const SentenceFacts facts = facts_of(s);
  for (const CompiledCue& c : compiled_cues()) {
    if (c.cue->kind != kind) continue;
    std::size_t clause_begin = 0;
    while (clause_begin < all.size()) {
      std::size_t clause_end = clause_begin;
      while (clause_end < all.size() && all[clause_end].clause == all[clause_begin].clause) ++clause_end;
      const std::span<const Token> clause = all.subspan(clause_begin, clause_end - clause_begin);
      // A one-word clause ("Done.", "Finished!") claims only when it opens the sentence.
      const bool standalone_ok = !cue_is_standalone(*c.cue) || (clause_begin == 0 && clause.size() <= 2);
      for (std::size_t t = 0; standalone_ok && t < clause.size(); ++t) {
        std::size_t end = 0;
        if (match_from(c.elements, 0, clause, t, end)) {
          v.asserts = v.asserts || asserted(*c.cue, s, facts, clause_begin + t, clause_begin + end);
          v.denies = v.denies || denied(s, facts, clause_begin + t, clause_begin + t);
        } else if (match_from(c.elements, 0, clause, t, end, true)) {
          v.denies = v.denies || denied(s, facts, clause_begin + t, clause_begin + end);
        }
      }
      clause_begin = clause_end;
    }
  }
  return v;
}

}  // namespace

std::string_view claim_kind_name(ClaimKind kind) {
  switch (kind) {
    case ClaimKind::kDone: return "done";
    case ClaimKind::kLimit: return "limit";
    case ClaimKind::kNone: break;
  }
  return "none";
}

ClaimReading read_claim(std::string_view message) {
  const std::vector<Sentence> sentences = sentences_of(message);
  for (ClaimKind kind : {ClaimKind::kLimit, ClaimKind::kDone}) {  // step 6: a limit wins
    const Sentence* claimed = nullptr;
    bool denied_somewhere = false;
    for (const Sentence& s : sentences) {
      const SentenceVerdict v = judge(s, kind);
      if (v.asserts && claimed == nullptr) claimed = &s;
      denied_somewhere = denied_somewhere || v.denies;
    }
    if (claimed != nullptr && !denied_somewhere) return {kind, claimed->text};
  }
  return {};
}

}  // namespace kseek
