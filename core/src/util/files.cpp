// File reads and atomic writes with POSIX calls, so durability (fsync) is explicit.
// It must never report success before the data and the rename are on disk, except for a cache file, which says so.
#include "kseek/core/util/files.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <span>

#include <fmt/format.h>

namespace kseek {
namespace {

std::string errno_text() { return std::strerror(errno); }

}  // namespace

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(written));
  }
  return true;
}

Result<std::string> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return make_error(fmt::format("cannot read {}: {}", path.string(), errno_text()));
  }
  // Read straight into the string: a stream buffer grown by doubling and then copied out cost a cache hit four copies
  // of its 25 MB entry. The size is only a hint; the loop reads to the end whatever the file turns out to hold.
  std::string content;
  std::error_code ec;
  if (const auto size = std::filesystem::file_size(path, ec); !ec) content.reserve(size);
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) content.append(chunk, static_cast<std::size_t>(in.gcount()));
  if (in.bad()) {
    return make_error(fmt::format("error while reading {}", path.string()));
  }
  return content;
}

namespace {

// Writes `pieces` in order to a temporary file beside `path` (fsynced when `durable`), then puts it at `path`: rename()
// replaces what is there; link() fails with EEXIST instead, which makes the write exclusive. Returns false when `path`
// existed (exclusive only), true when the content is at `path` (durably when asked).
Result<bool> publish(const std::filesystem::path& path, std::span<const std::string_view> pieces, bool exclusive,
                     bool durable) {
  std::error_code ec;
  const auto folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::filesystem::create_directories(folder, ec);
  if (ec) {
    return make_error(fmt::format("cannot create folder {}: {}", folder.string(), ec.message()));
  }
  static std::atomic<unsigned> counter{0};
  const auto temporary = folder / fmt::format(".{}.tmp.{}.{}", path.filename().string(), ::getpid(), counter++);
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    return make_error(fmt::format("cannot create {}: {}", temporary.string(), errno_text()));
  }
  bool written = true;
  for (const std::string_view piece : pieces) written = written && write_all(fd, piece);
  written = written && (!durable || ::fsync(fd) == 0);
  const std::string write_error = written ? "" : errno_text();
  ::close(fd);
  if (!written) {
    ::unlink(temporary.c_str());
    return make_error(fmt::format("cannot write {}: {}", temporary.string(), write_error));
  }
  const bool placed =
      exclusive ? ::link(temporary.c_str(), path.c_str()) == 0 : ::rename(temporary.c_str(), path.c_str()) == 0;
  const int place_errno = errno;
  if (exclusive || !placed) ::unlink(temporary.c_str());
  if (!placed) {
    if (exclusive && place_errno == EEXIST) return false;
    return make_error(fmt::format("cannot {} {} to {}: {}", exclusive ? "link" : "rename", temporary.string(),
                                  path.string(), std::strerror(place_errno)));
  }
  if (!durable) return true;
  // The new entry is durable only once the folder is on disk.
  int folder_fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder_fd >= 0) {
    ::fsync(folder_fd);
    ::close(folder_fd);
  }
  return true;
}

}  // namespace

Result<void> write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  auto published = publish(path, std::span(&content, 1), /*exclusive=*/false, /*durable=*/true);
  if (!published) return published.error();
  return Ok{};
}

Result<bool> write_new_file_atomically(const std::filesystem::path& path, std::string_view content) {
  return publish(path, std::span(&content, 1), /*exclusive=*/true, /*durable=*/true);
}

Result<void> write_cache_file_atomically(const std::filesystem::path& path, std::span<const std::string_view> pieces) {
  auto published = publish(path, pieces, /*exclusive=*/false, /*durable=*/false);
  if (!published) return published.error();
  return Ok{};
}

ScratchFolder::ScratchFolder(std::string_view prefix) {
  std::error_code ec;
  std::string pattern = (std::filesystem::temp_directory_path(ec) / (std::string(prefix) + "-XXXXXX")).string();
  if (!ec && ::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
}

ScratchFolder::~ScratchFolder() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

}  // namespace kseek
