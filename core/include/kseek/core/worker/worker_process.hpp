// Starting one `kseek __worker` process and reading back what it left: its result file, how it ended, and what it
// printed. It must never let the worker's standard output or error reach this process's own: a candidate's device
// printf would otherwise land in `kseek eval --json`'s document.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kseek {

// How much of a worker's standard output and error a result keeps: enough to read a candidate's debug print, never
// enough to bloat a record. The rest is counted, not kept.
inline constexpr std::size_t kWorkerOutputKeptBytes = 8 * 1024;

// Runs `executable __worker ARGUMENTS...`, waits at most `timeout_seconds`; the result file's JSON, or a CRASHED /
// TIMEOUT verdict naming what happened to the process. The worker's stdout and stderr go to a pipe this process
// drains while it waits; when the worker printed anything, the result gains "worker_output": {"bytes": total
// printed, "text": the first kWorkerOutputKeptBytes, as printable text, "truncated": whether text is shorter}.
nlohmann::json run_worker(const std::filesystem::path& executable, const std::vector<std::string>& arguments,
                          const std::filesystem::path& result_file, double timeout_seconds);

// Bytes as text safe for a JSON record and a terminal: printable ASCII, newlines and tabs kept; anything else
// (control characters, invalid or multi-byte UTF-8) becomes '?'.
std::string printable_text(std::string_view bytes);

}  // namespace kseek
