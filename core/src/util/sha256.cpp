// SHA-256 through OpenSSL's EVP interface.
// It must never fall back to a hand-written digest: OpenSSL is the one implementation we trust.
#include "kseek/core/util/sha256.hpp"

#include <array>
#include <cstdint>
#include <stdexcept>

namespace kseek {

Sha256::Sha256() : context_(EVP_MD_CTX_new()) {
  if (context_ == nullptr || EVP_DigestInit_ex(context_, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("OpenSSL: cannot initialise a SHA-256 context");
  }
}

Sha256::~Sha256() { EVP_MD_CTX_free(context_); }

Sha256& Sha256::add(std::string_view bytes) {
  EVP_DigestUpdate(context_, bytes.data(), bytes.size());
  return *this;
}

Sha256& Sha256::add_field(std::string_view bytes) {
  std::array<unsigned char, 8> length{};
  std::uint64_t n = bytes.size();
  for (auto& b : length) {
    b = static_cast<unsigned char>(n & 0xff);
    n >>= 8;
  }
  EVP_DigestUpdate(context_, length.data(), length.size());
  return add(bytes);
}

std::string Sha256::hex_digest() {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  EVP_DigestFinal_ex(context_, digest.data(), &size);
  return lower_hex(digest.data(), size);
}

std::string sha256_hex(std::string_view bytes) { return Sha256().add(bytes).hex_digest(); }

std::string lower_hex(const unsigned char* bytes, std::size_t size) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (std::size_t i = 0; i < size; ++i) {
    out.push_back(kHex[bytes[i] >> 4]);
    out.push_back(kHex[bytes[i] & 0xf]);
  }
  return out;
}

}  // namespace kseek
