// Validates a candidate's LaunchPlan field by field against device limits, kernel attributes and tensors.
// It must never index past num_launches/num_tensor_maps unchecked, nor echo a candidate's bytes unescaped.
#include "kseek/core/worker/plan_validation.hpp"

#include <algorithm>
#include <cstddef>
#include <map>

#include <fmt/format.h>

namespace kseek {

// kLaunchWithPrevious took the place of PlannedLaunch::reserved: the layout candidates compile against is unchanged.
static_assert(sizeof(PlannedLaunch) == 108 && offsetof(PlannedLaunch, flags) == 104,
              "PlannedLaunch's layout is the candidate ABI's (kLaunchPlanAbiVersion 1)");


DeviceLimits DeviceLimits::hopper_h100_like() {
  DeviceLimits l;
  l.max_threads_per_block = 1024;
  l.max_block_dims = {1024, 1024, 64};
  l.max_grid_dims = {2147483647u, 65535, 65535};
  l.max_smem_per_block = 48 * 1024;
  l.max_smem_per_block_optin = 227 * 1024;  // 232448
  l.max_smem_per_sm = 228 * 1024;           // 233472
  l.registers_per_sm = 65536;
  l.registers_per_block = 65536;
  l.sm_count = 132;
  l.supports_clusters = true;
  l.max_portable_cluster_size = 8;
  l.max_non_portable_cluster_size = 16;
  l.compute_capability_major = 9;
  l.compute_capability_minor = 0;
  return l;
}

namespace {

// cuTensorMapEncodeTiled: every boxDim entry is 1..256; a tensor has rank 1..5.
constexpr unsigned kMaxBoxExtent = 256;
constexpr unsigned kMaxTensorRank = 5;
// cuTensorMapEncodeTiled with CU_TENSOR_MAP_INTERLEAVE_NONE: boxDim[0] * element size is a multiple of 16 B.
constexpr unsigned kInnerBoxAlignment = 16;

Error invalid(std::string_view where, const std::string& what) {
  if (where.empty()) return make_error(fmt::format("invalid launch plan: {}", what));
  return make_error(fmt::format("invalid launch plan: {}: {}", where, what));
}

// Candidate bytes go into one-line messages: anything outside printable ASCII becomes \xNN.
std::string printable(std::string_view bytes) {
  std::string out;
  for (const char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && c != '\\' && c != '"') {
      out.push_back(c);
    } else {
      out += fmt::format("\\x{:02x}", u);
    }
  }
  return out;
}

std::string dims_text(PlanDim3 d) { return fmt::format("{}x{}x{}", d.x, d.y, d.z); }

std::uint64_t volume(PlanDim3 d) { return std::uint64_t{d.x} * std::uint64_t{d.y} * std::uint64_t{d.z}; }

bool is_no_cluster(PlanDim3 c) { return (c.x == 0 && c.y == 0 && c.z == 0) || (c.x == 1 && c.y == 1 && c.z == 1); }

bool same_dims(PlanDim3 a, PlanDim3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

struct Axis {
  char name;
  unsigned PlanDim3::*member;
};
constexpr Axis kAxes[] = {{'x', &PlanDim3::x}, {'y', &PlanDim3::y}, {'z', &PlanDim3::z}};

bool is_identifier(std::string_view name) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (name.empty() || !alpha(name.front())) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) { return alpha(c) || digit(c); });
}

// The kernel name, or an error when it is not a NUL-terminated, non-empty identifier other than the plan kernel.
Result<std::string> kernel_name_of(const PlannedLaunch& launch, std::size_t index) {
  const std::string_view raw(launch.kernel, kKernelNameBytes);
  const std::size_t end = raw.find('\0');
  const std::string where = fmt::format("launch {}", index);
  if (end == std::string_view::npos) {
    return invalid(where, fmt::format("kernel name is not NUL-terminated within {} bytes (begins \"{}\")",
                                      kKernelNameBytes, printable(raw.substr(0, 32))));
  }
  const std::string_view name = raw.substr(0, end);
  if (name.empty()) return invalid(where, "kernel name is empty");
  if (!is_identifier(name)) {
    return invalid(where, fmt::format("kernel name \"{}\" is not a C identifier", printable(name)));
  }
  if (name == kPlanKernelName) {
    return invalid(fmt::format("launch {} ({})", index, name),
                   fmt::format("kernel is the plan kernel {}, which a plan may not launch", kPlanKernelName));
  }
  return std::string(name);
}

