// Content-addressed on-disk cache of successful builds (key: source, headers, options, arch, NVRTC).
// It must never return an entry whose integrity check fails: a corrupt entry is removed and rebuilt.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "kseek/core/build/compile_types.hpp"
#include "kseek/sdk/result.hpp"

namespace kseek {

// The cache key of a request under the NVRTC in use.
std::string build_cache_key(const CompileRequest& request);

class BuildCache {
 public:
  // `folder` is created on first store. The default is $KSEEK_CACHE_DIR, else $XDG_CACHE_HOME/kernelseek/
  // nvrtc, else ~/.cache/kernelseek/nvrtc.
  explicit BuildCache(std::filesystem::path folder);
  static std::filesystem::path default_folder();

  // A hit, or nullopt. A corrupt or unreadable entry is deleted, counted and reported as a miss.
  std::optional<CompileOutput> load(const std::string& key);
  Result<void> store(const std::string& key, const CompileOutput& output);

  const std::filesystem::path& folder() const { return folder_; }
  std::filesystem::path entry_path(const std::string& key) const;
  // Why the last load() discarded an entry (empty when it did not).
  const std::string& last_discard_reason() const { return last_discard_reason_; }

 private:
  std::filesystem::path folder_;
  std::string last_discard_reason_;
};

}  // namespace kseek
