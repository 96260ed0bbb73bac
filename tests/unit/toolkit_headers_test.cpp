// Where candidate builds find the CUDA toolkit's headers (fake toolkits in a temporary folder), how an include nobody
// offers is read from NVRTC's log, and the pack-architecture rule. It must never depend on this machine's toolkit.
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "kseek/core/build/toolkit_headers.hpp"
#include "kseek/core/questions/question_lint.hpp"
#include "kseek/core/questions/question_pack.hpp"
#include "support/temp_folder.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;

// A toolkit root with include/cuda_fp16.h and a cuda.h declaring `version`; with include/cccl when asked.
fs::path fake_toolkit(const fs::path& root, int version, bool cccl = false) {
  fs::create_directories(root / "include");
  fs::create_directories(root / "lib64");
  std::ofstream(root / "include" / "cuda_fp16.h") << "// fake\n";
  std::ofstream(root / "include" / "cuda.h") << "#pragma once\n#define CUDA_VERSION " << version << "\n";
  if (cccl) fs::create_directories(root / "include" / "cccl");
  return root;
}

class ToolkitHeaders : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"KSEEK_CUDA_INCLUDE", "CUDA_HOME", "CUDA_PATH"}) {
      if (const char* v = std::getenv(name)) saved_.emplace_back(name, v);
      ::unsetenv(name);
    }
  }
  void TearDown() override {
    for (const char* name : {"KSEEK_CUDA_INCLUDE", "CUDA_HOME", "CUDA_PATH"}) ::unsetenv(name);
    for (const auto& [name, value] : saved_) ::setenv(name.c_str(), value.c_str(), 1);
  }
  std::vector<std::pair<std::string, std::string>> saved_;
  const testing::TempFolder temp_{"kseek_toolkit_headers"};
};

TEST_F(ToolkitHeaders, NvrtcsOwnReleaseWinsOverAnEarlierFolderOfAnotherRelease) {
  const auto old_toolkit = fake_toolkit(temp_.path() / "cuda-12.8", 12080);
  const auto own = fake_toolkit(temp_.path() / "cuda-13.0", 13000, true);
  ::setenv("CUDA_HOME", old_toolkit.c_str(), 1);
  const auto found = find_toolkit_headers(own / "lib64" / "libnvrtc.so.13", 13, 0);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->include_dir, fs::canonical(own / "include"));
  EXPECT_EQ(found->cuda_version, 13000);
  ASSERT_EQ(found->folders.size(), 2u) << "CUDA 13 keeps CCCL (cuda/barrier, cuda/std) in include/cccl";
  EXPECT_EQ(found->folders[1], found->include_dir / "cccl");
  EXPECT_TRUE(found->note.empty()) << found->note;

  const auto twelve = find_toolkit_headers(own / "lib64" / "libnvrtc.so.13", 12, 8);
  ASSERT_TRUE(twelve);
  EXPECT_EQ(twelve->include_dir, fs::canonical(old_toolkit / "include")) << "CUDA_HOME is 12.8, as NVRTC is";
  EXPECT_EQ(twelve->origin, "$CUDA_HOME");
  EXPECT_EQ(twelve->folders.size(), 1u);
}

TEST_F(ToolkitHeaders, AnExplicitIncludeFolderComesFirstAndAMismatchIsNoted) {
  const auto chosen = fake_toolkit(temp_.path() / "mine", 12040);
  ::setenv("KSEEK_CUDA_INCLUDE", (chosen / "include").c_str(), 1);
  const auto found = find_toolkit_headers({}, 99, 0);  // no folder anywhere is release 99.0
  ASSERT_TRUE(found);
  EXPECT_EQ(found->include_dir, fs::canonical(chosen / "include"));
  EXPECT_NE(found->note.find("not NVRTC's release (99.0)"), std::string::npos) << found->note;
}

