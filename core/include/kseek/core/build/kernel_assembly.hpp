// The back end of a build: each kernel's PTX piece assembled by the toolkit's ptxas in its own capped process, up
// to N at once, then the pieces linked by nvJitLink into the one cubin the worker loads. It must never return a
// cubin that lacks a kernel of the PTX, and never let a ptxas process outlive the build's deadline.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "kseek/core/build/capped_process.hpp"
#include "kseek/core/build/ptx_pieces.hpp"
#include "kseek/sdk/result.hpp"

namespace kseek {

// The ptxas the back end runs: $KSEEK_PTXAS, else the one of the toolkit whose NVRTC is loaded (its bin/ folder),
// else the one of the toolkit kseek was built against, else the first on $PATH. None: the build falls back to
// NVRTC's own, single-threaded back end.
std::optional<std::filesystem::path> find_ptxas();

// An identity of a ptxas (path and size), for cache keys, like nvrtc_identity().
std::string ptxas_identity(const std::filesystem::path& ptxas);

// "MAJOR.MINOR" of the nvJitLink library in use, and its file, for cache keys.
std::string nvjitlink_identity();

// ptxas's options for one piece: the real architecture, -ewp (whole-program code generation in an object that can
// still be linked: plain -c changed register allocation, e.g. 72 -> 98 registers for an FA3 decode kernel), then
// the options NVRTC would pass it (-lineinfo, -v).
std::vector<std::string> ptxas_options(const std::string& arch);

struct AssemblyLimits {
  int processes = 1;
  BuildClock::time_point deadline;
  std::uint64_t memory_cap_bytes = 0;  // each ptxas process's address-space cap
  double cpu_seconds = 0.0;            // each ptxas process's CPU-time limit (0: none)
};

struct AssembledKernels {
  std::vector<std::string> objects;  // in the pieces' order
  std::string log;                   // ptxas's -v report, kernel by kernel in the pieces' order
};

// Assembles every piece, longest first, at most limits.processes at a time. An error names the kernel whose
// piece failed and ptxas's first error line, or the cap that stopped it.
Result<AssembledKernels> assemble_kernels(const std::filesystem::path& ptxas, const std::vector<PtxPiece>& pieces,
                                          const std::string& arch, const AssemblyLimits& limits);

// Links the assembled pieces into one executable cubin (nvJitLink, in this process: run it in a capped one).
Result<std::string> link_kernels(const std::vector<std::string>& objects, const std::string& arch);

}  // namespace kseek
