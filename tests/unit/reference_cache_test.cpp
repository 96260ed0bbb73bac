// The reference cache's pure part: every key part changes the key, entries round-trip, a damaged or mismatched entry is
// a miss and is removed, the bound holds by evicting the least recently used entry, concurrent writers leave one good
// entry, and a campaign's evaluation never reads it. Payloads are seeded random bytes (the seed is in the failure).
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "kseek/core/app/app_options.hpp"
#include "kseek/core/worker/reference_cache.hpp"
#include "support/temp_folder.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;
constexpr std::uint64_t kSeed = 20261203;

ReferenceKey sample_key() {
  ReferenceKey key;
  key.plugin_id = "example.softmax";
  key.plugin_library_sha256 = std::string(64, 'a');
  key.device_library_sha256 = std::string(64, 'b');
  key.device = describe_device({"NVIDIA H200", 9, 0, 132});
  key.scenario_name = "rows=256,cols=151936,dtype=bf16";
  WorkloadLayout layout;
  layout.tensors = {{"x", TensorRole::kInput, ElementType::kBF16, 1024, 0, true, {}},
                    {"y", TensorRole::kOutput, ElementType::kBF16, 1024, 8, true, {}}};
  layout.problem = std::vector<std::byte>(16, std::byte{7});
  layout.plugin_context = "rows=256";
  key.layout = describe_layout(layout);
  key.input_seed = 42;
  key.inputs_fingerprint = 0x0123456789abcdefull;
  key.buffer_bytes = {1024 * 4, 1024 * 2};
  return key;
}

std::vector<std::byte> random_payload(const ReferenceKey& key, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<std::byte> payload(key.payload_bytes());
  for (auto& b : payload) b = static_cast<std::byte>(random() & 0xff);
  return payload;
}

// A lookup's result and what it read.
struct Loaded {
  ReferenceLookup lookup;
  std::vector<std::byte> bytes;
  bool asked_for_memory = false;
};

Loaded load(const ReferenceCache& cache, const ReferenceKey& key) {
  Loaded out;
  out.lookup = cache.load(key, [&](std::uint64_t bytes) {
    out.asked_for_memory = true;
    out.bytes.assign(bytes, std::byte{0});
    return std::span<std::byte>(out.bytes);
  });
  return out;
}

void flip_byte(const fs::path& file, std::uint64_t offset) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x5a);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&c, 1);
}

std::size_t entries_in(const fs::path& folder) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(folder)) n += e.path().extension() == ".kref";
  return n;
}

TEST(ReferenceKey, ChangesWhenAnyOfItsPartsChanges) {
  const ReferenceKey base = sample_key();
  std::vector<std::pair<std::string, ReferenceKey>> changed;
  auto with = [&](const std::string& what, auto change) {
    ReferenceKey key = base;
    change(key);
    changed.emplace_back(what, key);
  };
  with("plugin id", [](ReferenceKey& k) { k.plugin_id = "attention.fa3"; });
  with("plugin library", [](ReferenceKey& k) { k.plugin_library_sha256[0] = 'c'; });
  with("device library", [](ReferenceKey& k) { k.device_library_sha256[63] = 'c'; });
  with("device", [](ReferenceKey& k) { k.device = describe_device({"NVIDIA H200", 9, 0, 114}); });
  with("scenario", [](ReferenceKey& k) { k.scenario_name += ",scale=2"; });
  with("layout", [](ReferenceKey& k) { k.layout += " "; });
  with("input seed", [](ReferenceKey& k) { k.input_seed += 1; });
  with("inputs fingerprint", [](ReferenceKey& k) { k.inputs_fingerprint ^= 1; });
  with("buffer sizes", [](ReferenceKey& k) { k.buffer_bytes.back() += 2; });
  with("buffer list", [](ReferenceKey& k) { k.buffer_bytes.push_back(0); });
  std::set<std::string> digests = {base.digest()};
  for (const auto& [what, key] : changed) {
    EXPECT_NE(key.digest(), base.digest()) << what << " is not part of the key";
    digests.insert(key.digest());
  }
  EXPECT_EQ(digests.size(), changed.size() + 1) << "two different changes gave the same key";
  EXPECT_EQ(sample_key().digest(), base.digest()) << "the key must be a function of its parts only";
  // A value cannot pass for another part: each is length-prefixed.
  ReferenceKey shifted = base;
  shifted.plugin_id = base.plugin_id + "\nplugin_library_sha256=64:" + base.plugin_library_sha256;
  shifted.plugin_library_sha256.clear();
  EXPECT_NE(shifted.digest(), base.digest());
}

