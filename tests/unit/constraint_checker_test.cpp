// Constraint rules over PTX and ELF names, without NVRTC: matching, demangling, malformed binaries.
#include <gtest/gtest.h>

#include "kseek/core/check/binary_names.hpp"
#include "kseek/core/check/constraint_checker.hpp"

namespace kseek {
namespace {

Constraints attention_like() {
  Constraints c;
  c.forbidden_symbols = {{"no-cutlass", "CUTLASS", {"(^|[^A-Za-z0-9_])cutlass::"}},
                         {"no-cublas", "cuBLAS", {"^cublas"}}};
  return c;
}

constexpr const char* kPtx = R"(
.version 9.0
.target sm_90a
.address_size 64
.extern .func  (.param .b32 func_retval0) cublasSgemm_v2
(
	.param .b64 cublasSgemm_v2_param_0
)
;
.global .align 4 .b8 _ZN7cutlass6globalE[16];
.visible .entry scale(
	.param .u64 scale_param_0
)
{
	call.uni (retval0), cublasSgemm_v2, (param0);
	ret;
}
)";

TEST(PtxNames, FindsDeclarationsAndCallTargets) {
  const auto names = ptx_names(kPtx);
  auto has = [&](const std::string& name, const std::string& where) {
    for (const auto& n : names) {
      if (n.name == name && n.where == where) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("cublasSgemm_v2", "ptx extern func declaration"));
  EXPECT_TRUE(has("cublasSgemm_v2", "ptx call target"));
  EXPECT_TRUE(has("_ZN7cutlass6globalE", "ptx global declaration"));
  EXPECT_TRUE(has("scale", "ptx entry declaration"));
}

// Lines are read in place: the first line, lines after blank ones and a last line without '\n' all count, and no
// line is read twice.
TEST(PtxNames, ReadsEveryLineOnceIncludingALastOneWithoutNewline) {
  const auto names = ptx_names(".visible .entry first(\n\n\n\tcall.uni middle_call, (p);\n.visible .entry last(");
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[0].name, "first");
  EXPECT_EQ(names[1].name, "middle_call");
  EXPECT_EQ(names[1].where, "ptx call target");
  EXPECT_EQ(names[2].name, "last");
  EXPECT_TRUE(ptx_names("").empty());
  EXPECT_TRUE(ptx_names("\n\n").empty());
  // Instructions naming a state space declare nothing; an indented declaration still does.
  const auto indented =
      ptx_names("\tld.global.f32 %f1, [%rd1];\n\tst.shared.u32 [%r2], %r3;\n \t.shared .align 4 .b8 tile[64];\n");
  ASSERT_EQ(indented.size(), 1u);
  EXPECT_EQ(indented[0].name, "tile");
  EXPECT_EQ(indented[0].where, "ptx shared declaration");
}

// A mangled name is searched in both spellings, a plain one (its own demangling) in its one spelling.
TEST(ConstraintChecker, MatchesAMangledNameInEitherSpelling) {
  const std::string ptx = ".global .align 4 .b8 _ZN7cutlass6globalE[16];\n.visible .entry plain_kernel()\n";
  for (const std::string pattern : {"^_ZN7cutlass", "^cutlass::global$", "^plain_kernel$"}) {
    Constraints c;
    c.forbidden_symbols = {{"rule", "", {pattern}}};
    auto report = check_constraints(c, "", ptx);
    ASSERT_TRUE(report) << report.error().message;
    EXPECT_EQ(report->violations.size(), 1u) << pattern;
  }
}

TEST(ConstraintChecker, NamesEveryRuleAndSymbolOnce) {
  auto report = check_constraints(attention_like(), "", kPtx);
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->violations.size(), 2u);
  EXPECT_EQ(report->violations[0].rule, "no-cublas");
  EXPECT_EQ(report->violations[0].symbol, "cublasSgemm_v2");
  EXPECT_EQ(report->violations[1].rule, "no-cutlass");
  EXPECT_EQ(report->violations[1].symbol, "cutlass::global");  // demangled
  EXPECT_EQ(report->violations[1].raw_symbol, "_ZN7cutlass6globalE");
}

TEST(ConstraintChecker, SimilarNamesDoNotMatch) {
  const std::string ptx = ".global .align 4 .b8 _ZN9mycutlass1xE[4];\n.visible .entry cublas_free_kernel()\n";
  Constraints c = attention_like();
  c.forbidden_symbols[1].patterns = {"^cublas[A-Z]"};
  auto report = check_constraints(c, "", ptx);
  ASSERT_TRUE(report);
  EXPECT_TRUE(report->ok()) << report->violations.front().symbol;
}

TEST(ConstraintChecker, DeviceLaunchRuleIsOnByDefault) {
  const std::string ptx = ".extern .func  (.param .b32 func_retval0) cudaLaunchDeviceV2\n(\n);\n";
  Constraints c;
  auto report = check_constraints(c, "", ptx);
  ASSERT_TRUE(report);
  ASSERT_EQ(report->violations.size(), 1u);
  EXPECT_EQ(report->violations[0].rule, "no-device-launch");
  c.forbid_device_launch = false;
  auto allowed = check_constraints(c, "", ptx);
  ASSERT_TRUE(allowed);
  EXPECT_TRUE(allowed->ok());
}

TEST(ConstraintChecker, InvalidPatternNamesTheRule) {
  Constraints c;
  c.forbidden_symbols = {{"broken-rule", "", {"(unclosed"}}};
  auto report = check_constraints(c, "", ".visible .entry k()\n");
  ASSERT_FALSE(report);
  EXPECT_NE(report.error().message.find("broken-rule"), std::string::npos);
}

TEST(ConstraintChecker, MalformedCubinIsAnErrorNotACrash) {
  EXPECT_FALSE(cubin_names("not an elf"));
  std::string truncated =
      "\x7f"
      "ELF";
  truncated.resize(70, '\x02');
  EXPECT_FALSE(cubin_names(truncated));
  auto report = check_constraints(Constraints{}, "garbage-bytes", "");
  EXPECT_FALSE(report);
  EXPECT_FALSE(check_constraints(Constraints{}, "", ""));
}

TEST(Demangle, ItaniumNamesAndPlainNames) {
  EXPECT_EQ(demangle("_ZN4cute6LayoutC1Ev"), "cute::Layout::Layout()");
  EXPECT_EQ(demangle("scale"), "scale");
  EXPECT_EQ(demangle("_Znotvalid"), "_Znotvalid");
}

}  // namespace
}  // namespace kseek
