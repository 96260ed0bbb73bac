// `kseek init --key-in-campaign` and the commands a stranger runs in such a campaign, through the real binary: the key
// is written in the campaign with owner-only modes, and status, gate and report verify the records without any
// per-user key folder, say once what such signatures guard against, and still set aside a record kseek did not sign.
// It must never need a GPU (evidence is a synthetic record written through the store), nor touch the user's key folder.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/campaign/record_log.hpp"
#include "kseek/core/campaign/record_signature.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/sha256.hpp"
#include "support/campaign_fixture.hpp"
#include "support/forged_log_records.hpp"
#include "support/hook_payloads.hpp"
#include "support/run_command.hpp"
#include "support/temp_folder.hpp"
#include "support/toml_reader.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The sentence every report of verification carries for such a campaign: its distinctive middle.
constexpr std::string_view kAccidentsOnly = "guard against accidents (a hand-edited or truncated record)";

std::size_t count_of(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

std::vector<fs::path> files_in(const fs::path& folder) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return out;
  for (const auto& entry : fs::recursive_directory_iterator(folder)) {
    if (entry.is_regular_file()) out.push_back(entry.path());
  }
  return out;
}

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

class KeyInCampaign : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const fs::path& folder : {user_keys_, empty_, home_, xdg_}) fs::create_directories(folder);
  }

  // `kseek ARGS` under `environment` (an `env` prefix); stderr merged when asked.
  testing::CommandRun kseek(const std::string& environment, const std::string& args, bool merge_stderr = false) {
    return testing::run_command(environment + " KSEEK_CACHE_DIR=\"${TMPDIR:-/tmp}/kseek-key-in-campaign-cache\" '" +
                                std::string(KSEEK_EXE) + "' " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null"));
  }
  // The campaign made as a person would (`init` with the per-user folder set, so a key written there would show).
  void init(const fs::path& dir, bool key_in_campaign) {
    auto made = kseek("env KSEEK_KEY_DIR=" + quoted(user_keys_),
                      "--json init " + quoted(dir) + " --plugin example.softmax" +
                          " --goal 'all_passed and geomean >= 1.10'" + (key_in_campaign ? " --key-in-campaign" : ""));
    ASSERT_EQ(made.exit_code, 0) << made.out;
    init_document_ = testing::json_output(made, "init");
  }
  // Evidence that meets the goal for the candidate as it is, written through the store (this process finds the key
  // the way the binary does: ctest's KSEEK_KEY_DIR does not hold it).
  void record_passing_evaluation(const fs::path& dir) {
    auto c = Campaign::open(dir);
    ASSERT_TRUE(c.ok()) << c.error().message;
    const std::string text = *read_file(c->candidate_path());
    const auto record = testing::synthetic_record(text, {{"S01", "PASSED", 1.3}, {"S02", "PASSED", 1.3}}, 1.3);
    auto s = c->record_evaluation(record);
    ASSERT_TRUE(s.ok()) << s.error().message;
  }
  // The environments of a stranger's shell: no key folder of this campaign, three ways.
  std::vector<std::string> strangers() const {
    return {"env KSEEK_KEY_DIR=" + quoted(empty_), "env -u KSEEK_KEY_DIR XDG_STATE_HOME=" + quoted(xdg_),
            "env -u KSEEK_KEY_DIR -u XDG_STATE_HOME HOME=" + quoted(home_)};
  }

  const testing::TempFolder temp_{"kseek_key_in_campaign"};
  const fs::path dir_ = temp_.path() / "c";
  const fs::path user_keys_ = temp_.path() / "user-keys";
  const fs::path empty_ = temp_.path() / "empty";
  const fs::path home_ = temp_.path() / "home";
  const fs::path xdg_ = temp_.path() / "xdg";
  json init_document_;
};

