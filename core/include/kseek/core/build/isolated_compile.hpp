// Runs one build (NVRTC, and for the per-kernel pipeline ptxas per kernel and the linker) in forked child processes,
// each under the wall-clock limit and the address-space cap, so a template explosion or a compiler crash costs a
// COMPILE_ERROR, never kseek itself. It must never leave a child running: on the deadline each is killed and reaped.
#pragma once

#include <cstdint>

#include "kseek/core/build/compile_types.hpp"

namespace kseek {

// `memory_cap_bytes` == 0 leaves the address space unlimited. The time limit holds for all steps together; the
// memory cap holds for each process (NVRTC, every ptxas, the linker).
CompileOutput compile_isolated(const CompileRequest& request, std::uint64_t memory_cap_bytes);

}  // namespace kseek
