// HMAC-SHA256 record signatures with OpenSSL's EVP_MAC, and the per-campaign keys: per user, or in the campaign folder.
// It must never write a key readable by other users, or compare signatures in a way that leaks where they differ.
#include "kseek/core/campaign/record_signature.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include "kseek/core/util/files.hpp"
#include "kseek/core/util/sha256.hpp"

namespace kseek {
namespace fs = std::filesystem;

namespace {

std::string random_hex(std::size_t bytes) {
  std::array<unsigned char, 64> buffer{};
  if (bytes > buffer.size() || RAND_bytes(buffer.data(), static_cast<int>(bytes)) != 1) {
    throw std::runtime_error("OpenSSL: no random bytes for a campaign key");
  }
  return lower_hex(buffer.data(), bytes);
}

fs::path key_file_in(const fs::path& folder, std::string_view campaign_id) {
  return folder / (std::string(campaign_id) + ".key");
}

bool valid_id(std::string_view id) {
  return id.size() == 32 && id.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

// The key in `file`, which exists: an error when it cannot be read or is not a key kseek made.
Result<CampaignKey> read_key(const fs::path& file, KeyPlace place) {
  auto text = read_file(file);
  if (!text) return make_error("the campaign key cannot be read: " + text.error().message);
  if (text->size() != 64) return make_error(fmt::format("the campaign key {} is damaged", file.string()));
  return CampaignKey{std::move(*text), place, file};
}

}  // namespace

namespace {

bool is_set(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0';
}

}  // namespace

fs::path campaign_key_dir() {
  if (is_set("KSEEK_KEY_DIR")) return std::getenv("KSEEK_KEY_DIR");
  if (is_set("XDG_STATE_HOME")) return fs::path(std::getenv("XDG_STATE_HOME")) / "kernelseek" / "campaign-keys";
  if (is_set("HOME")) return fs::path(std::getenv("HOME")) / ".local" / "state" / "kernelseek" / "campaign-keys";
  return fs::temp_directory_path() / "kernelseek-campaign-keys";
}

std::string campaign_key_dir_origin() {
  if (is_set("KSEEK_KEY_DIR")) return "$KSEEK_KEY_DIR";
  if (is_set("XDG_STATE_HOME")) return "$XDG_STATE_HOME/kernelseek/campaign-keys; KSEEK_KEY_DIR is not set";
  if (is_set("HOME"))
    return "$HOME/.local/state/kernelseek/campaign-keys; KSEEK_KEY_DIR and XDG_STATE_HOME are not set";
  return "the temporary folder; KSEEK_KEY_DIR, XDG_STATE_HOME and HOME are not set";
}

std::string new_campaign_id() { return random_hex(16); }

std::string_view key_place_name(KeyPlace place) {
  return place == KeyPlace::kCampaignFolder ? "in-campaign" : "per-user";
}

fs::path campaign_key_dir_inside(const fs::path& campaign_dir) { return campaign_dir / ".kseek-key"; }

Result<CampaignKey> create_campaign_key(std::string_view campaign_id, const fs::path& campaign_dir, KeyPlace place) {
  if (!valid_id(campaign_id)) return make_error(fmt::format("'{}' is not a campaign id", campaign_id));
  const fs::path folder =
      place == KeyPlace::kCampaignFolder ? campaign_key_dir_inside(campaign_dir) : campaign_key_dir();
  std::error_code ec;
  fs::create_directories(folder, ec);
  ::chmod(folder.c_str(), 0700);
  const fs::path file = key_file_in(folder, campaign_id);
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return make_error(fmt::format("cannot create the campaign key {}: {}", file.string(), std::strerror(errno)));
  const std::string key = random_hex(32);
  const bool written = ::write(fd, key.data(), key.size()) == static_cast<ssize_t>(key.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!written) return make_error(fmt::format("cannot write the campaign key {}", file.string()));
  return CampaignKey{key, place, file};
}

Result<CampaignKey> load_campaign_key(std::string_view campaign_id, const fs::path& campaign_dir) {
  if (!valid_id(campaign_id)) return make_error(fmt::format("the log's campaign id '{}' is not valid", campaign_id));
  // The per-user key wins: a damaged or unreadable one is an error, never a reason to take the campaign's own copy.
  const fs::path user_file = key_file_in(campaign_key_dir(), campaign_id);
  std::error_code ec;
  if (fs::exists(user_file, ec)) return read_key(user_file, KeyPlace::kUserFolder);
  if (ec) return make_error(fmt::format("cannot look for the campaign key {}: {}", user_file.string(), ec.message()));
  const fs::path inside_file = key_file_in(campaign_key_dir_inside(campaign_dir), campaign_id);
  if (fs::exists(inside_file, ec)) return read_key(inside_file, KeyPlace::kCampaignFolder);
  // A process started with a trimmed environment (Codex gives stdio MCP servers HOME, PATH, USER and a few more)
  // looks in another folder than the `kseek init` that made the key: say where it looked and why.
  return make_error(
      fmt::format("this campaign's signing key {} was not found: kseek looked in {} (from {}) and in the "
                  "campaign's own {}. If the key is in another folder, start kseek with KSEEK_KEY_DIR "
                  "set to it (kseek init writes the folder into .mcp.json and .codex/config.toml); a "
                  "campaign copied from another machine can be read, but its records cannot be verified "
                  "or extended here",
                  user_file.filename().string(), user_file.parent_path().string(), campaign_key_dir_origin(),
                  inside_file.parent_path().string()));
}

std::string record_signature(std::string_view key, const nlohmann::json& record) {
  nlohmann::json body = record;
  body.erase("signature");
  const std::string text = body.dump();
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  EVP_MAC_CTX* context = mac ? EVP_MAC_CTX_new(mac) : nullptr;
  char digest_name[] = "SHA256";
  const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest_name, 0),
                               OSSL_PARAM_construct_end()};
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  std::size_t size = 0;
  const bool ok = context != nullptr &&
                  EVP_MAC_init(context, reinterpret_cast<const unsigned char*>(key.data()), key.size(), params) == 1 &&
                  EVP_MAC_update(context, reinterpret_cast<const unsigned char*>(text.data()), text.size()) == 1 &&
                  EVP_MAC_final(context, out.data(), &size, out.size()) == 1;
  EVP_MAC_CTX_free(context);
  EVP_MAC_free(mac);
  if (!ok) throw std::runtime_error("OpenSSL: HMAC-SHA256 failed");
  return lower_hex(out.data(), size);
}

bool signature_verifies(std::string_view key, const nlohmann::json& record) {
  if (!record.is_object() || !record.contains("signature") || !record["signature"].is_string()) return false;
  const std::string claimed = record["signature"].get<std::string>();
  const std::string expected = record_signature(key, record);
  return claimed.size() == expected.size() && CRYPTO_memcmp(claimed.data(), expected.data(), expected.size()) == 0;
}

}  // namespace kseek
