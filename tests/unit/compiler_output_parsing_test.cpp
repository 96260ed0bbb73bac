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
