// The worker process's entry points: one scenario job, a device probe, or jobs served one after another on a kept
// GPU session (see the header).
// It must never reply to the parent before the job's result file is written and what the job printed is flushed:
// the parent attributes printed bytes to the job whose reply follows them.
#include "kseek/core/worker/job_server.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "kseek/core/util/elapsed.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/sha256.hpp"
#include "kseek/core/worker/gpu_probe.hpp"
#include "kseek/core/worker/job_channel.hpp"
#include "scenario_runner.hpp"

namespace kseek {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

// Reads newline-terminated lines from a descriptor, a buffer at a time.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}
  // The next line without its newline; nullopt at end of input or on an error.
  std::optional<std::string> next() {
    for (;;) {
      if (const auto newline = buffer_.find('\n'); newline != std::string::npos) {
        std::string line = buffer_.substr(0, newline);
        buffer_.erase(0, newline + 1);
        return line;
      }
      char chunk[4096];
      const ssize_t n = ::read(fd_, chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return std::nullopt;
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buffer_;
};

}  // namespace

json ScenarioWorker::run(const ScenarioJob& job) {
  json result = run_job(job);
  result["worker_job"] = jobs_++;
  return result;
}

json ScenarioWorker::run_job(const ScenarioJob& job) {
  const auto started = Clock::now();
  if (session_ && job.device != device_) {
    usable_ = false;  // a scheduler bug, not the scenario's: said plainly, and the next job gets a fresh worker
    return verdict_result(Status::kNotRunnable, fmt::format("this GPU worker serves GPU {}, not GPU {}; the scenario "
                                                            "was not run",
                                                            device_, job.device));
  }
  if (!session_) {
    auto session = gpu::GpuSession::open(job.device);
    if (!session) {
      // The GPU, not the scenario, failed: the scheduler may give the scenario to another GPU.
      usable_ = false;
      json unusable = verdict_result(Status::kNotRunnable, session.error().message);
      unusable["gpu_unusable"] = true;
      unusable["worker_ended"] = "the GPU session could not be opened";
      return unusable;
    }
    session_ = std::move(*session);
    device_ = job.device;
  }
  auto known = plugins_.find(job.plugin_path);
  if (known == plugins_.end()) {
    // Hashed before it is loaded, once: a file replaced later is not the code this worker runs.
    auto library = read_file(job.plugin_path);
    auto loaded = registry_.load_file(job.plugin_path);
    if (!loaded) return verdict_result(Status::kNotRunnable, loaded.error().message);
    known =
        plugins_.emplace(job.plugin_path, LoadedLibrary{(*loaded)->plugin, library ? sha256_hex(*library) : ""}).first;
  }
  // The context, the harness's buffers and the plugin library: about nothing for every job after a worker's first.
  const double start_seconds = seconds_since(started);
  ScenarioRun run = run_scenario(job, *session_, *known->second.plugin, known->second.sha256);
  run.result["stage_seconds"]["worker_start"] = start_seconds;
  if (run.context_lost) {
    usable_ = false;
    run.result["worker_ended"] = "the scenario lost the CUDA context";
  } else {
    const auto cleanup_started = Clock::now();
    if (auto ended = session_->end_scenario(); !ended) {
      usable_ = false;
      run.result["worker_ended"] = "cleaning up after the scenario failed: " + ended.error().message;
    }
    run.result["stage_seconds"]["worker_cleanup"] = seconds_since(cleanup_started);
  }
  return run.result;
}

json ScenarioWorker::run_file(const std::string& path) {
  auto text = read_file(path);
  if (!text) return verdict_result(Status::kNotRunnable, text.error().message);
  try {
    return run(json::parse(*text).get<ScenarioJob>());
  } catch (const std::exception& e) {
    return verdict_result(Status::kNotRunnable, fmt::format("{}: {}", path, e.what()));
  }
}

json probe_device(int device) {
  GpuProbe probe;
  probe.ordinal = device;
  auto session = gpu::GpuSession::open(device);
  if (!session) {
    probe.problem = session.error().message;
    return to_json(probe);
  }
  probe.available = true;
  probe.unmodelled = identity_json((*session)->identity());
  if (auto bandwidth = (*session)->measure_copy_bandwidth(1ull << 30))
    probe.copy_bandwidth_bytes_per_second = *bandwidth;
  return to_json(probe);
}

int serve_scenario_jobs(int channel_fd) {
  ScenarioWorker worker;
  LineReader lines(channel_fd);
  while (auto line = lines.next()) {
    const auto files = parse_job_line(*line);
    if (!files) {
      std::cerr << "kseek __worker --serve: not a job line: " << *line << "\n";
      return 2;
    }
    const json result = worker.run_file(files->job.string());
    const bool written = static_cast<bool>(write_file_atomically(files->result, result.dump(2)));
    // Everything this job printed (a candidate's device printf goes through C stdio) reaches the pipe before the reply.
    std::cout.flush();
    std::fflush(nullptr);
    const bool again = written && worker.usable();
    if (!send_on_channel(channel_fd, std::string(again ? kReplyReady : kReplyExiting) + '\n') || !again)
      return written ? 0 : 1;
  }
  return 0;
}

}  // namespace kseek
