// Builds that run in another kseek process while this one goes on, handing their results back through the build
// cache: an evaluation builds its seed, the plugin's device library and the harness kernels beside its candidate
// instead of after it. The other process is kseek itself, started afresh (`kseek __build`): fork followed at once by
// exec is safe from a process with threads (the MCP server has three), where running build code in a plain fork of
// one is not. Nothing crosses back but which requests it built and how long each took; the caller then compiles the
// same requests itself, which reads the cache (or, where the other process failed, builds again and so gets the
// failure's own log). It must never let that process write to this one's stdin or stdout (under `kseek mcp` they
// carry JSON-RPC), nor outlive this one (its own compiler processes end at their CPU-time caps at the latest).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kseek/core/build/build_service.hpp"

namespace kseek {

// Below this many build threads a second build only takes cores from the first: on the 2-core development host the
// fa3-h200 candidate and the seed built side by side took 67.4 and 70.8 s against 66.3 and 66.9 s one after the other
// (2026-12-04). With many cores each build's slowest kernels leave the others idle, which the other build fills.
inline constexpr int kMinBuildThreadsBeside = 4;

// The nice value of the other process and its compilers (background_build.cpp says why not 19).
inline constexpr int kBesidePriority = 10;

class BackgroundBuild {
 public:
  // Starts `kseek_executable __build` on those of `requests` that `builds`' cache does not hold, one after the other
  // at nice kBesidePriority, when that is useful: there is a cache, something is not in it, and there are
  // kMinBuildThreadsBeside build threads or more. Otherwise starts nothing, and why_not() says why.
  static BackgroundBuild start(BuildService& builds, const std::vector<CompileRequest>& requests,
                               const std::filesystem::path& kseek_executable);

  BackgroundBuild(BackgroundBuild&& other) noexcept;
  BackgroundBuild& operator=(BackgroundBuild&&) = delete;
  BackgroundBuild(const BackgroundBuild&) = delete;
  BackgroundBuild& operator=(const BackgroundBuild&) = delete;
  ~BackgroundBuild();  // ends and reaps a process not waited for

  bool started() const { return pid_ > 0 || waited_; }
  // Why nothing was started, or why the process ended without an answer (its exit and first line of output).
  const std::string& why_not() const { return why_not_; }

  // Waits for the process (once; later calls return at once).
  void wait();
  // After wait(): the seconds the process spent compiling `request` when it built it (and so cached it, unless the
  // cache refused the store: the caller's compile then simply builds again); nullopt when it did not, and
  // why_not_built says why (not asked, failed, another process cached it first, the process ended early).
  std::optional<double> built_seconds(const CompileRequest& request) const;
  std::string why_not_built(const CompileRequest& request) const;

 private:
  struct Answer {
    bool built = false;
    double seconds = 0;
    std::string why_not;
  };
  BackgroundBuild() = default;
  pid_t pid_ = -1;
  int fd_ = -1;
  bool waited_ = false;
  std::filesystem::path request_file_;
  std::set<std::string> asked_;                  // cache keys of the requests handed over
  std::map<std::string, std::string> not_asked_;  // by cache key: the requests left here, and why
  std::map<std::string, Answer> answers_;         // by cache key: what the process said of each request it was given
  std::string why_not_;
};

// The other side, `kseek __build REQUESTS`: compiles each request of the file into the cache folder it names, writing
// one JSON line per request to `out` ({"cache_key", "built", "seconds", "why_not"}). Returns the process's exit code: 0
// when the file was read (whatever the builds did), 2 when it could not be.
int serve_background_builds(const std::filesystem::path& request_file, std::ostream& out);

}  // namespace kseek
