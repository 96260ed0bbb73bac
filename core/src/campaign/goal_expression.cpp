// Goal expressions: a lazy tokenizer, a recursive-descent parser that type-checks as it builds, and an evaluator.
// It must never throw past its boundary, recurse deeper than kMaxGoalNesting levels allow, or read past a token.
#include "kseek/core/campaign/goal_expression.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <map>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kseek/core/util/text_position.hpp"

namespace kseek {
namespace {

using nlohmann::json;

constexpr std::string_view kEvalSchema = "kseek.eval/1";
constexpr std::string_view kNoEvaluation = "no evaluation of the current candidate";

// ---------------------------------------------------------------------------------------------------------------
// Names

struct NameInfo {
  std::string_view name;
  GoalType type;
  int arguments = 1;  // functions: how many quoted strings they take
};

constexpr NameInfo kIdentifiers[] = {
    {"all_passed", GoalType::kBool},     {"geomean", GoalType::kNumber},   {"geomean_low", GoalType::kNumber},
    {"geomean_high", GoalType::kNumber}, {"min_ratio", GoalType::kNumber}, {"max_ratio", GoalType::kNumber},
    {"passed", GoalType::kNumber},       {"scenarios", GoalType::kNumber}, {"failed", GoalType::kNumber}};

// Each takes a scenario id or name in double quotes; peer also the name of a figure its peer command measured
// (peer("H01", "cudnn_tflops"): the record's peer_figures, measured in the same run; docs/goals.md).
constexpr NameInfo kFunctions[] = {{"ratio", GoalType::kNumber},
                                   {"ratio_low", GoalType::kNumber},
                                   {"ratio_high", GoalType::kNumber},
                                   {"passed", GoalType::kBool},
                                   {"tflops", GoalType::kNumber},
                                   {"gbps", GoalType::kNumber},
                                   {"peak_flops_percent", GoalType::kNumber},
                                   {"peak_bandwidth_percent", GoalType::kNumber},
                                   {"peer", GoalType::kNumber, 2}};

template <std::size_t N>
const NameInfo* find_name(const NameInfo (&table)[N], std::string_view name) {
  for (const auto& info : table) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

template <std::size_t N>
std::string joined_names(const NameInfo (&table)[N]) {
  std::string out;
  for (const auto& info : table) out += (out.empty() ? "" : ", ") + std::string(info.name);
  return out;
}

std::string_view type_name(GoalType type) {
  switch (type) {
    case GoalType::kBool: return "true or false";
    case GoalType::kNumber: return "a number";
    case GoalType::kString: return "a quoted string";
  }
  return "?";
}

std::string_view compare_text(GoalCompare op) {
  switch (op) {
    case GoalCompare::kLess: return "<";
    case GoalCompare::kLessEqual: return "<=";
    case GoalCompare::kGreater: return ">";
    case GoalCompare::kGreaterEqual: return ">=";
    case GoalCompare::kEqual: return "==";
    case GoalCompare::kNotEqual: return "!=";
  }
  return "?";
}

std::string_view arithmetic_text(GoalArithmetic op) { return op == GoalArithmetic::kMultiply ? "*" : "/"; }

// ---------------------------------------------------------------------------------------------------------------
// Tokens

enum class TokenKind {
  kEnd,
  kNumber,
  kString,
  kIdentifier,
  kAnd,
  kOr,
  kNot,
  kTrue,
  kFalse,
  kOpen,
  kClose,
  kComma,
  kCompare,
  kArithmetic
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::size_t begin = 0;
  std::size_t end = 0;
  std::string text;  // identifier name, or the decoded string
  double number = 0;
  GoalCompare compare = GoalCompare::kEqual;
  GoalArithmetic arithmetic = GoalArithmetic::kMultiply;
};

// Thrown only inside this file; parse_goal turns it into an Error.
struct ParseFailure {
  std::size_t offset;
  std::string problem;
};

[[noreturn]] void fail(std::size_t offset, std::string problem) { throw ParseFailure{offset, std::move(problem)}; }

bool is_identifier_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_identifier_char(char c) { return is_identifier_start(c) || is_digit(c); }

// Tokenizes on demand with one token of lookahead, so a bad byte late in the text never hides an earlier error.
class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) { advance(); }

  const Token& peek() const { return current_; }
  Token take() {
    Token token = std::move(current_);
    advance();
    return token;
  }

 private:
  void advance() {
    while (pos_ < text_.size() && std::string_view(" \t\r\n").find(text_[pos_]) != std::string_view::npos) ++pos_;
    current_ = Token{};
    current_.begin = pos_;
    if (pos_ == text_.size()) {
      current_.end = pos_;
      return;
    }
    const char c = text_[pos_];
    if (is_digit(c)) return lex_number();
    if (is_identifier_start(c)) return lex_word();
    if (c == '"') return lex_string();
    if (c == '(') return single(TokenKind::kOpen);
    if (c == ')') return single(TokenKind::kClose);
    if (c == ',') return single(TokenKind::kComma);
    if (c == '*' || c == '/') {
      current_.arithmetic = c == '*' ? GoalArithmetic::kMultiply : GoalArithmetic::kDivide;
      return single(TokenKind::kArithmetic);
    }
    const bool then_equals = pos_ + 1 < text_.size() && text_[pos_ + 1] == '=';
    if (c == '<') return compare(then_equals ? GoalCompare::kLessEqual : GoalCompare::kLess, then_equals ? 2 : 1);
    if (c == '>') return compare(then_equals ? GoalCompare::kGreaterEqual : GoalCompare::kGreater, then_equals ? 2 : 1);
    if (c == '=' && then_equals) return compare(GoalCompare::kEqual, 2);
    if (c == '!' && then_equals) return compare(GoalCompare::kNotEqual, 2);
    // The operators people bring from other languages get a pointer to the word this language uses.
    if (c == '=') fail(pos_, "'=' is not an operator; compare with '=='");
    if (c == '!') fail(pos_, "'!' is not an operator; negate with 'not'");
    if (c == '&') fail(pos_, "'&' is not an operator; combine with 'and'");
    if (c == '|') fail(pos_, "'|' is not an operator; combine with 'or'");
    if (c == '.') fail(pos_, "a number must start with a digit, as in 0.5");
    if (c == '+' || c == '-') {
      fail(pos_, fmt::format("'{}' is not an operator; a goal multiplies and divides only ('*', '/')", c));
    }
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F) {
      fail(pos_, fmt::format("unexpected byte 0x{:02X}", static_cast<unsigned char>(c)));
    }
    fail(pos_, fmt::format("unexpected character '{}'", c));
  }

