// Test support: runs a shell command and returns its exit code and standard output.
// It must never be used by product code: kseek starts its own processes with posix_spawn.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kseek::testing {

struct CommandRun {
  int exit_code = -1;
  std::string out;
};

inline CommandRun run_command(const std::string& command) {
  CommandRun run;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  if (!pipe) return run;
  char buffer[4096];
  while (std::fgets(buffer, sizeof(buffer), pipe.get()) != nullptr) run.out += buffer;
  const int status = ::pclose(pipe.release());
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

// `kseek ARGS` with a private build cache named after the suite; stderr kept only when asked.
inline CommandRun run_kseek(const std::string& args, const std::string& cache_name, bool merge_stderr = false) {
  return run_command("KSEEK_CACHE_DIR=\"${TMPDIR:-/tmp}/kseek-" + cache_name + "-cache\" '" + std::string(KSEEK_EXE) +
                     "' " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null"));
}

// The JSON document a command printed; when it printed none, a test failure naming `what` and an empty object.
inline nlohmann::json json_output(const CommandRun& run, const std::string& what) {
  try {
    return nlohmann::json::parse(run.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << " printed no JSON (" << e.what() << "):\n" << run.out;
    return nlohmann::json::object();
  }
}

}  // namespace kseek::testing
