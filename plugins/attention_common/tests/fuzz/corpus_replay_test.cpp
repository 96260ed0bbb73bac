// Unit test: the attention plugins' fuzz target replays its committed seed corpus (fuzz/corpus/scenario_name/ here)
// through the replay every tree shares (support/fuzz_corpus_replay.hpp). It must never leave one of this folder's
// targets out: a target without a corpus fails there.
#include <gtest/gtest.h>

#include "support/fuzz_corpus_replay.hpp"

namespace kseek::fuzz {

int fuzz_scenario_name(const std::uint8_t* data, std::size_t size);  // scenario_name_fuzz.cpp

namespace {

const FuzzTarget kTargets[] = {{"scenario_name", fuzz_scenario_name}};

INSTANTIATE_TEST_SUITE_P(Targets, FuzzCorpusReplay, ::testing::ValuesIn(kTargets), fuzz_target_name);

}  // namespace
}  // namespace kseek::fuzz
