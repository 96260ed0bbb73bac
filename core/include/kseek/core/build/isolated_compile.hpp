// Runs one NVRTC compilation in a forked child process under a wall-clock limit and an address-space cap,
// so a template explosion or a compiler crash costs a COMPILE_ERROR, never kseek itself.
// It must never leave the child running: on the deadline it is killed and reaped.
#pragma once

#include <cstdint>

#include "kseek/core/build/compile_types.hpp"

namespace kseek {

// `memory_cap_bytes` == 0 leaves the address space unlimited.
CompileOutput compile_isolated(const CompileRequest& request, std::uint64_t memory_cap_bytes);

}  // namespace kseek