Result<Ok> check_block(const PlannedLaunch& l, const DeviceLimits& limits, const KernelAttributes& attrs,
                       const std::string& where) {
  for (const Axis& a : kAxes) {
    const unsigned value = l.block.*a.member;
    const unsigned limit = limits.max_block_dims.*a.member;
    if (value == 0) return invalid(where, fmt::format("block.{} is 0, must be at least 1", a.name));
    if (value > limit) {
      return invalid(where, fmt::format("block.{} {} exceeds the device's limit of {}", a.name, value, limit));
    }
  }
  const std::uint64_t threads = volume(l.block);
  if (threads > attrs.max_threads_per_block) {
    return invalid(where, fmt::format("block {} threads exceeds the kernel's limit of {} (block {})", threads,
                                      attrs.max_threads_per_block, dims_text(l.block)));
  }
  if (threads > limits.max_threads_per_block) {
    return invalid(where, fmt::format("block {} threads exceeds the device's limit of {} (block {})", threads,
                                      limits.max_threads_per_block, dims_text(l.block)));
  }
  // A lower bound on what the block allocates (the driver rounds per warp), so it never rejects a runnable block.
  const std::uint64_t registers = threads * attrs.registers_per_thread;
  if (registers > limits.registers_per_block) {
    return invalid(where, fmt::format("block {} threads x {} registers = {} registers exceeds the device's "
                                      "limit of {} per block",
                                      threads, attrs.registers_per_thread, registers, limits.registers_per_block));
  }
  return Ok{};
}

Result<Ok> check_grid(const PlannedLaunch& l, const DeviceLimits& limits, const std::string& where) {
  for (const Axis& a : kAxes) {
    const unsigned value = l.grid.*a.member;
    const unsigned limit = limits.max_grid_dims.*a.member;
    if (value == 0) return invalid(where, fmt::format("grid.{} is 0, must be at least 1", a.name));
    if (value > limit) {
      return invalid(where, fmt::format("grid.{} {} exceeds the device's limit of {}", a.name, value, limit));
    }
  }
  return Ok{};
}

Result<Ok> check_smem(const PlannedLaunch& l, const DeviceLimits& limits, const KernelAttributes& attrs,
                      const std::string& where) {
  const std::uint64_t total = std::uint64_t{attrs.static_smem_bytes} + l.dynamic_smem_bytes;
  if (total > limits.max_smem_per_block_optin) {
    return invalid(where,
                   fmt::format("shared memory {} B static + {} B dynamic = {} B exceeds the device's "
                               "opt-in limit of {} B per block",
                               attrs.static_smem_bytes, l.dynamic_smem_bytes, total, limits.max_smem_per_block_optin));
  }
  if (l.dynamic_smem_bytes > attrs.max_dynamic_smem_bytes) {
    return invalid(where, fmt::format("dynamic shared memory {} B exceeds the kernel's opt-in limit of {} B",
                                      l.dynamic_smem_bytes, attrs.max_dynamic_smem_bytes));
  }
  return Ok{};
}

// The cluster the blocks will run in ({1,1,1} when none), or the rule the requested one breaks.
Result<PlanDim3> check_cluster(const PlannedLaunch& l, const DeviceLimits& limits, const KernelAttributes& attrs,
                               const std::string& where) {
  const bool requested = !is_no_cluster(l.cluster);
  if (requested) {
    for (const Axis& a : kAxes) {
      if (l.cluster.*a.member == 0) {
        return invalid(where, fmt::format("cluster.{} is 0 in cluster {}, must be at least 1 ({{0,0,0}} or "
                                          "{{1,1,1}} means no cluster)",
                                          a.name, dims_text(l.cluster)));
      }
    }
    if (!limits.supports_clusters) {
      return invalid(
          where, fmt::format("cluster {} requested but the device (compute capability {}.{}) does "
                             "not support clusters",
                             dims_text(l.cluster), limits.compute_capability_major, limits.compute_capability_minor));
    }
  }
  const bool compiled = !is_no_cluster(attrs.required_cluster);
  if (requested && compiled && !same_dims(l.cluster, attrs.required_cluster)) {
    return invalid(where, fmt::format("cluster {} differs from the kernel's compiled cluster {}", dims_text(l.cluster),
                                      dims_text(attrs.required_cluster)));
  }
  const PlanDim3 cluster = requested ? l.cluster : compiled ? attrs.required_cluster : PlanDim3{1, 1, 1};
  if (same_dims(cluster, PlanDim3{1, 1, 1})) return cluster;

  for (const Axis& a : kAxes) {
    const unsigned g = l.grid.*a.member;
    const unsigned c = cluster.*a.member;
    if (c == 0 || g % c != 0) {
      return invalid(where, fmt::format("grid.{} {} is not divisible by cluster.{} {} (grid {}, cluster {})", a.name, g,
                                        a.name, c, dims_text(l.grid), dims_text(cluster)));
    }
  }
  const std::uint64_t size = volume(cluster);
  if (size > limits.max_non_portable_cluster_size) {
    return invalid(where, fmt::format("cluster {} has {} blocks, exceeding the device's non-portable limit of {}",
                                      dims_text(cluster), size, limits.max_non_portable_cluster_size));
  }
  if (size > limits.max_portable_cluster_size && !attrs.allows_non_portable_cluster) {
    return invalid(where, fmt::format("cluster {} has {} blocks, exceeding the portable limit of {} (the kernel "
                                      "does not allow non-portable cluster sizes)",
                                      dims_text(cluster), size, limits.max_portable_cluster_size));
  }
  return cluster;
}

