// Signatures on campaign records: an HMAC-SHA256 over each record with a per-campaign key kept outside the campaign
// folder, so a line with a correct sha256 that kseek did not write (an agent can compute sha256) is not evidence.
// It must never keep the key inside the campaign folder, nor treat a record without a valid signature as kseek's.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kseek/sdk/result.hpp"

namespace kseek {

// $KSEEK_KEY_DIR, else $XDG_STATE_HOME/kernelseek/campaign-keys, else ~/.local/state/kernelseek/campaign-keys.
std::filesystem::path campaign_key_dir();

// How campaign_key_dir() was chosen, for messages: "$KSEEK_KEY_DIR", "$XDG_STATE_HOME (KSEEK_KEY_DIR unset)", ...
std::string campaign_key_dir_origin();

// A fresh random campaign id (32 hex digits) for `kseek init`.
std::string new_campaign_id();

// Creates the key for `campaign_id` (256 random bits, file mode 0600); an error if one exists already.
Result<std::string> create_campaign_key(std::string_view campaign_id);

// Loads the key, or an error naming the file that is missing (e.g. a campaign copied from another machine).
Result<std::string> load_campaign_key(std::string_view campaign_id);

// Hex HMAC-SHA256 of `record` (its "signature" field, if any, left out) under `key`.
std::string record_signature(std::string_view key, const nlohmann::json& record);

// True when `record` carries a "signature" that verifies under `key`.
bool signature_verifies(std::string_view key, const nlohmann::json& record);

}  // namespace kseek
