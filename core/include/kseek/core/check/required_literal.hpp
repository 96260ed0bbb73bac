// Finds text that every match of a constraint pattern must contain, so that a name lacking it can skip the regex.
// It must never return text some match could lack: whatever it cannot read for certain shortens the answer, down
// to the empty string (no prefilter for that pattern).
#pragma once

#include <string>
#include <string_view>

namespace kseek {

// The longest run of characters that every match of `pattern` (ECMAScript syntax, case-sensitive, as the constraint
// checker compiles it) contains verbatim; empty when none can be named, e.g. for a top-level alternation, or when
// the pattern uses syntax this reader does not follow (escapes such as \x41 or \1, nested or POSIX classes).
std::string required_literal(std::string_view pattern);

}  // namespace kseek
