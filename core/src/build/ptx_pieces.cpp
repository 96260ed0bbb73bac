// Cutting NVRTC's PTX into one piece per kernel, and joining the PTX nvJitLink generates kernel by kernel: a reader of
// a module's top-level statements (it never looks inside a function body except for the names it calls) and the rules
// that keep every variable defined once.
#include "kseek/core/build/ptx_pieces.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include <fmt/format.h>

namespace kseek {
namespace {

enum class StatementKind { kDirective, kSection, kEntry, kFunction, kDeclaration, kVariable, kSharedVariable };

struct Statement {
  StatementKind kind = StatementKind::kDeclaration;
  std::string text;  // as NVRTC wrote it, comments included
  std::string name;  // kernels and functions
};

bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

std::string without_comments(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "//") == 0) {
      const auto end = text.find('\n', i);
      if (end == std::string_view::npos) break;
      i = end - 1;
    } else if (text.compare(i, 2, "/*") == 0) {
      const auto end = text.find("*/", i + 2);
      if (end == std::string_view::npos) break;
      i = end + 1;
      out += ' ';
    } else {
      out += text[i];
    }
  }
  const auto first = out.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  return out.substr(first, out.find_last_not_of(" \t\r\n") - first + 1);
}

// The words of a statement's head: what comes before its body or parameter list.
std::vector<std::string> head_words(const std::string& code) {
  const auto end = code.find_first_of("({=;[");
  std::vector<std::string> words;
  std::string word;
  for (char c : code.substr(0, end)) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

bool has_word(const std::vector<std::string>& words, std::string_view word) {
  for (const auto& w : words) {
    if (w == word) return true;
  }
  return false;
}

bool starts_with_directive(const std::string& code) {
  for (std::string_view d : {".version", ".target", ".address_size", ".file"}) {
    if (code.rfind(d, 0) == 0 && (code.size() == d.size() || !is_identifier_char(code[d.size()]))) return true;
  }
  return false;
}

// The name a `.func` statement defines: after `.func`, an optional return-parameter list in parentheses, then the
// name. `.func (.param .b32 func_retval0) _Z3fooi(...)` and `.func _Z3barv()` both name their function.
std::string function_name(const std::string& code) {
  auto at = code.find(".func");
  if (at == std::string::npos) return {};
  at += 5;
  while (at < code.size() && (code[at] == ' ' || code[at] == '\t' || code[at] == '\n' || code[at] == '\r')) ++at;
  if (at < code.size() && code[at] == '(') {
    at = code.find(')', at);
    if (at == std::string::npos) return {};
    ++at;
  }
  while (at < code.size() && !is_identifier_char(code[at])) ++at;
  std::size_t end = at;
  while (end < code.size() && is_identifier_char(code[end])) ++end;
  return code.substr(at, end - at);
}

std::string entry_name(const std::vector<std::string>& words) {
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == ".entry") return words[i + 1];
  }
  return {};
}

Statement classify(std::string text) {
  Statement s;
  const std::string code = without_comments(text);
  const auto words = head_words(code);
  const bool has_body = code.find('{') != std::string::npos && code.find('=') > code.find('{');
  if (starts_with_directive(code)) {
    s.kind = StatementKind::kDirective;
  } else if (code.rfind(".section", 0) == 0) {
    s.kind = StatementKind::kSection;
  } else if (has_word(words, ".entry")) {
    s.kind = has_body ? StatementKind::kEntry : StatementKind::kDeclaration;
    s.name = entry_name(words);
  } else if (has_word(words, ".func")) {
    s.kind = has_body ? StatementKind::kFunction : StatementKind::kDeclaration;
    s.name = function_name(code);
  } else if (has_word(words, ".extern")) {
    s.kind = StatementKind::kDeclaration;
  } else if (has_word(words, ".shared")) {
    s.kind = StatementKind::kSharedVariable;
  } else if (has_word(words, ".global") || has_word(words, ".const")) {
    s.kind = StatementKind::kVariable;
  } else {
    s.kind = StatementKind::kDeclaration;  // .pragma and anything else at module scope: kept in every piece
  }
  s.text = std::move(text);
  return s;
}

