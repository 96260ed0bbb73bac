// In-process NVRTC compilation of one candidate for one architecture, under a time limit and a size cap.
// It must never run host code of the candidate or touch a GPU: it only turns source into PTX and cubin.
#pragma once

#include <string>
#include <vector>

#include "kseek/core/build/compile_types.hpp"

namespace kseek {

// "MAJOR.MINOR" of the NVRTC library in use.
std::string nvrtc_version();

// An identity of the NVRTC library file in use (version, path, size), for cache keys: a patch release
// with the same MAJOR.MINOR changes code generation too.
std::string nvrtc_identity();

// The ptxas processes a per-kernel build runs at once: `requested` when positive, else $KSEEK_BUILD_THREADS when
// set to a positive integer, else the cores this process may run on. It changes how long a build takes, never
// what it produces, so it is not part of the cache key.
int build_threads(int requested);

// The pipeline a request is built with: its own choice, else $KSEEK_BUILD_PIPELINE ("whole", "per-kernel" or "lto"),
// else per kernel; whole program when an extra option is not a macro or include option (-D, -U, -I, --include-path=,
// their long forms: another may need NVRTC's own back end, e.g. --relocatable-device-code), when the architecture is
// not a real one (sm_...) or when no ptxas is found.
BuildPipeline build_pipeline(const CompileRequest& request);

// The fixed options every whole-program build gets, then request.options. -lineinfo keeps the names of inlined
// functions in the cubin (.debug_str), which the constraint checker reads; it does not change the code.
std::vector<std::string> nvrtc_options(const CompileRequest& request);

// The per-kernel pipeline's NVRTC options: the same, but for the virtual architecture (compute_90a for sm_90a),
// so that NVRTC stops at PTX, and without the ptxas options, which go to ptxas itself.
std::vector<std::string> front_end_options(const CompileRequest& request);

// The link-time-optimised pipeline's NVRTC options: the per-kernel front end's, and -dlto (LTO IR instead of PTX;
// NVRTC says it implies -rdc=true).
std::vector<std::string> lto_front_end_options(const CompileRequest& request);

// What a build records and its cache key hashes: NVRTC's options, and for the per-kernel pipeline a line for
// ptxas (its options) and one for nvJitLink; for the link-time-optimised one also a line for the nvJitLink pass that
// lists the kernels and one for nvJitLink per kernel (KERNEL stands for each kernel's name).
std::vector<std::string> build_options(const CompileRequest& request);

// Compiles without any cache, in this process, with NVRTC alone (the whole-program pipeline). Never throws; a
// failure is an output with status kCompileError.
CompileOutput compile_with_nvrtc(const CompileRequest& request);

// NVRTC's front end alone: PTX and the log, no cubin (the first step of the per-kernel pipeline).
CompileOutput compile_to_ptx(const CompileRequest& request);

// NVRTC's front end to LTO IR (the first step of the link-time-optimised pipeline): the log in the output, the IR in
// `lto_ir` (empty on a failure); no PTX, no cubin.
CompileOutput compile_to_lto_ir(const CompileRequest& request, std::string& lto_ir);

}  // namespace kseek
