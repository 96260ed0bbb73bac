// Launch-plan validation without a GPU: a valid split + combine plan, then one broken field per rule.
// It must never depend on CUDA: device limits and kernel attributes are plain values built here.
#include <gtest/gtest.h>

#include <cstring>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "kseek/core/worker/plan_validation.hpp"

namespace kseek {
namespace {

constexpr unsigned kOptin = 227 * 1024;
constexpr std::uint64_t kMaxWorkspace = 64ull << 20;

KernelAttributes kernel(unsigned max_threads, unsigned static_smem, unsigned registers) {
  KernelAttributes a;
  a.exists = true;
  a.max_threads_per_block = max_threads;
  a.static_smem_bytes = static_smem;
  a.registers_per_thread = registers;
  a.max_dynamic_smem_bytes = kOptin - static_smem;
  a.dynamic_smem_limit_now = 48 * 1024 - static_smem;
  return a;
}

void set_name(PlannedLaunch& l, const char* name) {
  std::memset(l.kernel, 0, sizeof(l.kernel));
  std::strncpy(l.kernel, name, sizeof(l.kernel) - 1);
}

TensorDescription tensor(unsigned id, const char* name, bool exists) {
  TensorDescription t;
  t.id = id;
  t.name = name;
  t.rank = 4;
  t.dims = {128, 4096, 32, 2};  // d, s, h, b: innermost first
  t.element_bytes = 2;          // bf16
  t.exists = exists;
  return t;
}

class PlanValidation : public ::testing::Test {
 protected:
  PlanValidation() {
    kernels["attn_split"] = kernel(384, 1024, 128);
    kernels["attn_combine"] = kernel(1024, 0, 32);
    tensors = {tensor(0, "q", true), tensor(1, "k", true), tensor(2, "v", true), tensor(3, "sinks", false)};

    std::memset(&plan, 0, sizeof(plan));
    plan.abi_version = kLaunchPlanAbiVersion;
    plan.num_launches = 3;
    PlannedLaunch& split = plan.launches[0];
    set_name(split, "attn_split");
    split.grid = {132, 8, 2};
    split.block = {384, 1, 1};
    split.cluster = {2, 1, 1};
    split.dynamic_smem_bytes = 200000;
    PlannedLaunch& combine = plan.launches[1];
    set_name(combine, "attn_combine");
    combine.grid = {64, 1, 1};
    combine.block = {256, 1, 1};
    combine.cluster = {0, 0, 0};
    combine.dynamic_smem_bytes = 0;
    PlannedLaunch& again = plan.launches[2];
    set_name(again, "attn_split");
    again.grid = {66, 1, 1};
    again.block = {128, 3, 1};
    again.cluster = {1, 1, 1};
    again.dynamic_smem_bytes = 210000;
    plan.workspace_bytes = 1 << 20;
    plan.num_tensor_maps = 2;
    plan.tensor_maps[0] = {0, 4, {64, 128, 1, 1, 99}, kSwizzle128B, 256, 0};  // 64 x 2 B = 128 B inner box
    plan.tensor_maps[1] = {1, 4, {64, 64, 1, 1, 0}, kSwizzle128B, 128, 0};
  }

  Result<ValidatedPlan> validate() {
    auto lookup = [this](std::string_view name) -> Result<KernelAttributes> {
      ++lookups[std::string(name)];
      if (name == "broken_module") return make_error("cuModuleGetFunction(broken_module): CUDA_ERROR_INVALID_PTX");
      const auto it = kernels.find(std::string(name));
      if (it == kernels.end()) return KernelAttributes{};
      return it->second;
    };
    return validate_plan(plan, limits, lookup, tensors, kMaxWorkspace);
  }

  // The plan must fail with one line holding every substring.
  void expect_error(std::initializer_list<std::string> parts) {
    const auto result = validate();
    ASSERT_FALSE(result.ok()) << "expected the plan to be rejected";
    const std::string& message = result.error().message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_EQ(message.rfind("invalid launch plan: ", 0), 0u) << message;
    for (const auto& part : parts)
      EXPECT_NE(message.find(part), std::string::npos) << "missing '" << part << "' in: " << message;
  }

