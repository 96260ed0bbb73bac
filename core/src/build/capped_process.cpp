// fork + pipe + poll under a deadline, with RLIMIT_AS and RLIMIT_CPU set in the child before any work. NVRTC's front
// end does not always poll its cancel callback (deep template recursion), so the process boundary is what makes a limit
// hold; the same boundary holds for ptxas and the linker.
#include "kseek/core/build/capped_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <new>

namespace kseek {
namespace {

// The address space this process already maps (/proc/self/statm: the first field is the size in pages), 0 when it
// cannot be read.
std::uint64_t mapped_bytes() {
  const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[128] = {};
  const ssize_t n = ::read(fd, text, sizeof(text) - 1);
  ::close(fd);
  if (n <= 0) return 0;
  std::uint64_t pages = 0;
  for (const char* c = text; *c >= '0' && *c <= '9'; ++c) pages = pages * 10 + static_cast<std::uint64_t>(*c - '0');
  return pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

// The cap bounds what the build step may add to the address space it inherits. An absolute limit would count the
// parent's mappings too: a process that had initialised the CUDA driver (tens of GB of reserved address space) got
// children that could not even map NVRTC's builtins library ("failed to open libnvrtc-builtins.so"; seen in a GPU
// test binary on an H200, 2026-12-02). kseek's own processes map a few hundred MB when they fork.
// A program about to exec starts from an empty address space: it gets the cap itself (inherited = false).
void cap_address_space(std::uint64_t memory_cap_bytes, bool inherited_mappings = true) {
  if (memory_cap_bytes == 0) return;
  const std::uint64_t inherited = inherited_mappings ? mapped_bytes() : 0;
  const std::uint64_t cap = inherited > UINT64_MAX - memory_cap_bytes ? UINT64_MAX : inherited + memory_cap_bytes;
  rlimit limit{cap, cap};
  setrlimit(RLIMIT_AS, &limit);
}

// RLIMIT_CPU: the kernel sends SIGXCPU at the soft limit (its default action ends the process) and SIGKILL at the
// hard one, two seconds later, for a child that ignores SIGXCPU.
void cap_cpu_time(double cpu_seconds) {
  if (!(cpu_seconds > 0.0)) return;
  const auto soft = static_cast<rlim_t>(std::ceil(cpu_seconds));
  rlimit limit{soft, soft + 2};
  setrlimit(RLIMIT_CPU, &limit);
}

int milliseconds_left(BuildClock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - BuildClock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 1000));
}

// Reads what is there; false at EOF or on an error that ends the stream.
bool read_some(int fd, std::string& into) {
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    into.append(buffer, static_cast<std::size_t>(n));
    return true;
  }
}

void reap(int pid, CappedRun& run) {
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  run.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                    static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
  if (WIFSIGNALED(status)) {
    run.signaled = true;
    run.exit_code = WTERMSIG(status);
    // An allocation refused under RLIMIT_AS ends C++ programs in std::terminate -> SIGABRT; RLIMIT_CPU sends SIGXCPU.
    run.end = run.exit_code == SIGABRT   ? CappedRun::End::kOutOfMemory
              : run.exit_code == SIGXCPU ? CappedRun::End::kTimedOut
                                         : CappedRun::End::kDied;
    return;
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.end = CappedRun::End::kFinished;
}

void write_all(int fd, const std::string& bytes) {
  const char* data = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(5);
    data += n;
    left -= static_cast<std::size_t>(n);
  }
}

// The body of a forked child that runs in-process work: caps first, then the work, its return value written to `fd`.
[[noreturn]] void run_work_in_child(int fd, const std::function<std::string()>& work, std::uint64_t memory_cap_bytes,
                                    double cpu_seconds) {
  cap_address_space(memory_cap_bytes);
  cap_cpu_time(cpu_seconds);
  std::string bytes;
  try {
    bytes = work();
  } catch (const std::bad_alloc&) {
    _exit(3);
  } catch (...) {
    _exit(4);
  }
  write_all(fd, bytes);
  _exit(0);
}

// A descriptor above the standard three (close-on-exec): a process started with 0, 1 or 2 closed would otherwise get
// one of them back, and a child's dup2 onto them would overwrite it.
int above_standard(int fd) {
  if (fd < 0 || fd > 2) return fd;
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  ::close(fd);
  return moved;
}

