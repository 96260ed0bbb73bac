// A build that runs in a child process while this process goes on, and hands its result back through the build
// cache: an evaluation builds its seed beside its candidate instead of after it. Nothing crosses back but whether the
// child built and how long it took; the caller then compiles the same request itself, which reads the cache (or, where
// the child failed, builds again and so gets the failure's own log). It must never fork a process with other threads,
// nor let the child write to the parent's stdin or stdout.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "kseek/core/build/build_service.hpp"

namespace kseek {

// Below this many build threads a second build only takes cores from the first: on the 2-core development host the
// fa3-h200 candidate and the seed built side by side took 67.4 and 70.8 s against 66.3 and 66.9 s one after the other
// (2026-12-04). With many cores each build's slowest kernels leave the others idle, which the other build fills.
inline constexpr int kMinBuildThreadsBeside = 4;

class BackgroundBuild {
 public:
  // Forks a child that compiles `request` into `builds`' cache, when that is safe and useful: there is a cache, the
  // request is not in it, there are kMinBuildThreadsBeside build threads or more, and this process has one thread (a
  // child forked from a threaded process may inherit a lock another thread held and wait on it forever; the build
  // service itself forks). Otherwise starts nothing, and why_not() says why.
  static BackgroundBuild start(BuildService& builds, const CompileRequest& request);

  BackgroundBuild(BackgroundBuild&& other) noexcept;
  BackgroundBuild& operator=(BackgroundBuild&&) = delete;
  BackgroundBuild(const BackgroundBuild&) = delete;
  BackgroundBuild& operator=(const BackgroundBuild&) = delete;
  ~BackgroundBuild();  // waits for a child still running

  bool started() const { return pid_ > 0; }
  const std::string& why_not() const { return why_not_; }

  // Waits for the child: its compile seconds when it compiled successfully (and so cached the result, unless the
  // cache refused the store: the caller's compile then simply builds again), nullopt when nothing was started, the
  // child failed (a failed build is never cached: the caller's own compile shows the failure) or another process
  // cached the entry first. Once only.
  std::optional<double> wait();

 private:
  BackgroundBuild() = default;
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string why_not_;
};

// How many threads this process runs now (/proc/self/task); 0 when that cannot be read.
int process_thread_count();

}  // namespace kseek
