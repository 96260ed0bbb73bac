// The seam between each fuzz target's entry function and its two drivers: libFuzzer (KSEEK_FUZZ=ON, clang with
// ASan + UBSan) and the seed-corpus replay test (label unit, any compiler; support/fuzz_corpus_replay.hpp). Test
// support for every tree's targets (tests/fuzz, plugins/<name>/tests/fuzz). It must never hold a target's logic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace kseek::fuzz {

// A property a target checks does not hold: say which and abort, so that libFuzzer keeps the input as a crash
// artifact and the replay test dies naming the target.
[[noreturn]] inline void violated(std::string_view target, std::string_view what) {
  std::fprintf(stderr, "fuzz target %.*s: property violated: %.*s\n", static_cast<int>(target.size()), target.data(),
               static_cast<int>(what.size()), what.data());
  std::abort();
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// An entry function, one per target (each in <name>_fuzz.cpp, declared by the replay test that runs it). It returns
// 0, as libFuzzer wants.
using FuzzEntry = int (*)(const std::uint8_t* data, std::size_t size);

}  // namespace kseek::fuzz

// In a libFuzzer build each target is its own executable, and this names its entry function.
#if defined(KSEEK_LIBFUZZER)
#define KSEEK_FUZZ_ENTRY(function)                                                    \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { \
    return ::kseek::fuzz::function(data, size);                                       \
  }
#else
#define KSEEK_FUZZ_ENTRY(function)
#endif
