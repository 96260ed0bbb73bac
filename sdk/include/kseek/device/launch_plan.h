// The candidate ABI's shared vocabulary: the LaunchPlan a candidate's plan kernel writes and the single
// parameter block every planned kernel receives. Compiled by NVRTC and by the host compiler alike; it must
// never depend on the CUDA headers, the runtime or anything a candidate could not see under NVRTC.
#pragma once

namespace kseek {

// Bumped whenever the layout of anything in this file changes; the harness refuses plans of another version.
inline constexpr unsigned kLaunchPlanAbiVersion = 1;
inline constexpr int kMaxPlanLaunches = 8;
inline constexpr int kMaxTensorMaps = 8;
inline constexpr int kKernelNameBytes = 64;

struct PlanDim3 {
  unsigned x, y, z;
};

// PlannedLaunch::flags.
enum PlannedLaunchFlag : unsigned {
  // Starts together with the launch before it instead of after it. Consecutive launches joined this way form a group:
  // its launches wait for everything before the group, run side by side (each on its own stream), and everything after
  // the group waits for all of them, the end of a timed window included. For kernels that share nothing and each
  // leave part of the GPU idle (long prefill rows on some SMs while short decode rows take the rest). Not on the first
  // launch. Launches of a group must not depend on one another's results: their order is not defined.
  kLaunchWithPrevious = 1u,
};

// One kernel launch, in the order the plan lists them, one after the other on the harness's stream unless flags say
// otherwise.
struct PlannedLaunch {
  char kernel[kKernelNameBytes];  // NUL-terminated name of an extern "C" __global__ of the candidate
  PlanDim3 grid;
  PlanDim3 block;
  PlanDim3 cluster;             // {0,0,0} or {1,1,1}: no cluster
  unsigned dynamic_smem_bytes;  // the harness raises the kernel's dynamic smem limit to this when needed
  union {
    unsigned flags;     // PlannedLaunchFlag bits; 0: after the launch before it
    unsigned reserved;  // its name before flags existed (it had to be 0): plans that zero it still compile
  };
};

enum TensorMapSwizzle : unsigned {
  kSwizzleNone = 0,
  kSwizzle32B = 1,
  kSwizzle64B = 2,
  kSwizzle128B = 3,
};

// A TMA descriptor the harness encodes (cuTensorMapEncodeTiled) over one of the plugin's tensors. The
// tensor's shape, strides and dtype come from the harness, never from the candidate: a candidate can only
// choose how it tiles a buffer it is allowed to read or write.
struct TensorMapRequest {
  unsigned tensor;              // the plugin's tensor id (see the plugin's candidate header)
  unsigned box_rank;            // 1..5; must equal the rank the plugin declares for that tensor view
  unsigned box[5];              // box extent per dimension, innermost first
  unsigned swizzle;             // TensorMapSwizzle
  unsigned l2_promotion_bytes;  // 0, 64, 128 or 256
  unsigned reserved;
};

struct LaunchPlan {
  unsigned abi_version;   // must be kLaunchPlanAbiVersion
  unsigned num_launches;  // 1..kMaxPlanLaunches
  PlannedLaunch launches[kMaxPlanLaunches];
  unsigned long long workspace_bytes;  // zero-initialised by the harness before every launch sequence
  unsigned num_tensor_maps;            // 0..kMaxTensorMaps
  unsigned reserved;
  TensorMapRequest tensor_maps[kMaxTensorMaps];
};

// Opaque storage for an encoded CUtensorMap (128 bytes, 64-byte aligned), usable from device code.
struct alignas(64) TensorMapStorage {
  unsigned long long opaque[16];
};

// The one parameter of every planned kernel: `extern "C" __global__ void k(const __grid_constant__
// kseek::KernelArgs<Problem> args)`. Problem is the plugin's problem description (device pointers and sizes).
template <class Problem>
struct KernelArgs {
  Problem problem;
  void* workspace;                               // workspace_bytes of zeroed device memory, or null
  TensorMapStorage tensor_maps[kMaxTensorMaps];  // in the order of LaunchPlan::tensor_maps
};

// The plan kernel: `extern "C" __global__ void kseek_plan(const Problem problem, kseek::LaunchPlan* plan)`,
// launched with one thread, outside timing, once per scenario. Every device pointer in `problem` is null
// there: a plan is geometry, decided from sizes alone.
inline constexpr const char* kPlanKernelName = "kseek_plan";

}  // namespace kseek
