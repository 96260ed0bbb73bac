// Writes reference cache entries on a background thread, one at a time, so that the file step of a store (hashing,
// writing, the free-space check, eviction) runs while the GPU worker goes on with the next input set instead of
// before it. In a full-set run with an empty cache that step was two thirds of the cache's cost (docs/benchmarks.md).
// The payload stays the caller's memory until the write is done; the caller waits (wait) before it uses or frees
// that memory again, before any timed window, and before it reports the scenario.
// It must never run two writes at once, nor return from its destructor with a write still running.
#pragma once

#include <cstddef>
#include <functional>
#include <future>
#include <optional>
#include <span>
#include <string>

#include "kseek/core/worker/reference_cache.hpp"

namespace kseek {

// What one background store did.
struct ReferenceWriteOutcome {
  bool stored = false;
  std::string note;         // why it was not stored (a failed store is a note, never a verdict)
  double file_seconds = 0;  // the entry written (ReferenceCache::store)
  double wipe_seconds = 0;  // the payload's memory zeroed after it
};

class ReferenceWriter {
 public:
  explicit ReferenceWriter(const ReferenceCache& cache) : cache_(cache) {}
  ReferenceWriter(const ReferenceWriter&) = delete;
  ReferenceWriter& operator=(const ReferenceWriter&) = delete;
  ~ReferenceWriter();

  // Waits for the previous write (its outcome is kept for wait()), then starts writing `payload` under `key` on a
  // new thread; `wipe` runs on that thread once the entry is written or refused, and must zero the payload's memory.
  // Returns the previous write's outcome when there was one.
  std::optional<ReferenceWriteOutcome> start(ReferenceKey key, std::span<const std::byte> payload,
                                             std::function<void()> wipe);

  // Blocks until no write is running. The outcome of the write it waited for, if one was running or finished unread.
  std::optional<ReferenceWriteOutcome> wait();

  bool running() const { return pending_.valid(); }

 private:
  const ReferenceCache& cache_;
  std::future<ReferenceWriteOutcome> pending_;
};

}  // namespace kseek
