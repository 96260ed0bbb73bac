// UTC timestamps, written and read back with the C library (gmtime_r, strptime, timegm).
// It must never depend on the machine's time zone.
#include "kseek/core/util/utc_time.hpp"

#include <ctime>

namespace kseek {

std::string utc_timestamp() { return utc_timestamp(std::chrono::system_clock::now()); }

std::string utc_timestamp(std::chrono::system_clock::time_point when) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(when);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::optional<std::chrono::system_clock::time_point> parse_utc_timestamp(const std::string& text) {
  std::tm tm{};
  const char* end = text.size() == 20 ? strptime(text.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm) : nullptr;
  if (end == nullptr || *end != '\0') return std::nullopt;
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

}  // namespace kseek