TEST(ReferenceKey, LayoutAndDeviceDescriptionsCoverWhatAReferenceReads) {
  WorkloadLayout layout;
  layout.tensors = {{"q", TensorRole::kInput, ElementType::kBF16, 4096, 0, true, {}},
                    {"out", TensorRole::kOutput, ElementType::kBF16, 4096, 8, true, {}},
                    {"lse", TensorRole::kOutput, ElementType::kF32, 64, 16, true, {}}};
  layout.problem = std::vector<std::byte>(24, std::byte{1});
  layout.plugin_context = "hq=32";
  const std::string base = describe_layout(layout);
  auto differs = [&](const std::string& what, auto change) {
    WorkloadLayout other = layout;
    change(other);
    EXPECT_NE(describe_layout(other), base) << what;
  };
  differs("an output's type", [](WorkloadLayout& l) { l.tensors[1].type = ElementType::kF16; });
  differs("a tensor's size", [](WorkloadLayout& l) { l.tensors[0].elements += 1; });
  differs("which outputs are compared", [](WorkloadLayout& l) { l.tensors[2].compared = false; });
  differs("a tensor's name", [](WorkloadLayout& l) { l.tensors[2].name = "m"; });
  differs("a tensor's view", [](WorkloadLayout& l) { l.tensors[0].view.dims[0] = 128; });
  differs("the problem bytes", [](WorkloadLayout& l) { l.problem[3] = std::byte{2}; });
  differs("the plugin's context", [](WorkloadLayout& l) { l.plugin_context = "hq=16"; });
  EXPECT_NE(describe_device({"NVIDIA H200", 9, 0, 132}), describe_device({"NVIDIA H100", 9, 0, 132}));
  EXPECT_NE(describe_device({"NVIDIA H200", 9, 0, 132}), describe_device({"NVIDIA H200", 10, 0, 132}));
}

TEST(ReferenceCache, RoundTripsAPayloadOfSeveralChunks) {
  testing::TempFolder folder("kseek-reference-cache");
  const ReferenceCache cache(folder.path() / "references", 1ull << 30);
  ReferenceKey key = sample_key();
  key.buffer_bytes = {2 * kReferenceChunkBytes + 12345, 3 * 1024};  // chunks read and hashed in parallel, a short last
  const auto payload = random_payload(key, kSeed);
  ASSERT_TRUE(cache.store(key, payload)) << "seed " << kSeed;
  const Loaded loaded = load(cache, key);
  EXPECT_TRUE(loaded.lookup.hit) << loaded.lookup.discarded;
  EXPECT_TRUE(loaded.lookup.discarded.empty());
  EXPECT_TRUE(loaded.bytes == payload) << "seed " << kSeed;
  EXPECT_EQ(entries_in(folder.path() / "references"), 1u);
  // Another key is a plain miss that never asks for memory.
  ReferenceKey other = key;
  other.input_seed += 1;
  const Loaded missed = load(cache, other);
  EXPECT_FALSE(missed.lookup.hit);
  EXPECT_FALSE(missed.asked_for_memory);
  EXPECT_TRUE(missed.lookup.discarded.empty());
}

TEST(ReferenceCache, AnEmptyDestinationIsAMissThatKeepsTheEntry) {
  testing::TempFolder folder("kseek-reference-cache");
  const ReferenceCache cache(folder.path(), 1ull << 30);
  const ReferenceKey key = sample_key();
  ASSERT_TRUE(cache.store(key, random_payload(key, kSeed)));
  const auto lookup = cache.load(key, [](std::uint64_t) { return std::span<std::byte>(); });
  EXPECT_FALSE(lookup.hit);
  EXPECT_TRUE(fs::exists(cache.entry_path(key)));
  EXPECT_TRUE(load(cache, key).lookup.hit);
}

