// Starting one `kseek __worker` process, its watchdog, and the capture of what it prints.
// It must never let the worker's standard output or error reach this process's own, nor keep more of it than
// kWorkerOutputKeptBytes.
#include "kseek/core/worker/worker_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "kseek/core/util/files.hpp"
#include "kseek/core/worker/scenario_job.hpp"

extern char** environ;

namespace kseek {
namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

// The read end of the worker's stdout+stderr pipe: keeps the first bytes, counts all of them.
class OutputCapture {
 public:
  explicit OutputCapture(int fd) : fd_(fd) {}
  ~OutputCapture() {
    if (fd_ >= 0) ::close(fd_);
  }
  OutputCapture(const OutputCapture&) = delete;
  OutputCapture& operator=(const OutputCapture&) = delete;

  enum class Drained { kNothing, kSome, kClosed };

  // Waits up to `timeout_ms` for output and reads what is there, never blocking beyond that.
  Drained drain(int timeout_ms) {
    if (fd_ < 0) return Drained::kClosed;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return Drained::kNothing;
    Drained drained = Drained::kNothing;
    char buffer[65536];
    for (;;) {
      const ssize_t n = ::read(fd_, buffer, sizeof(buffer));
      if (n > 0) {
        total_ += static_cast<std::uint64_t>(n);
        if (kept_.size() < kWorkerOutputKeptBytes) {
          kept_.append(buffer,
                       std::min<std::size_t>(static_cast<std::size_t>(n), kWorkerOutputKeptBytes - kept_.size()));
        }
        drained = Drained::kSome;
        continue;
      }
      if (n == 0) {  // every writer is gone
        ::close(fd_);
        fd_ = -1;
        return Drained::kClosed;
      }
      return drained;  // EAGAIN: nothing more for now
    }
  }

  void add_to(json& result) const {
    if (total_ == 0 || !result.is_object()) return;
    result["worker_output"] = {
        {"bytes", total_}, {"text", printable_text(kept_)}, {"truncated", total_ > kept_.size()}};
  }

 private:
  int fd_;
  std::string kept_;
  std::uint64_t total_ = 0;
};

json read_result(const fs::path& result_file, int status) {
  if (auto text = read_file(result_file); text) {
    try {
      return json::parse(*text);
    } catch (const std::exception& e) {
      return verdict_result(Status::kCrashed, fmt::format("the GPU worker wrote an unreadable result ({})", e.what()));
    }
  }
  if (WIFSIGNALED(status)) {
    return verdict_result(Status::kCrashed, fmt::format("the GPU worker died with signal {} ({})", WTERMSIG(status),
                                                        strsignal(WTERMSIG(status))));
  }
  return verdict_result(Status::kCrashed,
                        fmt::format("the GPU worker exited with status {} without a result", WEXITSTATUS(status)));
}

}  // namespace

std::string printable_text(std::string_view bytes) {
  std::string text(bytes);
  for (char& c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (!(u == '\n' || u == '\t' || (u >= 0x20 && u < 0x7f))) c = '?';
  }
  return text;
}

json run_worker(const fs::path& executable, const std::vector<std::string>& arguments, const fs::path& result_file,
                double timeout_seconds) {
  std::vector<std::string> argv_storage = {executable.string(), "__worker"};
  argv_storage.insert(argv_storage.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::error_code ec;
  fs::remove(result_file, ec);

  // Close-on-exec on both ends, so workers started at once on other GPUs never inherit each other's pipes; dup2 in
  // the child clears the flag on its copies 1 and 2 only.
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return verdict_result(Status::kCrashed,
                          fmt::format("could not create a pipe for the GPU worker: {}", std::strerror(errno)));
  }
  OutputCapture capture(pipe_fds[0]);
  ::fcntl(pipe_fds[0], F_SETFL, ::fcntl(pipe_fds[0], F_GETFL) | O_NONBLOCK);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, executable.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawned != 0) {
    return verdict_result(Status::kCrashed, fmt::format("could not start the GPU worker {}", executable.string()));
  }

  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (Clock::now() >= deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      json timeout = verdict_result(
          Status::kTimeout,
          fmt::format("the scenario did not finish within {:.0f} s; the GPU worker was killed", timeout_seconds));
      (void)capture.drain(0);
      capture.add_to(timeout);
      return timeout;
    }
    // Waiting on the pipe paces the exit polling too: at most 20 ms between looks at the child.
    if (capture.drain(20) == OutputCapture::Drained::kClosed) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polling a child's exit, not synchronising data
    }
  }
  // What is still in the pipe. Bounded: a grandchild that kept the pipe open and goes on writing cannot hold the
  // evaluation here.
  for (int i = 0; i < 64 && capture.drain(0) == OutputCapture::Drained::kSome; ++i) {
  }
  json result = read_result(result_file, status);
  capture.add_to(result);
  return result;
}

}  // namespace kseek
