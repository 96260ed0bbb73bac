// Seconds on the steady clock since a time point: how every stage timer of kseek reads its clock.
#pragma once

#include <chrono>

namespace kseek {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace kseek