  void single(TokenKind kind) {
    current_.kind = kind;
    current_.end = ++pos_;
  }

  void compare(GoalCompare op, std::size_t length) {
    current_.kind = TokenKind::kCompare;
    current_.compare = op;
    current_.end = pos_ += length;
  }

  void skip_digits() {
    while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
  }

  // digits ["." digits] [("e" | "E") ["+" | "-"] digits]; from_chars does the conversion, the scan the strictness.
  void lex_number() {
    const std::size_t begin = pos_;
    skip_digits();
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (pos_ == text_.size() || !is_digit(text_[pos_])) fail(pos_, "expected a digit after the decimal point");
      skip_digits();
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (pos_ == text_.size() || !is_digit(text_[pos_])) fail(pos_, "expected a digit in the exponent");
      skip_digits();
    }
    if (pos_ < text_.size() && (is_identifier_char(text_[pos_]) || text_[pos_] == '.')) {
      fail(pos_, fmt::format("unexpected '{}' right after a number", text_[pos_]));
    }
    const auto [last, error] = std::from_chars(text_.data() + begin, text_.data() + pos_, current_.number);
    if (error != std::errc() || last != text_.data() + pos_ || !std::isfinite(current_.number)) {
      fail(begin, fmt::format("number {} is out of range", text_.substr(begin, pos_ - begin)));
    }
    current_.kind = TokenKind::kNumber;
    current_.end = pos_;
  }

  void lex_word() {
    while (pos_ < text_.size() && is_identifier_char(text_[pos_])) ++pos_;
    const std::string_view word = text_.substr(current_.begin, pos_ - current_.begin);
    current_.end = pos_;
    if (word == "and")
      current_.kind = TokenKind::kAnd;
    else if (word == "or")
      current_.kind = TokenKind::kOr;
    else if (word == "not")
      current_.kind = TokenKind::kNot;
    else if (word == "true")
      current_.kind = TokenKind::kTrue;
    else if (word == "false")
      current_.kind = TokenKind::kFalse;
    else {
      current_.kind = TokenKind::kIdentifier;
      current_.text = std::string(word);
    }
  }

  // A string holds one scenario id or name, on one line; `\"` and `\\` are the only escapes.
  void lex_string() {
    const std::size_t begin = pos_++;
    std::string value;
    while (true) {
      if (pos_ == text_.size() || text_[pos_] == '\n') fail(begin, "unterminated string: missing the closing '\"'");
      const char c = text_[pos_];
      if (c == '"') break;
      if (c == '\\') {
        if (pos_ + 1 < text_.size() && (text_[pos_ + 1] == '"' || text_[pos_ + 1] == '\\')) {
          value += text_[pos_ + 1];
          pos_ += 2;
          continue;
        }
        fail(pos_, "unknown escape in string: only \\\" and \\\\ are allowed");
      }
      value += c;
      ++pos_;
    }
    current_.kind = TokenKind::kString;
    current_.text = std::move(value);
    current_.end = ++pos_;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  Token current_;
};

