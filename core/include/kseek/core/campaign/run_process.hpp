// The agent process of a campaign run: started in its own process group, waited for under a deadline and a stop
// request, terminated as a group (SIGTERM or the forwarded signal, then SIGKILL after a grace period).
// It must never leave a process of the group running when it reports the session over, and never use a shell.
#pragma once

#include <chrono>
#include <csignal>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kseek/sdk/result.hpp"

namespace kseek {

// Splits an agent command line (`kseek run --agent 'my-agent --flag "two words"'`) into words. The rule, documented
// in docs/campaigns-runner.md: words are separated by blanks; '...' keeps everything inside literally; "..." keeps
// everything inside, where \" and \\ stand for " and \; a backslash outside quotes keeps the next character. No
// variables, globs, pipes or redirections: nothing is expanded. An unterminated quote is an error.
Result<std::vector<std::string>> split_agent_command(std::string_view line);

struct AgentLaunch {
  std::vector<std::string> argv;         // argv[0] is looked up on PATH (of `environment`) when it has no '/'
  std::vector<std::string> environment;  // "KEY=VALUE" entries: the whole environment of the agent
  std::filesystem::path working_directory;
  std::filesystem::path stdin_file;   // empty: /dev/null
  std::filesystem::path output_file;  // stdout and stderr, appended
};

// Why a session ended: the agent exited (code or signal), or it was stopped for a deadline or a stop request.
struct AgentEnd {
  enum class Reason { kExited, kSignalled, kDeadline, kStopRequested };
  Reason reason = Reason::kExited;
  int code = 0;         // exit code (kExited) or signal number (kSignalled; the forwarded signal for kStopRequested)
  double seconds = 0;   // wall clock from start to the group being gone
  bool killed = false;  // the grace period ran out and the group got SIGKILL
};

// Stop requests arrive asynchronously (signal handlers set it); the waiter polls it. Zero: none.
using StopFlag = volatile std::sig_atomic_t;

class AgentProcess {
 public:
  // Starts the agent in a new process group. Fails (naming the program) when it cannot be executed.
  static Result<AgentProcess> start(const AgentLaunch& launch);

  // Waits until the agent exits, `deadline` passes or `*stop` becomes non-zero (the signal to forward). On a
  // deadline the group gets SIGTERM, on a stop request the signal in *stop; after `grace` it gets SIGKILL. A second
  // stop request (`*stop_count` growing) sends SIGKILL at once. Processes the agent left behind in its group are
  // terminated the same way after it exits.
  AgentEnd wait(std::optional<std::chrono::steady_clock::time_point> deadline, const StopFlag* stop,
                const StopFlag* stop_count, std::chrono::duration<double> grace);

  int pid() const { return pid_; }

 private:
  explicit AgentProcess(int pid) : pid_(pid), started_(std::chrono::steady_clock::now()) {}
  int pid_ = -1;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace kseek
