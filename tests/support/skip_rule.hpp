// Test support: the one rule for a test that cannot run here. Missing hardware (no GPU, a GPU of another
// architecture) is a skip everywhere; a missing tool, package or permission (chromium, the Slurm daemons, root) is a
// skip on a developer's machine and a failure under CI=true, where setup must have installed it.
// It must never turn a missing GPU into a failure, nor let CI pass a test that did not run for want of a package.
// tests/support/skip_rule.sh is the same rule for shell-driven tests.
#pragma once

#include <cstdlib>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace kseek::testing {

// CI=true (or 1): a CI run, where every tool a test needs must be there.
inline bool in_ci() {
  const char* ci = std::getenv("CI");
  if (ci == nullptr) return false;
  const std::string_view value = ci;
  return value == "true" || value == "TRUE" || value == "True" || value == "1";
}

}  // namespace kseek::testing

// Skips the test with `reason`, or fails it with that reason under CI=true. A macro, as GTEST_SKIP and FAIL are: both
// return from the test body or SetUp.
#define KSEEK_SKIP_OR_FAIL_FOR_MISSING_TOOL(reason)                                                           \
  do {                                                                                                        \
    const std::string kseek_missing_tool_reason_ = (reason);                                                  \
    if (::kseek::testing::in_ci()) {                                                                          \
      FAIL() << "CI=true: " << kseek_missing_tool_reason_                                                     \
             << " (under CI a test that cannot run for want of a tool or package fails instead of skipping)"; \
    }                                                                                                         \
    GTEST_SKIP() << kseek_missing_tool_reason_;                                                               \
  } while (false)
