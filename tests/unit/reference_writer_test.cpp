// The reference cache's background writer: an entry it writes reads back as the bytes handed to it, the payload's
// memory is wiped only after the entry is written, one write runs at a time (the second start waits for the first and
// hands back its outcome), and a refused store is a note. (That the destructor waits for a running write is what a
// std::async future's destructor does; a test of it could not fail.)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "kseek/core/worker/reference_writer.hpp"
#include "support/temp_folder.hpp"

namespace kseek {
namespace {

ReferenceKey key_for(std::uint64_t input_seed, std::uint64_t bytes) {
  ReferenceKey key;
  key.plugin_id = "example.softmax";
  key.plugin_library_sha256 = std::string(64, 'a');
  key.device_library_sha256 = std::string(64, 'b');
  key.device = "NVIDIA H200";
  key.scenario_name = "rows=4,cols=8,dtype=bf16";
  key.layout = "x,y";
  key.input_seed = input_seed;
  key.inputs_fingerprint = input_seed * 31;
  key.buffer_bytes = {bytes / 2, bytes - bytes / 2};
  return key;
}

std::vector<std::byte> random_bytes(std::uint64_t n, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<std::byte> out(n);
  for (auto& b : out) b = static_cast<std::byte>(random() & 0xff);
  return out;
}

std::vector<std::byte> read_back(const ReferenceCache& cache, const ReferenceKey& key) {
  std::vector<std::byte> bytes;
  const ReferenceLookup lookup = cache.load(key, [&](std::uint64_t n) {
    bytes.assign(n, std::byte{0});
    return std::span<std::byte>(bytes);
  });
  if (!lookup.hit) bytes.clear();
  return bytes;
}

TEST(ReferenceWriter, WritesTheEntryThenWipesThePayload) {
  kseek::testing::TempFolder folder("kseek_reference_writer");
  const ReferenceCache cache(folder.path(), 1ull << 30);
  const ReferenceKey key = key_for(7, 3 << 20);
  std::vector<std::byte> payload = random_bytes(key.payload_bytes(), 7);
  const std::vector<std::byte> expected = payload;
  std::atomic<bool> wiped_after_the_entry_existed{false};
  {
    ReferenceWriter writer(cache);
    EXPECT_FALSE(writer.start(key, payload, [&] {
      wiped_after_the_entry_existed = std::filesystem::exists(cache.entry_path(key));
      std::fill(payload.begin(), payload.end(), std::byte{0});
    }));
    const auto outcome = writer.wait();
    ASSERT_TRUE(outcome);
    EXPECT_TRUE(outcome->stored) << outcome->note;
    EXPECT_GT(outcome->file_seconds, 0.0);
    EXPECT_FALSE(writer.running());
    EXPECT_FALSE(writer.wait()) << "nothing runs, nothing is left to report";
  }
  EXPECT_TRUE(wiped_after_the_entry_existed);
  EXPECT_EQ(read_back(cache, key), expected);
  EXPECT_TRUE(std::all_of(payload.begin(), payload.end(), [](std::byte b) { return b == std::byte{0}; }));
}

TEST(ReferenceWriter, OneWriteAtATimeAndTheNextStartHandsBackThePreviousOutcome) {
  kseek::testing::TempFolder folder("kseek_reference_writer");
  const ReferenceCache cache(folder.path(), 1ull << 30);
  ReferenceWriter writer(cache);
  std::atomic<int> running{0};
  std::atomic<int> most{0};
  const auto wipe = [&] {
    const int now = ++running;
    most = std::max(most.load(), now);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // a slow wipe: overlapping writes would show here
    --running;
  };
  std::vector<std::vector<std::byte>> payloads;
  std::vector<ReferenceKey> keys;
  for (std::uint64_t i = 0; i < 3; ++i) {
    keys.push_back(key_for(100 + i, 1 << 20));
    payloads.push_back(random_bytes(keys.back().payload_bytes(), 100 + i));
  }
  int outcomes = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto previous = writer.start(keys[i], payloads[i], wipe);
    EXPECT_EQ(previous.has_value(), i > 0) << "start " << i;
    if (previous) {
      EXPECT_TRUE(previous->stored) << previous->note;
      ++outcomes;
    }
  }
  const auto last = writer.wait();
  ASSERT_TRUE(last);
  EXPECT_TRUE(last->stored);
  EXPECT_EQ(outcomes + 1, 3);
  EXPECT_EQ(most.load(), 1) << "two writes ran at once";
  for (std::size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(read_back(cache, keys[i]), payloads[i]) << "entry " << i;
}

TEST(ReferenceWriter, ARefusedStoreIsANoteAndThePayloadIsWipedAnyway) {
  kseek::testing::TempFolder folder("kseek_reference_writer");
  const ReferenceCache cache(folder.path(), 1 << 10);  // a bound smaller than the entry: the store is refused
  const ReferenceKey key = key_for(9, 1 << 20);
  std::vector<std::byte> payload = random_bytes(key.payload_bytes(), 9);
  bool wiped = false;
  ReferenceWriter writer(cache);
  writer.start(key, payload, [&] { wiped = true; });
  const auto outcome = writer.wait();
  ASSERT_TRUE(outcome);
  EXPECT_FALSE(outcome->stored);
  EXPECT_FALSE(outcome->note.empty());
  EXPECT_TRUE(wiped);
  EXPECT_TRUE(read_back(cache, key).empty());
}

}  // namespace
}  // namespace kseek
