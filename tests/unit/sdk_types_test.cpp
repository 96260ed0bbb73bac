// JSON round-trips of the SDK's value types: what a plugin says must survive records and reports.
#include <gtest/gtest.h>

#include "kseek/sdk/types.hpp"

namespace kseek {
namespace {

template <class T>
T round_trip(const T& value) {
  nlohmann::json j = value;
  return nlohmann::json::parse(j.dump()).get<T>();
}

TEST(SdkTypes, RoundTrips) {
  const Scenario scenario{"H01", "hq=32,hkv=8", "uniform prefill", 1.1e12, 6.7e8, "sm_90a"};
  EXPECT_EQ(round_trip(scenario), scenario);
  const PluginInfo info{"attention.fa3", "forward attention",       "d",         "0.1.0",
                        {"sm_90a"},      {{"case-study", "x", 26}}, "case-study"};
  EXPECT_EQ(round_trip(info), info);
  Constraints constraints;
  constraints.forbidden_symbols = {{"no-cute", "why", {"cute::"}}};
  constraints.max_cubin_bytes = 123;
  EXPECT_EQ(round_trip(constraints), constraints);
}

TEST(SdkTypes, ConstraintOverrideKeepsUnsetFields) {
  Constraints base;
  base.forbidden_symbols = {{"no-cute", "why", {"cute::"}}};
  base.compile_timeout_seconds = 42;
  from_json(nlohmann::json{{"max_cubin_bytes", 7}}, base);
  EXPECT_EQ(base.max_cubin_bytes, 7u);
  EXPECT_EQ(base.compile_timeout_seconds, 42);
  EXPECT_EQ(base.forbidden_symbols.size(), 1u);
}

TEST(SdkTypes, MissingRequiredFieldIsAnError) {
  EXPECT_THROW((void)nlohmann::json({{"name", "x"}}).get<Scenario>(), nlohmann::json::exception);
}

}  // namespace
}  // namespace kseek