unsigned swizzle_span_bytes(unsigned swizzle) {
  switch (swizzle) {
    case kSwizzle32B: return 32;
    case kSwizzle64B: return 64;
    case kSwizzle128B: return 128;
    default: return 0;
  }
}

Result<ValidatedTensorMap> check_tensor_map(const TensorMapRequest& r, std::size_t index, const DeviceLimits& limits,
                                            std::span<const TensorDescription> tensors) {
  const auto found =
      std::find_if(tensors.begin(), tensors.end(), [&](const TensorDescription& t) { return t.id == r.tensor; });
  if (found == tensors.end()) {
    std::string offered;
    for (const auto& t : tensors) offered += fmt::format("{}{} {}", offered.empty() ? "" : ", ", t.id, t.name);
    return invalid(fmt::format("tensor-map {} (tensor {})", index, r.tensor),
                   fmt::format("tensor {} is not one the plugin offers (offered: {})", r.tensor,
                               offered.empty() ? "none" : offered));
  }
  const TensorDescription& t = *found;
  const std::string where = fmt::format("tensor-map {} (tensor {} {})", index, t.id, t.name);
  if (!t.exists) return invalid(where, fmt::format("tensor {} does not exist for this problem", t.name));
  if (t.rank < 1 || t.rank > kMaxTensorRank || t.element_bytes == 0) {
    return invalid(where, fmt::format("the plugin describes the tensor with rank {} and {} B elements; "
                                      "expected rank 1..{} and a non-zero element size",
                                      t.rank, t.element_bytes, kMaxTensorRank));
  }
  if (limits.compute_capability_major < 9) {
    return invalid(where, fmt::format("tensor maps need compute capability 9.0 or newer; the device is {}.{}",
                                      limits.compute_capability_major, limits.compute_capability_minor));
  }
  if (r.reserved != 0) return invalid(where, fmt::format("reserved is {}, must be 0", r.reserved));
  if (r.box_rank != t.rank) {
    return invalid(where, fmt::format("box_rank {} differs from the tensor's rank {}", r.box_rank, t.rank));
  }
  ValidatedTensorMap out;
  out.tensor = t.id;
  out.rank = t.rank;
  for (unsigned d = 0; d < t.rank; ++d) {
    if (r.box[d] < 1 || r.box[d] > kMaxBoxExtent) {
      return invalid(where, fmt::format("box[{}] {} is outside 1..{}", d, r.box[d], kMaxBoxExtent));
    }
    out.box[d] = r.box[d];
  }
  const std::uint64_t inner_bytes = std::uint64_t{r.box[0]} * t.element_bytes;
  if (inner_bytes % kInnerBoxAlignment != 0) {
    return invalid(where, fmt::format("inner box {} B (box[0] {} x {} B) is not a multiple of {} B", inner_bytes,
                                      r.box[0], t.element_bytes, kInnerBoxAlignment));
  }
  if (r.swizzle > kSwizzle128B) {
    return invalid(where, fmt::format("swizzle {} is not one of 0 (none), 1 (32B), 2 (64B), 3 (128B)", r.swizzle));
  }
  const unsigned span = swizzle_span_bytes(r.swizzle);
  if (span != 0 && inner_bytes > span) {
    return invalid(where, fmt::format("inner box {} B (box[0] {} x {} B) exceeds the {}B swizzle span of {} B",
                                      inner_bytes, r.box[0], t.element_bytes, span, span));
  }
  out.swizzle = static_cast<TensorMapSwizzle>(r.swizzle);
  const unsigned l2 = r.l2_promotion_bytes;
  if (l2 != 0 && l2 != 64 && l2 != 128 && l2 != 256) {
    return invalid(where, fmt::format("l2_promotion_bytes {} is not one of 0, 64, 128, 256", l2));
  }
  out.l2_promotion_bytes = l2;
  return out;
}

}  // namespace

