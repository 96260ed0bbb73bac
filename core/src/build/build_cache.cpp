// Cache entries are encoded CompileOutputs (compile_output_codec) named by their key.
// It must never write in place: every entry is written atomically under its key.
#include "kseek/core/build/build_cache.hpp"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "kseek/core/build/compile_output_codec.hpp"
#include "kseek/core/build/kernel_assembly.hpp"
#include "kseek/core/build/nvrtc_compiler.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/sha256.hpp"

namespace kseek {
namespace fs = std::filesystem;
namespace {

// Bumped whenever the pipeline around NVRTC changes what a build produces for the same inputs.
constexpr std::string_view kPipelineVersion = "kseek-build-pipeline-3";  // 3: kernels carry ptxas_notes

}  // namespace

std::string build_cache_key(const CompileRequest& request) {
  Sha256 hasher;
  hasher.add_field(kPipelineVersion).add_field(nvrtc_identity()).add_field(request.arch);
  // The options name the pipeline (whole program, per kernel with ptxas's options, or link-time-optimised with
  // nvJitLink's too); a per-kernel or lto build's binary also depends on which ptxas and which nvJitLink made it. Not
  // on how many ran at once: it cannot.
  for (const auto& option : build_options(request)) hasher.add_field(option);
  if (build_pipeline(request) != BuildPipeline::kWholeProgram) {
    if (const auto ptxas = find_ptxas()) hasher.add_field(ptxas_identity(*ptxas));
    hasher.add_field(nvjitlink_identity());
  }
  hasher.add_field(request.source.name).add_field(request.source.text);
  std::vector<const SourceFile*> headers;
  for (const auto& header : request.headers) headers.push_back(&header);
  std::sort(headers.begin(), headers.end(), [](auto* a, auto* b) { return a->name < b->name; });
  for (const auto* header : headers) hasher.add_field(header->name).add_field(header->text);
  hasher.add_field(fmt::format("{}", request.max_cubin_bytes));
  hasher.add_field(request.toolkit_identity);
  return hasher.hex_digest();
}

BuildCache::BuildCache(fs::path folder) : folder_(std::move(folder)) {}

fs::path BuildCache::default_folder() {
  if (const char* dir = std::getenv("KSEEK_CACHE_DIR"); dir != nullptr && *dir != '\0') return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return fs::path(xdg) / "kernelseek" / "nvrtc";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return fs::path(home) / ".cache" / "kernelseek" / "nvrtc";
  }
  return fs::temp_directory_path() / "kernelseek-cache" / "nvrtc";
}

fs::path BuildCache::entry_path(const std::string& key) const { return folder_ / (key + ".kbuild"); }

std::optional<CompileOutput> BuildCache::load(const std::string& key) {
  last_discard_reason_.clear();
  const auto path = entry_path(key);
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  auto discard = [&](const std::string& reason) -> std::optional<CompileOutput> {
    last_discard_reason_ = fmt::format("discarded cache entry {}: {}", path.string(), reason);
    fs::remove(path, ec);
    return std::nullopt;
  };
  auto content = read_file(path);
  if (!content) return discard(content.error().message);
  auto decoded = decode_compile_output(*content);
  if (!decoded) return discard(decoded.error().message);
  if (decoded->cache_key != key) return discard("key mismatch");
  if (decoded->status != Status::kOk) return discard("not a successful build");
  decoded->cache_hit = true;
  return std::move(*decoded);
}

Result<void> BuildCache::store(const std::string& key, const CompileOutput& output) {
  if (output.status != Status::kOk) {
    return make_error("only successful builds are cached; failures are recompiled to show their log");
  }
  CompileOutput keyed = output;
  keyed.cache_key = key;
  return write_file_atomically(entry_path(key), encode_compile_output(keyed));
}

}  // namespace kseek
