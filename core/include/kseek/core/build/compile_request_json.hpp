// A CompileRequest as JSON, whole: what another kseek process needs to make the very same build (and so find or fill
// the very same cache entry). It must never drop a field: a request read back is equal to the one written.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kseek/core/build/compile_types.hpp"
#include "kseek/sdk/result.hpp"

namespace kseek {

nlohmann::json compile_request_to_json(const CompileRequest& request);
// The request, or an error naming the key that is of the wrong type or unknown. An absent key keeps its default (the
// writer always writes every key).
Result<CompileRequest> compile_request_from_json(const nlohmann::json& j);

// The pipeline's name in that JSON ("default", "per-kernel", "whole-program", "link-time-optimized"), and back (the
// error text, or nothing).
std::string_view to_string(BuildPipeline pipeline);
std::optional<std::string> read_enum(std::string_view text, BuildPipeline& out);

}  // namespace kseek
