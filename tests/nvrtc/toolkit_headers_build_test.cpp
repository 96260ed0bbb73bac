// Real NVRTC builds of candidates that include the CUDA toolkit's device headers: they build, the plugin's constraints
// still hold on the binary, and an include nobody offers is one message saying what may be included.
// It must never pass on a machine without the toolkit's headers by accident: that case skips and says why.
#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "kseek/core/build/build_service.hpp"
#include "kseek/core/build/toolkit_headers.hpp"
#include "kseek/core/plugin/plugin_registry.hpp"
#include "support/run_command.hpp"
#include "support/temp_folder.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;

class ToolkitHeadersBuild : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!toolkit_headers()) GTEST_SKIP() << "no CUDA toolkit headers on this machine (set CUDA_HOME)";
    auto loaded = registry_.load_file(fs::path(KSEEK_FIXTURE_GOOD_DIR) / "kseek_fixture_plugin.so");
    ASSERT_TRUE(loaded) << loaded.error().message;
    plugin_ = (*loaded)->plugin;
  }
  CandidateBuild build(const std::string& text) {
    BuildService service{std::nullopt};
    const auto constraints = plugin_->default_constraints();
    return service.build_and_check(make_compile_request(*plugin_, {"toolkit.cu", text}, "sm_90a", constraints),
                                   constraints);
  }
  PluginRegistry registry_;
  Plugin* plugin_ = nullptr;
};

TEST_F(ToolkitHeadersBuild, EveryListedHeaderBuildsInACandidate) {
  std::string text;
  for (const auto header : kToolkitDeviceHeaders) text += "#include <" + std::string(header) + ">\n";
  text += R"(
namespace cg = cooperative_groups;
extern "C" __global__ void scale(const __nv_bfloat16* x, __nv_bfloat16* y, int n) {
  const int i = cg::this_grid().thread_rank();
  if (i < n) y[i] = __float2bfloat16(2.0f * __bfloat162float(x[i]) + __half2float(__float2half(0.5f)));
}
)";
  const auto result = build(text);
  EXPECT_EQ(result.status, Status::kOk) << result.message << "\n" << result.compile.log;
}

TEST_F(ToolkitHeadersBuild, AToolkitHeaderOpensNoHoleInTheConstraints) {
  // cuda_bf16.h's inlined helpers add thousands of names to the binary; the CUTLASS code (found only among the inlined
  // names of the cubin) and the cuBLAS call (an extern declaration in the PTX) must still be found.
  const std::string prologue = "#include <cuda_bf16.h>\n#include <cooperative_groups.h>\n";
  const auto cutlass = build(prologue + R"(
namespace cutlass { struct multiplies { __device__ float operator()(float a, float b) const { return a * b; } }; }
extern "C" __global__ void scale(const __nv_bfloat16* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = cutlass::multiplies{}(__bfloat162float(x[i]), 2.0f);
}
)");
  ASSERT_EQ(cutlass.status, Status::kConstraintViolation) << cutlass.message << "\n" << cutlass.compile.log;
  EXPECT_EQ(cutlass.constraints.violations.front().rule, "no-cutlass") << cutlass.message;
  EXPECT_GT(cutlass.constraints.names_inspected, 100u) << "the toolkit's inlined names were inspected too";

  const auto cublas = build(prologue + R"(
extern "C" __device__ int cublasSgemm_v2(void* handle, int m, int n, int k);
extern "C" __global__ void scale(const __nv_bfloat16* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __bfloat162float(x[i]) + static_cast<float>(cublasSgemm_v2(nullptr, n, n, n));
}
)");
  ASSERT_EQ(cublas.status, Status::kConstraintViolation) << cublas.message;
  EXPECT_EQ(cublas.constraints.violations.front().rule, "no-cublas") << cublas.message;
}

TEST_F(ToolkitHeadersBuild, AnIncludeNobodyOffersIsOneMessageListingWhatMayBeIncluded) {
  const auto result = build("#include <cuda_bf17.h>\nextern \"C\" __global__ void scale() {}\n");
  ASSERT_EQ(result.status, Status::kCompileError);
  EXPECT_NE(result.message.find("toolkit.cu:1: cannot include <cuda_bf17.h>"), std::string::npos) << result.message;
  EXPECT_NE(result.message.find("<cuda_bf16.h>"), std::string::npos) << result.message;
  EXPECT_NE(result.message.find("<kseek/device/launch_plan.h>"), std::string::npos) << result.message;
  ASSERT_FALSE(result.compile.diagnostics.empty());
  EXPECT_TRUE(unopened_include(result.compile.diagnostics.front())) << "the unopened include is the first diagnostic";

  // `kseek build` prints the message once and the source line once, not NVRTC's error a second time.
  const testing::TempFolder temp{"kseek_toolkit_cli"};
  const fs::path file = temp.path() / "bad.cu";
  std::ofstream(file) << "#include <cuda_bf17.h>\n";
  const auto run =
      testing::run_kseek("build '" + file.string() + "' --plugin example.softmax --no-cache", "toolkit", true);
  EXPECT_EQ(run.exit_code, 1) << run.out;
  std::size_t mentions = 0;
  for (auto at = run.out.find("cuda_bf17.h"); at != std::string::npos; at = run.out.find("cuda_bf17.h", at + 1))
    ++mentions;
  EXPECT_EQ(mentions, 2u) << "the message and the source line:\n" << run.out;
  EXPECT_EQ(run.out.find("could not open"), std::string::npos) << run.out;
}

TEST_F(ToolkitHeadersBuild, TheCacheKeyFollowsTheToolkitIdentity) {
  const auto constraints = plugin_->default_constraints();
  auto request =
      make_compile_request(*plugin_, {"c.cu", "extern \"C\" __global__ void k() {}\n"}, "sm_90a", constraints);
  EXPECT_EQ(request.toolkit_identity, toolkit_headers()->identity);
  const std::string key = build_cache_key(request);
  request.toolkit_identity += ";another patch release";
  EXPECT_NE(build_cache_key(request), key);
}

}  // namespace
}  // namespace kseek
