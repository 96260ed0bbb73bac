// The seam between each fuzz target's entry function and its two drivers: libFuzzer (KSEEK_FUZZ=ON, clang with
// ASan + UBSan) and the seed-corpus replay test (label unit, any compiler). It must never hold a target's logic.
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

// The entry functions, one per target (each in <name>_fuzz.cpp). They return 0, as libFuzzer wants.
int fuzz_question_pack(const std::uint8_t* data, std::size_t size);
int fuzz_record_log(const std::uint8_t* data, std::size_t size);
int fuzz_scenario_name(const std::uint8_t* data, std::size_t size);
int fuzz_goal_expression(const std::uint8_t* data, std::size_t size);
int fuzz_plugin_descriptor(const std::uint8_t* data, std::size_t size);
int fuzz_campaign_config(const std::uint8_t* data, std::size_t size);

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
