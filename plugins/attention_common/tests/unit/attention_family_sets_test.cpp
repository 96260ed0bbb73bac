// AttentionFamily keeps each scenario set it built: a set is built only when asked for, only once (threads included),
// and what is handed out is what the family's builder returned. Pure CPU; it must never time anything.
#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "kseek/attention/attention_family.hpp"
#include "kseek/attention/scenario_config.hpp"

namespace kseek::attention {
namespace {

// A family whose builders count their calls; its members are plain legal configs, so validate() is not the subject.
class CountingFamily final : public AttentionFamily {
 public:
  std::string_view name() const override { return "counting"; }
  DevicePeaks reference_device() const override { return {1e15, 1e12}; }
  SizeFloor size_floor() const override { return {}; }
  bool has_ahead_of_time_metadata() const override { return false; }

  mutable std::atomic<int> case_study_builds{0};
  mutable std::atomic<int> full_builds{0};
  bool full_fails = false;

  // What the builders return, called directly (not through the kept copy), to compare with what the family hands out.
  Result<std::vector<NamedScenario>> fresh_case_study() const { return members("C", 3); }
  Result<std::vector<NamedScenario>> fresh_full() const {
    if (full_fails) return make_error("full set refused on purpose");
    return members("F", 5);
  }

 protected:
  Result<void> check_family_rules(const AttentionConfig&) const override { return Ok{}; }
  Result<std::vector<NamedScenario>> case_study_set() const override {
    ++case_study_builds;
    return fresh_case_study();
  }
  Result<std::vector<NamedScenario>> full_set() const override {
    ++full_builds;
    return fresh_full();
  }

 private:
  static std::vector<NamedScenario> members(const std::string& prefix, int count) {
    std::vector<NamedScenario> out;
    for (int i = 1; i <= count; ++i) {
      auto config = parse_scenario_name("hq=8,hkv=8,d=128,dtype=bf16,causal=1,page=16,seqs=" + std::to_string(i) +
                                        "x(1," + std::to_string(64 * i) + ")");
      out.push_back({prefix + std::to_string(i), "member " + std::to_string(i), config.value()});
    }
    return out;
  }
};

void expect_same(const std::vector<NamedScenario>& a, const std::vector<NamedScenario>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].purpose, b[i].purpose);
    EXPECT_EQ(a[i].config, b[i].config) << a[i].id;
  }
}

TEST(AttentionFamilySets, NothingIsBuiltUntilASetIsAskedFor) {
  const CountingFamily family;
  EXPECT_EQ(family.case_study_builds, 0);
  EXPECT_EQ(family.full_builds, 0);
  ASSERT_TRUE(family.scenario_set(kCaseStudySet));
  EXPECT_EQ(family.case_study_builds, 1);
  EXPECT_EQ(family.full_builds, 0) << "asking for the case-study set built the full set too";
}

TEST(AttentionFamilySets, EachSetIsBuiltOnceAndHandsOutWhatItsBuilderReturned) {
  const CountingFamily family;
  for (int ask = 0; ask < 3; ++ask) {
    auto case_study = family.scenario_set(kCaseStudySet);
    auto full = family.scenario_set(kFullSet);
    ASSERT_TRUE(case_study);
    ASSERT_TRUE(full);
    expect_same(*case_study, family.fresh_case_study().value());
    expect_same(*full, family.fresh_full().value());
  }
  EXPECT_EQ(family.case_study_builds, 1);
  EXPECT_EQ(family.full_builds, 1);
}

TEST(AttentionFamilySets, ThreadsAskingTogetherBuildOnce) {
  const CountingFamily family;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {  // t by value: by reference, a late thread could read the loop's next value
      auto set = family.scenario_set(t % 2 == 0 ? kFullSet : kCaseStudySet);
      if (!set || set->empty()) ++failures;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(family.case_study_builds, 1);
  EXPECT_EQ(family.full_builds, 1);
}

TEST(AttentionFamilySets, AFailedSetKeepsItsErrorAndAnUnknownNameBuildsNothing) {
  CountingFamily family;
  family.full_fails = true;
  for (int ask = 0; ask < 2; ++ask) {
    auto full = family.scenario_set(kFullSet);
    ASSERT_FALSE(full);
    EXPECT_EQ(full.error().message, "full set refused on purpose");
  }
  EXPECT_EQ(family.full_builds, 1);
  auto unknown = family.scenario_set("nightly");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown counting scenario set 'nightly'"), std::string::npos)
      << unknown.error().message;
  EXPECT_EQ(family.case_study_builds, 0);
  EXPECT_EQ(family.full_builds, 1);
}

}  // namespace
}  // namespace kseek::attention
