// Golden test of the evaluation record's shape: every key path of a record `kseek eval` writes now must equal
// the checked-in list for its status (tests/golden/eval-record-*.keys.json). A change to the record format
// fails here until the golden file and docs/result-schema.md are updated together.
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"

namespace {

void key_paths(const nlohmann::json& value, const std::string& prefix, std::set<std::string>& out) {
  if (value.is_object()) {
    for (const auto& [key, item] : value.items()) key_paths(item, prefix.empty() ? key : prefix + "." + key, out);
  } else if (value.is_array()) {
    out.insert(prefix + "[]");
    for (const auto& item : value) key_paths(item, prefix + "[]", out);
  } else {
    out.insert(prefix);
  }
}

std::set<std::string> golden(const std::string& name) {
  std::ifstream in(std::string(KSEEK_GOLDEN_DIR) + "/" + name);
  EXPECT_TRUE(in) << name;
  const auto list = nlohmann::json::parse(in);
  return {list.begin(), list.end()};
}

TEST(RecordSchema, EvalRecordMatchesTheGoldenKeyPaths) {
  const auto run = kseek::testing::run_kseek(
      "eval --plugin example.softmax --set small --json --input-seed 7 --min-rounds 6 --time-budget 1", "golden");
  const std::string& out = run.out;
  const auto record = nlohmann::json::parse(out);
  const std::string status = record.value("status", "");
  ASSERT_TRUE(status == "NEEDS_GPU" || status == "COMPLETE") << record.dump(2);
  EXPECT_EQ(record.value("schema", ""), "kseek.eval/1");
  std::set<std::string> got;
  key_paths(record, "", got);
  const auto expected =
      golden(status == "COMPLETE" ? "eval-record-complete.keys.json" : "eval-record-needs-gpu.keys.json");
  // Keys a record carries only in some states (a cold per-kernel build's stage times; a warm cache has none), each
  // documented as conditional in docs/result-schema.md: allowed, never required.
  const auto optional = golden("eval-record-optional.keys.json");
  for (const auto& key : expected) EXPECT_TRUE(got.count(key)) << "missing from the record: " << key;
  for (const auto& key : got) {
    EXPECT_TRUE(expected.count(key) || optional.count(key)) << "not in the golden schema: " << key;
  }
  for (const auto& key : optional) EXPECT_FALSE(expected.count(key)) << "both required and optional: " << key;
}

}  // namespace