// Top-level statements: a directive line, a `;`-terminated declaration (an initializer's braces included), or a
// head followed by a `{...}` body (kernels, functions, sections).
Result<std::vector<Statement>> read_statements(std::string_view ptx) {
  std::vector<Statement> statements;
  std::size_t start = 0;
  std::size_t first_code = std::string_view::npos;  // where the current statement's code (not comments) begins
  int depth = 0;
  bool initializer = false;  // an `=` seen at depth 0: braces that follow hold values, not a body
  auto emit = [&](std::size_t end) {
    std::string text(ptx.substr(start, end - start));
    if (first_code != std::string_view::npos) statements.push_back(classify(std::move(text)));
    start = end;
    first_code = std::string_view::npos;
    initializer = false;
  };
  for (std::size_t i = 0; i < ptx.size(); ++i) {
    const char c = ptx[i];
    if (ptx.compare(i, 2, "//") == 0) {
      const auto end = ptx.find('\n', i);
      if (end == std::string_view::npos) break;
      i = end - 1;  // the newline itself may end a directive
      continue;
    }
    if (ptx.compare(i, 2, "/*") == 0) {
      const auto end = ptx.find("*/", i + 2);
      if (end == std::string_view::npos) return make_error("PTX has an unterminated /* comment");
      i = end + 1;
      continue;
    }
    if (first_code == std::string_view::npos && c != ' ' && c != '\t' && c != '\r' && c != '\n') first_code = i;
    if (c == '"') {
      const auto end = ptx.find('"', i + 1);
      if (end == std::string_view::npos) return make_error("PTX has an unterminated string");
      i = end;
      continue;
    }
    if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (--depth < 0) return make_error(fmt::format("PTX has an unbalanced '}}' at byte {}", i));
      if (depth == 0 && !initializer) emit(i + 1);
    } else if (depth == 0 && c == '=') {
      initializer = true;
    } else if (depth == 0 && c == ';') {
      emit(i + 1);
    } else if (depth == 0 && c == '\n' && first_code != std::string_view::npos &&
               starts_with_directive(std::string(ptx.substr(first_code, std::min<std::size_t>(i - first_code, 16))))) {
      emit(i + 1);
    }
  }
  if (depth != 0) return make_error("PTX ends inside a '{' block");
  emit(ptx.size());
  return statements;
}

// `.visible .global .align 4 .u32 x = 1;` -> `.extern .global .align 4 .u32 x;`
std::string as_extern_declaration(const std::string& text) {
  std::string code = without_comments(text);
  if (const auto eq = code.find('='); eq != std::string::npos)
    code = code.substr(0, code.find_last_not_of(" \t\r\n", eq - 1) + 1) + ";";
  static const std::regex kLinkage(R"(^\s*\.(visible|weak|common)\s+)");
  code = std::regex_replace(code, kLinkage, "");
  return ".extern " + code;
}

// A module-internal variable becomes visible so that the kernel pieces' `.extern` declarations resolve to it.
std::string as_shared_definition(const std::string& text) {
  std::string code = without_comments(text);
  const auto words = head_words(code);
  if (has_word(words, ".visible") || has_word(words, ".weak") || has_word(words, ".common")) return code;
  return ".visible " + code;
}

std::set<std::string> identifiers_in(const std::string& text) {
  std::set<std::string> names;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!is_identifier_char(text[i])) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && is_identifier_char(text[end])) ++end;
    names.emplace(text.substr(i, end - i));
    i = end;
  }
  return names;
}

// The name a variable or declaration statement declares: the last identifier before its initializer, array
// bounds or end (`.extern .shared .align 16 .b8 smem[];` declares smem). Empty when there is none.
std::string declared_name(const Statement& s) {
  const std::string code = without_comments(s.text);
  if (s.kind == StatementKind::kDeclaration) {
    const auto words = head_words(code);
    if (has_word(words, ".func")) return function_name(code);
    if (has_word(words, ".entry")) return entry_name(words);
    bool declares_state = false;
    for (std::string_view space :
         {".global", ".const", ".shared", ".local", ".tex", ".texref", ".samplerref", ".surfref"}) {
      declares_state = declares_state || has_word(words, space);
    }
    if (!declares_state) return {};  // .pragma and the like hold for the whole module: kept everywhere
  }
  auto end = code.find_first_of("=[;");
  if (end == std::string::npos) end = code.size();
  while (end > 0 && !is_identifier_char(code[end - 1])) --end;
  auto begin = end;
  while (begin > 0 && is_identifier_char(code[begin - 1])) --begin;
  return code.substr(begin, end - begin);
}

// A section keeps only the labelled blocks its piece's code names (for -lineinfo: the `.debug_str` strings its
// `.loc ... function_name` lines point at), so that the linked cubin does not carry every string once per kernel.
std::string section_for(const std::string& text, const std::set<std::string>& referenced) {
  const auto open = text.find('{');
  const auto close = text.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return text;
  std::string kept = text.substr(0, open + 1);
  bool keeping = true;
  std::size_t start = open + 1;
  while (start < close) {
    auto end = text.find('\n', start);
    if (end == std::string::npos || end > close) end = close;
    const std::string line = text.substr(start, end - start);
    const auto first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line.back() == ':' && is_identifier_char(line[first])) {
      keeping = referenced.count(line.substr(first, line.size() - 1 - first)) != 0;
    }
    if (keeping) kept += line + "\n";
    start = end + 1;
  }
  return kept + text.substr(close);
}

