// Where the CUDA toolkit's device headers (cuda_bf16.h, cooperative_groups.h, cuda/pipeline...) are, so that a
// candidate and a seed may include them; and what to say when a candidate includes something nobody offers.
// It must never put toolkit headers in front of the harness or a plugin's device library: they build without them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kseek/core/build/compile_types.hpp"

namespace kseek {

// The device headers of the toolkit that NVRTC compiles and that kseek's tests include in a candidate.
inline constexpr std::string_view kToolkitDeviceHeaders[] = {
    "cuda_fp16.h",  "cuda_bf16.h",   "cuda_fp8.h", "cooperative_groups.h",
    "cuda/barrier", "cuda/pipeline", "cuda/ptx",   "mma.h"};

struct ToolkitHeaders {
  std::filesystem::path include_dir;           // holds cuda_fp16.h
  std::vector<std::filesystem::path> folders;  // --include-path folders: include_dir, and include_dir/cccl (CUDA 13)
  int cuda_version = 0;                        // CUDA_VERSION of its cuda.h (13000 = 13.0), 0 if unread
  std::string origin;                          // which rule found it, e.g. "CUDA_HOME" or "next to libnvrtc"
  std::string note;                            // a warning for people (e.g. its version differs from NVRTC's)
  std::string identity;                        // for cache keys: folder, version and a digest of its file list
};

// Looks, in this order, in $KSEEK_CUDA_INCLUDE (an include folder), $CUDA_HOME, $CUDA_PATH, the toolkit the loaded
// libnvrtc belongs to, and /usr/local/cuda; among those that hold cuda_fp16.h, the first whose CUDA_VERSION is
// NVRTC's own wins (headers of another release may not compile under this NVRTC), else the first found, with a note.
// `nvrtc_library` is the canonical path of libnvrtc (empty: not known). Pure apart from reading the file system.
std::optional<ToolkitHeaders> find_toolkit_headers(const std::filesystem::path& nvrtc_library, int nvrtc_major,
                                                   int nvrtc_minor);

// find_toolkit_headers for the NVRTC this process uses, looked up once per process.
const std::optional<ToolkitHeaders>& toolkit_headers();

// Offers the toolkit's headers to a candidate or seed build: include-path options and the toolkit's identity in the
// request (so the cache key changes with the headers). Without a toolkit, the request is left as it is.
void offer_toolkit_headers(CompileRequest& request, const std::optional<ToolkitHeaders>& toolkit);

// The include name NVRTC could not open in `diagnostic` ("could not open source file ..."), or nothing.
std::optional<std::string> unopened_include(const Diagnostic& diagnostic);

// One message for a candidate that includes a header nobody offers: where, which header, and what may be included
// (the request's offered headers and, when a toolkit was found, its device headers; else how to point kseek at one).
std::string unopened_include_message(const Diagnostic& diagnostic, const std::string& header,
                                     const CompileRequest& request, const std::optional<ToolkitHeaders>& toolkit);

}  // namespace kseek
