// Finding this executable and quoting shell words (see the header).
#include "kseek/core/util/shell.hpp"

#include <algorithm>
#include <system_error>

namespace kseek {

Result<std::filesystem::path> self_executable() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return make_error("cannot find the kseek executable (/proc/self/exe): " + ec.message());
  return exe;
}

std::string shell_quote(std::string_view word) {
  const auto plain = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_./=:,+%@-").find(c) != std::string_view::npos;
  };
  if (!word.empty() && std::all_of(word.begin(), word.end(), plain)) return std::string(word);
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace kseek
