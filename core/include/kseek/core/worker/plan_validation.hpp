// Checks a candidate's LaunchPlan against the device's limits, each kernel's attributes and the plugin's tensors
// before anything is launched. It must never touch CUDA, and never pass a plan the driver would refuse.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kseek/device/launch_plan.h"
#include "kseek/sdk/result.hpp"

namespace kseek {

// What the device allows, read once from the driver (cuDeviceGetAttribute) by whoever holds a context.
struct DeviceLimits {
  unsigned max_threads_per_block = 0;
  PlanDim3 max_block_dims{0, 0, 0};
  PlanDim3 max_grid_dims{0, 0, 0};
  unsigned max_smem_per_block = 0;        // without opt-in (48 KiB)
  unsigned max_smem_per_block_optin = 0;  // static + dynamic, after cuFuncSetAttribute raises the limit
  unsigned max_smem_per_sm = 0;
  unsigned registers_per_sm = 0;
  unsigned registers_per_block = 0;
  unsigned sm_count = 0;
  bool supports_clusters = false;
  unsigned max_portable_cluster_size = 8;
  unsigned max_non_portable_cluster_size = 16;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;

  // The limits of an H100 SXM (compute capability 9.0), for tests and for reasoning without a device.
  static DeviceLimits hopper_h100_like();
};

// What the driver reports for one kernel of the candidate's module (cuFuncGetAttribute).
struct KernelAttributes {
  bool exists = false;
  unsigned max_threads_per_block = 0;   // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: registers considered
  unsigned static_smem_bytes = 0;       // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
  unsigned registers_per_thread = 0;    // CU_FUNC_ATTRIBUTE_NUM_REGS
  unsigned max_dynamic_smem_bytes = 0;  // what it may opt into: limits.max_smem_per_block_optin - static
  unsigned dynamic_smem_limit_now = 0;  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES before any raise
  PlanDim3 required_cluster{0, 0, 0};   // __cluster_dims__ compiled in; {0,0,0} when none
  bool allows_non_portable_cluster = false;
};

// One tensor the plugin lets a candidate map with TMA, as the harness will encode it.
struct TensorDescription {
  unsigned id = 0;
  std::string name;                     // for messages, e.g. "k"
  unsigned rank = 0;                    // 1..5
  std::array<std::uint64_t, 5> dims{};  // innermost first
  unsigned element_bytes = 0;
  bool exists = false;  // false when this problem has no such tensor (e.g. no sinks)
};

struct ValidatedLaunch {
  std::string kernel;
  PlanDim3 grid{1, 1, 1};
  PlanDim3 block{1, 1, 1};
  PlanDim3 cluster{1, 1, 1};      // the cluster the blocks run in: {1,1,1} when none, the compiled one if any
  bool set_cluster_dims = false;  // true only when the launch must pass the cluster dimension attribute
  unsigned dynamic_smem_bytes = 0;
  bool with_previous = false;  // kLaunchWithPrevious: starts with the launch before it (never on the first)
};

// A kernel whose dynamic shared-memory limit must be raised (cuFuncSetAttribute) before its launches.
struct SmemLimitRaise {
  std::string kernel;
  unsigned dynamic_smem_bytes = 0;  // the largest any launch of it asks for
};

struct ValidatedTensorMap {
  unsigned tensor = 0;
  unsigned rank = 0;
  std::array<unsigned, 5> box{};  // entries past rank are zero
  TensorMapSwizzle swizzle = kSwizzleNone;
  unsigned l2_promotion_bytes = 0;
};

struct ValidatedPlan {
  std::vector<ValidatedLaunch> launches;          // in plan order
  std::vector<SmemLimitRaise> smem_limit_raises;  // one per kernel, in order of first use
  std::vector<ValidatedTensorMap> tensor_maps;    // in plan order
  std::uint64_t workspace_bytes = 0;
  std::size_t total_launches = 0;
};

// Where each launch of a plan goes: the stream ("lane") it is enqueued on, lane 0 being the harness's own, and what
// must be enqueued around it so that a group of launches joined by kLaunchWithPrevious runs side by side yet starts
// after everything before it and ends before anything after it.
struct LaunchLane {
  std::size_t lane = 0;         // 0 for a group's first launch (and every launch outside a group), 1.. for the others
  std::size_t fork_before = 0;  // lanes 1..fork_before wait for lane 0 before this launch is enqueued (a group starts)
  std::size_t join_after = 0;   // lane 0 waits for lanes 1..join_after after this launch is enqueued (a group ends)
};
std::vector<LaunchLane> plan_lanes(const std::vector<ValidatedLaunch>& launches);

// Returns the normalised plan, or the first violation as one line naming the launch index and kernel (or the
// tensor-map index and tensor), the field, the value and the limit. A failure is the candidate's LAUNCH_ERROR;
// an error from `attributes_of` is reported the same way, with its message kept.
Result<ValidatedPlan> validate_plan(
    const LaunchPlan& plan, const DeviceLimits& limits,
    const std::function<Result<KernelAttributes>(std::string_view kernel)>& attributes_of,
    std::span<const TensorDescription> tensors, std::uint64_t max_workspace_bytes);

}  // namespace kseek