// ---------------------------------------------------------------------------------------------------------------
// Parser: one function per precedence level; the only recursion goes through "(" and "not", both counted.

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text), lexer_(text) {}

  GoalExpression parse() {
    const std::size_t root = parse_or();
    const Token& next = lexer_.peek();
    if (next.kind != TokenKind::kEnd) {
      fail(next.begin, fmt::format("expected 'and', 'or' or the end of the goal, got {}", describe(next)));
    }
    if (nodes_[root].type != GoalType::kBool) {
      fail(nodes_[root].begin, fmt::format("a goal must be true or false, got {}; compare it, as in geomean >= 1.10",
                                           type_name(nodes_[root].type)));
    }
    return GoalExpression{std::string(text_), std::move(nodes_), root};
  }

 private:
  std::size_t parse_or() { return parse_chain(TokenKind::kOr, "or", &Parser::parse_and); }
  std::size_t parse_and() { return parse_chain(TokenKind::kAnd, "and", &Parser::parse_compare); }

  // `a and b and c` becomes one node with three operands rather than a left-leaning chain, so a long
  // conjunction costs no depth and the top-level terms are the operands of the root.
  std::size_t parse_chain(TokenKind keyword, std::string_view word, std::size_t (Parser::*operand)()) {
    const std::size_t first = (this->*operand)();
    if (lexer_.peek().kind != keyword) return first;
    std::vector<std::size_t> operands{first};
    require_bool(first, word);
    while (lexer_.peek().kind == keyword) {
      lexer_.take();
      operands.push_back((this->*operand)());
      require_bool(operands.back(), word);
    }
    GoalNode node;
    node.kind = keyword == TokenKind::kOr ? GoalNode::Kind::kOr : GoalNode::Kind::kAnd;
    node.begin = nodes_[operands.front()].begin;
    node.end = nodes_[operands.back()].end;
    node.operands = std::move(operands);
    return add(std::move(node));
  }

  std::size_t parse_compare() {
    const std::size_t left = parse_product();
    if (lexer_.peek().kind != TokenKind::kCompare) return left;
    const Token op = lexer_.take();
    const std::size_t right = parse_product();
    for (const std::size_t index : {left, right}) {
      if (nodes_[index].type == GoalType::kString) {
        fail(nodes_[index].begin, "a quoted string can only be a function argument, as in ratio(\"H14\")");
      }
    }
    const GoalType lt = nodes_[left].type, rt = nodes_[right].type;
    if (lt != rt) {
      fail(op.begin, fmt::format("cannot compare {} with {}: {} is {}, {} is {}", type_name(lt), type_name(rt),
                                 snippet(left), type_name(lt), snippet(right), type_name(rt)));
    }
    if (lt == GoalType::kBool && op.compare != GoalCompare::kEqual && op.compare != GoalCompare::kNotEqual) {
      fail(op.begin, fmt::format("'{}' needs numbers on both sides; true or false compare only with == and !=",
                                 compare_text(op.compare)));
    }
    if (lexer_.peek().kind == TokenKind::kCompare) {
      fail(lexer_.peek().begin, "comparisons do not chain; write a < b and b < c");
    }
    GoalNode node;
    node.kind = GoalNode::Kind::kCompare;
    node.compare = op.compare;
    node.operands = {left, right};
    node.begin = nodes_[left].begin;
    node.end = nodes_[right].end;
    return add(std::move(node));
  }

  // `a * b / c` is one node with three operands, evaluated left to right: like a conjunction, a long product costs
  // no depth.
  std::size_t parse_product() {
    const std::size_t first = parse_unary();
    if (lexer_.peek().kind != TokenKind::kArithmetic) return first;
    GoalNode node;
    node.kind = GoalNode::Kind::kProduct;
    node.type = GoalType::kNumber;
    node.operands = {first};
    require_number(first, lexer_.peek());
    while (lexer_.peek().kind == TokenKind::kArithmetic) {
      const Token op = lexer_.take();
      node.arithmetic.push_back(op.arithmetic);
      node.operands.push_back(parse_unary());
      require_number(node.operands.back(), op);
    }
    node.begin = nodes_[node.operands.front()].begin;
    node.end = nodes_[node.operands.back()].end;
    return add(std::move(node));
  }

  void require_number(std::size_t index, const Token& op) const {
    if (nodes_[index].type == GoalType::kString) {
      fail(nodes_[index].begin, "a quoted string can only be a function argument, as in ratio(\"H14\")");
    }
    if (nodes_[index].type != GoalType::kNumber) {
      fail(nodes_[index].begin,
           fmt::format("'{}' needs numbers on both sides; {} is {}", arithmetic_text(op.arithmetic), snippet(index),
                       type_name(nodes_[index].type)));
    }
  }

  std::size_t parse_unary() {
    if (lexer_.peek().kind != TokenKind::kNot) return parse_primary();
    const Token not_token = lexer_.take();
    enter(not_token.begin);
    const std::size_t operand = parse_unary();
    --depth_;
    if (nodes_[operand].type != GoalType::kBool) {
      fail(nodes_[operand].begin,
           fmt::format("'not' needs true or false, and {} is {} ('not' binds tighter than comparisons: write "
                       "not (a < b))",
                       snippet(operand), type_name(nodes_[operand].type)));
    }
    GoalNode node;
    node.kind = GoalNode::Kind::kNot;
    node.operands = {operand};
    node.begin = not_token.begin;
    node.end = nodes_[operand].end;
    return add(std::move(node));
  }

  std::size_t parse_primary() {
    const Token& next = lexer_.peek();
    GoalNode node;
    node.begin = next.begin;
    node.end = next.end;
    switch (next.kind) {
      case TokenKind::kNumber:
        node.kind = GoalNode::Kind::kNumber;
        node.type = GoalType::kNumber;
        node.number = next.number;
        lexer_.take();
        return add(std::move(node));
      case TokenKind::kString:
        node.kind = GoalNode::Kind::kString;
        node.type = GoalType::kString;
        node.name = lexer_.take().text;
        return add(std::move(node));
      case TokenKind::kTrue:
      case TokenKind::kFalse:
        node.kind = GoalNode::Kind::kBool;
        node.boolean = next.kind == TokenKind::kTrue;
        lexer_.take();
        return add(std::move(node));
      case TokenKind::kOpen: {
        const Token open = lexer_.take();
        enter(open.begin);
        const std::size_t inner = parse_or();
        --depth_;
        if (lexer_.peek().kind != TokenKind::kClose) {
          const auto [line, column] = position_of_offset(text_, open.begin);
          fail(lexer_.peek().begin,
               fmt::format("expected ')' to close the '(' at {}:{}, got {}", line, column, describe(lexer_.peek())));
        }
        // The span grows to the parentheses so a term's source reads exactly as written.
        nodes_[inner].begin = open.begin;
        nodes_[inner].end = lexer_.take().end;
        return inner;
      }
      case TokenKind::kIdentifier: {
        Token name = lexer_.take();
        if (lexer_.peek().kind == TokenKind::kOpen) return parse_call(std::move(name));
        const NameInfo* info = find_name(kIdentifiers, name.text);
        if (info == nullptr && find_name(kFunctions, name.text) != nullptr) {
          fail(name.begin, fmt::format("{} needs a scenario: {}(\"H14\")", name.text, name.text));
        }
        if (info == nullptr) {
          fail(name.begin, fmt::format("unknown identifier '{}' (known: {}; functions: {})", name.text,
                                       joined_names(kIdentifiers), joined_names(kFunctions)));
        }
        node.kind = GoalNode::Kind::kIdentifier;
        node.type = info->type;
        node.name = std::move(name.text);
        return add(std::move(node));
      }
      default: fail(next.begin, fmt::format("expected a value, a name or '(', got {}", describe(next)));
    }
  }

  // Arguments are single tokens, never expressions: a scenario argument is a quoted string, so nothing here
  // nests. Other tokens are accepted only to report "put it in quotes" rather than a bare syntax error.
  std::size_t parse_call(Token name) {
    const NameInfo* info = find_name(kFunctions, name.text);
    if (info == nullptr && find_name(kIdentifiers, name.text) != nullptr) {
      fail(name.begin, fmt::format("{} is not a function; it takes no argument", name.text));
    }
    if (info == nullptr) {
      fail(name.begin, fmt::format("unknown function '{}' (known: {})", name.text, joined_names(kFunctions)));
    }
    lexer_.take();  // "("
    std::vector<Token> arguments;
    if (lexer_.peek().kind != TokenKind::kClose) {
      while (true) {
        const TokenKind kind = lexer_.peek().kind;
        if (kind != TokenKind::kString && kind != TokenKind::kNumber && kind != TokenKind::kIdentifier &&
            kind != TokenKind::kTrue && kind != TokenKind::kFalse) {
          fail(lexer_.peek().begin,
               fmt::format("expected a scenario id or name in double quotes, got {}", describe(lexer_.peek())));
        }
        arguments.push_back(lexer_.take());
        if (lexer_.peek().kind != TokenKind::kComma) break;
        lexer_.take();
      }
    }
    if (lexer_.peek().kind != TokenKind::kClose) fail(lexer_.peek().begin, "expected ')' after argument list");
    const std::size_t end = lexer_.take().end;
    if (arguments.size() != static_cast<std::size_t>(info->arguments)) {
      fail(name.begin, info->arguments == 1
                           ? fmt::format("{} takes 1 argument, a scenario id or name in double quotes; got {}",
                                         name.text, arguments.size())
                           : fmt::format("{} takes {} arguments, a scenario and a figure in double quotes, as in "
                                         "{}(\"H01\", \"cudnn_tflops\"); got {}",
                                         name.text, info->arguments, name.text, arguments.size()));
    }
    std::vector<std::size_t> operands;
    for (const Token& argument : arguments) {
      if (argument.kind != TokenKind::kString) {
        const std::string written(text_.substr(argument.begin, argument.end - argument.begin));
        const std::string example = info->arguments == 1 ? fmt::format("{}(\"{}\")", name.text, written)
                                    : operands.empty() ? fmt::format("{}(\"{}\", \"cudnn_tflops\")", name.text, written)
                                                       : fmt::format("{}(\"H01\", \"{}\")", name.text, written);
        fail(argument.begin,
             fmt::format("the {} goes in double quotes, as in {}", operands.empty() ? "scenario" : "figure", example));
      }
      if (argument.text.empty()) {
        fail(argument.begin, operands.empty() ? "empty scenario id or name" : "empty figure name");
      }
      GoalNode arg_node;
      arg_node.kind = GoalNode::Kind::kString;
      arg_node.type = GoalType::kString;
      arg_node.name = argument.text;
      arg_node.begin = argument.begin;
      arg_node.end = argument.end;
      operands.push_back(add(std::move(arg_node)));
    }
    GoalNode node;
    node.kind = GoalNode::Kind::kCall;
    node.type = info->type;
    node.name = std::move(name.text);
    node.operands = std::move(operands);
    node.begin = name.begin;
    node.end = end;
    return add(std::move(node));
  }

  void require_bool(std::size_t index, std::string_view keyword) const {
    if (nodes_[index].type != GoalType::kBool) {
      fail(nodes_[index].begin, fmt::format("'{}' needs true or false on both sides; {} is {}", keyword, snippet(index),
                                            type_name(nodes_[index].type)));
    }
  }

  void enter(std::size_t offset) {
    if (++depth_ > kMaxGoalNesting) {
      fail(offset, fmt::format("nesting deeper than {} levels (each '(' and each 'not' opens one)", kMaxGoalNesting));
    }
  }

  std::size_t add(GoalNode node) {
    nodes_.push_back(std::move(node));
    return nodes_.size() - 1;
  }

  // The source of a node for a message, cut short so a message stays one readable line.
  std::string snippet(std::size_t index) const {
    const std::string_view s = text_.substr(nodes_[index].begin, nodes_[index].end - nodes_[index].begin);
    return s.size() <= 40 ? std::string(s) : std::string(s.substr(0, 37)) + "...";
  }

  std::string describe(const Token& token) const {
    if (token.kind == TokenKind::kEnd) return "the end of the goal";
    const std::string_view s = text_.substr(token.begin, token.end - token.begin);
    return fmt::format("'{}'", s.size() <= 40 ? std::string(s) : std::string(s.substr(0, 37)) + "...");
  }

  std::string_view text_;
  Lexer lexer_;
  std::vector<GoalNode> nodes_;
  std::size_t depth_ = 0;
};

