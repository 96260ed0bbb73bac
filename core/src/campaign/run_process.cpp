// The agent process of a campaign run (run_process.hpp): fork/exec into a fresh process group, a polling wait that
// honours a deadline and a stop request, and group termination. It must never run the command through a shell,
// and never return from wait() while the group it started still has a member it could signal.
#include "kseek/core/campaign/run_process.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include <fmt/format.h>

namespace kseek {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

Result<std::vector<std::string>> split_agent_command(std::string_view line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else if (c == '\'') {
      const std::size_t end = line.find('\'', i + 1);
      if (end == std::string_view::npos)
        return make_error(fmt::format("agent command: unterminated ' at column {}", i + 1));
      word.append(line.substr(i + 1, end - i - 1));
      in_word = true;
      i = end;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < line.size() && line[j] != '"'; ++j) {
        if (line[j] == '\\' && j + 1 < line.size() && (line[j + 1] == '"' || line[j + 1] == '\\')) ++j;
        word.push_back(line[j]);
      }
      if (j >= line.size()) return make_error(fmt::format("agent command: unterminated \" at column {}", i + 1));
      in_word = true;
      i = j;
    } else if (c == '\\' && i + 1 < line.size()) {
      word.push_back(line[++i]);
      in_word = true;
    } else {
      word.push_back(c);
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  if (words.empty()) return make_error("agent command: empty");
  return words;
}

namespace {

std::string env_value(const std::vector<std::string>& environment, std::string_view key) {
  for (const auto& e : environment) {
    if (e.size() > key.size() && e.compare(0, key.size(), key) == 0 && e[key.size()] == '=')
      return e.substr(key.size() + 1);
  }
  return "";
}

bool is_executable_file(const fs::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

// argv[0] as execve needs it: a path as given, else the first executable of that name on the agent's PATH.
Result<std::string> resolve_program(const std::string& program, const std::vector<std::string>& environment,
                                    const fs::path& working_directory) {
  if (program.find('/') != std::string::npos) {
    const fs::path p = fs::path(program).is_absolute() ? fs::path(program) : working_directory / program;
    if (!is_executable_file(p))
      return make_error(fmt::format("the agent program {} is not an executable file", p.string()));
    return p.string();
  }
  const std::string path = env_value(environment, "PATH");
  std::size_t begin = 0;
  while (begin <= path.size()) {
    const std::size_t colon = std::min(path.find(':', begin), path.size());
    const std::string dir = path.substr(begin, colon - begin);
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / program;
    if (is_executable_file(candidate)) return candidate.string();
    begin = colon + 1;
  }
  return make_error(fmt::format("the agent program '{}' is not on PATH ({})", program, path));
}

bool group_alive(int pgid) { return ::kill(-pgid, 0) == 0 || errno == EPERM; }

// Waits up to `grace` for every member of the group to be gone (reaping the leader when it exits).
bool wait_group_gone(int pgid, bool& leader_reaped, int& status, Clock::time_point until) {
  for (;;) {
    if (!leader_reaped && ::waitpid(pgid, &status, WNOHANG) == pgid) leader_reaped = true;
    if (leader_reaped && !group_alive(pgid)) return true;
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polling process exit, not synchronising data
  }
}

}  // namespace

Result<AgentProcess> AgentProcess::start(const AgentLaunch& launch) {
  if (launch.argv.empty()) return make_error("agent command: empty");
  auto program = resolve_program(launch.argv.front(), launch.environment, launch.working_directory);
  if (!program) return program.error();
  // Everything the child touches is prepared before fork: after it only async-signal-safe calls run.
  std::vector<char*> argv, envp;
  for (const auto& a : launch.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : launch.environment) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const std::string stdin_path = launch.stdin_file.empty() ? std::string("/dev/null") : launch.stdin_file.string();
  const std::string output_path = launch.output_file.string();
  const std::string cwd = launch.working_directory.string();
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0)
    return make_error(fmt::format("cannot start {}: pipe: {}", *program, std::strerror(errno)));
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(report[0]);
    ::close(report[1]);
    return make_error(fmt::format("cannot start {}: fork: {}", *program, std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(report[0]);
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGPIPE, SIG_DFL);
    int err = 0;
    const int in = ::open(stdin_path.c_str(), O_RDONLY);
    const int out = output_path.empty() ? -1 : ::open(output_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (in < 0 || (!output_path.empty() && out < 0)) err = errno;
    if (err == 0 && ::dup2(in, STDIN_FILENO) < 0) err = errno;
    if (err == 0 && out >= 0 && (::dup2(out, STDOUT_FILENO) < 0 || ::dup2(out, STDERR_FILENO) < 0)) err = errno;
    if (err == 0 && !cwd.empty() && ::chdir(cwd.c_str()) != 0) err = errno;
    if (err == 0) {
      ::execve(program->c_str(), argv.data(), envp.data());
      err = errno;
    }
    (void)!::write(report[1], &err, sizeof(err));
    ::_exit(127);
  }
  ::close(report[1]);
  ::setpgid(pid, pid);  // also here: whichever of parent and child runs first, the group exists before any signal
  int child_errno = 0;
  ssize_t n;
  while ((n = ::read(report[0], &child_errno, sizeof(child_errno))) < 0 && errno == EINTR) {
  }
  ::close(report[0]);
  if (n == static_cast<ssize_t>(sizeof(child_errno))) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return make_error(fmt::format("cannot start the agent {} in {}: {}", *program, cwd, std::strerror(child_errno)));
  }
  return AgentProcess(pid);
}

AgentEnd AgentProcess::wait(std::optional<Clock::time_point> deadline, const StopFlag* stop, const StopFlag* stop_count,
                            std::chrono::duration<double> grace) {
  AgentEnd end;
  int status = 0;
  bool reaped = false;
  const auto grace_steady = std::chrono::duration_cast<Clock::duration>(grace);
  auto terminate = [&](int signal_number) {
    ::kill(-pid_, signal_number);
    const auto until = Clock::now() + grace_steady;
    for (;;) {
      if (wait_group_gone(pid_, reaped, status, std::min(until, Clock::now() + std::chrono::milliseconds(100)))) return;
      if (Clock::now() >= until || (stop_count != nullptr && *stop_count > 1)) break;  // a second Ctrl-C: no grace
    }
    end.killed = true;
    ::kill(-pid_, SIGKILL);
    (void)wait_group_gone(pid_, reaped, status, Clock::now() + std::chrono::seconds(10));
  };
  for (;;) {
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      reaped = true;
      end.reason = WIFSIGNALED(status) ? AgentEnd::Reason::kSignalled : AgentEnd::Reason::kExited;
      end.code = WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status);
      // What the agent left running in its group (a background evaluation, a server) must not outlive the session.
      if (group_alive(pid_)) terminate(SIGTERM);
      break;
    }
    if (stop != nullptr && *stop != 0) {
      end.reason = AgentEnd::Reason::kStopRequested;
      end.code = *stop;
      terminate(*stop);
      break;
    }
    if (deadline && Clock::now() >= *deadline) {
      end.reason = AgentEnd::Reason::kDeadline;
      end.code = SIGTERM;
      terminate(SIGTERM);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // polling the agent's exit, not synchronising data
  }
  if (!reaped) {
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  end.seconds = std::chrono::duration<double>(Clock::now() - started_).count();
  return end;
}

}  // namespace kseek
