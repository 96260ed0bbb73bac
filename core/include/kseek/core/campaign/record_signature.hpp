// Signatures on campaign records: an HMAC-SHA256 over each record with a per-campaign key, so a line with a correct
// sha256 that kseek did not write (anyone can compute sha256) is not taken for one of kseek's records.
// It must never treat a record without a valid signature as kseek's, nor keep the key inside the campaign folder
// unless the campaign was made that way (`kseek init --key-in-campaign`), which every report of verification says.
//
// Where the key is kept decides what a signature proves. Two modes:
//   per-user (the default): DIR's key is in campaign_key_dir(), outside the campaign folder, mode 0600. An agent that
//     can write the folder (but is not the user's shell) cannot sign a record: signatures tell kseek's records from
//     forged ones, as long as nobody with the user's account forges them.
//   in the campaign (`init --key-in-campaign`, DIR/.kseek-key/<id>.key): the key travels with the folder (a campaign
//     edited on one machine and evaluated on another, or kept in a repository). Signatures then guard against
//     accidents only (a hand-edited or truncated record, a line written by another tool), not against forgery by
//     whoever can read the folder; what stays is that anyone can re-run the evaluations to check them.
// A key in campaign_key_dir() always wins; the campaign's own folder is looked in only when it has none.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kseek/sdk/result.hpp"

namespace kseek {

// Where a campaign's signing key is kept (the two modes above).
enum class KeyPlace { kUserFolder, kCampaignFolder };

// "per-user" or "in-campaign": the spelling in JSON documents (`kseek status --json`, `kseek init --json`).
std::string_view key_place_name(KeyPlace place);

// What kseek says, once, wherever it reports verification of a campaign whose key is kept in its own folder.
inline constexpr std::string_view kKeyInCampaignNote =
    "the signing key is kept in the campaign folder (.kseek-key/), so its signatures guard against accidents (a "
    "hand-edited or truncated record), not against forgery by whoever can read the folder; anyone can re-run the "
    "evaluations to check them";

// $KSEEK_KEY_DIR, else $XDG_STATE_HOME/kernelseek/campaign-keys, else ~/.local/state/kernelseek/campaign-keys.
std::filesystem::path campaign_key_dir();

// How campaign_key_dir() was chosen, for messages: "$KSEEK_KEY_DIR", "$XDG_STATE_HOME (KSEEK_KEY_DIR unset)", ...
std::string campaign_key_dir_origin();

// The folder inside a campaign that holds its key in the in-campaign mode: `campaign_dir`/.kseek-key.
std::filesystem::path campaign_key_dir_inside(const std::filesystem::path& campaign_dir);

// A fresh random campaign id (32 hex digits) for `kseek init`.
std::string new_campaign_id();

// A campaign's signing key and where it was found.
struct CampaignKey {
  std::string key;  // 64 hex digits
  KeyPlace place = KeyPlace::kUserFolder;
  std::filesystem::path file;
};

// Creates the key for `campaign_id` (256 random bits) in campaign_key_dir() or, for KeyPlace::kCampaignFolder, in
// campaign_key_dir_inside(campaign_dir); the folder mode 0700, the file 0600. An error if the file exists already.
Result<CampaignKey> create_campaign_key(std::string_view campaign_id, const std::filesystem::path& campaign_dir,
                                        KeyPlace place);

// Loads the key of the campaign in `campaign_dir`: from campaign_key_dir() when it holds one (that wins), else from
// the campaign's own .kseek-key/. Otherwise an error naming both places it looked in (e.g. a campaign copied from
// another machine, or a process started with a trimmed environment).
Result<CampaignKey> load_campaign_key(std::string_view campaign_id, const std::filesystem::path& campaign_dir);

// Hex HMAC-SHA256 of `record` (its "signature" field, if any, left out) under `key`.
std::string record_signature(std::string_view key, const nlohmann::json& record);

// True when `record` carries a "signature" that verifies under `key`.
bool signature_verifies(std::string_view key, const nlohmann::json& record);

}  // namespace kseek
