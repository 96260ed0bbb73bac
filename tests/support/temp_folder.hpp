// A fresh folder under the temporary directory for one test, removed with everything in it by the destructor.
// It must never hand out a path it did not create: a failed mkdtemp throws, and the test fails there.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace kseek::testing {

class TempFolder {
 public:
  explicit TempFolder(std::string_view name) {
    std::string pattern = (std::filesystem::temp_directory_path() / (std::string(name) + "_XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = pattern;
  }
  ~TempFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace kseek::testing
