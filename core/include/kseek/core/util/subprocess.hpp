// Running a helper program and capturing what it prints (the campaign's `kseek eval` child, `sbatch`).
// It must never let the child read our stdin or inherit the capture pipe's read end.
#pragma once

#include <string>
#include <vector>

#include "kseek/sdk/result.hpp"

namespace kseek {

struct CapturedRun {
  int exit_status = 0;  // the exit code, or 128 + the signal that ended it
  std::string out;      // everything it wrote to stdout (stderr passes through to ours)
};

// argv[0] is the program's path. stdin is /dev/null.
Result<CapturedRun> run_capturing(const std::vector<std::string>& argv);

}  // namespace kseek
