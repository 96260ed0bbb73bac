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

// The compiler threads a request gets: `requested` when positive, else $KSEEK_BUILD_THREADS when set to a positive
// integer, else 1. More than one thread is an opt-in: NVRTC's --split-compile can change register allocation, so the
// default build is the same on every machine.
int build_threads(int requested);

// The fixed options every build gets, then request.options. -lineinfo keeps the names of inlined
// functions in the cubin (.debug_str), which the constraint checker reads; it does not change the code.
// --split-compile=N (N = build_threads(request.compile_threads), left out when 1) lets NVRTC optimise the functions
// of the one program on N threads inside the one capped compiler process.
std::vector<std::string> nvrtc_options(const CompileRequest& request);

// Compiles without any cache. Never throws; a failure is an output with status kCompileError.
CompileOutput compile_with_nvrtc(const CompileRequest& request);

}  // namespace kseek
