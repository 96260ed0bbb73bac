// Background writes of reference cache entries (reference_writer.hpp).
#include "kseek/core/worker/reference_writer.hpp"

#include <chrono>
#include <exception>
#include <utility>

#include "kseek/core/util/elapsed.hpp"

namespace kseek {

ReferenceWriter::~ReferenceWriter() { wait(); }

std::optional<ReferenceWriteOutcome> ReferenceWriter::start(ReferenceKey key, std::span<const std::byte> payload,
                                                            std::function<void()> wipe) {
  auto previous = wait();
  pending_ = std::async(std::launch::async, [this, key = std::move(key), payload, wipe = std::move(wipe)] {
    ReferenceWriteOutcome outcome;
    auto step = std::chrono::steady_clock::now();
    try {
      if (auto stored = cache_.store(key, payload); stored) {
        outcome.stored = true;
      } else {
        outcome.note = stored.error().message;
      }
    } catch (const std::exception& e) {  // a file system error the store did not turn into a Result
      outcome.note = std::string("storing references: ") + e.what();
    }
    outcome.file_seconds = seconds_since(step);
    step = std::chrono::steady_clock::now();
    if (wipe) wipe();
    outcome.wipe_seconds = seconds_since(step);
    return outcome;
  });
  return previous;
}

std::optional<ReferenceWriteOutcome> ReferenceWriter::wait() {
  if (!pending_.valid()) return std::nullopt;
  return pending_.get();
}

}  // namespace kseek
