// Finds the CUDA toolkit's include folder for candidate builds and explains an include nobody offers.
// It must never guess a folder that lacks cuda_fp16.h, and never be consulted for the harness or a plugin library.
#include "kseek/core/build/toolkit_headers.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>

#include <fmt/format.h>
#include <nvrtc.h>

#include "kseek/core/util/sha256.hpp"

namespace kseek {
namespace fs = std::filesystem;
namespace {

struct Candidate {
  fs::path include_dir;
  std::string origin;
};

bool holds_toolkit_headers(const fs::path& include_dir) {
  std::error_code ec;
  return !include_dir.empty() && fs::is_regular_file(include_dir / "cuda_fp16.h", ec);
}

// CUDA_VERSION as cuda.h defines it (`#define CUDA_VERSION 13000`), 0 when absent.
int read_cuda_version(const fs::path& include_dir) {
  std::ifstream in(include_dir / "cuda.h");
  static const std::regex kDefine(R"(^\s*#\s*define\s+CUDA_VERSION\s+(\d+))");
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, kDefine)) return std::stoi(m[1].str());
  }
  return 0;
}

// A digest of the names, sizes and times of the top-level files: a patch release of the toolkit (same CUDA_VERSION)
// changes them, and hashing every header's text on every build would cost more than the cache saves.
std::string file_list_digest(const std::vector<fs::path>& folders) {
  Sha256 hasher;
  for (const auto& folder : folders) {
    std::vector<std::string> entries;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
      std::error_code size_ec, time_ec;
      if (!entry.is_regular_file(size_ec)) continue;
      const auto size = entry.file_size(size_ec);
      const auto time = entry.last_write_time(time_ec).time_since_epoch().count();
      entries.push_back(
          fmt::format("{};{};{}", entry.path().filename().string(), size_ec ? 0 : size, time_ec ? 0 : time));
    }
    std::sort(entries.begin(), entries.end());
    hasher.add_field(folder.string());
    for (const auto& e : entries) hasher.add_field(e);
  }
  return hasher.hex_digest();
}

std::vector<Candidate> candidate_folders(const fs::path& nvrtc_library) {
  std::vector<Candidate> out;
  auto from_env = [&](const char* name, bool is_include_dir) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return;
    out.push_back({is_include_dir ? fs::path(value) : fs::path(value) / "include", fmt::format("${}", name)});
  };
  from_env("KSEEK_CUDA_INCLUDE", true);
  from_env("CUDA_HOME", false);
  from_env("CUDA_PATH", false);
  // libnvrtc sits in <toolkit>/lib64, <toolkit>/targets/<triple>/lib or <prefix>/lib/<triple>: look up a few levels.
  if (!nvrtc_library.empty()) {
    fs::path dir = nvrtc_library.parent_path();
    for (int level = 0; level < 3 && !dir.empty() && dir != dir.root_path(); ++level) {
      dir = dir.parent_path();
      out.push_back({dir / "include", "the toolkit of " + nvrtc_library.string()});
    }
  }
  out.push_back({"/usr/local/cuda/include", "/usr/local/cuda"});
  return out;
}

fs::path loaded_nvrtc_library() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) == 0 || info.dli_fname == nullptr) return {};
  std::error_code ec;
  const auto path = fs::canonical(info.dli_fname, ec);
  return ec ? fs::path(info.dli_fname) : path;
}

std::string offered_list(const CompileRequest& request, const std::optional<ToolkitHeaders>& toolkit) {
  std::string list;
  for (const auto& header : request.headers) list += fmt::format("{}<{}>", list.empty() ? "" : ", ", header.name);
  if (toolkit) {
    for (const auto name : kToolkitDeviceHeaders) list += fmt::format("{}<{}>", list.empty() ? "" : ", ", name);
  }
  return list.empty() ? "nothing" : list;
}

}  // namespace

std::optional<ToolkitHeaders> find_toolkit_headers(const fs::path& nvrtc_library, int nvrtc_major, int nvrtc_minor) {
  const int nvrtc_cuda_version = nvrtc_major * 1000 + nvrtc_minor * 10;
  std::optional<ToolkitHeaders> first;
  for (const auto& candidate : candidate_folders(nvrtc_library)) {
    if (!holds_toolkit_headers(candidate.include_dir)) continue;
    ToolkitHeaders found;
    std::error_code ec;
    found.include_dir = fs::canonical(candidate.include_dir, ec);
    if (ec) found.include_dir = candidate.include_dir;
    found.origin = candidate.origin;
    found.cuda_version = read_cuda_version(found.include_dir);
    found.folders = {found.include_dir};
    // CUDA 13 moved CCCL (cuda/barrier, cuda/pipeline, cuda/ptx, and cuda/std that cooperative_groups.h needs)
    // into include/cccl; CUDA 12 keeps it in include/ itself.
    if (fs::is_directory(found.include_dir / "cccl", ec)) found.folders.push_back(found.include_dir / "cccl");
    found.identity =
        fmt::format("{};{};{}", found.include_dir.string(), found.cuda_version, file_list_digest(found.folders));
    if (found.cuda_version == nvrtc_cuda_version) return found;
    if (!first) first = std::move(found);
  }
  if (first) {
    first->note = fmt::format(
        "the CUDA headers in {} ({} {}.{}) are not NVRTC's release ({}.{}); set CUDA_HOME to "
        "the toolkit of the NVRTC in use",
        first->include_dir.string(), first->origin, first->cuda_version / 1000, (first->cuda_version % 1000) / 10,
        nvrtc_major, nvrtc_minor);
  }
  return first;
}

const std::optional<ToolkitHeaders>& toolkit_headers() {
  static const std::optional<ToolkitHeaders> found = [] {
    int major = 0;
    int minor = 0;
    nvrtcVersion(&major, &minor);
    return find_toolkit_headers(loaded_nvrtc_library(), major, minor);
  }();
  return found;
}

void offer_toolkit_headers(CompileRequest& request, const std::optional<ToolkitHeaders>& toolkit) {
  if (!toolkit) return;
  for (const auto& folder : toolkit->folders) request.options.push_back("--include-path=" + folder.string());
  request.toolkit_identity = toolkit->identity;
}

std::optional<std::string> unopened_include(const Diagnostic& diagnostic) {
  // NVRTC 12/13: `could not open source file "x.h" (no directories in search list)` without an include path,
  // `cannot open source file "x.h"` with one.
  static const std::regex kUnopened(R"((?:could not|cannot) open source file \"([^\"]+)\")");
  std::smatch m;
  if (!std::regex_search(diagnostic.message, m, kUnopened)) return std::nullopt;
  return m[1].str();
}

std::string unopened_include_message(const Diagnostic& diagnostic, const std::string& header,
                                     const CompileRequest& request, const std::optional<ToolkitHeaders>& toolkit) {
  std::string message = fmt::format("{}:{}: cannot include <{}>: no such header is offered. A candidate may include {}",
                                    diagnostic.file, diagnostic.line, header, offered_list(request, toolkit));
  if (toolkit) {
    message += fmt::format(" (and the rest of the CUDA toolkit's device headers in {})", toolkit->include_dir.string());
  } else {
    message +=
        "; no CUDA toolkit headers were found (set CUDA_HOME or KSEEK_CUDA_INCLUDE to offer cuda_bf16.h and the "
        "other toolkit device headers)";
  }
  return message;
}

}  // namespace kseek