Result<ValidatedPlan> validate_plan(
    const LaunchPlan& plan, const DeviceLimits& limits,
    const std::function<Result<KernelAttributes>(std::string_view kernel)>& attributes_of,
    std::span<const TensorDescription> tensors, std::uint64_t max_workspace_bytes) {
  if (plan.abi_version != kLaunchPlanAbiVersion) {
    return invalid("", fmt::format("abi_version is {}, expected {}", plan.abi_version, kLaunchPlanAbiVersion));
  }
  if (plan.num_launches < 1 || plan.num_launches > static_cast<unsigned>(kMaxPlanLaunches)) {
    return invalid("", fmt::format("num_launches is {}, outside 1..{}", plan.num_launches, kMaxPlanLaunches));
  }
  if (plan.num_tensor_maps > static_cast<unsigned>(kMaxTensorMaps)) {
    return invalid("", fmt::format("num_tensor_maps is {}, outside 0..{}", plan.num_tensor_maps, kMaxTensorMaps));
  }
  if (plan.workspace_bytes > max_workspace_bytes) {
    return invalid(
        "", fmt::format("workspace_bytes {} exceeds the limit of {}", plan.workspace_bytes, max_workspace_bytes));
  }
  if (plan.reserved != 0) return invalid("", fmt::format("reserved is {}, must be 0", plan.reserved));

  ValidatedPlan out;
  out.workspace_bytes = plan.workspace_bytes;
  std::map<std::string, KernelAttributes, std::less<>> attributes;

  for (std::size_t i = 0; i < plan.num_launches; ++i) {
    const PlannedLaunch& l = plan.launches[i];
    auto name = kernel_name_of(l, i);
    if (!name) return name.error();
    const std::string where = fmt::format("launch {} ({})", i, *name);
    if ((l.flags & ~static_cast<unsigned>(kLaunchWithPrevious)) != 0) {
      return invalid(where, fmt::format("flags is {:#x}, only kLaunchWithPrevious ({:#x}) is defined", l.flags,
                                        static_cast<unsigned>(kLaunchWithPrevious)));
    }
    if (i == 0 && (l.flags & kLaunchWithPrevious) != 0) {
      return invalid(where, "flags has kLaunchWithPrevious, but the first launch has no launch before it");
    }

    auto cached = attributes.find(*name);
    if (cached == attributes.end()) {
      auto read = attributes_of(*name);
      if (!read) {
        return invalid(where, fmt::format("reading the kernel's attributes failed: {}", read.error().message));
      }
      cached = attributes.emplace(*name, *read).first;
    }
    const KernelAttributes& attrs = cached->second;
    if (!attrs.exists) {
      return invalid(where, fmt::format("unknown kernel: the candidate's module has no extern \"C\" __global__ "
                                        "named {}",
                                        *name));
    }

    if (auto r = check_block(l, limits, attrs, where); !r) return r.error();
    if (auto r = check_grid(l, limits, where); !r) return r.error();
    if (auto r = check_smem(l, limits, attrs, where); !r) return r.error();
    auto cluster = check_cluster(l, limits, attrs, where);
    if (!cluster) return cluster.error();

    ValidatedLaunch v;
    v.kernel = *name;
    v.grid = l.grid;
    v.block = l.block;
    v.cluster = *cluster;
    v.set_cluster_dims = !is_no_cluster(l.cluster);
    v.dynamic_smem_bytes = l.dynamic_smem_bytes;
    v.with_previous = (l.flags & kLaunchWithPrevious) != 0;
    out.launches.push_back(std::move(v));

    if (l.dynamic_smem_bytes > attrs.dynamic_smem_limit_now) {
      auto raise = std::find_if(out.smem_limit_raises.begin(), out.smem_limit_raises.end(),
                                [&](const SmemLimitRaise& s) { return s.kernel == *name; });
      if (raise == out.smem_limit_raises.end()) {
        out.smem_limit_raises.push_back({*name, l.dynamic_smem_bytes});
      } else {
        raise->dynamic_smem_bytes = std::max(raise->dynamic_smem_bytes, l.dynamic_smem_bytes);
      }
    }
  }

  for (std::size_t j = 0; j < plan.num_tensor_maps; ++j) {
    auto map = check_tensor_map(plan.tensor_maps[j], j, limits, tensors);
    if (!map) return map.error();
    out.tensor_maps.push_back(*map);
  }
  out.total_launches = out.launches.size();
  return out;
}

std::vector<LaunchLane> plan_lanes(const std::vector<ValidatedLaunch>& launches) {
  std::vector<LaunchLane> lanes(launches.size());
  for (std::size_t first = 0; first < launches.size();) {
    std::size_t end = first + 1;  // one past the group that starts at `first`
    while (end < launches.size() && launches[end].with_previous) ++end;
    const std::size_t others = end - first - 1;
    for (std::size_t i = first + 1; i < end; ++i) lanes[i].lane = i - first;
    // The fork comes before the group's first launch: a lane that waited for lane 0 after it would wait for it.
    lanes[first].fork_before = others;
    lanes[end - 1].join_after = others;
    first = end;
  }
  return lanes;
}

}  // namespace kseek
