// Whole-file reads and atomic whole-file writes (temporary file, fsync, rename, fsync of the folder), and private
// scratch folders removed with their contents.
// It must never leave a half-written file under the final name, whatever kills the process.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "kseek/sdk/result.hpp"

namespace kseek {

// Writes every byte to `fd`, retrying short writes and EINTR; false on any other error (errno says which).
bool write_all(int fd, std::string_view bytes);

Result<std::string> read_file(const std::filesystem::path& path);

// Readers see either the old content or the new, never a mix; the parent folder is created if needed.
Result<void> write_file_atomically(const std::filesystem::path& path, std::string_view content);
// The same, but never replaces: false when `path` already exists (another writer got there first), true once the
// content is at `path`.
Result<bool> write_new_file_atomically(const std::filesystem::path& path, std::string_view content);
// `pieces` written in order as one file, atomically as above but without the fsyncs: for a cache entry that carries
// its own digest, which every reader checks, so an entry a crash left torn is a miss. Copying a large payload into
// one string first, or waiting for the disk, would cost what the cache is there to save.
Result<void> write_cache_file_atomically(const std::filesystem::path& path, std::span<const std::string_view> pieces);

// A private folder under the temporary directory (mode 0700, named `prefix` plus a unique suffix), removed with
// everything in it when the object goes. path() is empty when it could not be created: callers say so and stop.
class ScratchFolder {
 public:
  explicit ScratchFolder(std::string_view prefix);
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace kseek
