// Unit test: core's fuzz targets replay their committed seed corpora (tests/fuzz/corpus/<target>/) through the shared
// replay (support/fuzz_corpus_replay.hpp). A plugin's targets are replayed by its own tests. It must never leave one of
// this folder's targets out: a target without a corpus fails there.
#include <gtest/gtest.h>

#include "support/fuzz_corpus_replay.hpp"

namespace kseek::fuzz {

// The entry functions of this folder's targets, one per <name>_fuzz.cpp.
int fuzz_question_pack(const std::uint8_t* data, std::size_t size);
int fuzz_record_log(const std::uint8_t* data, std::size_t size);
int fuzz_goal_expression(const std::uint8_t* data, std::size_t size);
int fuzz_plugin_descriptor(const std::uint8_t* data, std::size_t size);
int fuzz_campaign_config(const std::uint8_t* data, std::size_t size);

namespace {

const FuzzTarget kTargets[] = {
    {"question_pack", fuzz_question_pack},     {"record_log", fuzz_record_log},
    {"goal_expression", fuzz_goal_expression}, {"plugin_descriptor", fuzz_plugin_descriptor},
    {"campaign_config", fuzz_campaign_config},
};

INSTANTIATE_TEST_SUITE_P(Targets, FuzzCorpusReplay, ::testing::ValuesIn(kTargets), fuzz_target_name);

}  // namespace
}  // namespace kseek::fuzz
