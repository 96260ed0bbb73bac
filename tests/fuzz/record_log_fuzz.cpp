// Fuzz target: read_records on a log file holding arbitrary bytes (the line parser: digest, space, JSON, newline).
// An input whose first byte is 0x01 is "sealed" first: every line gets its correct digest, so the JSON behind the
// checksum gate is fuzzed too. It must never crash or throw, never drop, repeat or reorder a line, and never leave
// its temporary file behind.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "kseek/core/campaign/record_log.hpp"
#include "kseek/core/util/sha256.hpp"
#include "support/fuzz_target.hpp"

namespace kseek::fuzz {
namespace {

// One file per process, rewritten for every input and removed at exit.
class ScratchLog {
 public:
  ScratchLog() {
    const std::filesystem::path shm("/dev/shm");
    const auto folder = std::filesystem::is_directory(shm) ? shm : std::filesystem::temp_directory_path();
    path_ = folder / ("kseek-fuzz-record-log-" + std::to_string(::getpid()) + ".jsonl");
  }
  ~ScratchLog() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  const std::filesystem::path& write(std::string_view bytes) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path_;
  }

 private:
  std::filesystem::path path_;
};

// Each line of `lines` (a last line without '\n' included) as `<sha256> <line>\n`.
std::string seal(std::string_view lines) {
  std::string log;
  while (!lines.empty()) {
    const std::size_t end = lines.find('\n');
    const std::string_view line = lines.substr(0, end);
    log += sha256_hex(line);
    log += ' ';
    log += line;
    log += '\n';
    lines = end == std::string_view::npos ? std::string_view() : lines.substr(end + 1);
  }
  return log;
}

}  // namespace

int fuzz_record_log(const std::uint8_t* data, std::size_t size) {
  static ScratchLog log;
  std::string sealed;
  std::string_view bytes = as_text(data, size);
  if (size > 0 && data[0] == 0x01) {
    sealed = seal(bytes.substr(1));
    bytes = sealed;
  }
  const auto contents = read_records(log.write(bytes));
  if (!contents) violated("record_log", "an I/O error on a readable file");
  std::size_t lines = 0;
  for (char c : bytes) lines += c == '\n' ? 1 : 0;
  if (!bytes.empty() && bytes.back() != '\n') ++lines;  // a torn last line is still a line
  std::size_t previous = 0;
  for (const auto& r : contents->records) {
    if (r.line <= previous || r.line > lines) violated("record_log", "record line numbers out of order or range");
    previous = r.line;
  }
  previous = 0;
  for (const auto& d : contents->damaged) {
    if (d.line <= previous || d.line > lines) violated("record_log", "damaged line numbers out of order or range");
    if (d.reason.empty()) violated("record_log", "a damaged line without a reason");
    previous = d.line;
  }
  // Every line is either a record or a damaged line: none dropped, none counted twice.
  if (contents->records.size() + contents->damaged.size() != lines) violated("record_log", "entries != lines");
  return 0;
}

}  // namespace kseek::fuzz

KSEEK_FUZZ_ENTRY(fuzz_record_log)