  DeviceLimits limits = DeviceLimits::hopper_h100_like();
  std::map<std::string, KernelAttributes> kernels;
  std::map<std::string, int> lookups;
  std::vector<TensorDescription> tensors;
  LaunchPlan plan{};
};

TEST_F(PlanValidation, ValidSplitCombinePlanIsNormalised) {
  const auto result = validate();
  ASSERT_TRUE(result.ok()) << result.error().message;
  const ValidatedPlan& v = *result;
  ASSERT_EQ(v.total_launches, 3u);
  ASSERT_EQ(v.launches.size(), 3u);

  EXPECT_EQ(v.launches[0].kernel, "attn_split");
  EXPECT_EQ(v.launches[0].grid.x, 132u);
  EXPECT_EQ(v.launches[0].grid.z, 2u);
  EXPECT_EQ(v.launches[0].cluster.x, 2u);
  EXPECT_TRUE(v.launches[0].set_cluster_dims);
  EXPECT_EQ(v.launches[0].dynamic_smem_bytes, 200000u);

  EXPECT_EQ(v.launches[1].kernel, "attn_combine");
  EXPECT_EQ(v.launches[1].cluster.x, 1u);  // {0,0,0} normalised to no cluster
  EXPECT_EQ(v.launches[1].cluster.y, 1u);
  EXPECT_EQ(v.launches[1].cluster.z, 1u);
  EXPECT_FALSE(v.launches[1].set_cluster_dims);

  EXPECT_EQ(v.launches[2].cluster.x, 1u);
  EXPECT_FALSE(v.launches[2].set_cluster_dims);
  EXPECT_EQ(v.launches[2].block.y, 3u);

  // attn_split needs its limit raised to the larger of its two launches; attn_combine stays under 48 KiB.
  ASSERT_EQ(v.smem_limit_raises.size(), 1u);
  EXPECT_EQ(v.smem_limit_raises[0].kernel, "attn_split");
  EXPECT_EQ(v.smem_limit_raises[0].dynamic_smem_bytes, 210000u);

  EXPECT_EQ(v.workspace_bytes, 1u << 20);
  ASSERT_EQ(v.tensor_maps.size(), 2u);
  EXPECT_EQ(v.tensor_maps[0].tensor, 0u);
  EXPECT_EQ(v.tensor_maps[0].rank, 4u);
  EXPECT_EQ(v.tensor_maps[0].box[1], 128u);
  EXPECT_EQ(v.tensor_maps[0].box[4], 0u);  // entries past the rank are dropped
  EXPECT_EQ(v.tensor_maps[0].swizzle, kSwizzle128B);
  EXPECT_EQ(v.tensor_maps[0].l2_promotion_bytes, 256u);
  EXPECT_EQ(v.tensor_maps[1].tensor, 1u);

  EXPECT_EQ(lookups["attn_split"], 1);  // attributes read once per kernel
  EXPECT_EQ(lookups["attn_combine"], 1);
}

TEST_F(PlanValidation, LaunchesPastTheCountAreIgnored) {
  plan.num_launches = 1;
  std::memset(plan.launches[1].kernel, 'x', sizeof(plan.launches[1].kernel));
  const auto result = validate();
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->total_launches, 1u);
}

TEST_F(PlanValidation, AbiVersion) {
  plan.abi_version = 7;
  expect_error({"abi_version is 7", "expected 1"});
}

TEST_F(PlanValidation, NoLaunches) {
  plan.num_launches = 0;
  expect_error({"num_launches is 0", "1..8"});
}

TEST_F(PlanValidation, TooManyLaunches) {
  plan.num_launches = 9;
  expect_error({"num_launches is 9", "1..8"});
}

TEST_F(PlanValidation, PlanReserved) {
  plan.reserved = 3;
  expect_error({"reserved is 3", "must be 0"});
}

TEST_F(PlanValidation, LaunchFlagsOtherThanWithPrevious) {
  plan.launches[1].flags = 5;
  expect_error({"launch 1 (attn_combine)", "flags is 0x5", "only kLaunchWithPrevious (0x1)"});
}

TEST_F(PlanValidation, TheFirstLaunchHasNoneToStartWith) {
  plan.launches[0].flags = kLaunchWithPrevious;
  expect_error({"launch 0 (attn_split)", "the first launch has no launch before it"});
}

TEST_F(PlanValidation, WithPreviousIsKeptPerLaunch) {
  plan.launches[1].reserved = 0;  // a plan written before flags existed still compiles and means the same
  plan.launches[2].flags = kLaunchWithPrevious;
  const auto result = validate();
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_FALSE(result->launches[0].with_previous);
  EXPECT_FALSE(result->launches[1].with_previous);
  EXPECT_TRUE(result->launches[2].with_previous);
}

// Lanes for a plan given as its with_previous flags, written "lane/fork_before/join_after" per launch.
std::vector<std::string> lanes_of(std::initializer_list<bool> with_previous) {
  std::vector<ValidatedLaunch> launches;
  for (const bool w : with_previous) launches.push_back(ValidatedLaunch{.with_previous = w});
  std::vector<std::string> out;
  for (const LaunchLane& l : plan_lanes(launches)) {
    out.push_back(std::to_string(l.lane) + "/" + std::to_string(l.fork_before) + "/" + std::to_string(l.join_after));
  }
  return out;
}

TEST(PlanLanes, OneAfterTheOtherStaysOnTheStream) {
  EXPECT_EQ(lanes_of({false}), (std::vector<std::string>{"0/0/0"}));
  EXPECT_EQ(lanes_of({false, false, false}), (std::vector<std::string>{"0/0/0", "0/0/0", "0/0/0"}));
  EXPECT_TRUE(lanes_of({}).empty());
}

TEST(PlanLanes, AGroupForksBeforeItsFirstLaunchAndJoinsAfterItsLast) {
  // prefill + decode side by side, then a combine after both.
  EXPECT_EQ(lanes_of({false, true, false}), (std::vector<std::string>{"0/1/0", "1/0/1", "0/0/0"}));
  // a group of three that ends the plan: the join still comes (the timed window's end follows it).
  EXPECT_EQ(lanes_of({false, true, true}), (std::vector<std::string>{"0/2/0", "1/0/0", "2/0/2"}));
  // two groups: each forks and joins its own lanes, from lane 1 again.
  EXPECT_EQ(lanes_of({false, true, false, false, true}),
            (std::vector<std::string>{"0/1/0", "1/0/1", "0/0/0", "0/1/0", "1/0/1"}));
}

TEST_F(PlanValidation, KernelNameNotTerminated) {
  std::memset(plan.launches[1].kernel, 'a', sizeof(plan.launches[1].kernel));
  plan.launches[1].kernel[3] = '\n';
  expect_error({"launch 1", "not NUL-terminated within 64 bytes", "aaa\\x0aaaa"});
}

TEST_F(PlanValidation, KernelNameEmpty) {
  set_name(plan.launches[0], "");
  expect_error({"launch 0", "kernel name is empty"});
}

TEST_F(PlanValidation, KernelNameNotAnIdentifier) {
  set_name(plan.launches[0], "attn split\r");
  expect_error({"launch 0", "\"attn split\\x0d\" is not a C identifier"});
}

TEST_F(PlanValidation, UnknownKernel) {
  set_name(plan.launches[2], "attn_fused");
  expect_error({"launch 2 (attn_fused)", "unknown kernel", "attn_fused"});
}

TEST_F(PlanValidation, PlanKernelAsLaunch) {
  set_name(plan.launches[1], "kseek_plan");
  kernels["kseek_plan"] = kernel(1, 0, 16);  // it exists in the module, but is never a planned launch
  expect_error({"launch 1 (kseek_plan)", "plan kernel"});
  EXPECT_EQ(lookups.count("kseek_plan"), 0u);
}

TEST_F(PlanValidation, AttributeLookupFailureKeepsItsMessage) {
  set_name(plan.launches[0], "broken_module");
  expect_error({"launch 0 (broken_module)", "attributes failed", "CUDA_ERROR_INVALID_PTX"});
}

TEST_F(PlanValidation, BlockDimensionZero) {
  plan.launches[1].block = {256, 0, 1};
  expect_error({"launch 1 (attn_combine)", "block.y is 0", "at least 1"});
}

TEST_F(PlanValidation, BlockDimensionOverDeviceLimit) {
  plan.launches[1].block = {1, 1, 65};
  expect_error({"launch 1 (attn_combine)", "block.z 65", "device's limit of 64"});
}

TEST_F(PlanValidation, BlockThreadsOverKernelLimit) {
  plan.launches[1].block = {1024, 2, 1};
  expect_error({"launch 1 (attn_combine): block 2048 threads exceeds the kernel's limit of 1024"});
}

TEST_F(PlanValidation, BlockThreadsOverSplitKernelLimit) {
  plan.launches[0].block = {512, 1, 1};  // within the device's 1024, over the 384 the kernel was built for
  expect_error({"launch 0 (attn_split): block 512 threads exceeds the kernel's limit of 384"});
}

TEST_F(PlanValidation, BlockThreadsOverDeviceLimit) {
  kernels["attn_combine"].max_threads_per_block = 4096;  // a driver never says this; the device limit still holds
  plan.launches[1].block = {1024, 2, 1};
  expect_error({"launch 1 (attn_combine)", "block 2048 threads exceeds the device's limit of 1024"});
}

TEST_F(PlanValidation, RegistersOverBlockLimit) {
  kernels["attn_combine"].registers_per_thread = 255;
  plan.launches[1].block = {512, 1, 1};
  expect_error({"launch 1 (attn_combine)", "512 threads x 255 registers = 130560", "limit of 65536"});
}

TEST_F(PlanValidation, GridDimensionZero) {
  plan.launches[1].grid = {0, 1, 1};
  expect_error({"launch 1 (attn_combine)", "grid.x is 0"});
}

TEST_F(PlanValidation, GridDimensionOverDeviceLimit) {
  plan.launches[1].grid = {1, 65536, 1};
  expect_error({"launch 1 (attn_combine)", "grid.y 65536", "device's limit of 65535"});
}

TEST_F(PlanValidation, SharedMemoryOverOptinLimit) {
  plan.launches[0].dynamic_smem_bytes = kOptin;  // plus 1024 static
  expect_error({"launch 0 (attn_split)", "1024 B static + 232448 B dynamic = 233472 B", "opt-in limit of 232448 B"});
}

TEST_F(PlanValidation, DynamicSharedMemoryOverKernelLimit) {
  kernels["attn_split"].max_dynamic_smem_bytes = 100000;
  expect_error({"launch 0 (attn_split)", "dynamic shared memory 200000 B", "kernel's opt-in limit of 100000 B"});
}

TEST_F(PlanValidation, ClusterDimensionZero) {
  plan.launches[0].cluster = {2, 0, 1};
  expect_error({"launch 0 (attn_split)", "cluster.y is 0 in cluster 2x0x1"});
}

TEST_F(PlanValidation, ClusterOnDeviceWithoutClusters) {
  limits.supports_clusters = false;
  limits.compute_capability_major = 8;
  expect_error({"launch 0 (attn_split)", "cluster 2x1x1", "does not support clusters"});
}

TEST_F(PlanValidation, GridNotDivisibleByCluster) {
  plan.launches[0].grid = {131, 8, 2};
  expect_error({"launch 0 (attn_split)", "grid.x 131 is not divisible by cluster.x 2"});
}

TEST_F(PlanValidation, NonPortableClusterNeedsTheKernelsAllowance) {
  plan.launches[0].cluster = {4, 4, 1};
  plan.launches[0].grid = {132, 8, 2};
  expect_error({"launch 0 (attn_split)", "cluster 4x4x1 has 16 blocks", "portable limit of 8"});

  kernels["attn_split"].allows_non_portable_cluster = true;
  const auto allowed = validate();
  ASSERT_TRUE(allowed.ok()) << allowed.error().message;
  EXPECT_EQ(allowed->launches[0].cluster.y, 4u);
}

TEST_F(PlanValidation, ClusterOverNonPortableLimit) {
  kernels["attn_split"].allows_non_portable_cluster = true;
  plan.launches[0].cluster = {4, 4, 2};
  expect_error({"launch 0 (attn_split)", "cluster 4x4x2 has 32 blocks", "non-portable limit of 16"});
}

TEST_F(PlanValidation, CompiledClusterIsHonoured) {
  kernels["attn_combine"].required_cluster = {2, 1, 1};
  const auto ok = validate();  // no cluster in the plan: the compiled one applies and grid 64 divides
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->launches[1].cluster.x, 2u);
  EXPECT_FALSE(ok->launches[1].set_cluster_dims);

