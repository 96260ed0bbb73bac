// app::select_scenarios, the one place `--scenarios` becomes scenarios: set ids, key=value names of any configuration,
// and the comma-separated id lists people type, each resolved or refused with a message that names the entry.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kseek/core/app/app_options.hpp"
#include "support/toy_operator_plugin.hpp"

namespace kseek {
namespace {

std::vector<std::string> ids_of(const std::vector<Scenario>& scenarios) {
  std::vector<std::string> ids;
  for (const auto& s : scenarios) ids.push_back(s.id + ":" + s.name);
  return ids;
}

TEST(ScenarioSelection, NoEntryIsTheWholeSetAndEachEntryIsAnIdOrAName) {
  const testing::ToyPlugin plugin(testing::all_files());
  auto all = app::select_scenarios(plugin, "", {});
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(ids_of(*all), (std::vector<std::string>{"D01:n=100", "D02:n=77"}));
  auto mixed = app::select_scenarios(plugin, "default", {"D02", "n=5"});
  ASSERT_TRUE(mixed) << mixed.error().message;
  EXPECT_EQ(ids_of(*mixed), (std::vector<std::string>{"D02:n=77", "U02:n=5"}));
}

TEST(ScenarioSelection, ACommaSeparatedListOfIdsIsTheseIdsInItsOrder) {
  const testing::ToyPlugin plugin(testing::all_files());
  auto listed = app::select_scenarios(plugin, "default", {"D02, D01,"});
  ASSERT_TRUE(listed) << listed.error().message;
  EXPECT_EQ(ids_of(*listed), (std::vector<std::string>{"D02:n=77", "D01:n=100"}));
  auto unknown = app::select_scenarios(plugin, "default", {"D01,D09"});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("scenario 'D09' is not in set 'default'"), std::string::npos)
      << unknown.error().message;
}

TEST(ScenarioSelection, AKeyValueNameKeepsItsCommasAndABadOneIsNamedWhole) {
  const testing::ToyPlugin plugin(testing::all_files());
  auto bad = app::select_scenarios(plugin, "default", {"n=5,m=3"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("scenario 'n=5,m=3' is not in set 'default'"), std::string::npos)
      << bad.error().message;
}

}  // namespace
}  // namespace kseek
