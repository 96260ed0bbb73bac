// SHA-256 digests (OpenSSL EVP) for cache keys, candidate identities and integrity checks.
// It must never be used for anything secret: these digests name content, they do not protect it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <openssl/evp.h>

namespace kseek {

// Incremental hasher; `add_field` length-prefixes each field so ("ab","c") and ("a","bc") differ.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  Sha256& add(std::string_view bytes);
  Sha256& add_field(std::string_view bytes);
  std::string hex_digest();  // finishes the hash; the hasher must not be used afterwards

 private:
  EVP_MD_CTX* context_;
};

std::string sha256_hex(std::string_view bytes);

// Lower-case hex of `size` bytes (digests, MACs, random ids).
std::string lower_hex(const unsigned char* bytes, std::size_t size);

}  // namespace kseek
