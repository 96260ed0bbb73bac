// Turns NVRTC's log into located diagnostics, each shown with the source line it points at.
// It must never drop a line of the log: what it cannot parse stays in CompileOutput::log.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kseek/core/build/compile_types.hpp"

namespace kseek {

std::vector<Diagnostic> parse_nvrtc_log(std::string_view log, const SourceFile& source,
                                        const std::vector<SourceFile>& headers);

// "file:line: error: message" followed by "  line | source" for people.
std::string format_diagnostic(const Diagnostic& diagnostic);

}  // namespace kseek
