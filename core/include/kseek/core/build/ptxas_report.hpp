// Reads per-kernel resources, and ptxas's notes on code it did not make as written, out of ptxas's verbose report.
// It must never invent a number: a kernel whose lines are missing is simply not reported.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kseek/core/build/compile_types.hpp"

namespace kseek {

std::vector<KernelResources> parse_ptxas_report(std::string_view log);

// One note of ptxas and the kernels it was given for, in the order first seen: what `kseek build` and `kseek eval`
// print (one line per note, not one per kernel: a change that serializes the wgmmas does so in most kernels).
struct PtxasNoteGroup {
  std::string note;
  std::vector<std::string> kernels;
};
std::vector<PtxasNoteGroup> group_ptxas_notes(const std::vector<KernelResources>& kernels);

// "note: kernels a, b and 13 more" lines, indented by `indent`; nothing when no kernel has a note.
std::string format_ptxas_notes(const std::vector<PtxasNoteGroup>& groups, std::string_view indent);

}  // namespace kseek
