// Test support: what an agent could append to a campaign's log by hand (records kseek did not sign), and the file
// checks the key tests share. It must never be used by product code.
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "kseek/core/util/sha256.hpp"
#include "kseek/core/util/utc_time.hpp"

namespace kseek::testing {

// An evaluation line for `candidate_text` with a right checksum, a passing verdict and a geomean of 9, unsigned.
inline nlohmann::json unsigned_evaluation(int number, const std::string& candidate_text) {
  return {{"type", "evaluation"},
          {"time", utc_timestamp()},
          {"number", number},
          {"candidate_sha256", sha256_hex(candidate_text)},
          {"record_file", "evaluations/0001.json"},
          {"status", "COMPLETE"},
          {"all_passed", true},
          {"geomean", 9.0}};
}

// The permission bits of a file (0 when it cannot be read).
inline unsigned permissions_of(const std::filesystem::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return 0;
  return info.st_mode & 0777;
}

}  // namespace kseek::testing
