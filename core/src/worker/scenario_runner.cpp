// The evaluation protocol of one scenario, inside the GPU worker: plans, correctness against the plugin's
// references (poisoned and guarded outputs, a second run compared bitwise), then interleaved timing against the
// seed with cold L2, fresh inputs for every launch and every timed output re-checked.
// It must never let the candidate run while the reference or the seed's output for its inputs is resident.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>
#include <random>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kseek/core/plugin/plugin_registry.hpp"
#include "kseek/core/util/elapsed.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/sha256.hpp"
#include "kseek/core/worker/acceptance_rule.hpp"
#include "kseek/core/worker/gpu_session.hpp"
#include "kseek/core/worker/plan_validation.hpp"
#include "kseek/core/worker/reference_cache.hpp"
#include "kseek/core/worker/reference_writer.hpp"
#include "kseek/core/worker/scenario_job.hpp"
#include "kseek/core/worker/stage_clock.hpp"
#include "kseek/device/launch_plan.h"
#include "scenario_runner.hpp"

namespace kseek {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr std::uint64_t kGuardBytes = 64 * 1024;
constexpr std::uint8_t kGuardByte = 0xA5;
constexpr std::uint8_t kPoisonByte = 0xFF;  // all ones: NaN in f32, f16 and bf16, so an unwritten element fails
// Timed full checks (kTimedReferenceCheckProbability, kMinTimedReferenceChecks in scenario_job.hpp) are drawn from a
// generator the candidate cannot observe. A candidate that approximates on a fraction q of its timed launches escapes
// n checks with probability (1 - q)^n, and it must approximate on more than half of them to move the median it is
// judged by.

// A verdict reached before the protocol could finish.
struct Verdict {
  Status status = Status::kPassed;
  std::string message;
};

std::uint64_t align_up(std::uint64_t value, std::uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

class ScenarioRunner {
 public:
  ScenarioRunner(const ScenarioJob& job, gpu::GpuSession& session, const Plugin& plugin,
                 const std::string& plugin_library_sha256)
      : job_(job),
        session_(session),
        api_(session.api()),
        plugin_(plugin),
        // A plugin library the worker could not hash cannot be part of a key: no cache then.
        reference_cache_(job.reference_cache_folder, plugin_library_sha256.empty() ? 0 : job.reference_cache_bytes) {
    reference_key_.plugin_library_sha256 = plugin_library_sha256;
  }

  json run() {
    const auto started = Clock::now();
    result_ = {{"scenario", job_.scenario.id}, {"name", job_.scenario.name}, {"input_seed", job_.input_seed}};
    std::optional<Verdict> verdict;
    {
      StageClock::Scope stage(stages_, WorkerStage::kSetup);
      verdict = setup();
    }
    result_["seconds"]["setup"] = seconds_since(started);
    if (!verdict) {
      const auto t = Clock::now();
      verdict = check_correctness();
      result_["seconds"]["correctness"] = seconds_since(t);
    }
    if (!verdict && job_.measure_time) {
      const auto t = Clock::now();
      verdict = measure_timing();
      result_["seconds"]["timing"] = seconds_since(t);
    }
    if (!verdict) verdict = Verdict{Status::kPassed, ""};
    wait_for_reference_write();  // its outcome and seconds belong to this scenario's record
    result_["status"] = to_string(verdict->status);
    result_["message"] = verdict->message;
    result_["seconds"]["total"] = seconds_since(started);
    result_["stage_seconds"] = stages_.to_json();
    result_["stage_seconds"]["timed_kernels"] = timed_kernel_seconds_;
    result_["references"] = {
        {"computed", references_computed_}, {"from_cache", references_from_cache_}, {"stored", references_stored_}};
    if (references_from_cache_ > 0) result_["references"]["cache_load_seconds"] = cache_load_seconds_.load_json();
    if (references_stored_ > 0) result_["references"]["cache_store_seconds"] = cache_store_seconds_.store_json();
    if (!reference_cache_notes_.empty()) {
      result_["references"]["note"] = fmt::format("{}", fmt::join(reference_cache_notes_, "; "));
    }
    return result_;
  }

  bool context_lost() const { return context_lost_; }

 private:
  struct Side {
    std::string role;  // "candidate" or "seed"
    CUmodule module = nullptr;
    ValidatedPlan plan;
    std::vector<LaunchLane> lanes;  // plan_lanes(plan.launches), made once: nothing of it is computed while timed
    std::vector<CUfunction> functions;
    DeviceBuffer workspace;
  };
  struct OutputBuffer {
    std::size_t tensor = 0;   // index into layout_.tensors
    DeviceBuffer allocation;  // guard | data | guard
    std::uint64_t data_bytes = 0;
    DeviceBuffer data() const { return {allocation.address + kGuardBytes, data_bytes}; }
  };

  // ---- setup -------------------------------------------------------------------------------------------
  std::optional<Verdict> setup() {
    auto layout = plugin_.workload_layout(job_.scenario);
    if (!layout) return Verdict{Status::kNotRunnable, layout.error().message};
    layout_ = std::move(*layout);
    input_sets_ = std::max<std::uint32_t>(layout_.input_sets, 2);

    for (auto& [side, path, role] :
         {std::tuple{&candidate_, job_.candidate_cubin, "candidate"}, std::tuple{&seed_, job_.seed_cubin, "seed"}}) {
      side->role = role;
      auto cubin = read_file(path);
      if (!cubin) return Verdict{Status::kLaunchError, cubin.error().message};
      auto module = session_.load_module(role, *cubin);
      if (!module) return Verdict{Status::kLaunchError, module.error().message};
      side->module = *module;
    }
    for (auto& [path, role] : {std::pair{job_.harness_cubin, "harness library"},
                               std::pair{job_.plugin_library_cubin, "plugin device library"}}) {
      if (path.empty()) continue;  // a plugin without device code
      auto cubin = read_file(path);
      if (!cubin) return Verdict{Status::kLaunchError, cubin.error().message};
      auto module = session_.load_module(role, *cubin);
      if (!module) return Verdict{Status::kLaunchError, module.error().message};
      (std::string(role) == "harness library" ? session_.set_harness_module(*module)
                                              : session_.set_plugin_module(*module));
      if (std::string(role) != "harness library" && reference_cache_.enabled()) {
        reference_key_.device_library_sha256 = sha256_hex(*cubin);
      }
    }

    // Plans first: a seed that cannot run makes the scenario not runnable; a candidate that cannot is its error.
    if (auto v = make_plan(seed_); v)
      return Verdict{Status::kNotRunnable, "the seed cannot run this scenario: " + v->message};
    if (auto v = make_plan(candidate_); v) return v;

    // Inputs: `input_sets_` separate allocations (fresh addresses), outputs: one guarded allocation each.
    for (std::uint32_t set = 0; set < input_sets_; ++set) {
      std::vector<DeviceBuffer> buffers;
      for (const auto& tensor : layout_.tensors) {
        if (tensor.role != TensorRole::kInput) {
          buffers.push_back({});
          continue;
        }
        auto buffer = session_.allocate(fmt::format("input {} (set {})", tensor.name, set),
                                        tensor.elements * element_bytes(tensor.type));
        if (!buffer) return Verdict{Status::kNotRunnable, buffer.error().message};
        buffers.push_back(*buffer);
      }
      inputs_.push_back(std::move(buffers));
    }
    for (std::size_t i = 0; i < layout_.tensors.size(); ++i) {
      const auto& tensor = layout_.tensors[i];
      if (tensor.role != TensorRole::kOutput) continue;
      const std::uint64_t bytes = tensor.elements * element_bytes(tensor.type);
      auto allocation = session_.allocate(fmt::format("output {}", tensor.name), bytes + 2 * kGuardBytes);
      if (!allocation) return Verdict{Status::kNotRunnable, allocation.error().message};
      if (auto filled = session_.fill(*allocation, kGuardByte); !filled) return infrastructure(filled.error());
      outputs_.push_back({i, *allocation, bytes});
    }
    seed_distance_bounds_.assign(outputs_.size(), SeedDistanceBound{});
    for (Side* side : {&candidate_, &seed_}) {
      auto workspace = session_.allocate(side->role + " workspace", side->plan.workspace_bytes);
      if (!workspace) return Verdict{Status::kNotRunnable, workspace.error().message};
      side->workspace = *workspace;
    }
    if (reference_cache_.enabled()) describe_references();
    return std::nullopt;
  }

  // The parts of every reference key that do not depend on the inputs (reference_cache.hpp says why each is there).
  void describe_references() {
    ReferenceKey& key = reference_key_;
    key.plugin_id = job_.plugin_id;
    if (key.device_library_sha256.empty()) key.device_library_sha256 = "none";  // a plugin without device code
    key.device = describe_device(session_.properties());
    key.scenario_name = job_.scenario.name;
    key.layout = describe_layout(layout_);
    for (const auto& out : outputs_) {
      const auto& tensor = layout_.tensors[out.tensor];
      if (!tensor.compared) continue;
      key.buffer_bytes.push_back(tensor.elements * sizeof(float));
      key.buffer_bytes.push_back(out.data_bytes);
    }
  }

  std::vector<std::byte> problem_bytes(std::uint32_t set, bool null_pointers) const {
    std::vector<std::byte> bytes = layout_.problem;
    if (null_pointers) return bytes;
    for (std::size_t i = 0; i < layout_.tensors.size(); ++i) {
      if (layout_.tensors[i].problem_offset == kNoProblemPointer) continue;
      std::uint64_t address = 0;
      if (layout_.tensors[i].role == TensorRole::kInput) {
        address = inputs_[set][i].address;
      } else {
        for (const auto& out : outputs_) {
          if (out.tensor == i) address = out.data().address;
        }
      }
      std::memcpy(bytes.data() + layout_.tensors[i].problem_offset, &address, sizeof(address));
    }
    return bytes;
  }

  std::optional<Verdict> make_plan(Side& side) {
    auto plan_fn = session_.function(side.module, side.role, kPlanKernelName);
    if (!plan_fn) return Verdict{Status::kLaunchError, plan_fn.error().message};
    auto plan_buffer = session_.scratch("launch plan", sizeof(LaunchPlan));
    if (!plan_buffer) return infrastructure(plan_buffer.error());
    if (auto f = session_.fill(*plan_buffer, 0); !f) return infrastructure(f.error());
    std::vector<std::byte> problem = problem_bytes(0, /*null_pointers=*/true);
    CUdeviceptr plan_address = plan_buffer->address;
    void* params[] = {problem.data(), &plan_address};
    CUresult rc = api_.cuLaunchKernel_fn(*plan_fn, 1, 1, 1, 1, 1, 1, 0, session_.stream(), params, nullptr);
    if (rc == CUDA_SUCCESS) rc = api_.cuStreamSynchronize_fn(session_.stream());
    if (rc != CUDA_SUCCESS) return launch_failure(rc, side.role + " plan kernel");
    LaunchPlan plan{};
    if (auto d = session_.download(*plan_buffer, std::as_writable_bytes(std::span(&plan, 1)), 0); !d) {
      return infrastructure(d.error());
    }
    session_.release_scratch();
    const DeviceLimits limits = session_.limits();
    auto attributes_of = [&](std::string_view kernel) -> Result<KernelAttributes> {
      auto fn = session_.function(side.module, side.role, kernel);
      if (!fn) return fn.error();
      return session_.attributes(*fn);
    };
    std::vector<TensorDescription> tensors;
    for (std::size_t i = 0; i < layout_.tensors.size(); ++i) {
      const auto& t = layout_.tensors[i];
      TensorDescription d;
      d.id = static_cast<unsigned>(i);
      d.name = t.name;
      d.rank = t.view.rank;
      d.dims = t.view.dims;
      d.element_bytes = static_cast<unsigned>(element_bytes(t.type));
      d.exists = t.view.rank > 0;
      tensors.push_back(d);
    }
    auto validated = validate_plan(plan, limits, attributes_of, tensors, job_.max_workspace_bytes);
    if (!validated) return Verdict{Status::kLaunchError, fmt::format("{}: {}", side.role, validated.error().message)};
    side.plan = std::move(*validated);
    side.lanes = plan_lanes(side.plan.launches);
    // The streams a group of launches needs are made here, before anything is timed.
    std::size_t lanes_needed = 0;
    for (const LaunchLane& lane : side.lanes) lanes_needed = std::max(lanes_needed, lane.fork_before);
    if (auto made = session_.make_lanes(lanes_needed); !made) return infrastructure(made.error());
    json launches = json::array();
    for (const auto& launch : side.plan.launches) {
      auto fn = session_.function(side.module, side.role, launch.kernel);
      if (!fn) return Verdict{Status::kLaunchError, fn.error().message};
      side.functions.push_back(*fn);
      json recorded = {{"kernel", launch.kernel},
                       {"grid", {launch.grid.x, launch.grid.y, launch.grid.z}},
                       {"block", {launch.block.x, launch.block.y, launch.block.z}},
                       {"cluster", {launch.cluster.x, launch.cluster.y, launch.cluster.z}},
                       {"dynamic_smem_bytes", launch.dynamic_smem_bytes}};
      if (launch.with_previous) recorded["with_previous"] = true;
      launches.push_back(std::move(recorded));
    }
    for (const auto& raise : side.plan.smem_limit_raises) {
      auto fn = session_.function(side.module, side.role, raise.kernel);
      if (!fn) return Verdict{Status::kLaunchError, fn.error().message};
      const CUresult set = api_.cuFuncSetAttribute_fn(*fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                      static_cast<int>(raise.dynamic_smem_bytes));
      if (set != CUDA_SUCCESS) {
        return Verdict{Status::kLaunchError,
                       gpu::describe_cuda_error(api_, set,
                                                fmt::format("{}: raising the dynamic shared "
                                                            "memory of {} to {} bytes",
                                                            side.role, raise.kernel, raise.dynamic_smem_bytes))};
      }
    }
    result_["plan"][side.role] = {{"launches", launches}, {"workspace_bytes", side.plan.workspace_bytes}};
    return std::nullopt;
  }

  // ---- launching ---------------------------------------------------------------------------------------
  Verdict launch_failure(CUresult rc, const std::string& what) {
    if (gpu::is_sticky_cuda_error(rc)) {
      context_lost_ = true;
      return {Status::kCrashed, gpu::describe_cuda_error(api_, rc, what)};
    }
    return {Status::kLaunchError, gpu::describe_cuda_error(api_, rc, what)};
  }

  Verdict infrastructure(const Error& error) {
    // A failure of the harness's own calls after a candidate ran is almost always the candidate's sticky fault.
    const CUresult rc = api_.cuCtxSynchronize_fn();
    if (gpu::is_sticky_cuda_error(rc)) return launch_failure(rc, "after the candidate ran");
    return {Status::kNotRunnable, "harness error: " + error.message};
  }

  // Poisons outputs and zeroes the workspace (outside any timing), then queues the side's launches.
  std::optional<Verdict> prepare(Side& side) {
    for (const auto& out : outputs_) {
      const CUresult rc = api_.cuMemsetD8Async_fn(out.data().address, kPoisonByte, out.data_bytes, session_.stream());
      if (rc != CUDA_SUCCESS) return launch_failure(rc, "poisoning outputs");
    }
    if (side.plan.workspace_bytes > 0) {
      const CUresult rc =
          api_.cuMemsetD8Async_fn(side.workspace.address, 0, side.plan.workspace_bytes, session_.stream());
      if (rc != CUDA_SUCCESS) return launch_failure(rc, "zeroing the workspace");
    }
    return std::nullopt;
  }

  static CUtensorMapDataType map_type(ElementType type) {
    switch (type) {
      case ElementType::kF32: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
      case ElementType::kF16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
      case ElementType::kBF16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
      case ElementType::kI32: return CU_TENSOR_MAP_DATA_TYPE_INT32;
      case ElementType::kI64: return CU_TENSOR_MAP_DATA_TYPE_INT64;
      default: return CU_TENSOR_MAP_DATA_TYPE_UINT8;  // fp8 and bytes: TMA moves them as 8-bit words
    }
  }

  std::uint64_t tensor_address(std::size_t tensor, std::uint32_t set) const {
    if (layout_.tensors[tensor].role == TensorRole::kInput) return inputs_[set][tensor].address;
    for (const auto& out : outputs_) {
      if (out.tensor == tensor) return out.data().address;
    }
    return 0;
  }

  // The one parameter block of every planned kernel: Problem (pointers of this input set), workspace, tensor maps.
  // Built before any event is recorded, so host work never lands inside a timed window.
  Result<std::vector<std::byte>> kernel_args(const Side& side, std::uint32_t set) const {
    const std::vector<std::byte> problem = problem_bytes(set, false);
    const std::uint64_t workspace_offset = align_up(problem.size(), 8);
    const std::uint64_t maps_offset = align_up(workspace_offset + 8, 64);
    std::vector<std::byte> args(align_up(maps_offset + kMaxTensorMaps * sizeof(TensorMapStorage), 64));
    std::memcpy(args.data(), problem.data(), problem.size());
    const std::uint64_t workspace = side.plan.workspace_bytes > 0 ? side.workspace.address : 0;
    std::memcpy(args.data() + workspace_offset, &workspace, sizeof(workspace));
    for (std::size_t i = 0; i < side.plan.tensor_maps.size(); ++i) {
      const auto& request = side.plan.tensor_maps[i];
      const auto& tensor = layout_.tensors[request.tensor];
      const auto& view = tensor.view;
      std::array<cuuint64_t, 5> dims{};
      std::array<cuuint64_t, 4> strides{};
      std::array<cuuint32_t, 5> box{};
      std::array<cuuint32_t, 5> element_strides{1, 1, 1, 1, 1};
      for (unsigned d = 0; d < view.rank; ++d) {
        dims[d] = view.dims[d];
        box[d] = request.box[d];
        if (d + 1 < view.rank) strides[d] = view.strides_bytes[d];
      }
      static constexpr CUtensorMapSwizzle kSwizzles[] = {CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_32B,
                                                         CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_SWIZZLE_128B};
      const CUtensorMapL2promotion promotion = request.l2_promotion_bytes == 256   ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                                               : request.l2_promotion_bytes == 128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                                               : request.l2_promotion_bytes == 64  ? CU_TENSOR_MAP_L2_PROMOTION_L2_64B
                                                                                   : CU_TENSOR_MAP_L2_PROMOTION_NONE;
      auto* map = reinterpret_cast<CUtensorMap*>(args.data() + maps_offset + i * sizeof(TensorMapStorage));
      const CUresult rc = api_.cuTensorMapEncodeTiled_fn(
          map, map_type(tensor.type), view.rank, reinterpret_cast<void*>(tensor_address(request.tensor, set)),
          dims.data(), strides.data(), box.data(), element_strides.data(), CU_TENSOR_MAP_INTERLEAVE_NONE,
          kSwizzles[request.swizzle & 3], promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
      if (rc != CUDA_SUCCESS) {
        return make_error(gpu::describe_cuda_error(
            api_, rc, fmt::format("{}: encoding tensor map {} over '{}'", side.role, i, tensor.name)));
      }
    }
    return args;
  }

  // The plan's launches in order on the session's stream, except that a group joined by kLaunchWithPrevious runs
  // side by side on lanes forked from it before the group and joined back into it after (plan_lanes): whatever
  // follows on the stream, the end of a timed window included, comes after every launch of the plan.
  // A failure inside a group still joins the lanes forked for it (best effort), so that the session's stream again
  // comes after everything enqueued, and a fork or join the driver refuses is a harness failure, or the candidate's
  // sticky fault (infrastructure() tells them apart), never the candidate's launch error.
  std::optional<Verdict> enqueue(Side& side, std::vector<std::byte>& args) {
    std::size_t open_lanes = 0;  // lanes forked for the group being enqueued
    const auto close_group = [&] {
      if (open_lanes > 0) (void)session_.join_lanes(open_lanes);
    };
    for (std::size_t i = 0; i < side.plan.launches.size(); ++i) {
      const auto& l = side.plan.launches[i];
      const LaunchLane& lane = side.lanes[i];
      if (lane.fork_before > 0) {
        if (auto forked = session_.fork_lanes(lane.fork_before); !forked) return infrastructure(forked.error());
        open_lanes = lane.fork_before;
      }
      const std::array<unsigned, 3> cluster = l.set_cluster_dims
                                                  ? std::array<unsigned, 3>{l.cluster.x, l.cluster.y, l.cluster.z}
                                                  : std::array<unsigned, 3>{1, 1, 1};
      auto launched = session_.launch_function(side.functions[i], {l.grid.x, l.grid.y, l.grid.z},
                                               {l.block.x, l.block.y, l.block.z}, cluster, l.dynamic_smem_bytes,
                                               args.data(), fmt::format("{} launch {} ({})", side.role, i, l.kernel),
                                               lane.lane);
      if (!launched) {
        close_group();
        return Verdict{Status::kLaunchError, launched.error().message};
      }
      if (lane.join_after > 0) {
        if (auto joined = session_.join_lanes(lane.join_after); !joined) return infrastructure(joined.error());
        open_lanes = 0;
      }
    }
    return std::nullopt;
  }

  std::optional<Verdict> finish(Side& side) {
    const CUresult rc = api_.cuStreamSynchronize_fn(session_.stream());
    if (rc != CUDA_SUCCESS) return launch_failure(rc, side.role + " kernels");
    return std::nullopt;
  }

  std::optional<Verdict> run_once(Side& side, std::uint32_t set) {
    StageClock::Scope stage(stages_, &side == &seed_ ? WorkerStage::kSeed : WorkerStage::kCandidate);
    auto args = kernel_args(side, set);
    if (!args) return Verdict{Status::kLaunchError, args.error().message};
    if (auto v = prepare(side)) return v;
    if (auto v = enqueue(side, *args)) return v;
    return finish(side);
  }

  std::optional<Verdict> check_guards(const std::string& role) {
    StageClock::Scope stage(stages_, WorkerStage::kChecks);
    for (const auto& out : outputs_) {
      for (std::uint64_t offset : {std::uint64_t{0}, kGuardBytes + out.data_bytes}) {
        auto bad = session_.count_mismatches(out.allocation, offset, kGuardBytes, kGuardByte);
        if (!bad) return infrastructure(bad.error());
        if (*bad > 0) {
          return Verdict{Status::kFailed,
                         fmt::format("{} wrote {} bytes outside output '{}' ({} its guard region)", role, *bad,
                                     layout_.tensors[out.tensor].name, offset == 0 ? "before" : "after")};
        }
      }
    }
    return std::nullopt;
  }

  Result<std::uint64_t> outputs_fingerprint() {
    StageClock::Scope stage(stages_, WorkerStage::kChecks);
    std::uint64_t combined = 0;
    for (const auto& out : outputs_) {
      auto f = session_.fingerprint(out.allocation, kGuardBytes, out.data_bytes);
      if (!f) return f.error();
      combined = combined * 0x100000001b3ull ^ *f;
    }
    return combined;
  }

  std::optional<Verdict> fill_inputs(std::uint32_t set, std::uint64_t seed) {
    StageClock::Scope stage(stages_, WorkerStage::kInputs);
    std::vector<DeviceBuffer> tensors = inputs_[set];
    auto filled = plugin_.fill_inputs(session_, layout_, tensors, seed);
    session_.release_scratch();
    if (!filled) return Verdict{Status::kNotRunnable, "plugin could not fill inputs: " + filled.error().message};
    const CUresult rc = api_.cuStreamSynchronize_fn(session_.stream());
    if (rc != CUDA_SUCCESS) return Verdict{Status::kNotRunnable, gpu::describe_cuda_error(api_, rc, "filling inputs")};
    auto fingerprint = inputs_fingerprint(set);
    if (!fingerprint) return infrastructure(fingerprint.error());
    input_fingerprints_[set] = *fingerprint;
    return std::nullopt;
  }

  Result<std::uint64_t> inputs_fingerprint(std::uint32_t set) {
    std::uint64_t combined = 0;
    for (std::size_t i = 0; i < layout_.tensors.size(); ++i) {
      if (layout_.tensors[i].role != TensorRole::kInput || inputs_[set][i].bytes == 0) continue;
      auto f = session_.fingerprint(inputs_[set][i], 0, inputs_[set][i].bytes);
      if (!f) return f.error();
      combined = combined * 0x100000001b3ull ^ *f;
    }
    return combined;
  }

  // Inputs are read-only to candidates: a candidate that rewrote them could make the reference (computed after
  // it ran, on the same buffers) or the seed's re-check agree with whatever it wrote.
  std::optional<Verdict> check_inputs_untouched(std::uint32_t set, const std::string& when) {
    StageClock::Scope stage(stages_, WorkerStage::kChecks);
    auto now = inputs_fingerprint(set);
    if (!now) return infrastructure(now.error());
    if (*now != input_fingerprints_[set]) {
      return Verdict{Status::kFailed, fmt::format("the candidate modified its input tensors ({}, set {}); inputs are "
                                                  "read-only",
                                                  when, set)};
    }
    return std::nullopt;
  }

  // Copies every output's data into fresh scratch buffers (so the next run can overwrite the outputs).
  Result<std::vector<DeviceBuffer>> keep_outputs(const std::string& label) {
    StageClock::Scope stage(stages_, WorkerStage::kChecks);
    std::vector<DeviceBuffer> kept;
    for (const auto& out : outputs_) {
      auto copy = session_.scratch(label, out.data_bytes);
      if (!copy) return copy.error();
      const CUresult rc =
          api_.cuMemcpyDtoDAsync_fn(copy->address, out.data().address, out.data_bytes, session_.stream());
      if (rc != CUDA_SUCCESS) return make_error(gpu::describe_cuda_error(api_, rc, "copying outputs"));
      kept.push_back(*copy);
    }
    return kept;
  }

  // ---- correctness -------------------------------------------------------------------------------------
  std::optional<Verdict> check_correctness() {
    for (std::uint32_t set = 0; set < input_sets_; ++set) {
      const std::uint64_t seed = job_.input_seed + set;
      if (auto v = fill_inputs(set, seed)) return v;

      // 1. The candidate, twice: the second run must reproduce the first bit for bit (races, W10).
      if (auto v = run_once(candidate_, set)) return v;
      if (auto v = check_guards("the candidate")) return v;
      auto first = outputs_fingerprint();
      if (!first) return infrastructure(first.error());
      auto candidate_outputs = keep_outputs("candidate outputs");
      if (!candidate_outputs) return infrastructure(candidate_outputs.error());
      if (auto v = run_once(candidate_, set)) return v;
      auto second = outputs_fingerprint();
      if (!second) return infrastructure(second.error());
      if (auto v = check_inputs_untouched(set, "correctness runs")) return v;
      if (*first != *second) {
        return Verdict{Status::kFailed,
                       fmt::format("two runs on the same inputs (set {}, seed {}) gave different outputs: a "
                                   "race or uninitialised memory",
                                   set, seed)};
      }
      if (auto v = judge_on_reference(set, seed, *candidate_outputs, Phase::kCorrectness)) return v;
    }
    return std::nullopt;
  }

  enum class Phase { kCorrectness, kTimed };

  // The correctness rule on one input set, for candidate outputs already produced and kept: the references are
  // computed only now (they were not resident while the candidate ran, H1), then the seed runs on the same inputs for
  // its own sanity and the candidate's distance to it. The correctness phase also calibrates, per output tensor, the
  // seed-distance bound that timed launches without a full check are held to; a timed launch drawn for a full check
  // gets exactly this rule on its own fresh inputs.
  std::optional<Verdict> judge_on_reference(std::uint32_t set, std::uint64_t seed,
                                            const std::vector<DeviceBuffer>& candidate_outputs, Phase phase) {
    StageClock::Scope stage(stages_, WorkerStage::kChecks);
    const char* when = phase == Phase::kCorrectness ? "" : "a timed launch: ";
    std::vector<DeviceBuffer> gold;
    std::vector<DeviceBuffer> same_precision;
    for (const auto& out : outputs_) {
      const auto& tensor = layout_.tensors[out.tensor];
      auto g = session_.scratch("gold reference", tensor.elements * sizeof(float));
      auto sp = session_.scratch("same-precision reference", out.data_bytes);
      if (!g || !sp) return infrastructure(g ? sp.error() : g.error());
      gold.push_back(*g);
      same_precision.push_back(*sp);
    }
    if (auto v = references(set, seed, gold, same_precision)) return v;
    if (auto v = run_once(seed_, set)) return Verdict{Status::kNotRunnable, "the seed failed: " + v->message};
    if (auto v = check_guards("the seed")) return Verdict{Status::kNotRunnable, v->message};

    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      const auto& out = outputs_[k];
      const auto& tensor = layout_.tensors[out.tensor];
      if (!tensor.compared) continue;
      auto cand = session_.compare(candidate_outputs[k], tensor.type, gold[k], ElementType::kF32, tensor.elements);
      auto ref = session_.compare(same_precision[k], tensor.type, gold[k], ElementType::kF32, tensor.elements);
      auto seed_err = session_.compare(out.data(), tensor.type, gold[k], ElementType::kF32, tensor.elements);
      auto distance = session_.compare(candidate_outputs[k], tensor.type, out.data(), tensor.type, tensor.elements);
      if (!cand || !ref || !seed_err || !distance) return infrastructure(make_error("comparing outputs"));
      const ReferenceJudgement judged = judge_against_reference(layout_.tolerance, *cand, *ref, tensor.name);
      const SeedDistanceBound bound = seed_distance_bound(judged, *seed_err, tensor.type);
      json row = {{"set", set},
                  {"output", tensor.name},
                  {"max_error", cand->max_error},
                  {"mean_error", cand->mean_error},
                  {"nonfinite", cand->nonfinite},
                  {"reference_max_error", ref->max_error},
                  {"reference_mean_error", ref->mean_error},
                  {"allowed_max_error", judged.allowed_max},
                  {"allowed_mean_error", judged.allowed_mean},
                  {"seed_max_error", seed_err->max_error},
                  {"seed_mean_error", seed_err->mean_error},
                  {"seed_nonfinite", seed_err->nonfinite},
                  {"distance_to_seed_max", distance->max_error},
                  {"distance_to_seed_mean", distance->mean_error},
                  {"seed_distance_bound_max", bound.max},
                  {"seed_distance_bound_mean", bound.mean}};
      if (phase == Phase::kCorrectness) {
        correctness_outputs_.push_back(std::move(row));
        result_["correctness"] = {
            {"outputs", correctness_outputs_}, {"deterministic", true}, {"input_sets", input_sets_}};
        seed_distance_bounds_[k].widen_to(bound);
      } else {
        row["input_seed"] = seed;
        timed_reference_checks_.push_back(std::move(row));
      }
      if (seed_err->nonfinite > 0) {
        return Verdict{Status::kNotRunnable, fmt::format("{}the seed left {} non-finite elements in '{}'", when,
                                                         seed_err->nonfinite, tensor.name)};
      }
      if (!judged.accepted)
        return Verdict{Status::kFailed, fmt::format("{}{} (set {}, seed {})", when, judged.failure, set, seed)};
    }
    session_.release_scratch();
    return std::nullopt;
  }

  // ---- references: computed, or read from the reference cache -------------------------------------------------
  // gold and same_precision for input set `set`, filled from `seed`: read back from the reference cache when it holds
  // them, else computed by the plugin, and stored where computing them took longer than reading them back would.
  // Either way only now, after the candidate's runs on these inputs (H1).
  std::optional<Verdict> references(std::uint32_t set, std::uint64_t seed, const std::vector<DeviceBuffer>& gold,
                                    const std::vector<DeviceBuffer>& same_precision) {
    std::optional<ReferenceKey> key;
    if (reference_cache_.enabled()) {
      key = reference_key_;
      key->input_seed = seed;
      key->inputs_fingerprint = input_fingerprints_.at(set);  // taken after the fill, checked unchanged since
      auto loaded = load_references(*key, cached_buffers(gold, same_precision));
      if (!loaded) return infrastructure(loaded.error());
      if (*loaded) {
        ++references_from_cache_;
        return std::nullopt;
      }
    }
    const auto started = Clock::now();
    {
      StageClock::Scope computing(stages_, WorkerStage::kReferences);
      if (auto r = plugin_.compute_reference(session_, layout_, inputs_[set], gold, same_precision); !r) {
        return Verdict{Status::kNotRunnable, "plugin reference failed: " + r.error().message};
      }
      // The references' kernels are charged here, not to whichever stage waits for them next.
      if (const CUresult rc = api_.cuStreamSynchronize_fn(session_.stream()); rc != CUDA_SUCCESS) {
        return Verdict{Status::kNotRunnable, gpu::describe_cuda_error(api_, rc, "computing the references")};
      }
    }
    ++references_computed_;
    if (key && worth_caching(key->payload_bytes(), seconds_since(started))) {
      store_references(*key, cached_buffers(gold, same_precision));
    }
    return std::nullopt;
  }

  // The buffers an entry holds, in its order: each compared output's gold, then its same-precision reference.
  std::vector<DeviceBuffer> cached_buffers(const std::vector<DeviceBuffer>& gold,
                                           const std::vector<DeviceBuffer>& same_precision) const {
    std::vector<DeviceBuffer> buffers;
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      if (!layout_.tensors[outputs_[k].tensor].compared) continue;
      buffers.push_back(gold[k]);
      buffers.push_back(same_precision[k]);
    }
    return buffers;
  }

  // One read of the entry into host memory (page-locked where the driver allows), then one copy per buffer on the
  // session's stream; the host copy is wiped before this returns. False: a miss, the buffers untouched.
  Result<bool> load_references(const ReferenceKey& key, const std::vector<DeviceBuffer>& buffers) {
    StageClock::Scope stage(stages_, WorkerStage::kReferenceCache);
    std::span<std::byte> host;
    auto step = Clock::now();
    double staging_seconds = 0;
    double waited_seconds = 0;
    const ReferenceLookup lookup = reference_cache_.load(key, [&](std::uint64_t bytes) -> std::span<std::byte> {
      // A hit: the staging buffer is a background write's until it is done (a miss leaves that write running). The
      // wait is the store's (cache_store_seconds.waited), not this load's.
      const auto waiting = Clock::now();
      join_reference_write();
      waited_seconds = seconds_since(waiting);
      cache_store_seconds_.waited += waited_seconds;
      const auto allocating = Clock::now();
      auto staging = session_.host_staging(bytes);
      staging_seconds = seconds_since(allocating);
      if (!staging) {
        note_reference_cache(staging.error().message);
        return {};
      }
      note_staging_memory();
      return host = *staging;
    });
    note_reference_cache(lookup.discarded);
    cache_load_seconds_.staging += staging_seconds;
    cache_load_seconds_.file += seconds_since(step) - staging_seconds - waited_seconds;
    step = Clock::now();
    CUresult rc = CUDA_SUCCESS;
    std::uint64_t offset = 0;
    for (std::size_t i = 0; lookup.hit && rc == CUDA_SUCCESS && i < buffers.size(); ++i) {
      rc = api_.cuMemcpyHtoDAsync_fn(buffers[i].address, host.data() + offset, buffers[i].bytes, session_.stream());
      offset += buffers[i].bytes;
    }
    if (lookup.hit && rc == CUDA_SUCCESS) rc = api_.cuStreamSynchronize_fn(session_.stream());
    cache_load_seconds_.copy += seconds_since(step);
    step = Clock::now();
    if (!host.empty()) session_.wipe_host_staging();  // a miss never touched it, and a write may still be reading it
    cache_load_seconds_.wipe += seconds_since(step);
    if (rc != CUDA_SUCCESS) return make_error(gpu::describe_cuda_error(api_, rc, "copying cached references"));
    return lookup.hit;
  }

  // The buffers copied to host memory and written as one entry by the background writer, which then wipes the host
  // copy. The write runs while this runner goes on with the next correctness set: its fill, the candidate's and the
  // seed's runs on it, its references. Those are other inputs (each set its own seed), so no candidate ever runs on
  // the inputs whose references the staging buffer holds; the timing phase, whose warm-up reuses set 0's inputs,
  // starts only after the write. It is also waited for before the staging buffer is used again, after each timed
  // full check (its time stays off the sampling clock), before every timed launch and before the scenario is
  // reported. A store that fails is a note, never a verdict.
  void store_references(const ReferenceKey& key, const std::vector<DeviceBuffer>& buffers) {
    wait_for_reference_write();  // the staging buffer is the previous write's until it is done
    StageClock::Scope stage(stages_, WorkerStage::kReferenceCache);
    auto step = Clock::now();
    auto host = session_.host_staging(key.payload_bytes());
    cache_store_seconds_.staging += seconds_since(step);
    step = Clock::now();
    if (!host) return note_reference_cache(host.error().message);
    note_staging_memory();
    CUresult rc = CUDA_SUCCESS;
    std::uint64_t offset = 0;
    for (std::size_t i = 0; rc == CUDA_SUCCESS && i < buffers.size(); ++i) {
      rc = api_.cuMemcpyDtoHAsync_fn(host->data() + offset, buffers[i].address, buffers[i].bytes, session_.stream());
      offset += buffers[i].bytes;
    }
    if (rc == CUDA_SUCCESS) rc = api_.cuStreamSynchronize_fn(session_.stream());
    cache_store_seconds_.copy += seconds_since(step);
    if (rc != CUDA_SUCCESS) {
      note_reference_cache(gpu::describe_cuda_error(api_, rc, "copying references to store them"));
      step = Clock::now();
      session_.wipe_host_staging();
      cache_store_seconds_.wipe += seconds_since(step);
      return;
    }
    account_reference_write(reference_writer_.start(key, *host, [this] { session_.wipe_host_staging(); }));
  }

  // Blocks until the background write, if one runs, is done; the wait is charged to the reference_cache stage (and
  // to cache_store_seconds.waited: the part of the writes that did not run behind other work).
  void wait_for_reference_write() {
    if (!reference_writer_.running()) return;
    StageClock::Scope stage(stages_, WorkerStage::kReferenceCache);
    const auto step = Clock::now();
    join_reference_write();
    cache_store_seconds_.waited += seconds_since(step);
  }

  void join_reference_write() { account_reference_write(reference_writer_.wait()); }

  void account_reference_write(const std::optional<ReferenceWriteOutcome>& outcome) {
    if (!outcome) return;
    cache_store_seconds_.file += outcome->file_seconds;
    cache_store_seconds_.wipe += outcome->wipe_seconds;
    if (outcome->stored) {
      ++references_stored_;
    } else {
      note_reference_cache(outcome->note);
    }
  }

  void note_staging_memory() {
    if (!session_.host_staging_pinned()) {
      note_reference_cache("the driver would not page-lock the host buffer: references copied from plain memory");
    }
  }

  // What the record says of the cache beyond its counts (discarded entries, failed stores), each distinct note once.
  void note_reference_cache(const std::string& note) {
    if (note.empty() || reference_cache_notes_.size() >= 4) return;
    if (std::find(reference_cache_notes_.begin(), reference_cache_notes_.end(), note) == reference_cache_notes_.end())
      reference_cache_notes_.push_back(note);
  }

  // ---- timing ------------------------------------------------------------------------------------------
  Result<double> timed_launch(Side& side, std::uint32_t set) {
    wait_for_reference_write();  // no thread writes files while a launch is timed
    StageClock::Scope stage(stages_, WorkerStage::kTimed);
    auto args = kernel_args(side, set);
    if (!args) {
      pending_ = Verdict{Status::kLaunchError, args.error().message};
      return args.error();
    }
    if (auto v = prepare(side)) return make_error(fmt::format("{}: {}", to_string(v->status), v->message));
    if (auto f = session_.flush_l2(); !f) return f.error();
    std::optional<Verdict> failure;
    auto ms = session_.time_ms([&]() -> Result<void> {
      failure = enqueue(side, *args);
      if (failure) return make_error(failure->message);
      return Ok{};
    });
    if (!ms) {
      const CUresult rc = api_.cuCtxSynchronize_fn();
      if (gpu::is_sticky_cuda_error(rc)) {
        pending_ = launch_failure(rc, side.role + " timed launch");
      } else {
        pending_ = failure ? *failure : Verdict{Status::kLaunchError, ms.error().message};
      }
      return ms.error();
    }
    timed_kernel_seconds_ += *ms * 1e-3;
    return *ms * 1e-3;
  }

  std::optional<Verdict> measure_timing() {
    const auto started = Clock::now();
    std::uint64_t fresh_seed = job_.input_seed + 1000;
    // The warm-up runs on set 0's inputs as the correctness phase left them, whose references a write may still hold.
    wait_for_reference_write();
    // Warm-up: never counted, never used to size the sample (T3).
    for (int i = 0; i < job_.warmup_launches; ++i) {
      for (Side* side : {&seed_, &candidate_}) {
        if (auto v = run_once(*side, 0)) return v;
      }
    }
    std::vector<double> seed_seconds;
    std::vector<double> candidate_seconds;
    std::size_t checks = 0;
    std::string stop_reason;
    RatioEstimate estimate;
    std::size_t full_checks = 0;
    // Set when sampling would stop before enough full checks were made: the next rounds' checks are full ones.
    bool checks_owed = false;
    double full_check_seconds = 0;  // kept off the sampling clock, so checks never shorten the sample
    for (std::size_t round = 0;; ++round) {
      const bool seed_first = round % 2 == 0;
      double seed_time = 0;
      double candidate_time = 0;
      for (int slot = 0; slot < 2; ++slot) {
        const bool is_seed = (slot == 0) == seed_first;
        // Which input set (which addresses) a launch gets is drawn, so no launch can prepare the L2 for the next.
        const auto set = static_cast<std::uint32_t>(unpredictable_() % input_sets_);
        const std::uint64_t input_seed = fresh_seed++;
        // Fresh data for every launch: a result cached by pointer or by content cannot be replayed (R1).
        if (auto v = fill_inputs(set, input_seed)) return v;
        auto t = timed_launch(is_seed ? seed_ : candidate_, set);
        if (!t) return pending_ ? *pending_ : Verdict{Status::kLaunchError, t.error().message};
        (is_seed ? seed_time : candidate_time) = *t;
        if (!is_seed) {
          const auto check_started = Clock::now();
          // Drawn only now, after the launch: nothing the candidate did or saw could depend on it.
          const bool full = checks_owed || unpredictable_() < kTimedReferenceCheckProbability * 4294967296.0;
          if (auto v = verify_timed_output(set, input_seed, full)) return v;
          if (full) {
            // Its store, if any, belongs to the check: the next timed launch would wait for it on the sampling clock.
            wait_for_reference_write();
            ++full_checks;
            full_check_seconds += seconds_since(check_started);
          }
          ++checks;
        }
      }
      seed_seconds.push_back(seed_time);
      candidate_seconds.push_back(candidate_time);
      auto e = estimate_ratio(seed_seconds, candidate_seconds);
      if (!e) return Verdict{Status::kMistrusted, "timing: " + e.error().message};
      estimate = *e;
      const auto decision = next_sampling_step(estimate, job_.sampling, seconds_since(started) - full_check_seconds);
      checks_owed = full_checks < kMinTimedReferenceChecks;
      if (decision.action != SamplingAction::kContinue && !checks_owed) {
        stop_reason = decision.reason;
        break;
      }
    }

    const double flops = job_.scenario.flops;
    const double bytes = job_.scenario.bytes;
    // The floor takes the fastest precision's rate: a faster time is impossible, not excellent, in any precision.
    const DevicePeaks peaks{job_.floor_flops > 0 ? job_.floor_flops : job_.peak_flops, job_.peak_bytes_per_second,
                            job_.peak_source == "measured" ? PeakSource::kMeasured : PeakSource::kDeclared};
    const double floor = physics_floor_seconds(flops, bytes, peaks);
    const double t_candidate = estimate.candidate_median_seconds;
    const double t_seed = estimate.seed_median_seconds;
    result_["timing"] = {
        {"rounds", estimate.rounds},
        {"seed_median_ms", t_seed * 1e3},
        {"candidate_median_ms", t_candidate * 1e3},
        {"ratio", estimate.ratio},
        {"ci_low", estimate.ci_low},
        {"ci_high", estimate.ci_high},
        {"confidence", estimate.confidence},
        {"meets_confidence", estimate.meets_confidence},
        {"relative_half_width", estimate.relative_half_width},
        {"ratio_of_medians", estimate.ratio_of_medians},
        {"outlier_rounds", estimate.outlier_rounds},
        {"stop_reason", stop_reason},
        {"timed_output_checks", checks},
        {"timed_reference_launches", full_checks},
        {"timed_reference_checks", timed_reference_checks_},
        {"candidate_tflops", flops / t_candidate * 1e-12},
        {"seed_tflops", flops / t_seed * 1e-12},
        {"candidate_gbps", bytes / t_candidate * 1e-9},
        {"seed_gbps", bytes / t_seed * 1e-9},
        {"percent_of_peak_flops", job_.peak_flops > 0 ? 100.0 * flops / t_candidate / job_.peak_flops : 0.0},
        {"percent_of_peak_bandwidth",
         job_.peak_bytes_per_second > 0 ? 100.0 * bytes / t_candidate / job_.peak_bytes_per_second : 0.0},
        {"physics_floor_ms", floor * 1e3}};
    if (below_physics_floor(t_candidate, floor)) {
      return Verdict{Status::kMistrusted,
                     fmt::format("candidate median {:.4g} ms is below the physics floor of {:.4g} ms for "
                                 "{:.3g} FLOP and {:.3g} bytes on this GPU",
                                 t_candidate * 1e3, floor * 1e3, flops, bytes)};
    }
    return std::nullopt;
  }

  // A timed candidate launch's outputs, judged on its own inputs (R2, R3): the guards and inputs untouched; an untimed
  // re-run on the same inputs must reproduce them bit for bit (a race, or work deferred to a later launch, shows
  // here); then either the full correctness rule with references on these inputs (`full`), or the seed on the same
  // inputs within the bound calibrated for each output tensor.
  std::optional<Verdict> verify_timed_output(std::uint32_t set, std::uint64_t input_seed, bool full) {
    StageClock::Scope stage(stages_, WorkerStage::kChecks);
    if (auto v = check_guards("the candidate (timed)")) return v;
    if (auto v = check_inputs_untouched(set, "a timed launch")) return v;
    auto timed = outputs_fingerprint();
    if (!timed) return infrastructure(timed.error());
    auto kept = keep_outputs("timed candidate outputs");
    if (!kept) return infrastructure(kept.error());
    if (auto v = run_once(candidate_, set)) return v;
    if (auto v = check_guards("the candidate (re-run of a timed launch)")) return v;
    auto rerun = outputs_fingerprint();
    if (!rerun) return infrastructure(rerun.error());
    if (*timed != *rerun) {
      session_.release_scratch();
      return Verdict{Status::kFailed,
                     fmt::format("a timed launch and an untimed re-run on the same inputs (seed {}) gave "
                                 "different outputs: a race, or work left for a later launch",
                                 input_seed)};
    }
    if (full) return judge_on_reference(set, input_seed, *kept, Phase::kTimed);

    if (auto v = run_once(seed_, set)) return Verdict{Status::kNotRunnable, "the seed failed: " + v->message};
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      const auto& tensor = layout_.tensors[outputs_[k].tensor];
      if (!tensor.compared) continue;
      auto d = session_.compare((*kept)[k], tensor.type, outputs_[k].data(), tensor.type, tensor.elements);
      if (!d) return infrastructure(d.error());
      const SeedDistanceJudgement judged = judge_seed_distance(seed_distance_bounds_[k], *d, tensor.name);
      if (!judged.accepted) {
        session_.release_scratch();
        return Verdict{Status::kFailed, fmt::format("{} (seed {})", judged.failure, input_seed)};
      }
    }
    session_.release_scratch();
    return std::nullopt;
  }

