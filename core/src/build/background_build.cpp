// fork, then the build service's own compile in the child (which forks its capped compiler processes as any build
// does), at the lowest priority, its time written to a pipe; the parent reads eight bytes and reaps. The child is
// killed with its parent. It must never run anything in the child but the compile and _exit.
#include "kseek/core/build/background_build.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "kseek/core/build/nvrtc_compiler.hpp"

namespace kseek {
namespace fs = std::filesystem;

int process_thread_count() {
  std::error_code ec;
  int threads = 0;
  for (fs::directory_iterator it("/proc/self/task", ec), end; !ec && it != end; it.increment(ec)) ++threads;
  return ec ? 0 : threads;
}

BackgroundBuild BackgroundBuild::start(BuildService& builds, const CompileRequest& request) {
  BackgroundBuild background;
  if (!builds.has_cache()) {
    background.why_not_ = "no build cache to hand the result back through";
    return background;
  }
  if (builds.cached(request)) {
    background.why_not_ = "already in the build cache";
    return background;
  }
  if (const int slots = build_threads(request.compile_threads); slots < kMinBuildThreadsBeside) {
    background.why_not_ = fmt::format("{} build thread{}: two builds at once would only share {}", slots,
                                      slots == 1 ? "" : "s", slots == 1 ? "it" : "them");
    return background;
  }
  if (const int threads = process_thread_count(); threads != 1) {
    background.why_not_ = threads == 0 ? "this process's threads cannot be counted (/proc/self/task)"
                                       : "this process runs " + std::to_string(threads) + " threads";
    return background;
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    background.why_not_ = std::string("pipe: ") + std::strerror(errno);
    return background;
  }
  // Above the standard descriptors: a parent started with 0 or 1 closed would otherwise get them back here, and the
  // child's /dev/null below would overwrite its end of the pipe.
  for (int& fd : fds) {
    if (fd > 2) continue;
    const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    ::close(fd);
    fd = moved;
  }
  if (fds[0] < 0 || fds[1] < 0) {
    for (const int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
    background.why_not_ = std::string("fcntl: ") + std::strerror(errno);
    return background;
  }
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    background.why_not_ = std::string("fork: ") + std::strerror(errno);
    return background;
  }
  if (child == 0) {
    ::close(fds[0]);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) _exit(2);  // the parent ended before the line above took effect
    // Nothing of the child may reach the parent's stdin or stdout: under `kseek mcp` they carry JSON-RPC.
    if (const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC); null >= 0) {
      ::dup2(null, 0);
      ::dup2(null, 1);
      if (null > 2) ::close(null);
    }
    // The lowest priority, for this child and the compilers it starts: the seed fills the cores the candidate's build
    // leaves idle and never slows it towards its own time limit.
    (void)::setpriority(PRIO_PROCESS, 0, 19);
    const auto started = std::chrono::steady_clock::now();
    bool built = false;
    try {
      const CompileOutput out = builds.compile(request);
      built = out.status == Status::kOk && !out.cache_hit;  // not a build when another process cached it meanwhile
    } catch (...) {
      built = false;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (built) (void)!::write(fds[1], &seconds, sizeof(seconds));
    _exit(built ? 0 : 1);  // never the parent's exit handlers or buffered output
  }
  ::close(fds[1]);
  background.pid_ = child;
  background.fd_ = fds[0];
  return background;
}

BackgroundBuild::BackgroundBuild(BackgroundBuild&& other) noexcept
    : pid_(other.pid_), fd_(other.fd_), why_not_(std::move(other.why_not_)) {
  other.pid_ = -1;
  other.fd_ = -1;
}

BackgroundBuild::~BackgroundBuild() { (void)wait(); }

std::optional<double> BackgroundBuild::wait() {
  if (pid_ <= 0) return std::nullopt;
  double seconds = 0.0;
  std::size_t got = 0;
  auto* bytes = reinterpret_cast<char*>(&seconds);
  while (got < sizeof(seconds)) {
    const ssize_t n = ::read(fd_, bytes + got, sizeof(seconds) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd_);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  fd_ = -1;
  const bool built = got == sizeof(seconds) && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!built) why_not_ = "the child did not build (it failed, or found the entry another process had just cached)";
  return built ? std::optional<double>(seconds) : std::nullopt;
}

}  // namespace kseek
