// Where a campaign's signing key is kept (record_signature.hpp): per user, or in the campaign's own .kseek-key/ for a
// campaign made that way; which one wins, what is set aside either way, and what a missing key's error names.
// It must never read or write the user's real key folder: every test points KSEEK_KEY_DIR, XDG_STATE_HOME and HOME
// at folders of its own, and puts them back.
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/campaign/campaign_engine.hpp"
#include "kseek/core/campaign/record_log.hpp"
#include "kseek/core/campaign/record_signature.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/sha256.hpp"
#include "support/campaign_fixture.hpp"
#include "support/forged_log_records.hpp"
#include "support/temp_folder.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Sets or unsets environment variables for one test; the destructor puts back what was there.
class ScopedEnvironment {
 public:
  ScopedEnvironment() = default;
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;
  ~ScopedEnvironment() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) {
        ::setenv(it->first.c_str(), it->second->c_str(), 1);
      } else {
        ::unsetenv(it->first.c_str());
      }
    }
  }
  ScopedEnvironment& set(const char* name, const fs::path& value) {
    remember(name);
    ::setenv(name, value.c_str(), 1);
    return *this;
  }
  ScopedEnvironment& unset(const char* name) {
    remember(name);
    ::unsetenv(name);
    return *this;
  }

 private:
  void remember(const char* name) {
    const char* value = std::getenv(name);
    saved_.emplace_back(name, value ? std::optional<std::string>(value) : std::nullopt);
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

std::size_t files_in(const fs::path& folder) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return 0;
  std::size_t n = 0;
  for (const auto& entry : fs::recursive_directory_iterator(folder)) n += entry.is_regular_file() ? 1 : 0;
  return n;
}

class CampaignKey : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const fs::path& folder : {user_keys_, empty_}) fs::create_directories(folder);
    environment_.set("KSEEK_KEY_DIR", user_keys_);
  }

  // A campaign whose evidence meets the synthetic goal (geomean 1.3 >= 1.10), keys where `place` says.
  Campaign make_campaign(KeyPlace place) {
    auto created = Campaign::create(dir_, testing::synthetic_config(), candidate_, sha256_hex("// seed\n"), place);
    if (!created) throw std::runtime_error(created.error().message);
    auto summary = created->record_evaluation(
        testing::synthetic_record(candidate_, {{"S01", "PASSED", 1.3}, {"S02", "PASSED", 1.3}}, 1.3));
    if (!summary) throw std::runtime_error(summary.error().message);
    return std::move(*created);
  }

  const testing::TempFolder temp_{"kseek_campaign_key"};
  const fs::path dir_ = temp_.path() / "campaign";
  const fs::path user_keys_ = temp_.path() / "user-keys";
  const fs::path empty_ = temp_.path() / "empty";
  const std::string candidate_ = "// candidate v1\n";
  ScopedEnvironment environment_;
};

TEST_F(CampaignKey, KeptInTheCampaignIsWrittenThereForTheOwnerOnly) {
  const Campaign c = make_campaign(KeyPlace::kCampaignFolder);
  EXPECT_TRUE(c.key_kept_in_campaign());
  const fs::path key = c.key_file();
  EXPECT_EQ(key.parent_path(), dir_ / ".kseek-key");
  EXPECT_EQ(key.extension(), ".key");
  EXPECT_EQ(read_file(key)->size(), 64u);
  EXPECT_EQ(testing::permissions_of(key), 0600u) << key;
  EXPECT_EQ(testing::permissions_of(key.parent_path()), 0700u);
  EXPECT_EQ(files_in(user_keys_), 0u) << "a campaign that keeps its key with it left one in the per-user folder";
}

TEST_F(CampaignKey, KeptInTheCampaignVerifiesWithoutAnyPerUserKey) {
  make_campaign(KeyPlace::kCampaignFolder);
  const fs::path xdg = temp_.path() / "xdg-state", home = temp_.path() / "home";
  fs::create_directories(xdg);
  fs::create_directories(home);
  struct Case {
    const char* name;
    std::function<void(ScopedEnvironment&)> apply;
  };
  const std::vector<Case> cases = {
      {"KSEEK_KEY_DIR an empty folder", [&](ScopedEnvironment& e) { e.set("KSEEK_KEY_DIR", empty_); }},
      {"KSEEK_KEY_DIR unset, XDG_STATE_HOME empty",
       [&](ScopedEnvironment& e) { e.unset("KSEEK_KEY_DIR").set("XDG_STATE_HOME", xdg); }},
      {"KSEEK_KEY_DIR and XDG_STATE_HOME unset, HOME empty",
       [&](ScopedEnvironment& e) { e.unset("KSEEK_KEY_DIR").unset("XDG_STATE_HOME").set("HOME", home); }},
  };
  for (const auto& each : cases) {
    ScopedEnvironment environment;
    each.apply(environment);
    auto c = Campaign::open(dir_);
    ASSERT_TRUE(c.ok()) << each.name << ": " << c.error().message;
    EXPECT_EQ(c->signature_problem(), "") << each.name;
    EXPECT_TRUE(c->key_kept_in_campaign()) << each.name;
    auto log = c->read_log();
    ASSERT_TRUE(log.ok()) << each.name;
    EXPECT_TRUE(log->damaged.empty()) << each.name << ": a record kseek signed was set aside";
    const GateResult gate = compute_gate(*c, *log);
    EXPECT_TRUE(gate.holds) << each.name << ": " << gate.evidence_problem;
    const json status = to_json(campaign_status(*c, *log));
    EXPECT_EQ(status["signatures"]["verified"], true) << each.name;
    EXPECT_EQ(status["signatures"]["key"], "in-campaign") << each.name;
    EXPECT_EQ(status["signatures"]["note"], std::string(kKeyInCampaignNote)) << each.name;
    EXPECT_TRUE(c->append("steer", {{"text", "still signed"}, {"steer_id", 1}}).ok()) << each.name;
    EXPECT_EQ(files_in(xdg) + files_in(home) + files_in(empty_), 0u) << each.name;
  }
  // Every record appended above verifies too.
  auto c = Campaign::open(dir_);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->read_log()->damaged.empty());
}

