// Real NVRTC builds with the SDK's shared device headers (kseek/device/convert.h, random.h, ptx.h, plugin_args.h):
// every wrapper compiles to its one PTX instruction with no toolkit header offered (as a plugin's device library is
// built), and the gemm_bias_gelu example's seed and device library build clean from the source tree.
// It must never depend on a GPU: these are compile-only checks.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "kseek/core/build/build_service.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// As the evaluator builds a plugin's device library: the SDK's device headers and the given ones, no toolkit.
CompileRequest sdk_only_request(SourceFile source, std::vector<SourceFile> headers = {}) {
  CompileRequest request;
  request.source = std::move(source);
  request.headers = sdk_device_headers();
  for (auto& header : headers) request.headers.push_back(std::move(header));
  request.arch = "sm_90a";
  return request;
}

TEST(SdkDeviceHeaders, AreOfferedUnderTheirIncludeNames) {
  const auto headers = sdk_device_headers();
  for (const char* name : {"kseek/device/launch_plan.h", "kseek/device/convert.h", "kseek/device/random.h",
                           "kseek/device/ptx.h", "kseek/device/plugin_args.h"}) {
    EXPECT_TRUE(std::any_of(headers.begin(), headers.end(), [&](const SourceFile& h) { return h.name == name; }))
        << name;
  }
}

TEST(SdkDeviceHeaders, EveryWrapperCompilesToItsInstructionWithoutToolkitHeaders) {
  const std::string kernel = R"(
#include <kseek/device/convert.h>
#include <kseek/device/plugin_args.h>
#include <kseek/device/ptx.h>
#include <kseek/device/random.h>
namespace kd = kseek::device;
struct P { const float* x; float* y; };
extern "C" __global__ void wrappers(const kseek::FillArgs<P> args) {
  __shared__ __align__(16) unsigned short tile[8 * 64];
  kd::cp_async_16(kd::shared_address(&tile[threadIdx.x * 8 % 512]), args.problem.x + threadIdx.x * 4, 12);
  kd::cp_async_commit();
  kd::cp_async_wait<0>();
  __syncthreads();
  unsigned a[4], b[4];
  kd::ldmatrix_x4(a, kd::shared_address(&tile[threadIdx.x % 8 * 64]));
  kd::ldmatrix_x4_trans(b, kd::shared_address(&tile[threadIdx.x % 8 * 64 + 8]));
  float d[4] = {0, 0, 0, 0};
  kd::mma_bf16_16816(d, a, b[0], b[1]);
  kd::mma_fp16_16816(d, a, b[2], b[3]);
  const float u = kd::uniform01(kd::random_bits(args.seed, 1, threadIdx.x)) + kd::normal01(kd::mix64(args.seed));
  float v = d[0] + d[1] + d[2] + d[3] + u;
  v += kd::round_to_bf16(v) + kd::round_to_fp16(v) + kd::e4m3_to_float(kd::float_to_e4m3(v)) +
       kd::e5m2_to_float(kd::float_to_e5m2(v));
  args.problem.y[threadIdx.x] = v + __uint_as_float(kd::pack_bf16x2(v, u) ^ kd::pack_fp16x2(u, v));
}
)";
  BuildService service{std::nullopt};
  const auto out = service.compile(sdk_only_request({"wrappers.cu", kernel}));
  ASSERT_EQ(out.status, Status::kOk) << out.error << "\n" << out.log;
  for (const char* instruction :
       {"cvt.rn.bf16.f32", "cvt.f32.f16", "cvt.rn.f16.f32", "cvt.rn.bf16x2.f32", "cvt.rn.f16x2.f32",
        "cvt.rn.satfinite.e4m3x2.f32", "cvt.rn.satfinite.e5m2x2.f32", "cvt.rn.f16x2.e4m3x2", "cvt.rn.f16x2.e5m2x2",
        "cp.async.cg.shared.global", "cp.async.commit_group", "cp.async.wait_group 0",
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"}) {
    EXPECT_NE(out.ptx.find(instruction), std::string::npos) << instruction << " is not in the PTX";
  }
}

class GemmBiasGeluExample : public ::testing::Test {
 protected:
  const fs::path root_ = fs::path(KSEEK_SOURCE_DIR) / "examples/plugins/gemm_bias_gelu";
  SourceFile problem_{"kseek/ops/gemm_bias_gelu_problem.h",
                      read_text(root_ / "include/kseek/ops/gemm_bias_gelu_problem.h")};
};

// The plugin's own constraints are checked by `kseek conform` in the export tests; here the seed must build without
// spills, export the plan kernel and both kernels it plans, and launch nothing from the device.
TEST_F(GemmBiasGeluExample, SeedBuildsConstraintCleanWithoutSpills) {
  Constraints constraints;
  constraints.forbid_device_launch = true;
  BuildService service{std::nullopt};
  const auto build = service.build_and_check(
      sdk_only_request({"gemm_bias_gelu_seed.cu", read_text(root_ / "seed/gemm_bias_gelu_seed.cu")}, {problem_}),
      constraints);
  ASSERT_EQ(build.status, Status::kOk) << build.message;
  std::vector<std::string> kernels;
  for (const auto& kernel : build.compile.kernels) {
    kernels.push_back(kernel.kernel);
    EXPECT_EQ(kernel.spill_store_bytes, 0u) << kernel.kernel << " spills";
    EXPECT_EQ(kernel.stack_frame_bytes, 0u) << kernel.kernel << " keeps its accumulators in local memory";
  }
  for (const char* name : {"kseek_plan", "gemm_bias_gelu_cp_async", "gemm_bias_gelu_scalar_loads"}) {
    EXPECT_NE(std::find(kernels.begin(), kernels.end(), name), kernels.end()) << name;
  }
  EXPECT_NE(build.compile.ptx.find("mma.sync.aligned.m16n8k16"), std::string::npos) << "the seed must use tensor cores";
}

TEST_F(GemmBiasGeluExample, DeviceLibraryBuildsWithoutToolkitHeaders) {
  BuildService service{std::nullopt};
  const auto out = service.compile(sdk_only_request(
      {"device/gemm_bias_gelu_device.cu", read_text(root_ / "device/gemm_bias_gelu_device.cu")}, {problem_}));
  ASSERT_EQ(out.status, Status::kOk) << out.error << "\n" << out.log;
  for (const char* name :
       {"gemm_bias_gelu_fill", "gemm_bias_gelu_reference_gold", "gemm_bias_gelu_reference_same_precision"}) {
    EXPECT_NE(out.ptx.find(name), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace kseek
