// One byte format for a CompileOutput, shared by the build cache and the isolated compiler process:
// a magic line, a JSON header with sizes and a sha256 of the payload, then PTX, cubin and log.
// It must never decode bytes whose checksum or sizes do not match.
#pragma once

#include <string>
#include <string_view>

#include "kseek/core/build/compile_types.hpp"
#include "kseek/sdk/result.hpp"

namespace kseek {

std::string encode_compile_output(const CompileOutput& output);
// Diagnostics are not encoded: they are derived from the log and the sources by the reader.
Result<CompileOutput> decode_compile_output(std::string_view bytes);

}  // namespace kseek
