// Build work run in a forked process under a deadline and an address-space cap: the one way a build step that may
// never yield (NVRTC's front end, ptxas, the linker) is started. It must never let the work outlive its deadline.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kseek {

using BuildClock = std::chrono::steady_clock;

struct CappedRun {
  enum class End { kFinished, kTimedOut, kOutOfMemory, kDied };
  End end = End::kDied;
  int exit_code = 0;     // the work's exit status when it finished, else the signal or status that ended it
  bool signaled = false;
  std::string output;    // what the work returned (in-process work) or printed on stdout and stderr (a program)
};

// Runs `work` in a forked child whose return value comes back through a pipe. The child's exit status is 0, or 3
// when it ran out of memory under the cap (std::bad_alloc).
CappedRun run_capped(const std::function<std::string()>& work, BuildClock::time_point deadline,
                     std::uint64_t memory_cap_bytes);

// Starts `argv` (argv[0] a path) in a child under the cap, its stdout and stderr captured together. The caller
// waits for it with wait_capped; several may run at once.
struct CappedProgram {
  int pid = -1;
  int output_fd = -1;
  std::string output;
};
CappedProgram start_capped(const std::vector<std::string>& argv, std::uint64_t memory_cap_bytes);

// Waits until one of `running` ends or the deadline passes; returns its index (its output read to the end and its
// result in `finished`), or -1 at the deadline, when every child still running has been killed.
int wait_any_capped(std::vector<CappedProgram>& running, BuildClock::time_point deadline, CappedRun& finished);

}  // namespace kseek
