// Locates NVRTC and ptxas complaints and fetches the line of source they point at.
// It must never guess a location: an unlocated message keeps line 0 and no source line.
#include "kseek/core/build/compile_diagnostics.hpp"

#include <algorithm>
#include <regex>
#include <sstream>

#include <fmt/format.h>

namespace kseek {
namespace {

std::string line_of(const std::string& text, int line_number) {
  std::istringstream lines(text);
  std::string line;
  for (int i = 1; std::getline(lines, line); ++i) {
    if (i == line_number) return line;
  }
  return {};
}

const std::string* text_of(const std::string& file, const SourceFile& source, const std::vector<SourceFile>& headers) {
  if (file == source.name) return &source.text;
  for (const auto& header : headers) {
    if (header.name == file) return &header.text;
  }
  return nullptr;
}

}  // namespace

std::vector<Diagnostic> parse_nvrtc_log(std::string_view log, const SourceFile& source,
                                        const std::vector<SourceFile>& headers) {
  // Front end: `file(12): error: ...`, `file(5): warning #177-D: ...`, `file(2): catastrophic error: ...`.
  static const std::regex kFrontEnd(R"(^(.+?)\((\d+)\): (catastrophic error|error|warning)[^:]*: (.*)$)");
  // Assembler: `ptxas fatal   : ...`, `ptxas error   : ...`.
  static const std::regex kPtxas(R"(^ptxas (fatal|error|warning)\s*: (.*)$)");
  std::vector<Diagnostic> diagnostics;
  std::istringstream lines{std::string(log)};
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_match(line, m, kFrontEnd)) {
      Diagnostic d;
      d.file = m[1].str();
      d.line = std::stoi(m[2].str());
      d.severity = m[3].str() == "warning" ? "warning" : "error";
      d.message = m[4].str();
      if (const auto* text = text_of(d.file, source, headers); text != nullptr) d.source_line = line_of(*text, d.line);
      diagnostics.push_back(std::move(d));
    } else if (std::regex_match(line, m, kPtxas)) {
      diagnostics.push_back(Diagnostic{.file = "ptxas",
                                       .line = 0,
                                       .severity = m[1].str() == "warning" ? "warning" : "error",
                                       .message = m[2].str(),
                                       .source_line = {}});
    }
  }
  // Errors first: the first diagnostic is the one a person should read.
  std::stable_partition(diagnostics.begin(), diagnostics.end(),
                        [](const Diagnostic& d) { return d.severity == "error"; });
  return diagnostics;
}

std::string format_diagnostic(const Diagnostic& d) {
  std::string out = d.line > 0 ? fmt::format("{}:{}: {}: {}", d.file, d.line, d.severity, d.message)
                               : fmt::format("{}: {}: {}", d.file, d.severity, d.message);
  if (!d.source_line.empty()) out += fmt::format("\n  {:>5} | {}", d.line, d.source_line);
  return out;
}

void to_json(nlohmann::json& j, const Diagnostic& v) {
  j = {{"file", v.file},
       {"line", v.line},
       {"severity", v.severity},
       {"message", v.message},
       {"source_line", v.source_line}};
}

}  // namespace kseek
