// Small conversions into JSON values that several documents share. It must never decide a document's shape.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

namespace kseek {

// The number, or null where there is none (a geomean of an evaluation without timing).
inline nlohmann::json number_or_null(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

}  // namespace kseek
