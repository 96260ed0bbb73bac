// Collects every name a built candidate carries: cubin symbols, names of inlined functions kept by
// -lineinfo (.debug_str), and PTX declarations and call targets. It must never trust the binary's shape:
// every offset is bounds-checked, and a malformed cubin is an error, not a crash.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kseek/sdk/result.hpp"

namespace kseek {

struct BinaryName {
  std::string name;   // as stored (mangled where C++)
  std::string where;  // "cubin symbol", "cubin undefined symbol", "cubin inlined function", "ptx ..."
};

Result<std::vector<BinaryName>> cubin_names(std::string_view cubin);
std::vector<BinaryName> ptx_names(std::string_view ptx);

// Itanium demangling (abi::__cxa_demangle); the input unchanged when it is not a mangled name.
std::string demangle(const std::string& name);

}  // namespace kseek