  plan.launches[1].grid = {63, 1, 1};
  expect_error({"launch 1 (attn_combine)", "grid.x 63 is not divisible by cluster.x 2"});

  plan.launches[1].grid = {64, 1, 1};
  plan.launches[1].cluster = {4, 1, 1};
  expect_error({"launch 1 (attn_combine)", "cluster 4x1x1 differs from the kernel's compiled cluster 2x1x1"});
}

TEST_F(PlanValidation, WorkspaceOverLimit) {
  plan.workspace_bytes = kMaxWorkspace + 1;
  expect_error({"workspace_bytes 67108865", "limit of 67108864"});
}

TEST_F(PlanValidation, TooManyTensorMaps) {
  plan.num_tensor_maps = 9;
  expect_error({"num_tensor_maps is 9", "0..8"});
}

TEST_F(PlanValidation, TensorMapReserved) {
  plan.tensor_maps[1].reserved = 1;
  expect_error({"tensor-map 1 (tensor 1 k)", "reserved is 1"});
}

TEST_F(PlanValidation, TensorMapUnknownTensor) {
  plan.tensor_maps[1].tensor = 9;
  expect_error({"tensor-map 1 (tensor 9)", "not one the plugin offers", "0 q, 1 k, 2 v, 3 sinks"});
}

