// A CompileRequest as JSON, whole: what another kseek process needs to make the very same build (and so find or fill
// the very same cache entry). It must never drop a field: a request read back compiles to the same cache key.
#pragma once

#include <nlohmann/json.hpp>

#include "kseek/core/build/compile_types.hpp"
#include "kseek/sdk/result.hpp"

namespace kseek {

nlohmann::json compile_request_to_json(const CompileRequest& request);
// The request, or an error naming the key that is missing or of the wrong type (an unknown key is one too).
Result<CompileRequest> compile_request_from_json(const nlohmann::json& j);

}  // namespace kseek
