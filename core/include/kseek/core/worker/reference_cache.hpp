// The plugin's references (fp32 gold and same precision, per compared output) kept on disk across evaluations, so an
// evaluation that draws inputs another one drew already reads them back instead of computing them again.
// It must never hand back bytes it has not checked against its entry's full key and digest, nor fail an evaluation:
// a missing, truncated, corrupt or mismatched entry is a miss (removed where it is ours), and a store that cannot be
// made is a note. Whether an evaluation may use it at all is the parent's decision (never inside a campaign).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kseek/sdk/result.hpp"
#include "kseek/sdk/workload.hpp"

namespace kseek {

// Everything a set of references is a function of. Two keys are equal only when the references are the same bytes;
// a change of any part must miss.
struct ReferenceKey {
  // -- the code that computes them
  std::string plugin_id;
  // The plugin library's file (sha256): compute_reference's host code chooses the kernels, their launches and their
  // parameters, so a rebuilt plugin is other code even under the same id and version.
  std::string plugin_library_sha256;
  // The plugin's device library as built for this GPU (sha256 of the cubin the worker loads): the reference kernels
  // themselves, whatever changed them (their source, NVRTC, options, arch).
  std::string device_library_sha256;
  // What the plugin sees of the GPU (describe_device): a plugin may size its reference grids by the SM count, and with
  // them the order of its sums, so another model could round differently.
  std::string device;
  // -- what they are computed on
  std::string scenario_name;  // canonical key=value name: the problem a person asked for
  // describe_layout: the tensors (name, role, type, element count, compared or not, TMA view), the Problem struct's
  // bytes and the plugin's own context string. compute_reference reads all of these; the element counts and types
  // also fix the buffers' sizes, and `compared` which outputs have references at all (the outputs the tolerance
  // rule judges).
  std::string layout;
  // The inputs: the seed they were drawn from and the fingerprint of their bytes as filled (the runner's
  // inputs_fingerprint, taken right after the fill and checked unchanged before any reference). The seed alone would
  // trust the plugin's fill to be a pure function of it; the fingerprint alone would trust 64 bits of a
  // non-cryptographic hash. The input set's index is not a part: it chooses which allocation (which addresses) holds
  // the inputs, never their bytes, and the timed phase draws it at random, so keying on it would only turn hits into
  // misses.
  std::uint64_t input_seed = 0;
  std::uint64_t inputs_fingerprint = 0;
  // The payload's buffers in order: for each compared output, its gold (fp32) then its same-precision reference.
  std::vector<std::uint64_t> buffer_bytes;

  std::uint64_t payload_bytes() const;
  std::string text() const;    // canonical: one `part=value` line per part, in the order above
  std::string digest() const;  // sha256 of text(): the entry's file name
};

// The key parts for a layout and a device, as described above.
std::string describe_layout(const WorkloadLayout& layout);
std::string describe_device(const DeviceProperties& device);

// An entry on disk (format version 1), integers little-endian:
//   0  "KSEEKREF"                     8 bytes
//   8  format version                 u32
//   12 buffer count n                 u32
//   16 key text bytes k               u64
//   24 chunk bytes c                  u64
//   32 payload bytes p                u64
//   40 digest                         64 bytes, lower-case hex
//   104 buffer sizes                  n x u64
//   104 + 8n  key text                k bytes (ReferenceKey::text)
//   then the payload                  p bytes: the buffers back to back
// The digest is the sha256 of the header (its digest field as 64 '0's) followed by the hex sha256 of each c-byte
// chunk of the payload: chunks hash in parallel, and the header is checked with the payload.
inline constexpr std::string_view kReferenceEntryMagic = "KSEEKREF";
inline constexpr std::uint32_t kReferenceEntryVersion = 1;
inline constexpr std::uint64_t kReferenceChunkBytes = 16ull << 20;

// A reference is stored only when computing it took longer than reading it back is expected to: at this rate (a disk
// read, the digest, the copy to the GPU), and never under 10 ms, where the fixed costs of an entry and the disk it
// takes outweigh what it saves. Memory-bound references (decode attention, softmax) are written faster than they are
// read back; compute-bound ones (long prefill) are not.
inline constexpr double kReferenceReadBackBytesPerSecond = 2e9;
inline constexpr double kMinReferenceComputeSecondsWorthCaching = 0.01;
bool worth_caching(std::uint64_t payload_bytes, double compute_seconds);

// A store never fills the disk the cache sits on: it is skipped (and noted) when the file system would have less than
// the larger of 2 GiB and 5 % of its capacity free after it, whatever the cache's own bound allows.
bool leaves_enough_free_space(std::uint64_t available, std::uint64_t capacity, std::uint64_t entry_bytes);

struct ReferenceLookup {
  bool hit = false;
  std::string discarded;  // an entry was found and not used: why (it was removed when it was ours)
};

class ReferenceCache {
 public:
  // Off when `folder` is empty or `max_bytes` is 0: every load misses without touching the disk, stores do nothing.
  ReferenceCache(std::filesystem::path folder, std::uint64_t max_bytes);

  bool enabled() const { return !folder_.empty() && max_bytes_ > 0; }
  const std::filesystem::path& folder() const { return folder_; }
  std::filesystem::path entry_path(const ReferenceKey& key) const;

  // Looks `key` up. Only for an entry whose header holds exactly this key and these sizes is `destination` asked for
  // memory of the payload's size (an empty span: a miss, the entry kept); the payload is then read into it and checked
  // against the digest, in parallel chunks. A hit marks the entry as just used (its modification time).
  ReferenceLookup load(const ReferenceKey& key,
                       const std::function<std::span<std::byte>(std::uint64_t bytes)>& destination) const;

  // Writes the entry (a temporary file renamed into place: readers see the old entry, the new one or none), then
  // evicts the least recently used entries until the folder's entries fit the bound. An entry larger than the bound,
  // or one that would leave its file system short of space (leaves_enough_free_space), is not written.
  Result<void> store(const ReferenceKey& key, std::span<const std::byte> payload) const;

  // Removes entries, least recently used first, until what is left fits the bound (and temporary files a killed
  // writer left over an hour ago). Returns how many entries it removed.
  std::size_t evict_to_bound() const;

  // The entries' bytes on disk now.
  std::uint64_t stored_bytes() const;

 private:
  std::filesystem::path folder_;
  std::uint64_t max_bytes_ = 0;
};

}  // namespace kseek
