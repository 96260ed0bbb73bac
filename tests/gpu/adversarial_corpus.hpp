// Test support: reads an adversarial corpus file's header (`// expect: STATUS why`, then optional `// scenarios: a;b`
// and `// constraints: {json}` lines) and lists a corpus folder. Shared by the GPU runs and the CPU (nvrtc) checks.
// It must never interpret a candidate's code: only the leading comment lines.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace kseek::testing {

struct CorpusExpectation {
  std::string status;       // PASSED, FAILED, TIMEOUT, CRASHED, LAUNCH_ERROR, COMPILE_ERROR, CONSTRAINT_VIOLATION...
  std::string why;          // the rest of the expect line
  std::string scenarios;    // ';'-separated scenario names, empty when the line is absent
  std::string constraints;  // a JSON object for --constraints, empty when the line is absent
};

// Empty status when the first line is not an expect line. Later header lines are read up to the first line that is
// not a `//` comment.
inline CorpusExpectation read_corpus_expectation(const std::filesystem::path& file) {
  static const std::regex kExpect(R"(^//\s*expect:\s*([A-Z_]+)\s*(.*)$)");
  static const std::regex kScenarios(R"(^//\s*scenarios:\s*(.*)$)");
  static const std::regex kConstraints(R"(^//\s*constraints:\s*(\{.*\})\s*$)");
  std::ifstream in(file);
  std::string line;
  CorpusExpectation e;
  std::smatch m;
  if (!std::getline(in, line) || !std::regex_match(line, m, kExpect)) return e;
  e.status = m[1].str();
  e.why = m[2].str();
  while (std::getline(in, line) && line.rfind("//", 0) == 0) {
    if (std::regex_match(line, m, kScenarios)) e.scenarios = m[1].str();
    if (std::regex_match(line, m, kConstraints)) e.constraints = m[1].str();
  }
  return e;
}

inline std::vector<std::string> corpus_files(const std::filesystem::path& folder) {
  std::vector<std::string> files;
  if (!std::filesystem::is_directory(folder)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() == ".cu") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The corpus files of `folder` as "folder/file.cu" paths relative to the adversarial root, so one parameter says
// both which plugin a file is for and where it is.
inline std::vector<std::string> corpus_entries(const std::filesystem::path& root, const std::string& folder) {
  std::vector<std::string> entries;
  for (const auto& file : corpus_files(root / folder)) entries.push_back(folder + "/" + file);
  return entries;
}

// attention_fa3/x.cu -> attention.fa3: a corpus folder is named after its plugin id, '.' written as '_'.
inline std::string plugin_of_entry(const std::string& entry) {
  std::string folder = entry.substr(0, entry.find('/'));
  const auto underscore = folder.find('_');
  if (underscore != std::string::npos) folder[underscore] = '.';
  return folder;
}

// A test name for an entry: the file's stem.
inline std::string entry_test_name(const std::string& entry) {
  const std::string file = entry.substr(entry.find('/') + 1);
  return file.substr(0, file.find('.'));
}

inline std::vector<std::string> split_scenarios(const std::string& list) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(';', start);
    if (end == std::string::npos) end = list.size();
    if (end > start) names.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return names;
}

// Writes `json` to a file named after `stem` in the temporary folder and returns its path.
inline std::filesystem::path write_constraints_file(const std::string& stem, const std::string& json) {
  const auto path = std::filesystem::temp_directory_path() / ("kseek-corpus-" + stem + "-constraints.json");
  std::ofstream(path) << json;
  return path;
}

// " --constraints 'FILE'" for a file whose header has a constraints line (written to a temporary file), else "".
inline std::string constraints_option(const std::filesystem::path& file, const CorpusExpectation& expected) {
  if (expected.constraints.empty()) return "";
  return " --constraints '" + write_constraints_file(file.stem().string(), expected.constraints).string() + "'";
}

}  // namespace kseek::testing
