// UTC timestamps as kseek writes them in records and logs: 2026-11-30T10:24:18Z.
// It must never write local time: records are compared across machines.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace kseek {

std::string utc_timestamp();
// The same form for a given time (seconds; a fraction is dropped).
std::string utc_timestamp(std::chrono::system_clock::time_point when);

// The time a timestamp of that form names; nothing for any other text.
std::optional<std::chrono::system_clock::time_point> parse_utc_timestamp(const std::string& text);

}  // namespace kseek
