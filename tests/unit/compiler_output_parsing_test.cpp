// Parsing of what NVRTC and ptxas print: per-kernel resources and located diagnostics with source lines.
#include <gtest/gtest.h>

#include "kseek/core/build/compile_diagnostics.hpp"
#include "kseek/core/build/ptxas_report.hpp"

namespace kseek {
namespace {

constexpr const char* kPtxasLog =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'attn_fwd' for 'sm_90a'\n"
    "ptxas info    : Function properties for attn_fwd\n"
    "ptxas         .     16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
    "ptxas info    : Used 168 registers, used 1 barriers, 1024 bytes smem, 912 bytes cmem[0]\n"
    "ptxas info    : Function properties for helper\n"
    "ptxas         .     99 bytes stack frame, 99 bytes spill stores, 99 bytes spill loads\n"
    "ptxas info    : Compiling entry function 'combine' for 'sm_90a'\n"
    "ptxas info    : Function properties for combine\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 0 barriers, 400 bytes cmem[0]\n";

TEST(PtxasReport, ReadsEveryEntryFunction) {
  const auto kernels = parse_ptxas_report(kPtxasLog);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].kernel, "attn_fwd");
  EXPECT_EQ(kernels[0].registers, 168);
  EXPECT_EQ(kernels[0].barriers, 1);
  EXPECT_EQ(kernels[0].stack_frame_bytes, 16u);  // not the helper's 99
  EXPECT_EQ(kernels[0].spill_store_bytes, 8u);
  EXPECT_EQ(kernels[0].spill_load_bytes, 12u);
  EXPECT_EQ(kernels[0].static_shared_bytes, 1024u);
  EXPECT_EQ(kernels[0].constant_bytes, 912u);
  EXPECT_EQ(kernels[1].kernel, "combine");
  EXPECT_EQ(kernels[1].registers, 32);
  EXPECT_EQ(kernels[1].static_shared_bytes, 0u);
}

TEST(PtxasReport, NothingReportedIsNothingInvented) { EXPECT_TRUE(parse_ptxas_report("").empty()); }

// ptxas 13.0's lines in the order it prints them: every coded note and warning before the entries' lines. A note
// that names an entry is that entry's; one that names none, or a function that is not an entry, belongs to the one
// entry of its piece's log (the per-kernel pipelines put kPtxasPieceMarker before each piece), else to the build.
constexpr const char* kWholeProgramNotesLog =
    "ptxas info    : (C7517) warpgroup.wait is injected in around line 681058 by compiler to allow use of registers "
    "defined by GMMA in function 'combine'\n"
    "ptxas info    : (C7517) warpgroup.wait is injected in around line 912 by compiler to allow use of registers "
    "defined by GMMA in function 'combine'\n"
    "ptxas info    : (C7514) Potential Performance Loss: wgmma.mma_async instructions are serialized due to non wgmma "
    "instructions reading accumulator registers of  a wgmma between start and end of the pipeline stage in the "
    "function 'attn_fwd'\n"
    "ptxas warning : Value of threads per SM for entry attn_fwd is out of range. .minnctapersm will be ignored\n"
    "ptxas /tmp/kseek-ptxas-1/0.ptx, line 9; warning : Instruction 'vote' without '.sync' is deprecated\n"
    "ptxas info    : (C7517) warpgroup.wait is injected in around line 40 by compiler to allow use of registers "
    "defined by GMMA in function '_Z6helperPfyy'\n"
    "ptxas info    : Compiling entry function 'attn_fwd' for 'sm_90a'\n"
    "ptxas info    : Used 168 registers, used 1 barriers\n"
    "ptxas info    : Compiling entry function 'combine' for 'sm_90a'\n"
    "ptxas info    : Used 32 registers, used 0 barriers\n";

const std::string kSerialized =
    "C7514: Potential Performance Loss: wgmma.mma_async instructions are serialized due to non wgmma instructions "
    "reading accumulator registers of a wgmma between start and end of the pipeline stage";
const std::string kInjected = "C7517: warpgroup.wait is injected by compiler to allow use of registers defined by GMMA";

TEST(PtxasReport, NotesGoToTheEntryTheyNameAndUnnamedOnesOfAWholeProgramToTheBuild) {
  const auto report = parse_ptxas(kWholeProgramNotesLog);
  ASSERT_EQ(report.kernels.size(), 2u);
  EXPECT_EQ(report.kernels[0].kernel, "attn_fwd");
  EXPECT_EQ(report.kernels[0].ptxas_notes,
            (std::vector<std::string>{
                kSerialized, "warning: Value of threads per SM is out of range. .minnctapersm will be ignored"}));
  // Two injections at different PTX lines are one note; the line numbers are gone.
  EXPECT_EQ(report.kernels[1].ptxas_notes, std::vector<std::string>{kInjected});
  EXPECT_EQ(report.kernels[1].registers, 32);
  // Named by no entry and printed before every entry: the build's, never the last or next kernel's.
  EXPECT_EQ(report.other_notes, (std::vector<std::string>{"warning: Instruction 'vote' without '.sync' is deprecated",
                                                          kInjected + " (function _Z6helperPfyy)"}));
}

