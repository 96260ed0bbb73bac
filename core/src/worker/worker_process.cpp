// Starting one `kseek __worker` process, its watchdog, and the capture of what it prints.
// It must never let the worker's standard output or error reach this process's own, nor keep more of it than
// kWorkerOutputKeptBytes.
#include "kseek/core/worker/worker_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "kseek/core/util/files.hpp"
#include "kseek/core/worker/job_channel.hpp"
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

  // add_to, then starts counting afresh: a serving worker's output is attributed job by job.
  void move_to(json& result) {
    add_to(result);
    kept_.clear();
    total_ = 0;
  }

  // Everything still in the pipe, bounded: a grandchild that kept the pipe open and goes on writing cannot hold the
  // evaluation here.
  void drain_rest() {
    for (int i = 0; i < 64 && drain(0) == Drained::kSome; ++i) {
    }
  }

  int fd() const { return fd_; }

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

namespace {

// A started worker: its pid and the read end of its stdout+stderr pipe (non-blocking).
struct SpawnedWorker {
  pid_t pid = -1;
  int output_fd = -1;
};

// Starts `executable __worker ARGUMENTS...` with stdout and stderr into a fresh pipe, stdin from /dev/null and, when
// `channel_fd` >= 0, that descriptor as the worker's kJobChannelFd. An error names what could not be done.
Result<SpawnedWorker> spawn_worker(const fs::path& executable, const std::vector<std::string>& arguments,
                                   int channel_fd) {
  std::vector<std::string> argv_storage = {executable.string(), "__worker"};
  argv_storage.insert(argv_storage.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  // Close-on-exec on both ends, so workers started at once on other GPUs never inherit each other's pipes; dup2 in
  // the child clears the flag on its copies 1, 2 and kJobChannelFd only.
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return make_error(fmt::format("could not create a pipe for the GPU worker: {}", std::strerror(errno)));
  }
  ::fcntl(pipe_fds[0], F_SETFL, ::fcntl(pipe_fds[0], F_GETFL) | O_NONBLOCK);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (channel_fd >= 0) posix_spawn_file_actions_adddup2(&actions, channel_fd, kJobChannelFd);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, executable.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    return make_error(
        fmt::format("could not start the GPU worker {}: {}", executable.string(), std::strerror(spawned)));
  }
  return SpawnedWorker{pid, pipe_fds[0]};
}

json timeout_verdict(double timeout_seconds) {
  return verdict_result(Status::kTimeout, fmt::format("the scenario did not finish within {:.0f} s; the GPU worker "
                                                      "was killed",
                                                      timeout_seconds));
}

// Waits up to `seconds` for `pid` to end, then kills it; its exit status.
int reap(pid_t pid, double seconds) {
  int status = 0;
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  while (waitpid(pid, &status, WNOHANG) != pid) {
    if (Clock::now() >= deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // polling a child's exit, not synchronising data
  }
  return status;
}

}  // namespace

json run_worker(const fs::path& executable, const std::vector<std::string>& arguments, const fs::path& result_file,
                double timeout_seconds) {
  std::error_code ec;
  fs::remove(result_file, ec);
  auto spawned = spawn_worker(executable, arguments, -1);
  if (!spawned) return verdict_result(Status::kCrashed, spawned.error().message);
  OutputCapture capture(spawned->output_fd);
  const pid_t pid = spawned->pid;

  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (Clock::now() >= deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      json timeout = timeout_verdict(timeout_seconds);
      (void)capture.drain(0);
      capture.add_to(timeout);
      return timeout;
    }
    // Waiting on the pipe paces the exit polling too: at most 20 ms between looks at the child.
    if (capture.drain(20) == OutputCapture::Drained::kClosed) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polling a child's exit, not synchronising data
    }
  }
  capture.drain_rest();
  json result = read_result(result_file, status);
  capture.add_to(result);
  return result;
}

// ---- ServingWorker -------------------------------------------------------------------------------------------------

