// The back end of a build: each kernel's PTX piece assembled by the toolkit's ptxas in its own capped process, up
// to N at once, then the pieces linked by nvJitLink into the one cubin the worker loads; for the link-time-optimised
// pipeline each kernel's PTX first generated from the program's LTO IR by nvJitLink, in a capped process too. It must
// never return a cubin that lacks a kernel of the program, and never let a process outlive the build's deadline.
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
  std::uint64_t memory_cap_bytes = 0;  // each process's address-space cap (ptxas; for lto nvJitLink too)
  double cpu_seconds = 0.0;            // each process's CPU-time limit (0: none)
};

struct AssembledKernels {
  std::vector<std::string> objects;  // in the pieces' order
  std::string log;                   // ptxas's -v report, kernel by kernel in the pieces' order
  std::vector<double> cpu_seconds;   // each piece's ptxas process, in the pieces' order
};

// Assembles every piece, longest first, at most limits.processes at a time. An error names the kernel whose
// piece failed and ptxas's first error line, or the cap that stopped it.
Result<AssembledKernels> assemble_kernels(const std::filesystem::path& ptxas, const std::vector<PtxPiece>& pieces,
                                          const std::string& arch, const AssemblyLimits& limits);

// Links the assembled pieces into one executable cubin (nvJitLink, in this process: run it in a capped one).
Result<std::string> link_kernels(const std::vector<std::string>& objects, const std::string& arch);

// The link-time-optimised pipeline. nvJitLink's options (nvJitLink.h) for the PTX of one kernel of a program's LTO IR:
// -lto, -ptx, and -kernels-used=KERNEL, so that the other kernels, and what only they use, are left out.
std::vector<std::string> lto_kernel_options(const std::string& arch, const std::string& kernel);

// nvJitLink's options for the pass that lists a program's kernels: the PTX of every kernel without optimisation
// (-O0), the cheapest complete listing found (the LTO IR itself is opaque; docs/user-guide.md says what it costs).
std::vector<std::string> lto_listing_options(const std::string& arch);

// The kernels of a program's LTO IR, in the order nvJitLink emits them, with the bytes of their unoptimised PTX (the
// order in which they are started: longest first). An error gives nvJitLink's log. In this process: run it in a capped
// one, and never in a process that generates (or forks processes that generate) a kernel's PTX afterwards: after one
// -O0 call, nvJitLink generates other code for the rest of its process, -O3 calls included (CUDA 13.0).
Result<std::vector<PtxKernel>> list_lto_kernels(const std::string& lto_ir, const std::string& arch);

// The PTX nvJitLink generates for `kernel` of a program's LTO IR (in this process: run it in a capped one).
Result<std::string> lto_kernel_ptx(const std::string& lto_ir, const std::string& arch, const std::string& kernel);

struct LtoAssembly {
  // The variables' piece (when there is one), then one per kernel in the kernels' order.
  std::vector<std::string> objects;
  // What ptxas assembled, in the objects' order: the variables' piece, then each kernel's piece (its PTX as nvJitLink
  // generated it, the variables declared `.extern`). What the constraint checker reads.
  std::string ptx;
  std::string log;  // ptxas's -v reports, in the objects' order
  struct Times {
    std::string kernel;  // empty: the variables' piece
    double nvjitlink_cpu_seconds = 0;
    double ptxas_cpu_seconds = 0;
  };
  std::vector<Times> times;  // in the objects' order
};

// Per kernel, a chain of two capped processes: nvJitLink generates its PTX from `lto_ir` (lto_kernel_options), then
// ptxas assembles its piece (kernel_piece); at most limits.processes at a time, the longest kernels first, and a
// kernel's ptxas before another kernel's nvJitLink. When every kernel's PTX is there, the piece that defines their
// variables once (shared_variables_piece) is assembled too. `out` keeps what was made when a step fails (the pieces
// made so far, for the constraint checker); an error names the kernel and the step.
Result<void> assemble_lto_kernels(const std::filesystem::path& ptxas, const std::string& lto_ir,
                                  const std::vector<PtxKernel>& kernels, const std::string& arch,
                                  const AssemblyLimits& limits, LtoAssembly& out);

}  // namespace kseek
