// One CUDA context in the GPU worker: modules, tracked allocations, launches, events, and the harness's own
// kernels (guards, fingerprints, error statistics, L2 flush). It implements DeviceHost for plugins.
// It must never exist in the process that keeps verdicts and records: only `kseek __worker` creates one.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kseek/core/worker/driver_api.hpp"
#include "kseek/core/worker/error_statistics.hpp"
#include "kseek/core/worker/gpu_description.hpp"
#include "kseek/core/worker/plan_validation.hpp"
#include "kseek/sdk/workload.hpp"

namespace kseek::gpu {

class GpuSession final : public DeviceHost {
 public:
  static Result<std::unique_ptr<GpuSession>> open(int ordinal);
  ~GpuSession() override;

  const DriverApi& api() const { return *api_; }
  CUstream stream() const { return stream_; }
  const GpuDescription& identity() const { return identity_; }
  DeviceLimits limits() const;

  // Modules are kept for the session's life; `role` names them in errors ("candidate", "seed"...).
  Result<CUmodule> load_module(const std::string& role, const std::string& cubin);
  Result<CUfunction> function(CUmodule module, const std::string& role, std::string_view kernel);
  Result<KernelAttributes> attributes(CUfunction function) const;

  // Tracked device memory; every allocation is freed with the session.
  Result<DeviceBuffer> allocate(std::string_view name, std::uint64_t bytes);
  void release(const DeviceBuffer& buffer);

  // The plugin device library used by DeviceHost::launch.
  void set_plugin_module(CUmodule module) { plugin_module_ = module; }
  void set_harness_module(CUmodule module) { harness_module_ = module; }

  // DeviceHost
  Result<void> launch(std::string_view kernel, const HostLaunch& dims, const void* params,
                      std::size_t params_bytes) override;
  Result<void> upload(const DeviceBuffer& buffer, std::span<const std::byte> data, std::uint64_t offset) override;
  Result<void> download(const DeviceBuffer& buffer, std::span<std::byte> data, std::uint64_t offset) override;
  Result<DeviceBuffer> scratch(std::string_view name, std::uint64_t bytes) override;
  Result<void> synchronize() override;
  DeviceProperties properties() const override;
  void release_scratch();

  // Harness kernels.
  Result<void> fill(const DeviceBuffer& buffer, std::uint8_t value);
  Result<std::uint64_t> count_mismatches(const DeviceBuffer& buffer, std::uint64_t offset, std::uint64_t bytes,
                                         std::uint8_t expected);
  Result<std::uint64_t> fingerprint(const DeviceBuffer& buffer, std::uint64_t offset, std::uint64_t bytes);
  Result<ErrorStatistics> compare(const DeviceBuffer& a, ElementType a_type, const DeviceBuffer& b, ElementType b_type,
                                  std::uint64_t elements, std::uint64_t a_offset = 0);
  Result<void> flush_l2();

  // Launch with the cluster attribute when a cluster is asked for; params is one struct by value. `lane` 0 is the
  // session's stream, lanes 1.. streams beside it (below).
  Result<void> launch_function(CUfunction function, const std::array<unsigned, 3>& grid,
                               const std::array<unsigned, 3>& block, const std::array<unsigned, 3>& cluster,
                               unsigned dynamic_smem, void* params, const std::string& what, std::size_t lane = 0);

  // Lanes beside the session's stream, for a plan's launches that run side by side (kLaunchWithPrevious). make_lanes
  // makes lanes 1..count where they do not exist yet (non-blocking streams, like the session's, each with an event),
  // kept for the session: outside any timed window. fork_lanes makes lanes 1..count wait for all that was enqueued on
  // lane 0 so far; join_lanes makes lane 0 wait for all that was enqueued on lanes 1..count, so that what follows on
  // lane 0 (another launch, the end of a timed window, a synchronisation) comes after them. Both need the lanes made.
  Result<void> make_lanes(std::size_t count);
  Result<void> fork_lanes(std::size_t count);
  Result<void> join_lanes(std::size_t count);

  // Milliseconds between two events recorded around `body` on the session's stream.
  Result<double> time_ms(const std::function<Result<void>()>& body);

  // Device-to-device copy bandwidth (bytes read + written per second), median of a few runs.
  Result<double> measure_copy_bandwidth(std::uint64_t bytes);

  // Host memory for moving references between the reference cache and the device: page-locked (cuMemHostAlloc) so
  // a copy runs at PCIe speed, kept for the session and grown when more is asked; plain memory where the driver
  // will not lock that much (host_staging_pinned() says which). Whoever fills it wipes it (wipe_host_staging) before a
  // candidate runs on the inputs its references belong to: with unified addressing a kernel can read page-locked host
  // memory. The scenario runner's background writer wipes it after writing an entry, while the candidate runs on
  // other inputs only (scenario_runner.cpp, store_references); nothing else may touch it until that write is waited
  // for.
  Result<std::span<std::byte>> host_staging(std::uint64_t bytes);
  void wipe_host_staging();
  bool host_staging_pinned() const { return staging_pinned_; }

  // Ends one scenario so the next can run in this session as if in a fresh one: waits for the GPU, zeroes and frees
  // every allocation the scenario made (inputs, outputs, references, workspaces: nothing of it is left for the next
  // candidate to find), unloads its modules. The session's own buffers (counters, L2 flush) stay. An error means
  // the context is no longer trustworthy and the session must not run another scenario.
  Result<void> end_scenario();

 private:
  explicit GpuSession(const DriverApi* api) : api_(api) {}
  Result<void> launch_harness(const char* kernel, void* params, std::uint64_t work_items);
  std::uint64_t harness_blocks(std::uint64_t work_items) const;  // grid size of a harness launch over work_items
  std::uint64_t max_harness_blocks() const;

  const DriverApi* api_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  CUevent start_ = nullptr;
  CUevent stop_ = nullptr;
  // lanes_[k] is lane k + 1; lane_events_[k] marks a point on lane k (lane_events_[0] on the session's stream). A wait
  // takes the event's state when it is enqueued, so one event per lane serves every fork and join.
  std::vector<CUstream> lanes_;
  std::vector<CUevent> lane_events_;
  GpuDescription identity_;
  CUmodule plugin_module_ = nullptr;
  CUmodule harness_module_ = nullptr;
  std::vector<CUmodule> modules_;
  std::map<CUdeviceptr, std::uint64_t> allocations_;
  std::vector<DeviceBuffer> scratch_;
  DeviceBuffer flush_buffer_;  // the session's own three buffers, kept by end_scenario
  DeviceBuffer counter_;       // 64 bytes of device scratch for the harness kernels' results
  DeviceBuffer block_sums_;    // one double per harness block: kseek_compare's error sums, summed in order on the host
  void release_host_staging();
  std::byte* staging_ = nullptr;  // host_staging(): page-locked, or from new[] when staging_pinned_ is false
  std::uint64_t staging_bytes_ = 0;
  std::uint64_t staging_used_ = 0;  // the most asked since the last wipe: what wipe_host_staging() clears
  bool staging_pinned_ = false;
};

}  // namespace kseek::gpu
