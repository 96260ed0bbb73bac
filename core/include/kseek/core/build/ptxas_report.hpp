// Reads per-kernel resources, and ptxas's notes on code it did not make as written, out of ptxas's verbose report.
// It must never invent a number: a kernel whose lines are missing is simply not reported.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kseek/core/build/compile_types.hpp"

namespace kseek {

// A line the per-kernel pipelines put before each piece's ptxas log in the build's log, so that a note that names no
// kernel can be given to the one kernel its piece assembled.
inline constexpr std::string_view kPtxasPieceMarker = "kseek: ptxas log of ";

struct PtxasReport {
  std::vector<KernelResources> kernels;
  std::vector<std::string> other_notes;  // notes no kernel can be named for (a whole-program build's unnamed lines)
};
PtxasReport parse_ptxas(std::string_view log);
std::vector<KernelResources> parse_ptxas_report(std::string_view log);  // parse_ptxas(log).kernels

// One note of ptxas and the kernels it was given for, in the order first seen: what `kseek build` and `kseek eval`
// print (one line per note, not one per kernel: a change that serializes the wgmmas does so in most kernels).
struct PtxasNoteGroup {
  std::string note;
  std::vector<std::string> kernels;
};
struct KernelNotes {
  std::string kernel;
  std::vector<std::string> notes;
};
std::vector<PtxasNoteGroup> group_ptxas_notes(const std::vector<KernelNotes>& kernels);

// "ptxas CODE: text (kernels a, b, c and 13 more)" lines, then "ptxas CODE: text (kernel not named)" for the build's
// own notes, each indented by `indent`; nothing when there is no note.
std::string format_ptxas_notes(const std::vector<PtxasNoteGroup>& groups, const std::vector<std::string>& build_notes,
                               std::string_view indent);

}  // namespace kseek