// Every kind of damage: a miss with its reason, the entry removed, never bytes handed back as a hit.
class DamagedEntry : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cache.store(key, payload)) << "seed " << kSeed;
    path = cache.entry_path(key);
    ASSERT_TRUE(fs::exists(path));
    header_bytes = fs::file_size(path) - payload.size();
  }
  void expect_discarded(const std::string& reason_part) {
    const Loaded loaded = load(cache, key);
    EXPECT_FALSE(loaded.lookup.hit);
    EXPECT_NE(loaded.lookup.discarded.find(reason_part), std::string::npos) << loaded.lookup.discarded;
    EXPECT_FALSE(fs::exists(path)) << "a damaged entry must be removed";
  }
  testing::TempFolder folder{"kseek-reference-cache"};
  ReferenceCache cache{folder.path(), 1ull << 30};
  ReferenceKey key = sample_key();
  std::vector<std::byte> payload = random_payload(key, kSeed);
  fs::path path;
  std::uint64_t header_bytes = 0;
};

TEST_F(DamagedEntry, TruncatedPayloadIsAMiss) {
  fs::resize_file(path, fs::file_size(path) - 1);
  expect_discarded("bytes where its header says");
}

TEST_F(DamagedEntry, TruncatedHeaderIsAMiss) {
  fs::resize_file(path, 50);
  expect_discarded("truncated");
}

TEST_F(DamagedEntry, TruncatedInsideTheKeyIsAMiss) {
  fs::resize_file(path, header_bytes - 10);
  expect_discarded("truncated header");
}

TEST_F(DamagedEntry, AFlippedPayloadByteIsAMiss) {
  flip_byte(path, header_bytes + payload.size() / 2);
  expect_discarded("digest");
}

TEST_F(DamagedEntry, AFlippedDigestIsAMiss) {
  flip_byte(path, 40);
  expect_discarded("digest");
}

TEST_F(DamagedEntry, AWrongMagicIsAMiss) {
  flip_byte(path, 0);
  expect_discarded("magic");
}

TEST_F(DamagedEntry, AnotherFormatVersionIsAMiss) {
  flip_byte(path, 8);
  expect_discarded("format version");
}

TEST_F(DamagedEntry, AnEntryOfAnotherKeyUnderThisNameIsAMiss) {
  ReferenceKey other = key;
  other.inputs_fingerprint ^= 0xff;
  fs::copy_file(path, cache.entry_path(other));
  const Loaded loaded = load(cache, other);
  EXPECT_FALSE(loaded.lookup.hit);
  EXPECT_NE(loaded.lookup.discarded.find("another key"), std::string::npos) << loaded.lookup.discarded;
  EXPECT_FALSE(fs::exists(cache.entry_path(other)));
  EXPECT_TRUE(load(cache, key).lookup.hit) << "the entry under its own name is untouched";
}

TEST_F(DamagedEntry, AnEntryOthersMayWriteIsNotUsedNorRemoved) {
  fs::permissions(path, fs::perms::group_write, fs::perm_options::add);
  const Loaded loaded = load(cache, key);
  EXPECT_FALSE(loaded.lookup.hit);
  EXPECT_FALSE(loaded.asked_for_memory);
  EXPECT_NE(loaded.lookup.discarded.find("others may write"), std::string::npos) << loaded.lookup.discarded;
  EXPECT_TRUE(fs::exists(path));
}

TEST(ReferenceCache, EvictionKeepsTheBoundAndEvictsTheLeastRecentlyUsed) {
  testing::TempFolder folder("kseek-reference-cache");
  const ReferenceKey base = sample_key();
  std::vector<ReferenceKey> keys(4, base);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i].input_seed = 100 + i;
  {
    const ReferenceCache unbounded(folder.path(), 1ull << 30);
    ASSERT_TRUE(unbounded.store(keys[0], random_payload(keys[0], kSeed)));
  }
  const std::uint64_t entry = fs::file_size(ReferenceCache(folder.path(), 1).entry_path(keys[0]));
  const ReferenceCache cache(folder.path(), entry * 7 / 2);  // room for three entries and a half
  ASSERT_TRUE(cache.store(keys[1], random_payload(keys[1], kSeed + 1)));
  ASSERT_TRUE(cache.store(keys[2], random_payload(keys[2], kSeed + 2)));
  // Last used: 0 long ago, 1 after it, 2 after that (set, not slept for).
  const auto past = fs::file_time_type::clock::now() - std::chrono::hours(3);
  for (std::size_t i = 0; i < 3; ++i) fs::last_write_time(cache.entry_path(keys[i]), past + std::chrono::minutes(i));
  ASSERT_TRUE(load(cache, keys[0]).lookup.hit);  // 0 is now the most recently used
  ASSERT_TRUE(cache.store(keys[3], random_payload(keys[3], kSeed + 3)));
  EXPECT_LE(cache.stored_bytes(), entry * 7 / 2);
  EXPECT_FALSE(fs::exists(cache.entry_path(keys[1]))) << "1 was the least recently used";
  EXPECT_TRUE(fs::exists(cache.entry_path(keys[0]))) << "a hit makes an entry recent";
  EXPECT_TRUE(fs::exists(cache.entry_path(keys[2])));
  EXPECT_TRUE(fs::exists(cache.entry_path(keys[3])));
}

