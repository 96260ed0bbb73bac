// Unit test: every fuzz target's entry function replays its committed seed corpus (tests/fuzz/corpus/<target>/),
// built with the ordinary compiler and no libFuzzer, so CI exercises the targets. A target checks its properties
// itself and aborts on a violation (libFuzzer's contract: the entry always returns 0), so what this test asserts is
// that every seed runs to the end without an abort, a crash or an escaped exception. It must never skip a target whose
// corpus folder is empty or missing: that is a failure.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fuzz/fuzz_target.hpp"

namespace kseek::fuzz {
namespace {

namespace fs = std::filesystem;

struct Target {
  const char* name;
  int (*entry)(const std::uint8_t*, std::size_t);
};

const Target kTargets[] = {
    {"question_pack", fuzz_question_pack},         {"record_log", fuzz_record_log},
    {"scenario_name", fuzz_scenario_name},         {"goal_expression", fuzz_goal_expression},
    {"plugin_descriptor", fuzz_plugin_descriptor}, {"campaign_config", fuzz_campaign_config},
};

void PrintTo(const Target& target, std::ostream* os) { *os << target.name; }

class FuzzCorpusReplay : public ::testing::TestWithParam<Target> {};

TEST_P(FuzzCorpusReplay, EverySeedRunsCleanly) {
  const fs::path folder = fs::path(KSEEK_FUZZ_CORPUS_DIR) / GetParam().name;
  ASSERT_TRUE(fs::is_directory(folder)) << folder << " is missing";
  std::vector<fs::path> seeds;
  for (const auto& entry : fs::directory_iterator(folder)) {
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

INSTANTIATE_TEST_SUITE_P(Targets, FuzzCorpusReplay, ::testing::ValuesIn(kTargets),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace kseek::fuzz
