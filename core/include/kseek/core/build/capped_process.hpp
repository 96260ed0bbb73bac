// Build work run in a forked process under a CPU-time limit, a wall-clock deadline and an address-space cap: the one
// way a build step that may never yield (NVRTC's front end, ptxas, the linker) is started. It must never let the work
// outlive its deadline.
//
// Why CPU time: the compile time limit is there to stop a candidate that is too expensive to compile (template
// explosion), and CPU seconds measure that the same on an idle machine and on a loaded one. A wall-clock limit failed
// the FA3 seed's build (about 100 CPU-s) on a 2-core CI machine running two test binaries at once (302 s of wall time
// against 300). The wall-clock deadline stays as a backstop for a child that waits instead of computing.
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
  End end = End::kDied;  // kTimedOut: the wall deadline passed or the CPU limit was reached (SIGXCPU)
  int exit_code = 0;     // the work's exit status when it finished, else the signal or status that ended it
  bool signaled = false;
  std::string output;        // what the work returned (in-process work) or printed on stdout and stderr (a program)
  double cpu_seconds = 0.0;  // user and system CPU time the child used, as the operating system accounted it
};

// The wall-clock backstop of a step limited to S CPU-seconds: S times this (a step that computes on one core under the
// load of three others still finishes; one that waits is still ended).
inline constexpr double kWallSecondsPerCpuSecond = 4.0;

// Runs `work` in a forked child whose return value comes back through a pipe. The child's exit status is 0, or 3
// when it ran out of memory under the cap (std::bad_alloc). cpu_seconds > 0 limits the child's CPU time (RLIMIT_CPU,
// whole seconds, rounded up; all its threads together).
CappedRun run_capped(const std::function<std::string()>& work, BuildClock::time_point deadline,
                     std::uint64_t memory_cap_bytes, double cpu_seconds = 0.0);

// Starts `argv` (argv[0] a path) in a child under the cap, its stdin /dev/null, its stdout and stderr captured
// together, no other descriptor of this process open in it, at `nice` (0: this process's priority). The caller waits
// for it with wait_any_capped; several may run at once. Every child of this file, program or work, is killed when the
// thread that started it ends, and so with this process. Safe from a process with threads: only system calls run
// between the fork and the exec.
struct CappedProgram {
  int pid = -1;
  int output_fd = -1;
  std::string output;
};
CappedProgram start_capped(const std::vector<std::string>& argv, std::uint64_t memory_cap_bytes,
                           double cpu_seconds = 0.0, int nice = 0);

// Starts `work` in a forked child under the cap, like run_capped, without waiting: its return value is the child's
// output, read by wait_any_capped beside programs'. Exit status 3: it ran out of memory under the cap.
CappedProgram start_capped_work(const std::function<std::string()>& work, std::uint64_t memory_cap_bytes,
                                double cpu_seconds = 0.0);

// Waits until one of `running` ends or the deadline passes; returns its index (its output read to the end and its
// result in `finished`), or -1 at the deadline, when every child still running has been killed.
int wait_any_capped(std::vector<CappedProgram>& running, BuildClock::time_point deadline, CappedRun& finished);

}  // namespace kseek
