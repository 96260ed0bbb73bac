// One whole-program PTX module cut into pieces that ptxas can assemble separately, one kernel per piece, and that
// nvJitLink links back into one cubin; or the modules nvJitLink generated kernel by kernel made into such pieces. It
// must never change the text of a kernel or of a function: the only thing that moves is where a module-scope variable
// is defined, so that every variable still exists exactly once.
#pragma once

#include <cstddef>
#include <optional>
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

// A kernel `ptx` defines, with the bytes of its text and of the functions it reaches (what its piece would compile).
struct PtxKernel {
  std::string name;
  std::size_t code_bytes = 0;
};

// The kernels `ptx` defines, in its order. An error when it defines none or cannot be read.
Result<std::vector<PtxKernel>> ptx_kernels(std::string_view ptx);

// The PTX nvJitLink generated for one kernel of a program (-kernels-used), and that kernel's name.
struct KernelModule {
  std::string kernel;
  std::string_view ptx;
};

// The piece of `kernel` in `module` (split_ptx_by_kernel's piece for it: the module's variables as `.extern`). Kernels
// whose names extend `kernel` are left out (nvJitLink keeps them beside it); an error names the kernel when the module
// defines another kernel whose name does not extend it, or not this one.
Result<PtxPiece> kernel_piece(std::string_view module, const std::string& kernel);

// The one piece that defines the variables of every module (what split_ptx_by_kernel's variables piece is for one
// module): each variable once, and visible, so that the kernel pieces' `.extern` declarations reach that one copy;
// the functions its initializers name; the directives of the first module. Nothing when no module defines a
// variable. A variable (or such a function) two modules define differently is an error that names it and both
// kernels: one name would stand for two objects.
Result<std::optional<PtxPiece>> shared_variables_piece(const std::vector<KernelModule>& modules);

}  // namespace kseek
