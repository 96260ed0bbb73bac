// The topics a claim's words name: each topic from its cues, several at once, none from a text without cues, and cues
// only at the start of a word ("terror" names no error).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kseek/core/campaign/claim_topics.hpp"

namespace kseek {
namespace {

using Topics = std::vector<std::string>;

TEST(ClaimTopics, EachTopicFromItsWords) {
  EXPECT_EQ(claim_topics("We stream at 4.1 TB/s, the HBM's bandwidth"), Topics{"bandwidth"});
  EXPECT_EQ(claim_topics("The wgmma issue rate is the ceiling"), Topics{"compute"});
  EXPECT_EQ(claim_topics("Every warp stalls on the same latency"), Topics{"latency"});
  EXPECT_EQ(claim_topics("The rounding of the accumulator exceeds the tolerance"), Topics{"numerics"});
  EXPECT_EQ(claim_topics("Register pressure caps occupancy at two CTAs"), Topics{"occupancy"});
  EXPECT_EQ(claim_topics("What is left is launch overhead"), Topics{"launch"});
  EXPECT_EQ(claim_topics("The tail effect of the last wave is the limit: load imbalance"), Topics{"balance"});
}

TEST(ClaimTopics, SeveralTopicsInTheOrderOfThePackFormat) {
  EXPECT_EQ(claim_topics("FP8 on the TENSOR CORES loses accuracy, and the bytes saved do not matter"),
            (Topics{"bandwidth", "compute", "numerics"}));
}

TEST(ClaimTopics, TheTopicNamedMostComesFirst) {
  // fa3-h200, session 15's limit claim (abridged): about the accumulator's error, mentioning wgmma once.
  EXPECT_EQ(claim_topics("fp8 S = Q K^T on Hopper's e4m3 wgmma cannot pass this set's correctness rule: max error 0.77 "
                         "against 0.126 allowed; the fp8 accumulator off by up to 0.45 logits"),
            (Topics{"numerics", "compute"}));
}

TEST(ClaimTopics, ADataTypeIsNotAReason) {
  EXPECT_EQ(claim_topics("fp8 prefill sits at the tensor-core peak"), Topics{"compute"});
  EXPECT_TRUE(claim_topics("e4m3 decode on 132 streaming multiprocessors cannot go further").empty());
}

TEST(ClaimTopics, NoCueNoTopicAndCuesStartWords) {
  EXPECT_TRUE(claim_topics("This is as fast as it gets").empty());
  EXPECT_TRUE(claim_topics("").empty());
  EXPECT_TRUE(claim_topics("A terror of a kernel, recomputed").empty());
}

}  // namespace
}  // namespace kseek