// A pipe (fds[0] to read, fds[1] for the child to write) and a forked child that dies with the thread that forked it
// (and so with this process): the child's pid (0 in the child), or -1 with both ends closed when either step fails.
pid_t fork_with_pipe(int (&fds)[2]) {
  if (::pipe2(fds, O_CLOEXEC) != 0) return -1;
  fds[0] = above_standard(fds[0]);
  fds[1] = above_standard(fds[1]);
  if (fds[0] < 0 || fds[1] < 0) {
    for (const int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
    return -1;
  }
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
  }
  if (child == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) _exit(127);  // the parent ended before the line above took effect
  }
  return child;
}

}  // namespace

CappedRun run_capped(const std::function<std::string()>& work, BuildClock::time_point deadline,
                     std::uint64_t memory_cap_bytes, double cpu_seconds) {
  CappedRun run;
  const CappedProgram child = start_capped_work(work, memory_cap_bytes, cpu_seconds);
  if (child.pid < 0) return run;
  // Unlike wait_any_capped, a run that reaches its deadline keeps what the child wrote and its CPU time.
  bool timed_out = false;
  for (;;) {
    if (BuildClock::now() >= deadline) {
      timed_out = true;
      break;
    }
    pollfd pfd{child.output_fd, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, milliseconds_left(deadline));
    if (ready <= 0) continue;
    if (!read_some(child.output_fd, run.output)) break;
  }
  ::close(child.output_fd);
  if (timed_out) ::kill(child.pid, SIGKILL);
  reap(child.pid, run);
  if (timed_out) {
    run.end = CappedRun::End::kTimedOut;
  } else if (run.end == CappedRun::End::kFinished && run.exit_code == 3 && memory_cap_bytes > 0) {
    run.end = CappedRun::End::kOutOfMemory;
  } else if (run.end == CappedRun::End::kOutOfMemory && memory_cap_bytes == 0) {
    run.end = CappedRun::End::kDied;
  }
  return run;
}

CappedProgram start_capped(const std::vector<std::string>& argv, std::uint64_t memory_cap_bytes, double cpu_seconds,
                           int nice) {
  CappedProgram program;
  if (argv.empty()) return program;
  // The argument vector is built before the fork: the child only calls what is safe after one.
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  int fds[2];
  const pid_t child = fork_with_pipe(fds);
  if (child < 0) return program;
  if (child == 0) {
    const int null_in = ::open("/dev/null", O_RDONLY);
    if (null_in >= 0) ::dup2(null_in, 0);
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    // Nothing else of the parent's: a descriptor another thread opened without close-on-exec stays there.
    (void)::close_range(3, ~0U, 0);
    if (nice != 0) (void)::setpriority(PRIO_PROCESS, 0, nice);
    cap_address_space(memory_cap_bytes, /*inherited_mappings=*/false);
    cap_cpu_time(cpu_seconds);
    ::execv(args[0], args.data());
    _exit(127);
  }
  ::close(fds[1]);
  program.pid = child;
  program.output_fd = fds[0];
  return program;
}

CappedProgram start_capped_work(const std::function<std::string()>& work, std::uint64_t memory_cap_bytes,
                                double cpu_seconds) {
  CappedProgram program;
  int fds[2];
  const pid_t child = fork_with_pipe(fds);
  if (child < 0) return program;
  if (child == 0) {
    ::close(fds[0]);
    run_work_in_child(fds[1], work, memory_cap_bytes, cpu_seconds);
  }
  ::close(fds[1]);
  program.pid = child;
  program.output_fd = fds[0];
  return program;
}

int wait_any_capped(std::vector<CappedProgram>& running, BuildClock::time_point deadline, CappedRun& finished) {
  for (;;) {
    if (BuildClock::now() >= deadline) {
      for (auto& program : running) {
        ::kill(program.pid, SIGKILL);
        ::close(program.output_fd);
        CappedRun ignored;
        reap(program.pid, ignored);
      }
      return -1;
    }
    std::vector<pollfd> fds;
    for (const auto& program : running) fds.push_back({program.output_fd, POLLIN, 0});
    const int ready = ::poll(fds.data(), fds.size(), milliseconds_left(deadline));
    if (ready <= 0) continue;
    for (std::size_t i = 0; i < running.size(); ++i) {
      if (fds[i].revents == 0) continue;
      if (read_some(running[i].output_fd, running[i].output)) continue;
      ::close(running[i].output_fd);
      finished = CappedRun{};
      finished.output = std::move(running[i].output);
      reap(running[i].pid, finished);
      return static_cast<int>(i);
    }
  }
}

}  // namespace kseek