TEST_F(PlanValidation, TensorMapTensorAbsentForThisProblem) {
  plan.tensor_maps[0].tensor = 3;
  expect_error({"tensor-map 0 (tensor 3 sinks)", "does not exist for this problem"});
}

TEST_F(PlanValidation, TensorMapRankMismatch) {
  plan.tensor_maps[0].box_rank = 3;
  expect_error({"tensor-map 0 (tensor 0 q)", "box_rank 3 differs from the tensor's rank 4"});
}

TEST_F(PlanValidation, TensorMapBoxZero) {
  plan.tensor_maps[0].box[2] = 0;
  expect_error({"tensor-map 0 (tensor 0 q)", "box[2] 0 is outside 1..256"});
}

TEST_F(PlanValidation, TensorMapBoxOver256) {
  plan.tensor_maps[1].box[1] = 257;
  expect_error({"tensor-map 1 (tensor 1 k)", "box[1] 257 is outside 1..256"});
}

TEST_F(PlanValidation, TensorMapInnerBoxNotMultipleOf16Bytes) {
  plan.tensor_maps[0].box[0] = 12;
  expect_error({"tensor-map 0 (tensor 0 q)", "inner box 24 B (box[0] 12 x 2 B) is not a multiple of 16 B"});
}

TEST_F(PlanValidation, TensorMapInnerBoxOverSwizzleSpan) {
  plan.tensor_maps[0].box[0] = 128;  // 256 B rows cannot be 128B-swizzled
  expect_error({"tensor-map 0 (tensor 0 q)", "inner box 256 B", "128B swizzle span of 128 B"});

  plan.tensor_maps[0].box[0] = 32;  // 64 B rows with a 32 B swizzle
  plan.tensor_maps[0].swizzle = kSwizzle32B;
  expect_error({"tensor-map 0 (tensor 0 q)", "inner box 64 B", "32B swizzle span of 32 B"});

  plan.tensor_maps[0].swizzle = kSwizzleNone;  // no swizzle: any 16 B multiple up to 256 elements
  plan.tensor_maps[0].box[0] = 256;
  const auto ok = validate();
  EXPECT_TRUE(ok.ok()) << ok.error().message;
}

TEST_F(PlanValidation, TensorMapSwizzleValue) {
  plan.tensor_maps[1].swizzle = 4;
  expect_error({"tensor-map 1 (tensor 1 k)", "swizzle 4 is not one of"});
}

TEST_F(PlanValidation, TensorMapL2Promotion) {
  plan.tensor_maps[1].l2_promotion_bytes = 32;
  expect_error({"tensor-map 1 (tensor 1 k)", "l2_promotion_bytes 32", "0, 64, 128, 256"});
}

TEST_F(PlanValidation, TensorMapsNeedHopper) {
  limits.compute_capability_major = 8;
  plan.launches[0].cluster = {1, 1, 1};
  expect_error({"tensor-map 0 (tensor 0 q)", "compute capability 9.0", "device is 8.0"});
}

}  // namespace
}  // namespace kseek