TEST_F(CampaignKey, AnUnsignedOrForeignSignedRecordInSuchACampaignIsSetAside) {
  const Campaign made = make_campaign(KeyPlace::kCampaignFolder);
  ScopedEnvironment environment;
  environment.set("KSEEK_KEY_DIR", empty_);
  const std::string newer = "// candidate v2, never evaluated\n";
  ASSERT_TRUE(write_file_atomically(dir_ / "candidate.cu", newer).ok());
  json forged = testing::unsigned_evaluation(2, newer);
  ASSERT_TRUE(append_record(made.log_path(), forged).ok());  // no signature at all
  // Signed, but under a key that is not this campaign's (64 hex digits, like one).
  forged["number"] = 3;
  forged["signature"] = record_signature(std::string(64, 'a'), forged);
  ASSERT_TRUE(append_record(made.log_path(), forged).ok());

  auto c = Campaign::open(dir_);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_TRUE(c->key_kept_in_campaign());
  auto log = c->read_log();
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(log->damaged.size(), 2u);
  for (const auto& d : log->damaged) EXPECT_EQ(d.reason, kNotSignedReason) << "line " << d.line;
  for (const auto& r : log->records) EXPECT_LT(r.value.value("number", 0), 2) << "a forged evaluation was read";
  const GateResult gate = compute_gate(*c, *log);
  EXPECT_FALSE(gate.holds);
  EXPECT_NE(gate.evidence_problem.find("kseek did not sign"), std::string::npos) << gate.evidence_problem;
}

TEST_F(CampaignKey, APerUserKeyWinsOverOneInTheCampaignFolder) {
  const Campaign made = make_campaign(KeyPlace::kUserFolder);
  const fs::path user_key = made.key_file();
  ASSERT_EQ(user_key.parent_path(), user_keys_);
  // A decoy of the right shape in the campaign's folder: were it taken, no record would verify.
  const fs::path decoy = dir_ / ".kseek-key" / user_key.filename();
  ASSERT_TRUE(write_file_atomically(decoy, std::string(64, 'b')).ok());

  auto c = Campaign::open(dir_);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->key_place(), KeyPlace::kUserFolder);
  EXPECT_EQ(c->key_file(), user_key);
  EXPECT_FALSE(c->key_kept_in_campaign());
  EXPECT_TRUE(c->read_log()->damaged.empty());
  EXPECT_EQ(campaign_status(*c, *c->read_log()).signatures.key, "per-user");
  const std::string id = user_key.stem().string();
  auto loaded = load_campaign_key(id, dir_);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->key, *read_file(user_key));

  // A damaged per-user key is an error, never a reason to take the campaign's copy.
  ASSERT_TRUE(write_file_atomically(user_key, "short").ok());
  auto damaged = load_campaign_key(id, dir_);
  ASSERT_FALSE(damaged.ok());
  EXPECT_NE(damaged.error().message.find("is damaged"), std::string::npos) << damaged.error().message;

  // Without the per-user key the decoy is what is found: nothing kseek signed verifies under it.
  fs::remove(user_key);
  auto with_decoy = load_campaign_key(id, dir_);
  ASSERT_TRUE(with_decoy.ok()) << with_decoy.error().message;
  EXPECT_EQ(with_decoy->place, KeyPlace::kCampaignFolder);
  EXPECT_FALSE(Campaign::open(dir_).ok()) << "records signed with the per-user key verified under the decoy";
}

TEST_F(CampaignKey, AMissingKeyNamesBothPlacesItLookedIn) {
  const std::string id(32, 'c');
  auto missing = load_campaign_key(id, dir_);
  ASSERT_FALSE(missing.ok());
  const std::string& why = missing.error().message;
  EXPECT_NE(why.find(user_keys_.string()), std::string::npos) << why;
  EXPECT_NE(why.find((dir_ / ".kseek-key").string()), std::string::npos) << why;
  EXPECT_NE(why.find("KSEEK_KEY_DIR"), std::string::npos) << why;
  EXPECT_FALSE(load_campaign_key("not-an-id", dir_).ok());
}

}  // namespace
}  // namespace kseek
