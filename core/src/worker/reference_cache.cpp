// The reference cache's key, entry format, lookup, store and eviction (see the header), with POSIX files and threads
// only: no CUDA here, so all of it is tested on a CPU.
// It must never map an entry into memory (under HMM or ATS a GPU kernel can read what a process maps), nor use an
// entry another user owns or others may write.
#include "kseek/core/worker/reference_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kseek/core/util/files.hpp"
#include "kseek/core/util/sha256.hpp"

namespace kseek {
namespace fs = std::filesystem;
namespace {

static_assert(std::endian::native == std::endian::little, "entries are written and read as little-endian integers");

constexpr std::size_t kFixedHeaderBytes = 104;
constexpr std::size_t kDigestOffset = 40;
constexpr std::size_t kDigestChars = 64;
constexpr std::string_view kEntryExtension = ".kref";
constexpr auto kStaleTemporaryAge = std::chrono::hours(1);

template <class T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

template <class T>
T get(const char* bytes) {
  T value;
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

// The entry's header for `key`, with its digest field as 64 '0's (what the digest covers).
std::string unsigned_header(const ReferenceKey& key) {
  const std::string text = key.text();
  std::string header;
  header.append(kReferenceEntryMagic);
  put<std::uint32_t>(header, kReferenceEntryVersion);
  put<std::uint32_t>(header, static_cast<std::uint32_t>(key.buffer_bytes.size()));
  put<std::uint64_t>(header, text.size());
  put<std::uint64_t>(header, kReferenceChunkBytes);
  put<std::uint64_t>(header, key.payload_bytes());
  header.append(kDigestChars, '0');
  for (const std::uint64_t bytes : key.buffer_bytes) put<std::uint64_t>(header, bytes);
  return header + text;
}

std::string entry_digest(std::string_view header, const std::vector<std::string>& chunk_digests) {
  Sha256 hasher;
  hasher.add(header);
  for (const auto& chunk : chunk_digests) hasher.add(chunk);
  return hasher.hex_digest();
}

// work(i) for every i < count, on this thread and up to 15 more (chunks of an entry are independent). False when any
// call returned false.
bool for_each_chunk(std::size_t count, const std::function<bool(std::size_t)>& work) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> ok{true};
  const auto drain = [&] {
    for (std::size_t i = next++; i < count && ok; i = next++) {
      try {
        if (!work(i)) ok = false;
      } catch (...) {  // an OpenSSL context that would not initialise: the entry is not read, nothing more
        ok = false;
      }
    }
  };
  const std::size_t helpers =
      std::min<std::size_t>({count > 0 ? count - 1 : 0, std::max(1u, std::thread::hardware_concurrency()) - 1, 15});
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < helpers; ++t) {
    try {
      pool.emplace_back(drain);
    } catch (const std::system_error&) {
      break;  // no more threads: this one does the rest
    }
  }
  drain();
  for (auto& thread : pool) thread.join();
  return ok;
}

std::optional<std::vector<std::string>> chunk_digests_of(std::span<const std::byte> payload) {
  const std::size_t chunks = (payload.size() + kReferenceChunkBytes - 1) / kReferenceChunkBytes;
  std::vector<std::string> digests(chunks);
  const bool hashed = for_each_chunk(chunks, [&](std::size_t i) {
    const std::uint64_t offset = i * kReferenceChunkBytes;
    const std::uint64_t bytes = std::min<std::uint64_t>(kReferenceChunkBytes, payload.size() - offset);
    digests[i] = Sha256().add({reinterpret_cast<const char*>(payload.data()) + offset, bytes}).hex_digest();
    return true;
  });
  if (!hashed) return std::nullopt;
  return digests;
}

bool read_at(int fd, void* into, std::uint64_t bytes, std::uint64_t offset) {
  auto* out = static_cast<char*>(into);
  while (bytes > 0) {
    const ssize_t n = ::pread(fd, out, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    out += n;
    bytes -= static_cast<std::uint64_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
  return true;
}

struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// The length-prefixed `name=` line of a key part, so no value can pass for another part.
void add_part(std::string& text, std::string_view name, std::string_view value) {
  text += fmt::format("{}={}:{}\n", name, value.size(), value);
}

}  // namespace

std::uint64_t ReferenceKey::payload_bytes() const {
  std::uint64_t total = 0;
  for (const std::uint64_t bytes : buffer_bytes) total += bytes;
  return total;
}

std::string ReferenceKey::text() const {
  std::string text;
  add_part(text, "plugin_id", plugin_id);
  add_part(text, "plugin_library_sha256", plugin_library_sha256);
  add_part(text, "device_library_sha256", device_library_sha256);
  add_part(text, "device", device);
  add_part(text, "scenario", scenario_name);
  add_part(text, "layout", layout);
  add_part(text, "input_seed", fmt::format("{}", input_seed));
  add_part(text, "inputs_fingerprint", fmt::format("{:016x}", inputs_fingerprint));
  add_part(text, "buffer_bytes", fmt::format("{}", fmt::join(buffer_bytes, ",")));
  return text;
}

std::string ReferenceKey::digest() const { return sha256_hex(text()); }

std::string describe_layout(const WorkloadLayout& layout) {
  std::string text;
  for (std::size_t i = 0; i < layout.tensors.size(); ++i) {
    const TensorSpec& t = layout.tensors[i];
    text +=
        fmt::format("tensor {} {} {} {} {} compared={} offset={} view={}:{}:{};", i, t.name,
                    t.role == TensorRole::kInput ? "input" : "output", to_string(t.type), t.elements, t.compared,
                    t.problem_offset, t.view.rank, fmt::join(t.view.dims, ","), fmt::join(t.view.strides_bytes, ","));
  }
  const std::string_view problem(reinterpret_cast<const char*>(layout.problem.data()), layout.problem.size());
  text += fmt::format("problem {} {};", problem.size(), sha256_hex(problem));
  text += fmt::format("context {} {}", layout.plugin_context.size(), sha256_hex(layout.plugin_context));
  return text;
}

std::string describe_device(const DeviceProperties& device) {
  return fmt::format("{}; compute capability {}.{}; {} SMs", device.name, device.compute_capability_major,
                     device.compute_capability_minor, device.multiprocessors);
}

bool worth_caching(std::uint64_t payload_bytes, double compute_seconds) {
  return compute_seconds >= kMinReferenceComputeSecondsWorthCaching &&
         compute_seconds * kReferenceReadBackBytesPerSecond >= static_cast<double>(payload_bytes);
}

ReferenceCache::ReferenceCache(fs::path folder, std::uint64_t max_bytes)
    : folder_(std::move(folder)), max_bytes_(max_bytes) {}

fs::path ReferenceCache::entry_path(const ReferenceKey& key) const {
  return folder_ / (key.digest() + std::string(kEntryExtension));
}

ReferenceLookup ReferenceCache::load(const ReferenceKey& key,
                                     const std::function<std::span<std::byte>(std::uint64_t)>& destination) const {
  ReferenceLookup lookup;
  if (!enabled()) return lookup;
  const fs::path path = entry_path(key);
  Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) return lookup;  // no entry (or none this process may read)
  struct stat status {};
  if (::fstat(file.fd, &status) != 0 || !S_ISREG(status.st_mode)) return lookup;
  if (status.st_uid != ::geteuid() || (status.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    lookup.discarded = fmt::format("reference cache entry {} not used: another user owns it or others may write it",
                                   path.filename().string());
    return lookup;
  }
  const auto discard = [&](const std::string& why) {
    lookup.discarded = fmt::format("discarded reference cache entry {}: {}", path.filename().string(), why);
    // Only if the name still holds the file read: another process may have renamed a good entry into place since.
    struct stat now {};
    if (::stat(path.c_str(), &now) == 0 && now.st_ino == status.st_ino && now.st_dev == status.st_dev) {
      ::unlink(path.c_str());
    }
    return lookup;
  };

  const std::string expected = unsigned_header(key);
  const auto size = static_cast<std::uint64_t>(status.st_size);
  if (size < kFixedHeaderBytes) return discard(fmt::format("truncated ({} bytes)", size));
  std::string header(std::min<std::uint64_t>(size, expected.size()), '\0');
  if (!read_at(file.fd, header.data(), header.size(), 0)) return discard("its header could not be read");
  if (std::string_view(header).substr(0, kReferenceEntryMagic.size()) != kReferenceEntryMagic) {
    return discard("not a reference cache entry (wrong magic)");
  }
  if (const auto version = get<std::uint32_t>(header.data() + 8); version != kReferenceEntryVersion) {
    return discard(fmt::format("format version {}, expected {}", version, kReferenceEntryVersion));
  }
  const std::string digest = header.substr(kDigestOffset, kDigestChars);
  header.replace(kDigestOffset, kDigestChars, kDigestChars, '0');
  if (header != expected) {
    const bool prefix = header.size() < expected.size() && expected.compare(0, header.size(), header) == 0;
    return discard(prefix ? "truncated header" : "its header holds another key or other buffer sizes");
  }
  const std::uint64_t payload = key.payload_bytes();
  if (size != expected.size() + payload) {
    return discard(fmt::format("{} bytes where its header says {}", size, expected.size() + payload));
  }

  const std::span<std::byte> into = destination(payload);
  if (into.size() != payload) return lookup;  // no memory to read it into: a miss, the entry kept
  const std::size_t chunks = (payload + kReferenceChunkBytes - 1) / kReferenceChunkBytes;
  std::vector<std::string> chunk_digests(chunks);
  const bool read = for_each_chunk(chunks, [&](std::size_t i) {
    const std::uint64_t offset = i * kReferenceChunkBytes;
    const std::uint64_t bytes = std::min<std::uint64_t>(kReferenceChunkBytes, payload - offset);
    if (!read_at(file.fd, into.data() + offset, bytes, expected.size() + offset)) return false;
    chunk_digests[i] = Sha256().add({reinterpret_cast<const char*>(into.data()) + offset, bytes}).hex_digest();
    return true;
  });
  if (!read) return discard("its payload could not be read");
  if (entry_digest(expected, chunk_digests) != digest) return discard("its digest does not match: corrupt");
  ::futimens(file.fd, nullptr);  // just used: the last entry eviction takes
  lookup.hit = true;
  return lookup;
}

bool leaves_enough_free_space(std::uint64_t available, std::uint64_t capacity, std::uint64_t entry_bytes) {
  const std::uint64_t keep_free = std::max<std::uint64_t>(2ull << 30, capacity / 20);
  return available >= entry_bytes && available - entry_bytes >= keep_free;
}

Result<void> ReferenceCache::store(const ReferenceKey& key, std::span<const std::byte> payload) const {
  if (!enabled()) return Ok{};
  if (payload.size() != key.payload_bytes()) {
    return make_error(
        fmt::format("reference cache: a payload of {} bytes for buffers of {}", payload.size(), key.payload_bytes()));
  }
  std::string header = unsigned_header(key);
  if (header.size() + payload.size() > max_bytes_) {
    return make_error(fmt::format("reference cache: an entry of {} bytes is larger than the cache's bound of {} bytes",
                                  header.size() + payload.size(), max_bytes_));
  }
  std::error_code ec;
  if (fs::create_directories(folder_, ec)) fs::permissions(folder_, fs::perms::owner_all, ec);
  if (const auto space = fs::space(folder_, ec);
      !ec && !leaves_enough_free_space(space.available, space.capacity, header.size() + payload.size())) {
    return make_error(
        fmt::format("reference cache: not stored, {} has {:.1f} GiB free and an entry of {:.1f} GiB "
                    "would leave less than it keeps free (set KSEEK_REFERENCE_CACHE_BYTES=0 to turn the "
                    "cache off, or point KSEEK_CACHE_DIR at a larger disk)",
                    folder_.string(), double(space.available) / double(1ull << 30),
                    double(header.size() + payload.size()) / double(1ull << 30)));
  }
  // Hashed in parallel chunks, written with one write() after the header. Writing the chunks at their offsets from
  // the hashing threads was no faster on an H200 machine (2026-12-03: 89 entries in 17.0 s that way, 16.1 s this way),
  // although writing is what bounds a store (2026-12-04: 10.3 of 15.6 s for 88 entries, 22.1 GB; the record's
  // references.cache_store_seconds).
  const auto chunk_digests = chunk_digests_of(payload);
  if (!chunk_digests) {
    return make_error(fmt::format("reference cache: the payload of {} could not be hashed", entry_path(key).string()));
  }
  header.replace(kDigestOffset, kDigestChars, entry_digest(header, *chunk_digests));
  const std::array<std::string_view, 2> pieces = {header,
                                                  {reinterpret_cast<const char*>(payload.data()), payload.size()}};
  if (auto written = write_cache_file_atomically(entry_path(key), pieces); !written) return written.error();
  evict_to_bound();
  return Ok{};
}

std::size_t ReferenceCache::evict_to_bound() const {
  if (!enabled()) return 0;
  struct Entry {
    fs::path path;
    std::uint64_t bytes = 0;
    fs::file_time_type used;
  };
  std::vector<Entry> entries;
  std::uint64_t total = 0;
  const auto now = fs::file_time_type::clock::now();
  std::error_code ec;
  for (fs::directory_iterator it(folder_, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code item;
    const fs::path& path = it->path();
    const std::string name = path.filename().string();
    const auto used = it->last_write_time(item);
    if (item) continue;
    if (name.starts_with('.') && name.find(".tmp.") != std::string::npos) {
      if (now - used > kStaleTemporaryAge) fs::remove(path, item);  // a writer killed before its rename
      continue;
    }
    if (path.extension() != kEntryExtension) continue;
    const std::uint64_t bytes = it->file_size(item);
    if (item) continue;
    entries.push_back({path, bytes, used});
    total += bytes;
  }
  if (total <= max_bytes_) return 0;
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.used != b.used ? a.used < b.used : a.path < b.path; });
  std::size_t removed = 0;
  for (const Entry& entry : entries) {
    if (total <= max_bytes_) break;
    std::error_code item;
    fs::remove(entry.path, item);
    total -= entry.bytes;  // gone, or removed by another process meanwhile: either way no longer counted
    if (!item) ++removed;
  }
  return removed;
}

std::uint64_t ReferenceCache::stored_bytes() const {
  std::uint64_t total = 0;
  std::error_code ec;
  for (fs::directory_iterator it(folder_, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code item;
    if (it->path().extension() != kEntryExtension) continue;
    const std::uint64_t bytes = it->file_size(item);
    if (!item) total += bytes;
  }
  return total;
}

}  // namespace kseek
