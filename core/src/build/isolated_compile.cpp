// fork + pipe + poll: the child compiles and streams an encoded CompileOutput; the parent reads until EOF
// or the deadline. NVRTC's own flow callback is also set in the child, but the front end does not always
// poll it (deep template recursion), so the process boundary is what makes the limit hold.
#include "kseek/core/build/isolated_compile.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "kseek/core/build/compile_diagnostics.hpp"
#include "kseek/core/build/compile_output_codec.hpp"
#include "kseek/core/build/nvrtc_compiler.hpp"

namespace kseek {
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void run_child(int write_fd, const CompileRequest& request, std::uint64_t memory_cap_bytes) {
  if (memory_cap_bytes > 0) {
    rlimit limit{memory_cap_bytes, memory_cap_bytes};
    setrlimit(RLIMIT_AS, &limit);
  }
  std::string bytes;
  try {
    bytes = encode_compile_output(compile_with_nvrtc(request));
  } catch (const std::bad_alloc&) {
    _exit(3);  // the parent reports the memory cap
  } catch (...) {
    _exit(4);
  }
  const char* data = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(write_fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(5);
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  _exit(0);
}

CompileOutput failure(const CompileRequest& request, std::string error, double seconds) {
  CompileOutput out;
  out.status = Status::kCompileError;
  out.error = std::move(error);
  out.options = nvrtc_options(request);
  out.nvrtc_version = nvrtc_version();
  out.seconds = seconds;
  return out;
}

}  // namespace

CompileOutput compile_isolated(const CompileRequest& request, std::uint64_t memory_cap_bytes) {
  const auto started = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - started).count(); };
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return failure(request, fmt::format("cannot create a pipe for the compiler process: {}", std::strerror(errno)), 0);
  }
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return failure(request, fmt::format("cannot start the compiler process: {}", std::strerror(errno)), 0);
  }
  if (child == 0) {
    ::close(fds[0]);
    run_child(fds[1], request, memory_cap_bytes);
  }
  ::close(fds[1]);

  // The child gets the request's limit plus a little grace for start-up and encoding.
  const auto deadline = started + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(request.timeout_seconds + 2.0));
  std::string bytes;
  bool timed_out = false;
  char buffer[1 << 16];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = ::read(fds[0], buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the child finished (or died)
    bytes.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(child, SIGKILL);
  int wait_status = 0;
  while (::waitpid(child, &wait_status, 0) < 0 && errno == EINTR) {
  }

  if (timed_out) {
    return failure(request, fmt::format("compiling {} exceeded the {:.0f} s compile time limit", request.source.name,
                                        request.timeout_seconds), elapsed());
  }
  if (WIFSIGNALED(wait_status) || (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) != 0)) {
    const bool out_of_memory = WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 3;
    if (out_of_memory || (WIFSIGNALED(wait_status) && memory_cap_bytes > 0 && WTERMSIG(wait_status) == SIGABRT)) {
      return failure(request, fmt::format("compiling {} exceeded the compiler memory cap of {} MiB",
                                          request.source.name, memory_cap_bytes >> 20), elapsed());
    }
    return failure(request, fmt::format("the compiler process for {} died ({} {})", request.source.name,
                                        WIFSIGNALED(wait_status) ? "signal" : "exit status",
                                        WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : WEXITSTATUS(wait_status)),
                   elapsed());
  }
  auto decoded = decode_compile_output(bytes);
  if (!decoded) {
    return failure(request, fmt::format("the compiler process for {} returned unreadable output: {}",
                                        request.source.name, decoded.error().message), elapsed());
  }
  decoded->diagnostics = parse_nvrtc_log(decoded->log, request.source, request.headers);
  decoded->seconds = elapsed();
  return std::move(*decoded);
}

}  // namespace kseek