TEST(ReferenceCache, AnEntryLargerThanTheBoundIsNotStoredAndEvictsNothing) {
  testing::TempFolder folder("kseek-reference-cache");
  const ReferenceKey small = sample_key();
  ReferenceKey large = small;
  large.buffer_bytes = {64 * 1024, 64 * 1024};
  const ReferenceCache cache(folder.path(), 32 * 1024);
  ASSERT_TRUE(cache.store(small, random_payload(small, kSeed)));
  const auto stored = cache.store(large, random_payload(large, kSeed));
  EXPECT_FALSE(stored);
  EXPECT_FALSE(fs::exists(cache.entry_path(large)));
  EXPECT_TRUE(load(cache, small).lookup.hit);
}

TEST(ReferenceCache, AStoreNeverLeavesItsDiskWithLessThanTheLargerOf2GiBAnd5PercentFree) {
  constexpr std::uint64_t GiB = 1ull << 30;
  EXPECT_TRUE(leaves_enough_free_space(10 * GiB, 100 * GiB, 4 * GiB)) << "6 GiB left of 100: above 5 GiB";
  EXPECT_FALSE(leaves_enough_free_space(10 * GiB, 100 * GiB, 6 * GiB)) << "4 GiB left of 100: under 5 %";
  EXPECT_FALSE(leaves_enough_free_space(3 * GiB, 10 * GiB, 2 * GiB)) << "1 GiB left: under 2 GiB";
  EXPECT_TRUE(leaves_enough_free_space(3 * GiB, 10 * GiB, GiB));
  EXPECT_FALSE(leaves_enough_free_space(GiB, 4000 * GiB, 2 * GiB)) << "an entry larger than the free space";
  EXPECT_TRUE(leaves_enough_free_space(300 * GiB, 4000 * GiB, 50 * GiB));
  EXPECT_FALSE(leaves_enough_free_space(300 * GiB, 4000 * GiB, 150 * GiB)) << "150 GiB left of 4 TB: under 5 %";
}

TEST(ReferenceCache, EvictionRemovesTemporaryFilesAKilledWriterLeftLongAgo) {
  testing::TempFolder folder("kseek-reference-cache");
  const fs::path stale = folder.path() / ".abc.kref.tmp.123.0";
  const fs::path fresh = folder.path() / ".def.kref.tmp.124.0";
  std::ofstream(stale) << "partial";
  std::ofstream(fresh) << "being written";
  fs::last_write_time(stale, fs::file_time_type::clock::now() - std::chrono::hours(2));
  ReferenceCache(folder.path(), 1ull << 30).evict_to_bound();
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(fresh)) << "another writer may still be writing it";
}

TEST(ReferenceCache, ConcurrentStoresOfOneKeyLeaveOneValidEntry) {
  testing::TempFolder folder("kseek-reference-cache");
  const ReferenceCache cache(folder.path(), 1ull << 30);
  ReferenceKey key = sample_key();
  key.buffer_bytes = {kReferenceChunkBytes + 4096, 8192};
  const auto payload = random_payload(key, kSeed);
  std::atomic<bool> wrong{false};
  std::atomic<bool> discarded{false};
  std::atomic<int> writing{4};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 5; ++i) EXPECT_TRUE(cache.store(key, payload));
      --writing;
    });
  }
  // A reader meanwhile sees no entry or a whole one, never a mix.
  threads.emplace_back([&] {
    while (writing > 0) {
      const Loaded loaded = load(cache, key);
      if (!loaded.lookup.discarded.empty()) discarded = true;
      if (loaded.lookup.hit && loaded.bytes != payload) wrong = true;
    }
  });
  for (auto& thread : threads) thread.join();
  EXPECT_FALSE(wrong) << "seed " << kSeed;
  EXPECT_FALSE(discarded) << "a reader found a half-written entry under the entry's name";
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(folder.path())) ++files;
  EXPECT_EQ(files, 1u) << "one entry, no temporary file left";
  EXPECT_TRUE(load(cache, key).lookup.hit);
}

