// One whole-program PTX module cut into pieces that ptxas can assemble separately, one kernel per piece, and that
// nvJitLink links back into one cubin. It must never change the text of a kernel or of a function: the only thing
// that moves is where a module-scope variable is defined, so that every variable still exists exactly once.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "kseek/sdk/result.hpp"

namespace kseek {

struct PtxPiece {
  // The kernel this piece assembles, or empty for the piece that only defines the module's variables.
  std::string kernel;
  std::string ptx;
  // Bytes of kernel and function text the piece asks ptxas to compile: the order in which pieces are started
  // (longest first), nothing else.
  std::size_t code_bytes = 0;
};

// Cuts `ptx` (what NVRTC emits for one program) into one piece per `.entry`, plus one piece that defines the
// module's `.global` and `.const` variables when it has any. Every piece keeps the module's directives, its
// `.section`s (the -lineinfo strings its `.loc`s name), its declarations and `.shared` variables, and the
// functions its kernel reaches; in kernel pieces each variable definition becomes an `.extern` declaration.
// An error names what could not be read (an unbalanced brace, a kernel without a name).
Result<std::vector<PtxPiece>> split_ptx_by_kernel(std::string_view ptx);

}  // namespace kseek
