// Append-only JSON-lines record log: `<sha256 of JSON text> <JSON text>\n`, one fsynced record per append.
// It must never lose or rewrite an acknowledged record, and never silently drop a damaged line on read.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kseek/sdk/result.hpp"

namespace kseek {

// One record, with the fields its readers share read once where the line enters (leniently: a log outlives the kseek
// that wrote it, so a key that is missing or of another type reads as empty or 0). What only one reader needs (an
// evaluation's scenarios, a claim's text) stays in `value`.
struct LogRecord {
  std::size_t line = 0;  // 1-based line number in the log file
  nlohmann::json value;
  std::string type;  // init, config, evaluation, event, question, steer, claim, answer, ...
  std::string time;  // UTC, as written
  int number = 0;    // an evaluation's number
  // event: its name, what it says, and the evaluation it followed (0: raised by time); question: the event it answers
  std::string event;
  std::string detail;
  int evaluation = 0;
  // question: its id, pack, text and source ("bank", "human"); steer: its text; both: the steering number
  std::string id;
  std::string pack;
  std::string text;
  std::string source;
  int steer_id = 0;
  std::string via;   // question: who asked ("cli", "mcp", "run", "hook:<name>")
  std::string hook;  // hook: which hook wrote the line (stop, session-start, post-tool)
  std::string session_source;  // hook session-start: why the host started it (startup, resume, clear, compact)
};

// The record of one parsed line: `value` and the shared fields read from it.
LogRecord log_record(std::size_t line, nlohmann::json value);

struct DamagedLine {
  std::size_t line = 0;  // 1-based line number in the log file
  std::string reason;    // why the line is not a record (torn tail, checksum mismatch, ...)
  std::string excerpt;   // the first bytes of the line, for a person to look at
};

struct LogContents {
  std::vector<LogRecord> records;
  std::vector<DamagedLine> damaged;
};

// Appends one record under an exclusive flock; if the file ends in a torn line, a '\n' is written first so
// the record starts on its own line. Returns Ok only after fsync: only then is the record acknowledged.
// The file (not its parent folder) is created if missing.
Result<void> append_record(const std::filesystem::path& log, const nlohmann::json& record);

// Reads every line under a shared flock. Lines whose checksum matches are records; every other line is
// reported in `damaged`. A missing log reads as empty; only I/O failures are errors.
Result<LogContents> read_records(const std::filesystem::path& log);

}  // namespace kseek
