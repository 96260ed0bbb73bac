// Builds a candidate (through the cache) and checks it against constraints: the one place that decides
// OK, COMPILE_ERROR or CONSTRAINT_VIOLATION. It must never let a candidate that breaks a constraint
// reach a GPU, even when its build also failed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kseek/core/build/build_cache.hpp"
#include "kseek/core/build/compile_types.hpp"
#include "kseek/core/check/constraint_checker.hpp"
#include "kseek/sdk/plugin.hpp"

namespace kseek {

struct CandidateBuild {
  Status status = Status::kCompileError;  // kOk, kCompileError or kConstraintViolation
  std::string message;                    // one line for people when status != kOk
  CompileOutput compile;
  ConstraintReport constraints;
  std::string source_sha256;
  std::string arch;
};

// The SDK's device headers (kseek/device/...), embedded in kseek at build time.
std::vector<SourceFile> sdk_device_headers();

// Drops later headers whose include name was already offered (NVRTC rejects a program with two of one name).
void deduplicate_headers(std::vector<SourceFile>& headers);

// A compile request for `source` with the SDK's and the plugin's headers and the constraints' caps.
CompileRequest make_compile_request(const Plugin& plugin, SourceFile source, std::string arch,
                                    const Constraints& constraints);

class BuildService {
 public:
  explicit BuildService(std::optional<BuildCache> cache) : cache_(std::move(cache)) {}

  CompileOutput compile(const CompileRequest& request);
  CandidateBuild build_and_check(const CompileRequest& request, const Constraints& constraints);

  bool has_cache() const { return cache_.has_value(); }
  // The cache's folder: where another process must build for this service to find the result ("" without a cache).
  std::filesystem::path cache_folder() const { return cache_ ? cache_->folder() : std::filesystem::path(); }
  // Whether the cache holds an entry for `request` (not whether that entry will load: compile() checks it).
  bool cached(const CompileRequest& request) const;

  // Notes about the cache (e.g. a corrupt entry that was discarded), for the verbose log.
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  std::optional<BuildCache> cache_;
  std::vector<std::string> notes_;
};

nlohmann::json to_json(const CandidateBuild& build);

}  // namespace kseek
