// The seed-corpus replay of a tree's fuzz targets (label unit): each target's entry function over every file of its
// committed corpus (KSEEK_FUZZ_CORPUS_DIR/<target>/), built with the ordinary compiler and no libFuzzer, so CI
// exercises the targets. A target checks its properties itself and aborts on a violation (libFuzzer's contract: the
// entry always returns 0), so what the test asserts is that every seed runs to the end without an abort, a crash or an
// escaped exception. Include it in one source per test executable, which instantiates FuzzCorpusReplay with its
// targets (tests/fuzz, plugins/<name>/tests/fuzz). It must never skip a target whose corpus folder is empty or missing:
// that is a failure.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/fuzz_target.hpp"

namespace kseek::fuzz {

struct FuzzTarget {
  const char* name;  // the corpus folder's name too
  FuzzEntry entry;
};

inline void PrintTo(const FuzzTarget& target, std::ostream* os) { *os << target.name; }

// INSTANTIATE_TEST_SUITE_P(Targets, FuzzCorpusReplay, ::testing::ValuesIn(kTargets), fuzz_target_name).
inline std::string fuzz_target_name(const ::testing::TestParamInfo<FuzzTarget>& info) { return info.param.name; }

class FuzzCorpusReplay : public ::testing::TestWithParam<FuzzTarget> {};

TEST_P(FuzzCorpusReplay, EverySeedRunsCleanly) {
  const std::filesystem::path folder = std::filesystem::path(KSEEK_FUZZ_CORPUS_DIR) / GetParam().name;
  ASSERT_TRUE(std::filesystem::is_directory(folder)) << folder << " is missing";
  std::vector<std::filesystem::path> seeds;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.is_regular_file()) seeds.push_back(entry.path());
  }
  std::sort(seeds.begin(), seeds.end());
  ASSERT_FALSE(seeds.empty()) << folder << " holds no seed";
  for (const auto& seed : seeds) {
    std::ifstream in(seed, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    SCOPED_TRACE(seed.string());
    GetParam().entry(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  // Also the edge inputs a corpus tends to lack.
  GetParam().entry(nullptr, 0);
  const std::uint8_t nul[] = {0};
  GetParam().entry(nul, 1);
}

}  // namespace kseek::fuzz
