// The named outcome of building, checking or evaluating a candidate, as printed and as recorded in JSON.
// It must never be extended in the middle: the spellings are part of the documented result schema.
#pragma once

#include <optional>
#include <string_view>

#include "kseek/sdk/result.hpp"

namespace kseek {

enum class Status {
  kOk,                   // built and checked (build/check commands)
  kPassed,               // correct on a scenario
  kFailed,               // wrong on a scenario
  kMistrusted,           // a result that physics or the protocol says cannot be trusted
  kCrashed,              // the worker died while running the candidate
  kTimeout,              // the candidate never finished
  kLaunchError,          // the candidate's launch plan cannot run on this device
  kCompileError,         // NVRTC rejected the candidate, or a cap was hit
  kConstraintViolation,  // the built binary breaks a declared constraint
  kNotRunnable,          // this GPU cannot run the scenario (e.g. needs sm_100)
};

// The one mapping between the enum and its JSON text (tests/golden/statuses.json guards it). Code decides with the
// enum; text appears only where a record, a result file or a table is written or read.
std::string_view to_string(Status status);
std::optional<Status> status_from_string(std::string_view text);
// As status_from_string, with an error that names the text and every spelling it could have been.
Result<Status> parse_status(std::string_view text);

}  // namespace kseek