TEST_F(ToolkitHeaders, AFolderWithoutCudaFp16IsNeverTaken) {
  fs::create_directories(temp_.path() / "empty" / "include");
  ::setenv("KSEEK_CUDA_INCLUDE", (temp_.path() / "empty" / "include").c_str(), 1);
  const auto found = find_toolkit_headers({}, 13, 0);
  if (found) EXPECT_NE(found->include_dir, fs::canonical(temp_.path() / "empty" / "include"));
}

TEST_F(ToolkitHeaders, TheIdentityChangesWhenTheHeadersChange) {
  const auto root = fake_toolkit(temp_.path() / "t", 13000);
  ::setenv("KSEEK_CUDA_INCLUDE", (root / "include").c_str(), 1);
  const auto before = find_toolkit_headers({}, 13, 0);
  std::ofstream(root / "include" / "cuda_bf16.h") << "// a patch release added or changed a header\n";
  const auto after = find_toolkit_headers({}, 13, 0);
  ASSERT_TRUE(before && after);
  EXPECT_NE(before->identity, after->identity);

  CompileRequest request;
  offer_toolkit_headers(request, after);
  EXPECT_EQ(request.toolkit_identity, after->identity);
  ASSERT_EQ(request.options.size(), 1u);
  EXPECT_EQ(request.options[0], "--include-path=" + after->include_dir.string());
  CompileRequest untouched;
  offer_toolkit_headers(untouched, std::nullopt);
  EXPECT_TRUE(untouched.options.empty() && untouched.toolkit_identity.empty());
}

TEST(UnopenedInclude, ReadsBothNvrtcSpellingsAndNothingElse) {
  Diagnostic no_path{"c.cu", 1, "error", "could not open source file \"cuda_bf16.h\" (no directories in search list)",
                     ""};
  Diagnostic with_path{"c.cu", 2, "error", "cannot open source file \"cuda/barrierx\"", ""};
  Diagnostic other{"c.cu", 3, "error", "identifier \"x\" is undefined", ""};
  EXPECT_EQ(unopened_include(no_path).value_or(""), "cuda_bf16.h");
  EXPECT_EQ(unopened_include(with_path).value_or(""), "cuda/barrierx");
  EXPECT_FALSE(unopened_include(other));

  CompileRequest request;
  request.headers = {{"kseek/device/launch_plan.h", ""}, {"my/problem.h", ""}};
  const std::string message = unopened_include_message(no_path, "cuda_bf16.h", request, std::nullopt);
  EXPECT_NE(message.find("c.cu:1: cannot include <cuda_bf16.h>"), std::string::npos) << message;
  EXPECT_NE(message.find("<kseek/device/launch_plan.h>, <my/problem.h>"), std::string::npos) << message;
  EXPECT_NE(message.find("CUDA_HOME"), std::string::npos) << "without a toolkit it says how to offer one: " << message;
}

TEST(PackArchitecture, OnlySmNumbersWithAnOptionalLetter) {
  for (const char* ok : {"sm_90", "sm_90a", "sm_100a", "sm_120"}) EXPECT_TRUE(is_pack_architecture(ok)) << ok;
  for (const char* bad : {"hopper", "sm_9", "sm_90ab", "SM_90", "sm_", "90a", "sm_1000"}) {
    EXPECT_FALSE(is_pack_architecture(bad)) << bad;
  }
  const std::string text = R"({"format": "kseek.questions/1",
 "pack": {"id": "h", "version": "1.0.0", "description": "d", "license": "CC-BY-4.0",
          "architecture": "hopper"},
 "items": [{"id": "h.a", "text": "What did the profile show?", "triggers": ["stagnation"], "intent": "measure",
            "requires_other_implementation": false, "provenance": "unverified"}]})";
  auto pack = parse_question_pack(text, "h.json");
  ASSERT_TRUE(pack) << pack.error().message;
  const auto findings = lint_question_pack(*pack, text, "h.json");
  ASSERT_TRUE(has_lint_errors(findings));
  EXPECT_EQ(findings.front().rule, "pack.architecture");
  EXPECT_EQ(findings.front().line, 3u);
}

}  // namespace
}  // namespace kseek
