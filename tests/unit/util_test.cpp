// Unit tests of the small utilities every seam uses: hashing, atomic files, tables, statuses.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kseek/core/status.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/sha256.hpp"
#include "kseek/core/util/shell.hpp"
#include "kseek/core/util/table.hpp"
#include "kseek/core/util/utc_time.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, FieldsAreLengthPrefixed) {
  EXPECT_NE(Sha256().add_field("ab").add_field("c").hex_digest(), Sha256().add_field("a").add_field("bc").hex_digest());
  EXPECT_EQ(Sha256().add("ab").add("c").hex_digest(), sha256_hex("abc"));
}

TEST(Files, AtomicWriteReplacesWholeAndLeavesNoTemporaries) {
  const fs::path folder = fs::temp_directory_path() / ("kseek-files-" + std::to_string(::getpid()));
  fs::remove_all(folder);
  const fs::path file = folder / "nested" / "record.json";
  ASSERT_TRUE(write_file_atomically(file, "first"));
  ASSERT_TRUE(write_file_atomically(file, "second, longer content"));
  auto content = read_file(file);
  ASSERT_TRUE(content);
  EXPECT_EQ(*content, "second, longer content");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(file.parent_path())) ++entries;
  EXPECT_EQ(entries, 1u) << "temporary files left behind";
  fs::remove_all(folder);
}

// read_file reads in chunks into a string sized from the file: every byte back, NULs included, across chunk borders;
// and a file with no size to ask for (a device) still reads to its end.
TEST(Files, ReadsEveryByteOfAFileLargerThanOneChunkAndOfADevice) {
  const fs::path file = fs::temp_directory_path() / ("kseek-read-" + std::to_string(::getpid()) + ".bin");
  std::string bytes;
  for (std::size_t i = 0; i < 200'003; ++i) bytes.push_back(static_cast<char>((i * 131 + i / 7) & 0xff));
  ASSERT_TRUE(write_file_atomically(file, bytes));
  auto content = read_file(file);
  ASSERT_TRUE(content);
  EXPECT_EQ(content->size(), bytes.size());
  EXPECT_TRUE(*content == bytes);
  fs::remove(file);
  auto device = read_file("/dev/null");
  ASSERT_TRUE(device);
  EXPECT_TRUE(device->empty());
}

TEST(Files, ReadingAMissingFileNamesIt) {
  auto content = read_file("/nonexistent/kseek/file.cu");
  ASSERT_FALSE(content);
  EXPECT_NE(content.error().message.find("/nonexistent/kseek/file.cu"), std::string::npos);
}

TEST(UtcTime, AGivenTimeIsWrittenInTheRecordsFormAndReadsBackToTheSecond) {
  const auto when = std::chrono::system_clock::from_time_t(1796406258);  // 2026-12-04T17:44:18Z
  EXPECT_EQ(utc_timestamp(when), "2026-12-04T17:44:18Z");
  EXPECT_EQ(utc_timestamp(when + std::chrono::milliseconds(900)), "2026-12-04T17:44:18Z") << "a fraction is dropped";
  EXPECT_EQ(parse_utc_timestamp(utc_timestamp(when)), when);
  EXPECT_EQ(parse_utc_timestamp("2026-12-04 17:44:18"), std::nullopt);
}

TEST(Table, AlignsColumnsAndRightAlignsNumbers) {
  Table table({"name", "n"});
  table.add_row({"a", "1"});
  table.add_row({"longer", "100"});
  EXPECT_EQ(table.render({1}), "name      n\n-----------\na         1\nlonger  100\n");
}

// The golden list is the record's vocabulary in enum order: a renamed spelling, a value added in the middle, or one
// appended without its spelling fails here before any record carries it.
TEST(Status, EveryValueIsSpelledAsTheGoldenListAndRoundTrips) {
  std::ifstream in(std::string(KSEEK_GOLDEN_DIR) + "/statuses.json");
  ASSERT_TRUE(in) << "tests/golden/statuses.json";
  const auto golden = nlohmann::json::parse(in);
  ASSERT_TRUE(golden.is_array() && golden.size() >= 10) << golden.dump();
  for (std::size_t i = 0; i < golden.size(); ++i) {
    const auto status = static_cast<Status>(i);
    EXPECT_EQ(to_string(status), golden[i].get<std::string>()) << "enum value " << i;
    auto parsed = parse_status(golden[i].get<std::string>());
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_EQ(*parsed, status);
  }
  EXPECT_EQ(to_string(static_cast<Status>(golden.size())), "UNKNOWN")
      << "a Status value past the golden list's end: add its spelling to tests/golden/statuses.json and "
         "docs/result-schema.md";
}

TEST(Status, TheDocumentedSpellingsAreTheGoldenList) {
  std::ifstream in(std::string(KSEEK_GOLDEN_DIR) + "/statuses.json");
  std::ifstream doc(std::string(KSEEK_SOURCE_DIR) + "/docs/result-schema.md");
  ASSERT_TRUE(in && doc);
  std::string text((std::istreambuf_iterator<char>(doc)), std::istreambuf_iterator<char>());
  std::string spelled;
  for (const auto& s : nlohmann::json::parse(in)) spelled += (spelled.empty() ? "" : " ") + s.get<std::string>();
  // The schema page spells them in one backquoted list, broken over lines like any paragraph.
  for (auto& c : text) c = c == '\n' ? ' ' : c;
  EXPECT_NE(text.find("`" + spelled + "`"), std::string::npos)
      << "docs/result-schema.md should list `" << spelled << "`";
}

TEST(Status, AnUnknownSpellingIsAnErrorThatNamesItAndTheKnownOnes) {
  auto parsed = parse_status("passed");
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error().message.find("'passed'"), std::string::npos) << parsed.error().message;
  EXPECT_NE(parsed.error().message.find("PASSED"), std::string::npos) << parsed.error().message;
  EXPECT_NE(parsed.error().message.find("NOT_RUNNABLE"), std::string::npos) << parsed.error().message;
  EXPECT_FALSE(parse_status(""));
}

TEST(Status, SpellingsRoundTrip) {
  for (Status s :
       {Status::kOk, Status::kPassed, Status::kFailed, Status::kMistrusted, Status::kCrashed, Status::kTimeout,
        Status::kLaunchError, Status::kCompileError, Status::kConstraintViolation, Status::kNotRunnable}) {
    auto back = status_from_string(to_string(s));
    ASSERT_TRUE(back.has_value()) << to_string(s);
    EXPECT_EQ(*back, s);
  }
  EXPECT_EQ(to_string(Status::kConstraintViolation), "CONSTRAINT_VIOLATION");
  EXPECT_FALSE(status_from_string("passed").has_value());
}

TEST(Shell, QuotesOnlyWhatAShellWouldSplitOrExpand) {
  EXPECT_EQ(shell_quote("/opt/kseek/bin/kseek"), "/opt/kseek/bin/kseek");
  EXPECT_EQ(shell_quote("--scenarios=H01,H02"), "--scenarios=H01,H02");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("hq=4;rm -rf ~"), "'hq=4;rm -rf ~'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("$HOME"), "'$HOME'");
  EXPECT_EQ(shell_quote(""), "''");
}

TEST(Shell, FindsThisExecutable) {
  auto self = self_executable();
  ASSERT_TRUE(self.ok()) << self.error().message;
  EXPECT_EQ(self->filename(), "kseek_unit_tests");
}

}  // namespace
}  // namespace kseek