// ---------------------------------------------------------------------------------------------------------------
// Canonical text

bool needs_parentheses(const GoalNode& parent, const GoalNode& child) {
  using Kind = GoalNode::Kind;
  switch (parent.kind) {
    // A same-kind child must keep its parentheses, or re-parsing would merge it into its parent.
    case Kind::kOr: return child.kind == Kind::kOr;
    case Kind::kAnd: return child.kind == Kind::kAnd || child.kind == Kind::kOr;
    case Kind::kCompare:
    case Kind::kNot: return child.kind == Kind::kAnd || child.kind == Kind::kOr || child.kind == Kind::kCompare;
    // Anything but a value or a call: a product keeps its own parentheses too, since (a * b) / c and a * (b / c)
    // round differently and must read back as the tree they were.
    case Kind::kProduct:
      return child.kind != Kind::kNumber && child.kind != Kind::kIdentifier && child.kind != Kind::kCall &&
             child.kind != Kind::kBool && child.kind != Kind::kString;
    default: return false;
  }
}

std::string goal_string_literal(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Depth is bounded by the parser's nesting limit, so this recursion is too.
std::string node_text(const GoalExpression& goal, std::size_t index) {
  const GoalNode& node = goal.nodes.at(index);
  auto child = [&](std::size_t operand) {
    const std::string text = node_text(goal, operand);
    return needs_parentheses(node, goal.nodes.at(operand)) ? "(" + text + ")" : text;
  };
  switch (node.kind) {
    case GoalNode::Kind::kNumber: return fmt::format("{}", node.number);  // shortest text that reads back exactly
    case GoalNode::Kind::kString: return goal_string_literal(node.name);
    case GoalNode::Kind::kBool: return node.boolean ? "true" : "false";
    case GoalNode::Kind::kIdentifier: return node.name;
    case GoalNode::Kind::kCall: {
      std::string out = node.name + "(";
      for (std::size_t i = 0; i < node.operands.size(); ++i) out += (i ? ", " : "") + child(node.operands[i]);
      return out + ")";
    }
    case GoalNode::Kind::kNot: return "not " + child(node.operands.at(0));
    case GoalNode::Kind::kCompare:
      return fmt::format("{} {} {}", child(node.operands.at(0)), compare_text(node.compare),
                         child(node.operands.at(1)));
    case GoalNode::Kind::kProduct: {
      std::string out = child(node.operands.at(0));
      for (std::size_t i = 1; i < node.operands.size(); ++i) {
        out += fmt::format(" {} {}", arithmetic_text(node.arithmetic.at(i - 1)), child(node.operands[i]));
      }
      return out;
    }
    case GoalNode::Kind::kAnd:
    case GoalNode::Kind::kOr: {
      std::string out;
      for (const std::size_t operand : node.operands) {
        if (!out.empty()) out += node.kind == GoalNode::Kind::kAnd ? " and " : " or ";
        out += child(operand);
      }
      return out;
    }
  }
  return "";
}

// ---------------------------------------------------------------------------------------------------------------
// The record, read once into plain values; every lookup that can fail carries the reason it failed.

struct Number {
  std::optional<double> value;
  std::string missing;  // why `value` is empty
};

struct ScenarioView {
  std::string label;  // the id, else the name, else "scenarios[i]"
  std::string id;
  std::string name;
  std::string status;
  Number ratio, ratio_low, ratio_high;
  Number tflops, gbps, peak_flops_percent, peak_bandwidth_percent;
};

struct RecordView {
  std::string unreadable;  // non-empty: nothing can be read from this record
  std::optional<std::string> status;
  std::string status_missing;
  std::optional<std::vector<ScenarioView>> scenarios;
  std::string scenarios_missing;
  Number geomean, geomean_low, geomean_high;
  std::string bytes_source;  // environment.peaks.bytes_source: what peak_bandwidth_percent is a percentage of
  // peer_figures: absent (no peer command ran), failed (its error), or scenario -> figure -> value.
  bool has_peers = false;
  std::string peers_error;
  std::map<std::string, std::map<std::string, double>> peers;
};

const json* find_path(const json& root, std::initializer_list<std::string_view> path) {
  const json* at = &root;
  for (const std::string_view key : path) {
    if (!at->is_object()) return nullptr;
    const auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

// JSON cannot hold NaN (nlohmann writes it as null), so null and non-finite both mean "no value".
Number read_number(const json& root, std::initializer_list<std::string_view> path, const std::string& where) {
  const json* value = find_path(root, path);
  if (value == nullptr) return {std::nullopt, fmt::format("the record has no {}", where)};
  if (value->is_null()) return {std::nullopt, fmt::format("{} is null", where)};
  if (!value->is_number()) return {std::nullopt, fmt::format("{} is a {}, not a number", where, value->type_name())};
  const double number = value->get<double>();
  if (!std::isfinite(number)) return {std::nullopt, fmt::format("{} is not a finite number", where)};
  return {number, ""};
}

// A rate or a percentage of peak in a scenario's timing. The runner writes 0 where it had nothing to divide by (no
// peak for this GPU, no FLOPs or bytes counted), so 0 is "not known", never a measured rate.
Number read_rate(const json& entry, std::string_view field, const std::string& label, std::string_view why_zero) {
  const std::string where = fmt::format("{} timing.{}", label, field);
  Number number = read_number(entry, {"timing", field}, where);
  if (number.value && *number.value <= 0) {
    number = {std::nullopt, fmt::format("{} is {}: {}", where, *number.value, why_zero)};
  }
  return number;
}

std::string string_or_empty(const json& object, std::string_view key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

RecordView read_record(const json& record) {
  RecordView view;
  if (record.is_null()) {
    view.unreadable = kNoEvaluation;
    return view;
  }
  if (!record.is_object()) {
    view.unreadable = fmt::format("the evaluation record is a {}, not a JSON object", record.type_name());
    return view;
  }
  const auto schema = record.find("schema");  // absent is accepted: hand-made and older records omit it
  if (schema != record.end() && (!schema->is_string() || schema->get<std::string>() != kEvalSchema)) {
    view.unreadable = fmt::format("the record's schema is {}, expected \"{}\"", schema->dump(), kEvalSchema);
    return view;
  }
  if (const auto status = record.find("status"); status != record.end() && status->is_string()) {
    view.status = status->get<std::string>();
  } else {
    view.status_missing = "the record has no \"status\" string";
  }

  const auto scenarios = record.find("scenarios");
  if (scenarios == record.end() || !scenarios->is_array()) {
    view.scenarios_missing = "the record has no \"scenarios\" array";
  } else {
    std::vector<ScenarioView> list;
    for (std::size_t i = 0; i < scenarios->size(); ++i) {
      const json& entry = (*scenarios)[i];
      const std::string where = fmt::format("scenarios[{}]", i);
      if (!entry.is_object() || !entry.contains("status") || !entry.at("status").is_string()) {
        view.scenarios_missing = fmt::format("{} has no \"status\" string", where);
        break;
      }
      ScenarioView s;
      s.id = string_or_empty(entry, "scenario");
      s.name = string_or_empty(entry, "name");
      s.label = !s.id.empty() ? s.id : !s.name.empty() ? s.name : where;
      s.status = entry.at("status").get<std::string>();
      s.ratio = read_number(entry, {"timing", "ratio"}, s.label + " timing.ratio");
      s.ratio_low = read_number(entry, {"timing", "ci_low"}, s.label + " timing.ci_low");
      s.ratio_high = read_number(entry, {"timing", "ci_high"}, s.label + " timing.ci_high");
      s.tflops = read_rate(entry, "candidate_tflops", s.label, "the plugin counts no FLOPs for it");
      s.gbps = read_rate(entry, "candidate_gbps", s.label, "the plugin counts no bytes for it");
      s.peak_flops_percent = read_rate(entry, "percent_of_peak_flops", s.label, "no FLOP/s peak was known for the GPU");
      s.peak_bandwidth_percent =
          read_rate(entry, "percent_of_peak_bandwidth", s.label, "no bandwidth peak was known for the GPU");
      list.push_back(std::move(s));
    }
    if (view.scenarios_missing.empty()) view.scenarios = std::move(list);
  }
  view.geomean = read_number(record, {"summary", "geomean", "value"}, "summary.geomean.value");
  view.geomean_low = read_number(record, {"summary", "geomean", "ci_low"}, "summary.geomean.ci_low");
  view.geomean_high = read_number(record, {"summary", "geomean", "ci_high"}, "summary.geomean.ci_high");
  if (const json* source = find_path(record, {"environment", "peaks", "bytes_source"}); source && source->is_string()) {
    view.bytes_source = source->get<std::string>();
  }
  if (const auto peers = record.find("peer_figures"); peers != record.end() && peers->is_object()) {
    view.has_peers = true;
    if (const auto error = peers->find("error"); error != peers->end() && error->is_string()) {
      view.peers_error = error->get<std::string>();
    }
    if (const auto rows = peers->find("scenarios"); rows != peers->end() && rows->is_object()) {
      for (const auto& [scenario, figures] : rows->items()) {
        if (!figures.is_object()) continue;
        for (const auto& [name, value] : figures.items()) {
          if (value.is_number() && std::isfinite(value.get<double>())) view.peers[scenario][name] = value.get<double>();
        }
      }
    }
  }
  return view;
}

std::string format_number(double value) {
  if (value == std::floor(value) && std::abs(value) < 1e15) return fmt::format("{:.0f}", value);
  return fmt::format("{:.6g}", value);
}

// "3 of 26 scenarios did not pass (H07 FAILED, H09 TIMEOUT, ...)": at most five named, so a line stays short.
std::string not_passed_summary(const std::vector<ScenarioView>& scenarios) {
  std::vector<std::string> listed;
  std::size_t count = 0;
  for (const auto& s : scenarios) {
    if (s.status == "PASSED") continue;
    if (++count <= 5) listed.push_back(s.label + " " + s.status);
  }
  if (count > 5) listed.push_back(fmt::format("and {} more", count - 5));
  return fmt::format("{} of {} scenarios did not pass ({})", count, scenarios.size(), fmt::join(listed, ", "));
}

// ---------------------------------------------------------------------------------------------------------------
// Evaluation of one term

struct Value {
  double number = 0;
  bool boolean = false;
};

class TermEvaluator {
 public:
  TermEvaluator(const GoalExpression& goal, const RecordView& record) : goal_(goal), record_(record) {}

  // Evaluates every operand (no short-circuit), so a misspelt scenario behind a true `or` is still reported and
  // the explanation shows every value the term involves. Empty when the record lacks something; see missing().
  std::optional<Value> eval(std::size_t index) {
    const GoalNode& node = goal_.nodes.at(index);
    switch (node.kind) {
      case GoalNode::Kind::kNumber: return Value{node.number, false};
      case GoalNode::Kind::kBool: return Value{0, node.boolean};
      case GoalNode::Kind::kString: return Value{};
      case GoalNode::Kind::kIdentifier: return identifier(node.name);
      case GoalNode::Kind::kCall:
        if (node.operands.size() == 2) {
          return peer(goal_.nodes.at(node.operands[0]).name, goal_.nodes.at(node.operands[1]).name);
        }
        return call(node.name, goal_.nodes.at(node.operands.at(0)).name);
      case GoalNode::Kind::kNot: {
        const auto operand = eval(node.operands.at(0));
        if (!operand) return std::nullopt;
        return Value{0, !operand->boolean};
      }
      case GoalNode::Kind::kAnd:
      case GoalNode::Kind::kOr: {
        const bool is_and = node.kind == GoalNode::Kind::kAnd;
        bool result = is_and, known = true;
        for (const std::size_t operand : node.operands) {
          const auto value = eval(operand);
          if (!value)
            known = false;
          else
            result = is_and ? (result && value->boolean) : (result || value->boolean);
        }
        if (!known) return std::nullopt;
        return Value{0, result};
      }
      case GoalNode::Kind::kCompare: {
        const auto left = eval(node.operands.at(0));
        const auto right = eval(node.operands.at(1));
        if (!left || !right) return std::nullopt;
        const bool numbers = goal_.nodes.at(node.operands.at(0)).type == GoalType::kNumber;
        if (numbers && std::isfinite(left->number) && std::isfinite(right->number)) {
          sides_[index] = GoalTermSides{node.compare, left->number, right->number};
        }
        return Value{0, numbers ? compare(left->number, right->number, node.compare)
                                : compare(left->boolean, right->boolean, node.compare)};
      }
      case GoalNode::Kind::kProduct: return product(index);
    }
    return std::nullopt;
  }

  std::string explanation() const {
    if (!missing_.empty()) return fmt::format("{}", fmt::join(missing_, "; "));
    if (facts_.empty()) return "constant; it does not depend on the record";
    return fmt::format("{}", fmt::join(facts_, "; "));
  }

  // The sides of the comparison at `index` where eval reached it with both known.
  std::optional<GoalTermSides> sides_of(std::size_t index) const {
    const auto it = sides_.find(index);
    return it == sides_.end() ? std::nullopt : std::optional<GoalTermSides>(it->second);
  }
  const std::vector<std::string>& scenarios_read() const { return scenarios_read_; }
  bool reads_summary() const { return reads_summary_; }

 private:
  template <class T>
  static bool compare(T a, T b, GoalCompare op) {
    switch (op) {
      case GoalCompare::kLess: return a < b;
      case GoalCompare::kLessEqual: return a <= b;
      case GoalCompare::kGreater: return a > b;
      case GoalCompare::kGreaterEqual: return a >= b;
      case GoalCompare::kEqual: return a == b;
      case GoalCompare::kNotEqual: return a != b;
    }
    return false;
  }

  std::optional<Value> number_fact(const std::string& what, double value, const std::string& detail = "") {
    note(facts_, fmt::format("{} is {}{}", what, format_number(value), detail));
    return Value{value, false};
  }
  std::optional<Value> bool_fact(bool value, const std::string& fact) {
    note(facts_, fact);
    return Value{0, value};
  }
  std::optional<Value> unknown(const std::string& what, const std::string& why) {
    note(missing_, fmt::format("{} is unknown: {}", what, why));
    return std::nullopt;
  }
  // The same name may appear twice in a term (`geomean > 1 and geomean < 2`); say it once.
  static void note(std::vector<std::string>& list, std::string line) {
    if (std::find(list.begin(), list.end(), line) == list.end()) list.push_back(std::move(line));
  }

  // Every operand is evaluated, so each unknown one is reported; the product itself is stated as a fact, because a
  // threshold such as 1.5 * tflops("H01") is what the comparison was against.
  std::optional<Value> product(std::size_t index) {
    const GoalNode& node = goal_.nodes.at(index);
    std::vector<std::optional<Value>> values;
    for (const std::size_t operand : node.operands) values.push_back(eval(operand));
    if (std::any_of(values.begin(), values.end(), [](const auto& v) { return !v.has_value(); })) return std::nullopt;
    const std::string what = node_text(goal_, index);
    double result = values.front()->number;
    for (std::size_t i = 1; i < values.size(); ++i) {
      const double operand = values[i]->number;
      if (node.arithmetic.at(i - 1) == GoalArithmetic::kMultiply) {
        result *= operand;
      } else if (operand == 0) {
        const GoalNode& divisor = goal_.nodes.at(node.operands[i]);
        return unknown(what, divisor.kind == GoalNode::Kind::kNumber
                                 ? std::string("it divides by 0")
                                 : fmt::format("it divides by {}, which is 0", node_text(goal_, node.operands[i])));
      } else {
        result /= operand;
      }
    }
    if (!std::isfinite(result)) return unknown(what, "the result is not a finite number");
    return number_fact(what, result);
  }

  std::optional<Value> from_number(const std::string& what, const Number& number) {
    return number.value ? number_fact(what, *number.value) : unknown(what, number.missing);
  }

  std::optional<Value> identifier(const std::string& name) {
    reads_summary_ = true;  // every identifier is a figure of the whole record
    if (name == "geomean") return from_number(name, record_.geomean);
    if (name == "geomean_low") return from_number(name, record_.geomean_low);
    if (name == "geomean_high") return from_number(name, record_.geomean_high);
    if (!record_.scenarios) return unknown(name, record_.scenarios_missing);
    const auto& scenarios = *record_.scenarios;
    const auto passed = static_cast<double>(
        std::count_if(scenarios.begin(), scenarios.end(), [](const ScenarioView& s) { return s.status == "PASSED"; }));
    const auto total = static_cast<double>(scenarios.size());
    if (name == "scenarios") return number_fact(name, total);
    if (name == "passed") return number_fact(name, passed);
    if (name == "failed") {
      return number_fact(name, total - passed, passed == total ? "" : " (" + not_passed_summary(scenarios) + ")");
    }
    if (name == "all_passed") {
      if (!record_.status) return unknown(name, record_.status_missing);
      if (*record_.status != "COMPLETE") {
        return bool_fact(false, fmt::format("the record's status is {}, not COMPLETE", *record_.status));
      }
      if (scenarios.empty()) return bool_fact(false, "the record has no scenarios");
      if (passed == total) return bool_fact(true, fmt::format("all {} scenarios passed", scenarios.size()));
      return bool_fact(false, not_passed_summary(scenarios));
    }
    if (name == "min_ratio" || name == "max_ratio") {
      const bool want_min = name == "min_ratio";
      const ScenarioView* best = nullptr;
      for (const auto& s : scenarios) {
        if (s.status != "PASSED" || !s.ratio.value) continue;
        const double value = *s.ratio.value;
        if (best == nullptr || (want_min ? value < *best->ratio.value : value > *best->ratio.value)) best = &s;
      }
      if (best == nullptr) return unknown(name, "no PASSED scenario has a timing ratio");
      return number_fact(name, *best->ratio.value, " (" + best->label + ")");
    }
    return unknown(name, "not a known identifier");  // unreachable: the parser checked the name
  }

  std::optional<Value> call(const std::string& function, const std::string& scenario) {
    const std::string what = fmt::format("{}({})", function, goal_string_literal(scenario));
    if (!record_.scenarios) return unknown(what, record_.scenarios_missing);
    const ScenarioView* found = find_scenario(scenario);
    if (found == nullptr) {
      return unknown(what, fmt::format("the record has no scenario with id or name {}", goal_string_literal(scenario)));
    }
    if (function == "passed") {
      return bool_fact(found->status == "PASSED", fmt::format("{} is {}", found->label, found->status));
    }
    note(scenarios_read_, found->id.empty() ? found->label : found->id);
    // A time measured on a scenario that did not pass says nothing about the kernel; it never meets a goal.
    if (found->status != "PASSED") {
      const bool is_ratio = function.rfind("ratio", 0) == 0;
      return unknown(what, fmt::format("{} is {}, so it has no {}", found->label, found->status,
                                       is_ratio ? "ratio" : "timing that counts"));
    }
    if (function == "ratio") return from_number(what, found->ratio);
    if (function == "ratio_low") return from_number(what, found->ratio_low);
    if (function == "ratio_high") return from_number(what, found->ratio_high);
    if (function == "tflops") return from_number(what, found->tflops);
    if (function == "gbps") return from_number(what, found->gbps);
    if (function == "peak_flops_percent") return from_number(what, found->peak_flops_percent);
    // The bandwidth peak is the copy bandwidth the worker measured; an older or probe-less record used a declared
    // figure, and a target stated against the measured copy must know which it was given.
    const bool declared = !record_.bytes_source.empty() && record_.bytes_source.rfind("measured", 0) != 0;
    if (!found->peak_bandwidth_percent.value) return from_number(what, found->peak_bandwidth_percent);
    return number_fact(what, *found->peak_bandwidth_percent.value,
                       declared ? fmt::format(" (of a {} bandwidth, not a measured copy)", record_.bytes_source) : "");
  }

  // A peer's figure measured in the same run as this record (its peer_figures), by the scenario id the peer command
  // wrote; a name of the record's scenario is accepted for it too.
  std::optional<Value> peer(const std::string& scenario, const std::string& figure) {
    const std::string what = fmt::format("peer({}, {})", goal_string_literal(scenario), goal_string_literal(figure));
    if (!record_.has_peers) {
      return unknown(what,
                     "the record has no peer figures (campaign.json names no peer_figures command, or the "
                     "evaluation did not reach a GPU)");
    }
    if (!record_.peers_error.empty()) return unknown(what, "the peer command failed: " + record_.peers_error);
    auto row = record_.peers.find(scenario);
    if (row == record_.peers.end() && record_.scenarios) {
      if (const ScenarioView* found = find_scenario(scenario)) row = record_.peers.find(found->id);
    }
    if (row == record_.peers.end()) {
      return unknown(what, fmt::format("the peer command measured no scenario {}", goal_string_literal(scenario)));
    }
    const auto value = row->second.find(figure);
    if (value == row->second.end()) {
      std::string known;
      for (const auto& [name, number] : row->second) known += (known.empty() ? "" : ", ") + name;
      return unknown(what, fmt::format("the peer command gave {} no figure {} (it gave: {})", row->first,
                                       goal_string_literal(figure), known.empty() ? "none" : known));
    }
    return number_fact(what, value->second);
  }

  // Ids first: a name that equals another scenario's id must not shadow it.
  const ScenarioView* find_scenario(const std::string& key) const {
    for (const auto& s : *record_.scenarios) {
      if (s.id == key) return &s;
    }
    for (const auto& s : *record_.scenarios) {
      if (s.name == key) return &s;
    }
    return nullptr;
  }

  const GoalExpression& goal_;
  const RecordView& record_;
  std::vector<std::string> facts_;
  std::vector<std::string> missing_;
  std::map<std::size_t, GoalTermSides> sides_;  // by the index of the comparison node
  std::vector<std::string> scenarios_read_;
  bool reads_summary_ = false;
};

}  // namespace

// ---------------------------------------------------------------------------------------------------------------

Result<GoalExpression> parse_goal(std::string_view text) {
  try {
    return Parser(text).parse();
  } catch (const ParseFailure& failure) {
    const auto [line, column] = position_of_offset(text, failure.offset);
    return make_error(
        fmt::format("goal:{}:{}: {}\n{}", line, column, failure.problem, goal_caret_excerpt(text, failure.offset)));
  } catch (const std::exception& e) {  // only allocation failure can land here; it must not escape a parse
    return make_error(fmt::format("goal: cannot parse: {}", e.what()));
  }
}

std::string to_string(const GoalExpression& goal) {
  if (goal.root >= goal.nodes.size()) return "";
  try {
    return node_text(goal, goal.root);
  } catch (const std::exception&) {
    return "";  // a hand-built expression with a bad operand index
  }
}

std::string goal_caret_excerpt(std::string_view text, std::size_t offset) {
  constexpr std::size_t kWindow = 60;  // bytes either side of the caret
  offset = std::min(offset, text.size());
  const std::size_t line_begin = offset == 0 ? 0 : [&] {
    const std::size_t newline = text.rfind('\n', offset - 1);
    return newline == std::string_view::npos ? 0 : newline + 1;
  }();
  std::size_t line_end = text.find('\n', offset);
  if (line_end == std::string_view::npos) line_end = text.size();
  if (line_end > line_begin && text[line_end - 1] == '\r') --line_end;

  std::size_t begin = offset - line_begin > kWindow ? offset - kWindow : line_begin;
  std::size_t end = line_end - offset > kWindow ? offset + kWindow : line_end;
  while (begin > line_begin && is_continuation_byte(text[begin])) --begin;  // never cut a character in two
  while (end < line_end && is_continuation_byte(text[end])) ++end;
  const std::string prefix = begin > line_begin ? "..." : "";
  const std::string suffix = end < line_end ? "..." : "";

  std::string caret = "  " + std::string(prefix.size(), ' ');
  for (std::size_t i = begin; i < std::min(offset, end); ++i) {
    if (text[i] == '\t')
      caret += '\t';  // keep tabs so the caret lines up however the terminal expands them
    else if (!is_continuation_byte(text[i]))
      caret += ' ';
  }
  return fmt::format("  {}{}{}\n{}^", prefix, text.substr(begin, end - begin), suffix, caret);
}

std::optional<double> goal_closeness(const GoalTermSides& sides) {
  const bool positive = std::isfinite(sides.lhs) && std::isfinite(sides.rhs) && sides.lhs > 0 && sides.rhs > 0;
  if (!positive) return std::nullopt;
  double closeness = 0;
  switch (sides.compare) {
    case GoalCompare::kGreater:
    case GoalCompare::kGreaterEqual: closeness = sides.lhs / sides.rhs; break;
    case GoalCompare::kLess:
    case GoalCompare::kLessEqual: closeness = sides.rhs / sides.lhs; break;
    case GoalCompare::kEqual:
    case GoalCompare::kNotEqual: return std::nullopt;
  }
  // 1e300 / 1e-300 overflows: a closeness that is not a finite positive number says nothing either.
  if (!std::isfinite(closeness) || closeness <= 0) return std::nullopt;
  return closeness;
}

std::vector<std::string> GoalVerdict::unmet() const {
  std::vector<std::string> out;
  for (const auto& term : terms) {
    if (!term.holds) out.push_back(term.source + ": " + term.explanation);
  }
  return out;
}

GoalVerdict evaluate_goal(const GoalExpression& goal, const nlohmann::json& record) {
  GoalVerdict verdict;
  if (goal.root >= goal.nodes.size()) {
    verdict.terms.push_back({goal.source, false, "the goal was not parsed"});
    return verdict;
  }
  const GoalNode& root = goal.nodes[goal.root];
  const std::vector<std::size_t> terms =
      root.kind == GoalNode::Kind::kAnd ? root.operands : std::vector<std::size_t>{goal.root};

  RecordView view;
  try {
    view = read_record(record);
  } catch (const std::exception& e) {  // read_record checks types before reading; this is the last line of defence
    view.unreadable = fmt::format("the record cannot be read: {}", e.what());
  }

  for (const std::size_t index : terms) {
    GoalTerm term;
    const GoalNode* node = index < goal.nodes.size() ? &goal.nodes[index] : nullptr;
    if (node != nullptr && node->begin <= node->end && node->end <= goal.source.size()) {
      term.source = goal.source.substr(node->begin, node->end - node->begin);
    }
    if (!view.unreadable.empty()) {
      term.explanation = view.unreadable;
    } else {
      try {
        TermEvaluator evaluator(goal, view);
        const auto value = evaluator.eval(index);
        term.holds = value.has_value() && value->boolean;
        term.explanation = evaluator.explanation();
        term.sides = evaluator.sides_of(index);
        term.scenarios_read = evaluator.scenarios_read();
        term.reads_summary = evaluator.reads_summary();
      } catch (const std::exception& e) {  // a hand-built expression with a bad operand index
        term.explanation = fmt::format("cannot evaluate: {}", e.what());
      }
    }
    verdict.terms.push_back(std::move(term));
  }
  verdict.holds = !verdict.terms.empty() &&
                  std::all_of(verdict.terms.begin(), verdict.terms.end(), [](const GoalTerm& t) { return t.holds; });
  return verdict;
}

}  // namespace kseek
