// The fills' position cursor (attention_device_params.h, FillCursor), stepped on the host where the GPU tests' tensors
// are too small for any thread to step (a thread steps only past 2^24 chunks): after every step it names the row,
// head and channel that dividing the element index gives, for strides and starts of the fills' grids, dims and head
// counts of every scenario shape, and indices past 2^32 (H19's 4.3-billion-element K and V).
#include <cstdint>
#include <random>

#include <gtest/gtest.h>

#include "attention_device_params.h"

namespace kseek::attention::device {
namespace {

struct Position {
  std::uint64_t token;
  int head, channel;
};

Position divided(std::uint64_t element, int dim, int heads) {
  const std::uint64_t vector = element / static_cast<std::uint64_t>(dim);
  return {vector / static_cast<std::uint64_t>(heads), static_cast<int>(vector % static_cast<std::uint64_t>(heads)),
          static_cast<int>(element % static_cast<std::uint64_t>(dim))};
}

void expect_walk(int dim, int heads, std::uint64_t first, std::uint64_t stride, int steps) {
  FillCursor at(dim, heads, first, stride);
  for (int s = 0; s <= steps; ++s) {
    const std::uint64_t element = first + static_cast<std::uint64_t>(s) * stride;
    const Position want = divided(element, dim, heads);
    ASSERT_EQ(at.token, want.token) << "dim " << dim << " heads " << heads << " element " << element;
    ASSERT_EQ(at.head, want.head) << "dim " << dim << " heads " << heads << " element " << element;
    ASSERT_EQ(at.channel, want.channel) << "dim " << dim << " heads " << heads << " element " << element;
    at.advance(dim, heads);
  }
}

TEST(FillCursor, EveryStepNamesThePositionTheDivisionsGive) {
  std::mt19937_64 random(20261204);
  for (int dim : {8, 40, 64, 80, 96, 128, 192, 256, 512}) {
    for (int heads : {1, 2, 7, 8, 16, 32, 64, 128}) {
      // The chunked fills' grid: 65536 blocks x 256 threads, 8 elements a thread; and the element path's.
      for (std::uint64_t stride : {65536ull * 256 * 8, 65536ull * 256, 3ull * 256 * 8}) {
        expect_walk(dim, heads, 0, stride, 40);
        expect_walk(dim, heads, (random() % (1ull << 28)) * 8, stride, 40);
      }
    }
  }
}

TEST(FillCursor, IndicesPastTwoToThe32) {
  // H19: K of 128 x 16384 rows x 8 heads x 256 channels = 4.3 G elements; a thread's walk crosses 2^32.
  const std::uint64_t stride = 65536ull * 256 * 8;
  expect_walk(256, 8, (1ull << 32) - 5 * stride + 8 * 12345, stride, 20);
  expect_walk(128, 2, (1ull << 33) + 8, 65536ull * 256, 50);
}

TEST(FillCursor, AStrideOfWholeRowsOnlyMovesTheRow) {
  FillCursor at(128, 8, 128 * 8 * 3 + 128 * 5 + 17, 128 * 8 * 2);
  at.advance(128, 8);
  EXPECT_EQ(at.token, 5u);
  EXPECT_EQ(at.head, 5);
  EXPECT_EQ(at.channel, 17);
}

}  // namespace
}  // namespace kseek::attention::device