struct ServingWorker::Process {
  pid_t pid = -1;
  int channel = -1;  // the parent's end of the job socket
  std::unique_ptr<OutputCapture> output;
  std::string replies;  // bytes of the channel not yet consumed as a reply line
};

ServingWorker::ServingWorker(fs::path executable, std::vector<std::string> arguments)
    : executable_(std::move(executable)), arguments_(std::move(arguments)) {}

ServingWorker::~ServingWorker() { stop(false); }

void ServingWorker::stop(bool kill_now) {
  if (!process_) return;
  ::close(process_->channel);  // a serving worker ends when its channel closes
  if (kill_now) kill(process_->pid, SIGKILL);
  (void)reap(process_->pid, kill_now ? 0.0 : 5.0);
  process_.reset();
}

json ServingWorker::forget_process(json result) {
  process_->output->drain_rest();
  process_->output->move_to(result);
  ::close(process_->channel);
  process_.reset();
  return result;
}

Result<void> ServingWorker::start() {
  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0) {
    return make_error(fmt::format("could not create the GPU worker's job socket: {}", std::strerror(errno)));
  }
  auto spawned = spawn_worker(executable_, arguments_, sockets[1]);
  ::close(sockets[1]);
  if (!spawned) {
    ::close(sockets[0]);
    return spawned.error();
  }
  process_ = std::make_unique<Process>();
  process_->pid = spawned->pid;
  process_->channel = sockets[0];
  process_->output = std::make_unique<OutputCapture>(spawned->output_fd);
  ++processes_started_;
  return Ok{};
}

json ServingWorker::run(const fs::path& job_file, const fs::path& result_file, double timeout_seconds) {
  std::error_code ec;
  fs::remove(result_file, ec);
  const auto line = job_line({job_file, result_file});
  if (!line) {
    return verdict_result(Status::kCrashed, fmt::format("the job file {} or result file {} has a tab or newline in "
                                                        "its path",
                                                        job_file.string(), result_file.string()));
  }
  // A worker that ended on its own since its last job (it may have said so, or died idle) is replaced here: sending
  // to it fails, never raises SIGPIPE in this process.
  for (int attempt = 0;; ++attempt) {
    if (!process_) {
      if (auto started = start(); !started) return verdict_result(Status::kCrashed, started.error().message);
    }
    if (send_on_channel(process_->channel, *line)) break;
    stop(true);
    if (attempt == 1) return verdict_result(Status::kCrashed, "the GPU worker would not take a job");
  }

  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
  std::string reply;
  for (;;) {
    if (Clock::now() >= deadline) {
      kill(process_->pid, SIGKILL);
      (void)reap(process_->pid, 0.0);
      return forget_process(timeout_verdict(timeout_seconds));
    }
    pollfd fds[2] = {{process_->channel, POLLIN, 0}, {process_->output->fd(), POLLIN, 0}};
    ::poll(fds, process_->output->fd() >= 0 ? 2 : 1, 20);
    (void)process_->output->drain(0);
    if (fds[0].revents == 0) continue;
    char buffer[256];
    const ssize_t n = ::recv(process_->channel, buffer, sizeof(buffer), MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
    if (n <= 0) {  // the worker is gone without a reply: it died during the job
      const int status = reap(process_->pid, 5.0);
      return forget_process(read_result(result_file, status));
    }
    process_->replies.append(buffer, static_cast<std::size_t>(n));
    if (const auto newline = process_->replies.find('\n'); newline != std::string::npos) {
      reply = process_->replies.substr(0, newline);
      process_->replies.erase(0, newline + 1);
      break;
    }
  }
  // The worker flushed what the job printed before replying: all of it is in the pipe now.
  process_->output->drain_rest();
  json result;
  if (fs::exists(result_file)) {
    result = read_result(result_file, 0);
  } else {
    result = verdict_result(Status::kCrashed, "the GPU worker replied without writing a result");
  }
  process_->output->move_to(result);
  if (reply != kReplyReady) stop(false);  // kReplyExiting (or anything else): the next job gets a fresh worker
  return result;
}

}  // namespace kseek