// Which functions a text reaches through calls (and function addresses): the functions it names, then theirs.
class CallGraph {
 public:
  explicit CallGraph(const std::vector<Statement>& statements) {
    for (const auto& s : statements) {
      if (s.kind == StatementKind::kFunction) functions_[s.name] = &s;
    }
  }

  bool defines(const std::string& name) const { return functions_.count(name) != 0; }
  const Statement& function(const std::string& name) const { return *functions_.at(name); }

  std::set<std::string> reached_from(const std::string& text) {
    std::set<std::string> reached;
    std::vector<std::string> todo;
    for (const auto& name : identifiers_in(text)) {
      if (defines(name)) todo.push_back(name);
    }
    while (!todo.empty()) {
      const std::string name = todo.back();
      todo.pop_back();
      if (!reached.insert(name).second) continue;
      auto [it, fresh] = callees_.try_emplace(name);
      if (fresh) {
        for (const auto& callee : identifiers_in(function(name).text)) {
          if (callee != name && defines(callee)) it->second.insert(callee);
        }
      }
      for (const auto& callee : it->second) todo.push_back(callee);
    }
    return reached;
  }

 private:
  std::map<std::string, const Statement*> functions_;
  std::map<std::string, std::set<std::string>> callees_;  // function -> the functions its text names
};

// A function reached from several pieces is assembled in each; two linked copies of a visible one would collide, so
// each copy is weak and the linker keeps one.
std::string function_text(const Statement& s) {
  std::string text = s.text;
  if (without_comments(text).rfind(".visible", 0) == 0) text.replace(text.find(".visible"), 8, ".weak");
  return text;
}

}  // namespace

Result<std::vector<PtxPiece>> split_ptx_by_kernel(std::string_view ptx) {
  auto statements = read_statements(ptx);
  if (!statements) return statements.error();
  for (const auto& s : *statements) {
    if (s.kind == StatementKind::kEntry && s.name.empty()) return make_error("PTX has a kernel without a name");
  }
  CallGraph graph(*statements);
  auto reached_from = [&](const std::string& text) { return graph.reached_from(text); };

  std::vector<PtxPiece> pieces;
  std::string variables_initializers;
  bool has_variables = false;
  for (const auto& s : *statements) {
    if (s.kind == StatementKind::kVariable) {
      has_variables = true;
      variables_initializers += s.text;
    }
  }
  if (has_variables) {
    // Functions a variable's initializer names (tables of function pointers) are defined next to it.
    const auto reached = reached_from(variables_initializers);
    PtxPiece piece;
    for (const auto& s : *statements) {
      switch (s.kind) {
        case StatementKind::kDirective:
        case StatementKind::kDeclaration: piece.ptx += s.text; break;
        case StatementKind::kVariable: piece.ptx += "\n" + as_shared_definition(s.text); break;
        case StatementKind::kFunction:
          if (reached.count(s.name) != 0) {
            piece.ptx += function_text(s);
            piece.code_bytes += s.text.size();
          }
          break;
        default: break;
      }
    }
    piece.ptx += "\n";
    pieces.push_back(std::move(piece));
  }
  for (const auto& kernel : *statements) {
    if (kernel.kind != StatementKind::kEntry) continue;
    const auto reached = reached_from(kernel.text);
    std::set<std::string> referenced = identifiers_in(kernel.text);
    for (const auto& name : reached) {
      for (auto& identifier : identifiers_in(graph.function(name).text)) referenced.insert(std::move(identifier));
    }
    PtxPiece piece;
    piece.kernel = kernel.name;
    for (const auto& s : *statements) {
      switch (s.kind) {
        case StatementKind::kDirective: piece.ptx += s.text; break;
        // Only what the kernel's code names: the rest would be parsed by ptxas and embedded with the PTX text
        // (-lineinfo) once per kernel for nothing.
        case StatementKind::kDeclaration:
        case StatementKind::kSharedVariable:
          if (const auto name = declared_name(s); name.empty() || referenced.count(name) != 0) piece.ptx += s.text;
          break;
        case StatementKind::kSection: piece.ptx += section_for(s.text, referenced); break;
        case StatementKind::kVariable:
          if (referenced.count(declared_name(s)) != 0) piece.ptx += "\n" + as_extern_declaration(s.text);
          break;
        case StatementKind::kFunction:
          if (reached.count(s.name) != 0) {
            piece.ptx += function_text(s);
            piece.code_bytes += s.text.size();
          }
          break;
        case StatementKind::kEntry:
          if (&s == &kernel) {
            piece.ptx += s.text;
            piece.code_bytes += s.text.size();
          }
          break;
      }
    }
    piece.ptx += "\n";
    pieces.push_back(std::move(piece));
  }
  if (pieces.empty() || (has_variables && pieces.size() == 1)) return make_error("PTX defines no kernel");
  return pieces;
}

