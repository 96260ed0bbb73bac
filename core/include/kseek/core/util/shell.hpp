// Where this kseek is, and how to put a word into a POSIX shell command: the hooks, the runner and the Slurm scripts
// all start kseek again through a shell. It must never return a path it could not read, nor leave a word unquoted
// that a shell would split or expand.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "kseek/sdk/result.hpp"

namespace kseek {

// The running executable (/proc/self/exe), or an error naming why it cannot be found.
Result<std::filesystem::path> self_executable();

// `word` as one shell word: unchanged when it holds only characters no shell treats specially (so scripts stay
// readable), else single-quoted with every ' written as '\''.
std::string shell_quote(std::string_view word);

}  // namespace kseek
