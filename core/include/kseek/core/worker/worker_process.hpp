// Starting `kseek __worker` processes and reading back what they left: result files, how they ended, and what they
// printed; one process per job (run_worker) or one that serves job after job (ServingWorker). It must never let a
// worker's standard output or error reach this process's own: a candidate's device printf would otherwise land in
// `kseek eval --json`'s document.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kseek/sdk/result.hpp"

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

// One `executable __worker ARGUMENTS...` process (ARGUMENTS include --serve) that runs scenario jobs one after
// another over the job channel (job_channel.hpp), started at the first job and again after any job that ended it: a
// crash or a timeout costs that job only (CRASHED / TIMEOUT, as with run_worker) and the next job starts in a fresh
// process; a worker that replies it is exiting (a lost context) is reaped before the next. What the worker prints
// while a job runs is that job's "worker_output". One per thread: it is not safe to share.
class ServingWorker {
 public:
  ServingWorker(std::filesystem::path executable, std::vector<std::string> arguments);
  ~ServingWorker();  // closes the channel (the worker ends) and reaps the process
  ServingWorker(const ServingWorker&) = delete;
  ServingWorker& operator=(const ServingWorker&) = delete;

  // Like run_worker: the result file's JSON, or a CRASHED / TIMEOUT verdict naming what happened to the process.
  nlohmann::json run(const std::filesystem::path& job_file, const std::filesystem::path& result_file,
                     double timeout_seconds);
  int processes_started() const { return processes_started_; }

 private:
  struct Process;
  Result<void> start();
  void stop(bool kill_now);
  // For a process already reaped: what it printed goes into `result`, its channel is closed and it is forgotten.
  nlohmann::json forget_process(nlohmann::json result);

  std::filesystem::path executable_;
  std::vector<std::string> arguments_;
  std::unique_ptr<Process> process_;
  int processes_started_ = 0;
};

// Bytes as text safe for a JSON record and a terminal: printable ASCII, newlines and tabs kept; anything else
// (control characters, invalid or multi-byte UTF-8) becomes '?'.
std::string printable_text(std::string_view bytes);

}  // namespace kseek
