// Spellings of Status, shared by the tables, the JSON records and their parsers.
// It must never spell a status two ways.
#include "kseek/core/status.hpp"

#include <array>
#include <string>
#include <utility>

namespace kseek {
namespace {

constexpr std::array<std::pair<Status, std::string_view>, 10> kSpellings = {{
    {Status::kOk, "OK"},
    {Status::kPassed, "PASSED"},
    {Status::kFailed, "FAILED"},
    {Status::kMistrusted, "MISTRUSTED"},
    {Status::kCrashed, "CRASHED"},
    {Status::kTimeout, "TIMEOUT"},
    {Status::kLaunchError, "LAUNCH_ERROR"},
    {Status::kCompileError, "COMPILE_ERROR"},
    {Status::kConstraintViolation, "CONSTRAINT_VIOLATION"},
    {Status::kNotRunnable, "NOT_RUNNABLE"},
}};

}  // namespace

std::string_view to_string(Status status) {
  for (const auto& [value, spelling] : kSpellings) {
    if (value == status) return spelling;
  }
  return "UNKNOWN";
}

std::optional<Status> status_from_string(std::string_view text) {
  for (const auto& [value, spelling] : kSpellings) {
    if (spelling == text) return value;
  }
  return std::nullopt;
}

Result<Status> parse_status(std::string_view text) {
  if (const auto status = status_from_string(text)) return *status;
  std::string known;
  for (const auto& [value, spelling] : kSpellings) known += (known.empty() ? "" : ", ") + std::string(spelling);
  return make_error("'" + std::string(text) + "' is not a status; the statuses are " + known);
}

}  // namespace kseek