Result<std::vector<PtxKernel>> ptx_kernels(std::string_view ptx) {
  auto statements = read_statements(ptx);
  if (!statements) return statements.error();
  CallGraph graph(*statements);
  std::vector<PtxKernel> kernels;
  for (const auto& s : *statements) {
    if (s.kind != StatementKind::kEntry) continue;
    if (s.name.empty()) return make_error("PTX has a kernel without a name");
    PtxKernel kernel{s.name, s.text.size()};
    for (const auto& name : graph.reached_from(s.text)) kernel.code_bytes += graph.function(name).text.size();
    kernels.push_back(std::move(kernel));
  }
  if (kernels.empty()) return make_error("PTX defines no kernel");
  return kernels;
}

Result<PtxPiece> kernel_piece(std::string_view module, const std::string& kernel) {
  auto pieces = split_ptx_by_kernel(module);
  if (!pieces) return make_error(fmt::format("cannot read the PTX of kernel {}: {}", kernel, pieces.error().message));
  std::optional<PtxPiece> found;
  for (auto& piece : *pieces) {
    if (piece.kernel.empty()) continue;
    // nvJitLink's -kernels-used=NAME keeps every kernel whose name begins with NAME (NVRTC and nvJitLink 13.0: asked
    // for kseek_fa3_ws_fp16_d64, it kept kseek_fa3_ws_fp16_d64_n192 too). That kernel has a piece of its own from its
    // own module; here it is only left out.
    if (piece.kernel.size() > kernel.size() && piece.kernel.starts_with(kernel)) continue;
    if (piece.kernel != kernel) {
      return make_error(fmt::format("the PTX generated for kernel {} holds kernel {} too", kernel, piece.kernel));
    }
    found = std::move(piece);
  }
  if (!found) return make_error(fmt::format("the PTX generated for kernel {} does not define it", kernel));
  return std::move(*found);
}

Result<std::optional<PtxPiece>> shared_variables_piece(const std::vector<KernelModule>& modules) {
  PtxPiece piece;
  std::map<std::string, std::pair<std::string, std::string>> variables;  // name -> definition, first kernel
  std::map<std::string, std::pair<std::string, std::string>> functions;  // name -> text, first kernel
  std::set<std::string> declarations;
  bool directives_taken = false;
  auto same_everywhere = [](auto& seen, const std::string& name, const std::string& text, const std::string& kernel,
                            std::string_view what) -> Result<bool> {
    auto [it, fresh] = seen.try_emplace(name, text, kernel);
    if (fresh) return true;
    if (it->second.first == text) return false;
    return make_error(fmt::format("{} {} is defined one way in the PTX of kernel {} and another in that of kernel {}",
                                  what, name, it->second.second, kernel));
  };
  for (const auto& module : modules) {
    auto statements = read_statements(module.ptx);
    if (!statements) {
      return make_error(fmt::format("cannot read the PTX of kernel {}: {}", module.kernel, statements.error().message));
    }
    CallGraph graph(*statements);
    std::string initializers;
    for (const auto& s : *statements) {
      if (s.kind == StatementKind::kVariable) initializers += s.text;
    }
    // Functions a variable's initializer names (tables of function pointers) are defined next to it.
    const auto reached = graph.reached_from(initializers);
    std::set<std::string> referenced = identifiers_in(initializers);
    for (const auto& name : reached) {
      for (auto& identifier : identifiers_in(graph.function(name).text)) referenced.insert(std::move(identifier));
    }
    for (const auto& s : *statements) {
      switch (s.kind) {
        case StatementKind::kDirective:
          if (!directives_taken) piece.ptx += s.text;
          break;
        case StatementKind::kDeclaration: {
          const auto name = declared_name(s);
          if (!name.empty() && referenced.count(name) == 0) break;
          if (declarations.insert(name.empty() ? without_comments(s.text) : name).second) piece.ptx += s.text;
          break;
        }
        case StatementKind::kVariable: {
          const std::string definition = as_shared_definition(s.text);
          auto fresh = same_everywhere(variables, declared_name(s), definition, module.kernel, "variable");
          if (!fresh) return fresh.error();
          if (*fresh) piece.ptx += "\n" + definition;
          break;
        }
        case StatementKind::kFunction: {
          if (reached.count(s.name) == 0) break;
          const std::string text = function_text(s);
          auto fresh = same_everywhere(functions, s.name, text, module.kernel, "function");
          if (!fresh) return fresh.error();
          if (*fresh) {
            piece.ptx += text;
            piece.code_bytes += s.text.size();
          }
          break;
        }
        default: break;
      }
    }
    directives_taken = true;
  }
  if (variables.empty()) return std::optional<PtxPiece>();
  piece.ptx += "\n";
  return std::optional<PtxPiece>(std::move(piece));
}

}  // namespace kseek
