// Test support for the report tests: a private copy of the synthetic campaign and small text helpers.
// It must never modify the committed fixture: every test that damages a campaign works on its own copy.
#pragma once

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "support/temp_folder.hpp"

namespace kseek::testing {

inline std::filesystem::path synthetic_campaign() {
  return std::filesystem::path(KSEEK_CAMPAIGN_FIXTURES) / "synthetic";
}

// Copies the synthetic campaign (hidden .kseek folder included) to DIR/campaign and returns that path.
inline std::filesystem::path copy_of_synthetic(const std::filesystem::path& dir) {
  const auto target = dir / "campaign";
  std::filesystem::copy(synthetic_campaign(), target, std::filesystem::copy_options::recursive);
  return target;
}

inline std::string slurp(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void spit(const std::filesystem::path& file, std::string_view text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
}

inline std::size_t count_of(std::string_view text, std::string_view needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

}  // namespace kseek::testing
