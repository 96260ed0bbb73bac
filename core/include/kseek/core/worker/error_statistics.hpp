// What the harness's compare kernel measures between an output `a` and what it is held against, `b`.
// It must never grow anything the compare kernel does not compute: it is the kernel's result, as a value.
#pragma once

#include <cstdint>

namespace kseek {

struct ErrorStatistics {
  double max_error = 0;         // max |a - b| over elements where a is finite
  double mean_error = 0;        // mean of the same
  std::uint64_t nonfinite = 0;  // elements of a that are NaN, or infinite where b is not the same infinity
  std::uint64_t count = 0;
  double max_abs_b = 0;  // max |b| over finite b: the output's magnitude, for rounding quanta
};

}  // namespace kseek