TEST(ReferenceCache, StoresOfOneKeyFromTwoProcessesLeaveOneValidEntry) {
  testing::TempFolder folder("kseek-reference-cache");
  const ReferenceCache cache(folder.path(), 1ull << 30);
  ReferenceKey key = sample_key();
  key.buffer_bytes = {kReferenceChunkBytes / 2, 8192};
  const auto payload = random_payload(key, kSeed);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    bool ok = true;
    for (int i = 0; i < 5; ++i) ok = ok && static_cast<bool>(cache.store(key, payload));
    ::_exit(ok ? 0 : 1);
  }
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(cache.store(key, payload));
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the other process's stores failed";
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(folder.path())) ++files;
  EXPECT_EQ(files, 1u);
  const Loaded loaded = load(cache, key);
  EXPECT_TRUE(loaded.lookup.hit) << loaded.lookup.discarded;
  EXPECT_TRUE(loaded.bytes == payload) << "seed " << kSeed;
}

// A write the system refuses part way through (here the file-size limit, in a child so the limit stays there) must
// leave neither an entry nor a temporary, and say what failed.
TEST(ReferenceCache, AWriteTheSystemRefusesLeavesNeitherAnEntryNorATemporary) {
  testing::TempFolder folder("kseek-reference-cache");
  const ReferenceCache cache(folder.path(), 1ull << 30);
  ReferenceKey key = sample_key();
  key.buffer_bytes = {3 * kReferenceChunkBytes, 4096};
  const auto payload = random_payload(key, kSeed);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);  // a write past the limit then fails with EFBIG instead of ending the process
    const rlimit limit{kReferenceChunkBytes + kReferenceChunkBytes / 2, kReferenceChunkBytes + kReferenceChunkBytes / 2};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(2);
    const auto stored = cache.store(key, payload);
    if (stored) ::_exit(3);
    const std::string& message = stored.error().message;
    ::_exit(message.find("cannot write") != std::string::npos && message.find(".tmp.") != std::string::npos ? 0 : 4);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the storing process did not exit";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: no limit set; 3: stored past the limit; 4: the error does not name the write";
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(folder.path())) ++files;
  EXPECT_EQ(files, 0u) << "an entry or a temporary was left behind";
  EXPECT_FALSE(load(cache, key).lookup.hit);
}

TEST(ReferenceCache, ACacheThatIsOffNeitherReadsNorWrites) {
  testing::TempFolder folder("kseek-reference-cache");
  const ReferenceKey key = sample_key();
  ASSERT_TRUE(ReferenceCache(folder.path(), 1ull << 30).store(key, random_payload(key, kSeed)));
  for (const ReferenceCache& off : {ReferenceCache(folder.path(), 0), ReferenceCache("", 1ull << 30)}) {
    EXPECT_FALSE(off.enabled());
    const Loaded loaded = load(off, key);
    EXPECT_FALSE(loaded.lookup.hit);
    EXPECT_FALSE(loaded.asked_for_memory);
  }
  ReferenceKey other = key;
  other.input_seed += 1;
  EXPECT_TRUE(ReferenceCache(folder.path(), 0).store(other, random_payload(other, kSeed)));
  EXPECT_FALSE(fs::exists(ReferenceCache(folder.path(), 1).entry_path(other)));
}

