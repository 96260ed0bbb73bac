// The typed evaluation record: every record kept in the repository reads and writes back to the same JSON, and a key
// of the wrong type is refused with its key path.
// It must never compare records loosely: a dropped or retyped key is data loss and has to fail here.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kseek/core/eval/evaluation_record.hpp"

namespace {
namespace fs = std::filesystem;
using nlohmann::json;

// Every kseek.eval/1 record in the repository's measurements and fixtures.
std::vector<fs::path> stored_records() {
  std::vector<fs::path> found;
  const fs::path root(KSEEK_SOURCE_DIR);
  for (const auto& folder : {root / "docs/measurements", root / "tests/fixtures"}) {
    for (const auto& entry : fs::recursive_directory_iterator(folder)) {
      if (entry.path().extension() != ".json") continue;
      std::ifstream in(entry.path());
      const json doc = json::parse(in, nullptr, /*allow_exceptions=*/false);
      if (doc.is_object() && doc.value("schema", "") == kseek::kEvalRecordSchema) found.push_back(entry.path());
    }
  }
  return found;
}

json parse_file(const fs::path& path) {
  std::ifstream in(path);
  return json::parse(in);
}

TEST(EvaluationRecord, EveryStoredRecordRoundTripsToTheSameJson) {
  const auto files = stored_records();
  ASSERT_GE(files.size(), 15u) << "the measurements and fixtures hold fewer records than expected";
  for (const auto& file : files) {
    const json original = parse_file(file);
    const auto record = kseek::evaluation_record_from_json(original);
    ASSERT_TRUE(record.ok()) << file << ": " << record.error().message;
    const json written = kseek::to_json(*record);
    // Text, not json ==: the latter calls 1 and 1.0 equal, and a number's type is part of the record.
    EXPECT_EQ(written.dump(), original.dump()) << file;
  }
}

TEST(EvaluationRecord, ReadsWhatTheConsumersUse) {
  json r = {{"schema", "kseek.eval/1"},
            {"status", "COMPLETE"},
            {"wall_seconds", 3.5},
            {"scenarios",
             {{{"scenario", "s0"},
               {"status", "PASSED"},
               {"wall_seconds", 1.0},
               {"timing", {{"ratio", 1.25}, {"ci_low", 1.2}, {"ci_high", 1.3}, {"representative", false}}}},
              {{"scenario", "s1"}, {"status", "TIMEOUT"}, {"message", "watchdog"}}}}};
  const auto record = kseek::evaluation_record_from_json(r);
  ASSERT_TRUE(record.ok()) << record.error().message;
  ASSERT_EQ(record->scenario_list().size(), 2u);
  EXPECT_EQ(record->status, kseek::RecordStatus::kComplete);
  EXPECT_DOUBLE_EQ(record->scenario_list()[0].timing->ratio, 1.25);
  EXPECT_EQ(record->scenario_list()[0].timing->unmodelled, json({{"representative", false}}));
  EXPECT_EQ(record->scenario_list()[1].status, kseek::Status::kTimeout);
  EXPECT_FALSE(record->scenario_list()[1].timing.has_value());
  EXPECT_EQ(record->scenario_list()[1].message.value_or(""), "watchdog");
  EXPECT_FALSE(record->all_passed());
}

TEST(EvaluationRecord, AWrongKeyIsNamedByItsPath) {
  json r = {{"schema", "kseek.eval/1"},
            {"status", "COMPLETE"},
            {"scenarios",
             {{{"scenario", "s0"}, {"status", "PASSED"}},
              {{"scenario", "s1"}, {"status", "PASSED"}, {"timing", {{"ratio", "fast"}}}}}}};
  auto record = kseek::evaluation_record_from_json(r);
  ASSERT_FALSE(record.ok());
  EXPECT_NE(record.error().message.find("scenarios[1].timing.ratio"), std::string::npos) << record.error().message;

  r["scenarios"][1]["timing"]["ratio"] = 1.0;
  r["scenarios"][0]["status"] = "GREAT";
  record = kseek::evaluation_record_from_json(r);
  ASSERT_FALSE(record.ok());
  EXPECT_NE(record.error().message.find("scenarios[0].status"), std::string::npos) << record.error().message;
  // The one status mapping's error: the unknown text and the spellings it could have been.
  EXPECT_NE(record.error().message.find("'GREAT'"), std::string::npos) << record.error().message;
  EXPECT_NE(record.error().message.find("NOT_RUNNABLE"), std::string::npos) << record.error().message;

  r["scenarios"][0]["status"] = "PASSED";
  r["status"] = "DONE";
  record = kseek::evaluation_record_from_json(r);
  ASSERT_FALSE(record.ok());
  EXPECT_NE(record.error().message.find("status"), std::string::npos) << record.error().message;

  r["status"] = "COMPLETE";
  r["schema"] = "kseek.eval/2";
  EXPECT_FALSE(kseek::evaluation_record_from_json(r).ok());
}

TEST(EvaluationRecord, AKeyTheTypeDoesNotModelIsWrittenBack) {
  json r = {{"schema", "kseek.eval/1"},
            {"kseek_version", "0.1.0"},
            {"created_at", "2026-12-02T00:00:00Z"},
            {"status", "NEEDS_GPU"},
            {"message", "no GPU"},
            {"plugin", {{"id", "example.softmax"}, {"version", "1"}, {"path", "libx.so"}, {"abi", 3}}},
            {"candidate", {{"file", "c.cu"}, {"sha256", "ab"}}},
            {"a_later_key", {1, 2}}};
  const auto record = kseek::evaluation_record_from_json(r);
  ASSERT_TRUE(record.ok()) << record.error().message;
  EXPECT_EQ(kseek::to_json(*record), r);
}

}  // namespace