TEST_F(KeyInCampaign, InitWritesTheKeyInTheCampaignForTheOwnerOnlyAndPinsNoKeyFolder) {
  ASSERT_NO_FATAL_FAILURE(init(dir_, true));
  const auto keys = files_in(dir_ / ".kseek-key");
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0].extension(), ".key");
  EXPECT_EQ(read_file(keys[0])->size(), 64u);
  EXPECT_EQ(testing::permissions_of(keys[0]), 0600u) << keys[0];
  EXPECT_EQ(testing::permissions_of(dir_ / ".kseek-key"), 0700u);
  EXPECT_TRUE(files_in(user_keys_).empty()) << "init --key-in-campaign wrote a key in the per-user folder";
  EXPECT_EQ(init_document_["signing_key"]["key"], "in-campaign") << init_document_.dump();
  EXPECT_EQ(fs::path(init_document_["signing_key"].value("file", "")), keys[0]);

  // The registrations pin no key folder: the server finds the key through the campaign folder it is given.
  const json mcp = json::parse(*read_file(dir_ / ".mcp.json"));
  EXPECT_FALSE(mcp["mcpServers"]["kseek"]["env"].contains("KSEEK_KEY_DIR")) << mcp.dump();
  const json codex = testing::TomlReader::document(*read_file(dir_ / ".codex" / "config.toml"));
  EXPECT_FALSE(codex["mcp_servers"]["kseek"].value("env", json::object()).contains("KSEEK_KEY_DIR")) << codex.dump();

  const auto human = kseek("env KSEEK_KEY_DIR=" + quoted(user_keys_),
                           "init " + quoted(temp_.path() / "d") + " --plugin example.softmax --key-in-campaign");
  ASSERT_EQ(human.exit_code, 0) << human.out;
  EXPECT_EQ(count_of(human.out, kAccidentsOnly), 1u) << human.out;
}

TEST_F(KeyInCampaign, AStrangerVerifiesItsRecordsWithoutAnyKeyFolderAndIsToldWhatTheyGuardAgainst) {
  ASSERT_NO_FATAL_FAILURE(init(dir_, true));
  ASSERT_NO_FATAL_FAILURE(record_passing_evaluation(dir_));
  for (const auto& environment : strangers()) {
    SCOPED_TRACE(environment);
    const json status = testing::json_output(kseek(environment, "--json status --campaign " + quoted(dir_)), "status");
    EXPECT_EQ(status["signatures"]["verified"], true) << status.dump();
    EXPECT_EQ(status["signatures"]["key"], "in-campaign");
    EXPECT_EQ(status["signatures"]["note"], std::string(kKeyInCampaignNote));
    EXPECT_EQ(status["evaluations"], 1);
    EXPECT_EQ(status["gate"]["holds"], true) << status.dump();
    EXPECT_TRUE(status["damaged_lines"].empty()) << status.dump();

    const auto human = kseek(environment, "status --campaign " + quoted(dir_), true);
    EXPECT_EQ(human.exit_code, 0) << human.out;
    EXPECT_EQ(count_of(human.out, kAccidentsOnly), 1u) << human.out;
    EXPECT_EQ(human.out.find("cannot be verified"), std::string::npos) << human.out;

    const auto gate = kseek(environment, "--json gate --campaign " + quoted(dir_));
    EXPECT_EQ(gate.exit_code, 0) << gate.out;
    EXPECT_EQ(testing::json_output(gate, "gate")["status"], "MET");

    // The stop gate allows (the goal holds) and tells the person what the evidence it went by can prove.
    const fs::path payload = temp_.path() / "stop.json";
    std::ofstream(payload) << testing::stop_payload("claude", "s1", dir_).dump();
    const auto stop =
        kseek(environment, "hook stop --host claude --campaign " + quoted(dir_) + " < " + quoted(payload));
    EXPECT_EQ(stop.exit_code, 0) << stop.out;
    const json reply = json::parse(stop.out.empty() ? std::string("{}") : stop.out, nullptr, false);
    EXPECT_NE(reply.value("decision", ""), "block") << stop.out;
    EXPECT_EQ(count_of(reply.value("systemMessage", ""), kAccidentsOnly), 1u) << stop.out;

    const json report = testing::json_output(kseek(environment, "--json report " + quoted(dir_)), "report");
    std::size_t accidents = 0;
    for (const auto& w : report["warnings"]) {
      const std::string message = w.value("message", "");
      accidents += count_of(message, kAccidentsOnly);
      EXPECT_EQ(message.find("cannot be verified"), std::string::npos) << message;
      EXPECT_EQ(message.find("not signed by kseek"), std::string::npos) << message;
    }
    EXPECT_EQ(accidents, 1u) << report.dump();
    EXPECT_EQ(report["evaluations"], 1);
    const auto markdown = kseek(environment, "report " + quoted(dir_));
    EXPECT_EQ(count_of(markdown.out, kAccidentsOnly), 1u) << markdown.out;
  }
  for (const fs::path& folder : {empty_, home_, xdg_}) EXPECT_TRUE(files_in(folder).empty()) << folder;
}

