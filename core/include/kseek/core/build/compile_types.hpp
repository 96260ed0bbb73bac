// Values of one candidate build: what is asked of NVRTC and what comes back (binary, log, resources).
// It must never hold state of the compiler itself: a CompileOutput is complete and cacheable as it is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kseek/core/status.hpp"
#include "kseek/sdk/types.hpp"

namespace kseek {

// How source becomes a cubin. Per kernel: NVRTC's front end to PTX once, then each kernel's PTX assembled by ptxas
// in its own process, in parallel, and the pieces linked by nvJitLink (the same PTX, the same code per kernel).
// Whole program: one NVRTC call does everything on one thread (the build before per-kernel assembly, and the
// fallback when no ptxas is found or an option needs NVRTC's own back end).
// Link-time optimised (opt-in): NVRTC's front end to LTO IR only (-dlto), then per kernel, in parallel, nvJitLink
// generates that kernel's PTX from the IR (-kernels-used) and ptxas assembles it; nvJitLink links the pieces. The
// optimiser and code generation that bound the per-kernel build's front end run kernel by kernel, so on every core.
enum class BuildPipeline { kDefault, kPerKernel, kWholeProgram, kLinkTimeOptimized };

struct CompileRequest {
  SourceFile source;                 // the candidate; `name` appears in diagnostics
  std::vector<SourceFile> headers;   // offered to NVRTC by include name (SDK + plugin headers)
  std::string arch = "sm_90a";       // NVRTC real architecture
  std::vector<std::string> options;  // extra NVRTC options, after the fixed ones
  double timeout_seconds = 300.0;    // compile time limit
  std::uint64_t max_cubin_bytes = 64ull << 20;
  std::uint64_t max_compile_memory_bytes = 8ull << 30;  // address-space cap of the compiler process
  // ptxas processes the per-kernel back end may run at once: 0 = $KSEEK_BUILD_THREADS, else the cores this process
  // may use. Each process is under the time and memory caps above. The binary does not depend on it.
  int compile_threads = 0;
  // The CUDA toolkit headers offered through --include-path (folder, version, file list; toolkit_headers.hpp): empty
  // when none are. Part of the cache key, since an include path names a folder whose contents may change.
  std::string toolkit_identity;
  BuildPipeline pipeline = BuildPipeline::kDefault;
  friend bool operator==(const CompileRequest&, const CompileRequest&) = default;
};

// Per-kernel resources as ptxas reports them (`--ptxas-options=-v`).
struct KernelResources {
  std::string kernel;
  int registers = 0;
  int barriers = 0;
  std::uint64_t stack_frame_bytes = 0;
  std::uint64_t spill_store_bytes = 0;
  std::uint64_t spill_load_bytes = 0;
  std::uint64_t static_shared_bytes = 0;
  std::uint64_t constant_bytes = 0;  // cmem[0]: the kernel's parameter bank and friends
  // ptxas's notes on code it did not make as written (e.g. "C7514: ... wgmma.mma_async instructions are serialized
  // ..."), and its warnings: each one line, the code first, without the kernel's name.
  std::vector<std::string> ptxas_notes;
  friend bool operator==(const KernelResources&, const KernelResources&) = default;
};

// One compiler complaint, located and shown with the offending source line.
struct Diagnostic {
  std::string file;
  int line = 0;
  std::string severity;  // "error" or "warning"
  std::string message;
  std::string source_line;
};

struct CompileOutput {
  Status status = Status::kCompileError;  // kOk or kCompileError
  std::string error;                      // one line when status != kOk
  std::string log;                        // NVRTC's full log
  std::vector<Diagnostic> diagnostics;
  std::string ptx;  // present even when ptxas failed, if the front end succeeded
  std::string cubin;
  std::vector<KernelResources> kernels;
  std::vector<std::string> ptxas_notes;  // ptxas's notes that name no kernel of the build (kernels[].ptxas_notes: theirs)
  std::vector<std::string> options;      // the complete NVRTC option list used
  std::string nvrtc_version;
  std::string cache_key;
  bool cache_hit = false;
  double seconds = 0;  // wall time of this build (lookup or compile)
  // Where a per-kernel or link-time-optimised build's time went (not cached: zero on a cache hit and for
  // whole-program builds).
  struct Stages {
    double front_end_seconds = 0;  // NVRTC to PTX (lto: to LTO IR, then the kernels listed)
    double ptxas_seconds = 0;      // every kernel's ptxas (lto: its nvJitLink, then its ptxas), `processes` at a time
    double link_seconds = 0;       // nvJitLink
    int processes = 0;
    // CPU seconds of each process as the operating system accounted them, for measurements.
    double front_end_cpu_seconds = 0;  // the NVRTC process
    double listing_cpu_seconds = 0;    // lto: the process that listed the kernels
    double link_cpu_seconds = 0;
    struct Kernel {
      std::string kernel;                // empty: the piece that defines the module's variables
      double nvjitlink_cpu_seconds = 0;  // lto: its PTX generated from the LTO IR
      double ptxas_cpu_seconds = 0;
    };
    std::vector<Kernel> kernels;  // in the order of the pieces linked
  } stages;
};

void to_json(nlohmann::json& j, const KernelResources& v);
void from_json(const nlohmann::json& j, KernelResources& v);
void to_json(nlohmann::json& j, const Diagnostic& v);

}  // namespace kseek