TEST(ReferenceCache, OnlyReferencesSlowerToComputeThanToReadBackAreWorthStoring) {
  EXPECT_TRUE(worth_caching(805'000'000, 0.87));     // a long causal prefill: 0.87 s per reference on an H200
  EXPECT_FALSE(worth_caching(3'200'000'000, 0.05));  // a window of 127 keys: written faster than it is read back
  EXPECT_FALSE(worth_caching(1'000, 0.005));         // a decode row: the fixed costs of an entry outweigh it
  EXPECT_TRUE(worth_caching(50'000'000, 0.2));
}

// The environment of choose_reference_cache, restored after each test.
class ReferenceCacheChoiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"KSEEK_REFERENCE_CACHE_BYTES", "KSEEK_CACHE_DIR"}) {
      const char* value = std::getenv(name);
      saved_.emplace_back(name, value ? std::optional<std::string>(value) : std::nullopt);
      ::unsetenv(name);
    }
  }
  void TearDown() override {
    for (const auto& [name, value] : saved_) {
      if (value) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST_F(ReferenceCacheChoiceTest, ACampaignsEvaluationNeverReadsTheCache) {
  testing::TempFolder folder("kseek-reference-cache");
  ::setenv("KSEEK_CACHE_DIR", folder.path().c_str(), 1);
  ::setenv("KSEEK_REFERENCE_CACHE_BYTES", "1G", 1);
  // An entry planted where an evaluation outside the campaign would find it.
  const auto outside = app::choose_reference_cache({}, /*campaign=*/false, /*refused=*/false).value();
  ASSERT_TRUE(outside.on());
  const ReferenceKey key = sample_key();
  ASSERT_TRUE(ReferenceCache(outside.folder, outside.max_bytes).store(key, random_payload(key, kSeed)));

  const auto campaign = app::choose_reference_cache({}, /*campaign=*/true, /*refused=*/false).value();
  EXPECT_FALSE(campaign.on());
  EXPECT_EQ(campaign.describe(), "off (a campaign's evaluation)");
  const Loaded loaded = load(ReferenceCache(campaign.folder, campaign.max_bytes), key);
  EXPECT_FALSE(loaded.lookup.hit);
  EXPECT_FALSE(loaded.asked_for_memory) << "a campaign's worker must not even open an entry";
  EXPECT_TRUE(load(ReferenceCache(outside.folder, outside.max_bytes), key).lookup.hit) << "the entry is readable";
}

TEST_F(ReferenceCacheChoiceTest, OutsideACampaignItIsOnUnlessRefusedOrBoundedToZero) {
  testing::TempFolder folder("kseek-reference-cache");
  const auto by_default = app::choose_reference_cache({}, false, false).value();
  EXPECT_TRUE(by_default.on());
  EXPECT_EQ(by_default.max_bytes, app::kDefaultReferenceCacheBytes);
  EXPECT_EQ(by_default.folder.filename(), "references");
  EXPECT_EQ(by_default.folder.parent_path(), BuildCache::default_folder().parent_path()) << "beside nvrtc/";
  EXPECT_EQ(by_default.describe(), "on");

  EXPECT_EQ(app::choose_reference_cache({}, false, true).value().describe(), "off (--no-reference-cache)");

  ::setenv("KSEEK_CACHE_DIR", folder.path().c_str(), 1);
  EXPECT_EQ(app::choose_reference_cache({}, false, false).value().folder, folder.path() / "references");
  app::AppOptions given;
  given.cache_dir = folder.path() / "given";
  EXPECT_EQ(app::choose_reference_cache(given, false, false).value().folder, folder.path() / "given" / "references");

  for (const auto& [text, bytes] : std::vector<std::pair<std::string, std::uint64_t>>{
           {"17179869184", 17179869184ull}, {"16G", 16ull << 30}, {"512M", 512ull << 20}, {"2TiB", 2ull << 40}}) {
    ::setenv("KSEEK_REFERENCE_CACHE_BYTES", text.c_str(), 1);
    EXPECT_EQ(app::choose_reference_cache({}, false, false).value().max_bytes, bytes) << text;
  }
  ::setenv("KSEEK_REFERENCE_CACHE_BYTES", "0", 1);
  const auto zero = app::choose_reference_cache({}, false, false).value();
  EXPECT_FALSE(zero.on());
  EXPECT_EQ(zero.describe(), "off (KSEEK_REFERENCE_CACHE_BYTES=0)");
  for (const char* wrong : {"lots", "16X", "-1", "99999999999T"}) {
    ::setenv("KSEEK_REFERENCE_CACHE_BYTES", wrong, 1);
    const auto refused = app::choose_reference_cache({}, false, false);
    ASSERT_FALSE(refused) << wrong;
    EXPECT_NE(refused.error().message.find("KSEEK_REFERENCE_CACHE_BYTES"), std::string::npos);
  }
}

}  // namespace
}  // namespace kseek