TEST(PtxasReport, AnUnnamedNoteBelongsToTheOneEntryOfItsPiece) {
  const std::string log = std::string(kPtxasPieceMarker) + "the module-scope variables\n" +
                          "ptxas warning : Something about the variables piece\n" + std::string(kPtxasPieceMarker) +
                          "kernel attn_fwd\n" +
                          "ptxas info    : (C7517) warpgroup.wait is injected in around line 40 by compiler to allow "
                          "use of registers defined by GMMA in function '_Z6helperPfyy'\n"
                          "ptxas info    : Compiling entry function 'attn_fwd' for 'sm_90a'\n"
                          "ptxas info    : Used 168 registers, used 1 barriers\n" +
                          std::string(kPtxasPieceMarker) + "kernel combine\n" +
                          "ptxas info    : Compiling entry function 'combine' for 'sm_90a'\n"
                          "ptxas info    : Used 32 registers, used 0 barriers\n";
  const auto report = parse_ptxas(log);
  ASSERT_EQ(report.kernels.size(), 2u);
  EXPECT_EQ(report.kernels[0].ptxas_notes, std::vector<std::string>{kInjected + " (function _Z6helperPfyy)"});
  EXPECT_EQ(report.kernels[0].registers, 168);
  EXPECT_TRUE(report.kernels[1].ptxas_notes.empty());
  EXPECT_EQ(report.other_notes, std::vector<std::string>{"warning: Something about the variables piece"});
}

TEST(PtxasReport, NotesAreGroupedAcrossKernelsForPrinting) {
  std::vector<KernelNotes> kernels;
  for (const char* name : {"k1", "k2", "k3", "k4", "k5"}) kernels.push_back({name, {"C7514: x"}});
  kernels[2].notes.push_back("C7517: y");
  kernels.push_back({"clean", {}});
  const auto groups = group_ptxas_notes(kernels);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].note, "C7514: x");
  EXPECT_EQ(groups[0].kernels.size(), 5u);
  EXPECT_EQ(groups[1].kernels, std::vector<std::string>{"k3"});
  EXPECT_EQ(format_ptxas_notes(groups, {"warning: z"}, "  "),
            "  ptxas C7514: x (kernels k1, k2, k3 and 2 more)\n  ptxas C7517: y (kernel k3)\n"
            "  ptxas warning: z (kernel not named)\n");
  EXPECT_EQ(format_ptxas_notes(group_ptxas_notes({{"clean", {}}}), {}, "  "), "");
}

TEST(CompileDiagnostics, LocatesErrorsInSourceAndHeaders) {
  const SourceFile source{"cand.cu", "line one\nline two\n  y = undeclared * x;\n"};
  const std::vector<SourceFile> headers = {{"kseek/p.h", "#pragma once\nstruct P { int bad };\n"}};
  const std::string log =
      "cand.cu(3): error: identifier \"undeclared\" is undefined\n"
      "kseek/p.h(2): warning #177-D: something odd\n"
      "kseek/p.h(2): error: expected a \";\"\n"
      "\n2 errors detected in the compilation of \"cand.cu\".\n";
  const auto diagnostics = parse_nvrtc_log(log, source, headers);
  ASSERT_EQ(diagnostics.size(), 3u);
  EXPECT_EQ(diagnostics[0].file, "cand.cu");
  EXPECT_EQ(diagnostics[0].line, 3);
  EXPECT_EQ(diagnostics[0].severity, "error");
  EXPECT_EQ(diagnostics[0].source_line, "  y = undeclared * x;");
  EXPECT_EQ(diagnostics[1].file, "kseek/p.h");
  EXPECT_EQ(diagnostics[1].severity, "error");
  EXPECT_EQ(diagnostics[1].source_line, "struct P { int bad };");
  EXPECT_EQ(diagnostics[2].severity, "warning");
  EXPECT_EQ(format_diagnostic(diagnostics[0]),
            "cand.cu:3: error: identifier \"undeclared\" is undefined\n      3 |   y = undeclared * x;");
}

TEST(CompileDiagnostics, PtxasFailuresAreKeptUnlocated) {
  const auto diagnostics = parse_nvrtc_log("ptxas fatal   : Unresolved extern function 'foo'\n", {"a.cu", ""}, {});
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].file, "ptxas");
  EXPECT_EQ(diagnostics[0].line, 0);
  EXPECT_EQ(diagnostics[0].message, "Unresolved extern function 'foo'");
}

}  // namespace
}  // namespace kseek