TEST_F(KeyInCampaign, ARecordKseekDidNotSignIsStillSetAside) {
  ASSERT_NO_FATAL_FAILURE(init(dir_, true));
  ASSERT_NO_FATAL_FAILURE(record_passing_evaluation(dir_));
  // An agent's evaluation of a newer candidate: a right checksum, no signature.
  const std::string newer = "// candidate v2, never evaluated\n";
  ASSERT_TRUE(write_file_atomically(dir_ / "candidate.cu", newer).ok());
  ASSERT_TRUE(append_record(dir_ / ".kseek" / "log.jsonl", testing::unsigned_evaluation(2, newer)).ok());
  const std::string stranger = strangers().front();
  const json status = testing::json_output(kseek(stranger, "--json status --campaign " + quoted(dir_)), "status");
  EXPECT_EQ(status["evaluations"], 1) << "the forged evaluation was counted: " << status.dump();
  EXPECT_EQ(status["gate"]["holds"], false) << status.dump();
  ASSERT_EQ(status["damaged_lines"].size(), 1u) << status.dump();
  EXPECT_EQ(status["damaged_lines"][0]["reason"], std::string(kNotSignedReason));

  const json report = testing::json_output(kseek(stranger, "--json report " + quoted(dir_)), "report");
  EXPECT_EQ(report["evaluations"], 1) << report.dump();
  EXPECT_NE(report["warnings"].dump().find("not signed by kseek"), std::string::npos) << report.dump();
}

// The control: the same stranger in a campaign whose key stayed in its maker's per-user folder can verify nothing,
// and is told so (the behaviour --key-in-campaign exists to change, for campaigns made for it only).
TEST_F(KeyInCampaign, APerUserKeyStaysWithItsUser) {
  ASSERT_NO_FATAL_FAILURE(init(dir_, false));
  EXPECT_FALSE(fs::exists(dir_ / ".kseek-key"));
  EXPECT_EQ(files_in(user_keys_).size(), 1u);
  EXPECT_EQ(init_document_["signing_key"]["key"], "per-user") << init_document_.dump();
  const json status =
      testing::json_output(kseek(strangers().front(), "--json status --campaign " + quoted(dir_)), "status");
  EXPECT_EQ(status["signatures"]["verified"], false) << status.dump();
  EXPECT_NE(status["signatures"].value("note", "").find("was not found"), std::string::npos) << status.dump();
  const auto human = kseek(strangers().front(), "status --campaign " + quoted(dir_), true);
  EXPECT_EQ(count_of(human.out, kAccidentsOnly), 0u) << human.out;
  const auto mine = kseek("env KSEEK_KEY_DIR=" + quoted(user_keys_), "--json status --campaign " + quoted(dir_));
  EXPECT_EQ(testing::json_output(mine, "status")["signatures"]["key"], "per-user");
}

}  // namespace
}  // namespace kseek