  const ScenarioJob& job_;
  gpu::GpuSession& session_;
  const gpu::DriverApi& api_;
  const Plugin& plugin_;
  json result_;
  WorkloadLayout layout_;
  std::uint32_t input_sets_ = 2;
  Side candidate_;
  Side seed_;
  std::vector<std::vector<DeviceBuffer>> inputs_;
  std::map<std::uint32_t, std::uint64_t> input_fingerprints_;  // per input set, taken right after each fill
  std::vector<OutputBuffer> outputs_;
  json correctness_outputs_ = json::array();
  std::vector<SeedDistanceBound> seed_distance_bounds_;  // per entry of outputs_, widest over the correctness sets
  json timed_reference_checks_ = json::array();          // one row per output of each fully checked timed launch
  // The operating system's entropy, drawn afresh for each decision (set order, which timed launches get a full
  // check): never the recorded input seed, and no generator state a candidate could reconstruct from what it sees.
  std::random_device unpredictable_;
  std::optional<Verdict> pending_;
  bool context_lost_ = false;
  ReferenceCache reference_cache_;  // off unless the job names a folder and a bound (never in a campaign)
  ReferenceKey reference_key_;      // every part but the inputs', filled in setup
  int references_computed_ = 0;     // record: references.computed, from_cache, stored
  int references_from_cache_ = 0;
  int references_stored_ = 0;
  // Where the reference cache's time goes (record: references.cache_load_seconds, cache_store_seconds), so what
  // bounds a load or a store is measured: host staging memory allocated (page-locked), the copy to or from the GPU,
  // the entry file read or written (hashing, and for a store the free-space check and the eviction, included), the
  // host copy wiped. Loads are reported when one hit; lookups that missed stay in the reference_cache stage alone.
  // A load's steps all run on this thread. A store's staging and copy do; its file and wipe run on the background
  // writer, and `waited` is how long this thread waited for it (stores only).
  struct CacheSeconds {
    double staging = 0, copy = 0, file = 0, wipe = 0, waited = 0;
    nlohmann::json load_json() const { return {{"staging", staging}, {"copy", copy}, {"file", file}, {"wipe", wipe}}; }
    nlohmann::json store_json() const {
      nlohmann::json out = load_json();
      out["waited"] = waited;
      return out;
    }
  };
  CacheSeconds cache_load_seconds_;
  CacheSeconds cache_store_seconds_;
  std::vector<std::string> reference_cache_notes_;
  // Declared after reference_cache_, which it writes to, so destroyed before it; its destructor waits for a write.
  ReferenceWriter reference_writer_{reference_cache_};
  StageClock stages_;                // where this scenario's time went (record: stage_seconds)
  double timed_kernel_seconds_ = 0;  // the timed windows alone: what the kernels under test took
};

}  // namespace

ScenarioRun run_scenario(const ScenarioJob& job, gpu::GpuSession& session, const Plugin& plugin,
                         const std::string& plugin_library_sha256) {
  ScenarioRunner runner(job, session, plugin, plugin_library_sha256);
  ScenarioRun run;
  run.result = runner.run();
  run.context_lost = runner.context_lost();
  return run;
}

}  // namespace kseek
