// The worker's CUDA context and every driver call it makes, each checked and named in its error.
// It must never leave a launch unchecked: a sticky error ends the session's usefulness and is reported.
#include "kseek/core/worker/gpu_session.hpp"

#include <algorithm>
#include <cstring>
#include <new>

#include <fmt/format.h>

namespace kseek::gpu {
namespace {

constexpr unsigned kHarnessThreads = 256;
// kseek_compare sizes its per-warp sums for exactly this block (kCompareThreads in core/device/harness_kernels.cu).
static_assert(kHarnessThreads == 256, "change kCompareThreads in harness_kernels.cu together with kHarnessThreads");

}  // namespace

#define KSEEK_TRY(expr) \
  if (auto _r = (expr); !_r) return _r.error();

Result<std::unique_ptr<GpuSession>> GpuSession::open(int ordinal) {
  auto api = load_driver_api();
  if (!api) return api.error();
  std::unique_ptr<GpuSession> session(new GpuSession(*api));
  const DriverApi& a = **api;
  KSEEK_TRY(cuda_check(a, a.cuInit_fn(0), "cuInit"));
  KSEEK_TRY(cuda_check(a, a.cuDeviceGet_fn(&session->device_, ordinal), fmt::format("cuDeviceGet({})", ordinal)));
  KSEEK_TRY(
      cuda_check(a, a.cuDevicePrimaryCtxRetain_fn(&session->context_, session->device_), "cuDevicePrimaryCtxRetain"));
  KSEEK_TRY(cuda_check(a, a.cuCtxSetCurrent_fn(session->context_), "cuCtxSetCurrent"));
  KSEEK_TRY(cuda_check(a, a.cuStreamCreate_fn(&session->stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate"));
  KSEEK_TRY(cuda_check(a, a.cuEventCreate_fn(&session->start_, CU_EVENT_DEFAULT), "cuEventCreate"));
  KSEEK_TRY(cuda_check(a, a.cuEventCreate_fn(&session->stop_, CU_EVENT_DEFAULT), "cuEventCreate"));

  GpuDescription& id = session->identity_;
  id.ordinal = ordinal;
  char name[256] = {};
  a.cuDeviceGetName_fn(name, sizeof(name), session->device_);
  id.name = name;
  CUuuid uuid{};
  if (a.cuDeviceGetUuid_fn(&uuid, session->device_) == CUDA_SUCCESS) {
    const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
    id.uuid = fmt::format(
        "GPU-{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  }
  a.cuDriverGetVersion_fn(&id.driver_version);
  auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    a.cuDeviceGetAttribute_fn(&value, which, session->device_);
    return value;
  };
  id.compute_capability_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  id.compute_capability_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  id.multiprocessors = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  id.l2_bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  id.sm_clock_khz = attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  id.memory_clock_khz = attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  std::size_t total = 0;
  a.cuDeviceTotalMem_fn(&total, session->device_);
  id.memory_bytes = total;

  auto counter = session->allocate("harness counters", 64);
  if (!counter) return counter.error();
  session->counter_ = *counter;
  auto block_sums = session->allocate("harness block sums", session->max_harness_blocks() * sizeof(double));
  if (!block_sums) return block_sums.error();
  session->block_sums_ = *block_sums;
  // Twice the L2 is read before every timed launch; at least 256 MiB so a misreported L2 size cannot shrink it.
  const std::uint64_t flush_bytes =
      std::max<std::uint64_t>(256ull << 20, 2ull * static_cast<std::uint64_t>(id.l2_bytes));
  auto flush = session->allocate("L2 flush buffer", flush_bytes);
  if (!flush) return flush.error();
  session->flush_buffer_ = *flush;
  KSEEK_TRY(session->fill(session->flush_buffer_, 0x11));
  return session;
}

GpuSession::~GpuSession() {
  if (api_ == nullptr || context_ == nullptr) return;
  api_->cuCtxSynchronize_fn();
  release_host_staging();
  for (const auto& [address, bytes] : allocations_) api_->cuMemFree_fn(address);
  for (CUmodule module : modules_) api_->cuModuleUnload_fn(module);
  if (start_) api_->cuEventDestroy_fn(start_);
  if (stop_) api_->cuEventDestroy_fn(stop_);
  for (CUevent event : lane_events_) api_->cuEventDestroy_fn(event);
  for (CUstream lane : lanes_) api_->cuStreamDestroy_fn(lane);
  if (stream_) api_->cuStreamDestroy_fn(stream_);
  api_->cuDevicePrimaryCtxRelease_fn(device_);
}

DeviceLimits GpuSession::limits() const {
  const DriverApi& a = *api_;
  auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    a.cuDeviceGetAttribute_fn(&value, which, device_);
    return static_cast<unsigned>(value);
  };
  DeviceLimits limits;
  limits.max_threads_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  limits.max_block_dims = {attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X),
                           attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
                           attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)};
  limits.max_grid_dims = {attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X), attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
                          attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)};
  limits.max_smem_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  limits.max_smem_per_block_optin = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  limits.max_smem_per_sm = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  limits.registers_per_sm = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  limits.registers_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  limits.sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  limits.supports_clusters = attribute(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH) != 0;
  limits.compute_capability_major = identity_.compute_capability_major;
  limits.compute_capability_minor = identity_.compute_capability_minor;
  return limits;
}

Result<CUmodule> GpuSession::load_module(const std::string& role, const std::string& cubin) {
  CUmodule module = nullptr;
  KSEEK_TRY(
      cuda_check(*api_, api_->cuModuleLoadData_fn(&module, cubin.data()), fmt::format("loading the {} cubin", role)));
  modules_.push_back(module);
  return module;
}

Result<CUfunction> GpuSession::function(CUmodule module, const std::string& role, std::string_view kernel) {
  CUfunction function = nullptr;
  const std::string name(kernel);
  const CUresult rc = api_->cuModuleGetFunction_fn(&function, module, name.c_str());
  if (rc != CUDA_SUCCESS) {
    return make_error(fmt::format("the {} has no kernel '{}' (extern \"C\" __global__ expected)", role, name));
  }
  return function;
}

Result<KernelAttributes> GpuSession::attributes(CUfunction function) const {
  auto get = [&](CUfunction_attribute which) {
    int value = 0;
    api_->cuFuncGetAttribute_fn(&value, which, function);
    return value;
  };
  KernelAttributes a;
  a.exists = true;
  a.max_threads_per_block = static_cast<unsigned>(get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
  a.static_smem_bytes = static_cast<unsigned>(get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
  a.registers_per_thread = static_cast<unsigned>(get(CU_FUNC_ATTRIBUTE_NUM_REGS));
  a.dynamic_smem_limit_now = static_cast<unsigned>(get(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES));
  const auto optin = limits().max_smem_per_block_optin;
  a.max_dynamic_smem_bytes = optin > a.static_smem_bytes ? optin - a.static_smem_bytes : 0;
  a.required_cluster = {static_cast<unsigned>(get(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH)),
                        static_cast<unsigned>(get(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT)),
                        static_cast<unsigned>(get(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH))};
  a.allows_non_portable_cluster = get(CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED) != 0;
  return a;
}

Result<DeviceBuffer> GpuSession::allocate(std::string_view name, std::uint64_t bytes) {
  CUdeviceptr address = 0;
  const std::uint64_t size = std::max<std::uint64_t>(bytes, 1);
  KSEEK_TRY(
      cuda_check(*api_, api_->cuMemAlloc_fn(&address, size), fmt::format("allocating {} ({} bytes)", name, size)));
  allocations_[address] = size;
  return DeviceBuffer{address, bytes};
}

void GpuSession::release(const DeviceBuffer& buffer) {
  if (allocations_.erase(buffer.address) > 0) api_->cuMemFree_fn(buffer.address);
}

Result<void> GpuSession::launch(std::string_view kernel, const HostLaunch& dims, const void* params, std::size_t) {
  if (plugin_module_ == nullptr) return make_error("no plugin device library is loaded");
  auto fn = function(plugin_module_, "plugin device library", kernel);
  if (!fn) return fn.error();
  // Above the 48 KiB default a kernel needs its limit raised (CUDA programming guide, "Shared Memory"); the driver
  // refuses more than the device's opt-in maximum with a message that names it.
  constexpr unsigned kDefaultDynamicSmem = 48 * 1024;
  if (dims.dynamic_smem_bytes > kDefaultDynamicSmem) {
    KSEEK_TRY(cuda_check(*api_,
                         api_->cuFuncSetAttribute_fn(*fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                     static_cast<int>(dims.dynamic_smem_bytes)),
                         fmt::format("raising the dynamic shared memory of plugin kernel {} to {} bytes", kernel,
                                     dims.dynamic_smem_bytes)));
  }
  return launch_function(*fn, dims.grid, dims.block, {1, 1, 1}, dims.dynamic_smem_bytes, const_cast<void*>(params),
                         fmt::format("plugin kernel {}", kernel));
}

Result<void> GpuSession::upload(const DeviceBuffer& buffer, std::span<const std::byte> data, std::uint64_t offset) {
  if (offset + data.size() > buffer.bytes) {
    return make_error(
        fmt::format("upload of {} bytes at offset {} overruns a {}-byte buffer", data.size(), offset, buffer.bytes));
  }
  KSEEK_TRY(synchronize());  // uploads are ordered after everything already queued on the session's stream
  return cuda_check(*api_, api_->cuMemcpyHtoD_fn(buffer.address + offset, data.data(), data.size()), "upload");
}

Result<void> GpuSession::download(const DeviceBuffer& buffer, std::span<std::byte> data, std::uint64_t offset) {
  if (offset + data.size() > buffer.bytes) {
    return make_error(
        fmt::format("download of {} bytes at offset {} overruns a {}-byte buffer", data.size(), offset, buffer.bytes));
  }
  KSEEK_TRY(synchronize());
  return cuda_check(*api_, api_->cuMemcpyDtoH_fn(data.data(), buffer.address + offset, data.size()), "download");
}

Result<std::span<std::byte>> GpuSession::host_staging(std::uint64_t bytes) {
  if (bytes > staging_bytes_) {
    wipe_host_staging();
    release_host_staging();
    const std::uint64_t rounded = (bytes + (64ull << 20) - 1) / (64ull << 20) * (64ull << 20);  // fewer regrowths
    void* pinned = nullptr;
    if (api_->cuMemHostAlloc_fn(&pinned, rounded, 0) == CUDA_SUCCESS && pinned != nullptr) {
      staging_ = static_cast<std::byte*>(pinned);
      staging_pinned_ = true;
    } else {
      staging_ = new (std::nothrow) std::byte[rounded];
      staging_pinned_ = false;
      if (staging_ == nullptr) return make_error(fmt::format("no host memory for {} bytes of references", bytes));
    }
    staging_bytes_ = rounded;
  }
  staging_used_ = std::max(staging_used_, bytes);
  return std::span<std::byte>(staging_, bytes);
}

void GpuSession::wipe_host_staging() {
  if (staging_ != nullptr && staging_used_ > 0) std::memset(staging_, 0, staging_used_);
  staging_used_ = 0;
}

void GpuSession::release_host_staging() {
  if (staging_ == nullptr) return;
  if (staging_pinned_) {
    api_->cuMemFreeHost_fn(staging_);
  } else {
    delete[] staging_;
  }
  staging_ = nullptr;
  staging_bytes_ = 0;
  staging_used_ = 0;
}

Result<DeviceBuffer> GpuSession::scratch(std::string_view name, std::uint64_t bytes) {
  auto buffer = allocate(name, bytes);
  if (buffer) scratch_.push_back(*buffer);
  return buffer;
}

void GpuSession::release_scratch() {
  for (const auto& buffer : scratch_) release(buffer);
  scratch_.clear();
}

Result<void> GpuSession::synchronize() {
  return cuda_check(*api_, api_->cuStreamSynchronize_fn(stream_), "stream synchronize");
}

DeviceProperties GpuSession::properties() const {
  return {identity_.name, identity_.compute_capability_major, identity_.compute_capability_minor,
          identity_.multiprocessors};
}

Result<void> GpuSession::launch_function(CUfunction function, const std::array<unsigned, 3>& grid,
                                         const std::array<unsigned, 3>& block, const std::array<unsigned, 3>& cluster,
                                         unsigned dynamic_smem, void* params, const std::string& what,
                                         std::size_t lane) {
  if (lane > lanes_.size()) {
    return make_error(fmt::format("launching {}: lane {} was never made (make_lanes first)", what, lane));
  }
  CUlaunchConfig config{};
  config.gridDimX = grid[0];
  config.gridDimY = grid[1];
  config.gridDimZ = grid[2];
  config.blockDimX = block[0];
  config.blockDimY = block[1];
  config.blockDimZ = block[2];
  config.sharedMemBytes = dynamic_smem;
  config.hStream = lane == 0 ? stream_ : lanes_[lane - 1];
  CUlaunchAttribute attribute{};
  if (cluster[0] * cluster[1] * cluster[2] > 1) {
    attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim.x = cluster[0];
    attribute.value.clusterDim.y = cluster[1];
    attribute.value.clusterDim.z = cluster[2];
    config.attrs = &attribute;
    config.numAttrs = 1;
  }
  void* arguments[] = {params};
  return cuda_check(*api_, api_->cuLaunchKernelEx_fn(&config, function, arguments, nullptr),
                    fmt::format("launching {}", what));
}

Result<void> GpuSession::make_lanes(std::size_t count) {
  if (count == 0) return Ok{};
  if (lane_events_.empty()) {
    CUevent event = nullptr;
    KSEEK_TRY(cuda_check(*api_, api_->cuEventCreate_fn(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate (lane 0)"));
    lane_events_.push_back(event);
  }
  while (lanes_.size() < count) {
    // A stream and its event are kept together or not at all: lane_events_ holds one more than lanes_.
    CUstream lane = nullptr;
    KSEEK_TRY(cuda_check(*api_, api_->cuStreamCreate_fn(&lane, CU_STREAM_NON_BLOCKING),
                         fmt::format("cuStreamCreate (lane {})", lanes_.size() + 1)));
    CUevent event = nullptr;
    if (auto made = cuda_check(*api_, api_->cuEventCreate_fn(&event, CU_EVENT_DISABLE_TIMING),
                               fmt::format("cuEventCreate (lane {})", lanes_.size() + 1));
        !made) {
      api_->cuStreamDestroy_fn(lane);
      return made.error();
    }
    lanes_.push_back(lane);
    lane_events_.push_back(event);
  }
  return Ok{};
}

Result<void> GpuSession::fork_lanes(std::size_t count) {
  if (count == 0) return Ok{};
  if (count > lanes_.size()) return make_error(fmt::format("forking {} lanes of {} made", count, lanes_.size()));
  KSEEK_TRY(cuda_check(*api_, api_->cuEventRecord_fn(lane_events_[0], stream_), "cuEventRecord (fork)"));
  for (std::size_t k = 1; k <= count; ++k) {
    KSEEK_TRY(cuda_check(*api_, api_->cuStreamWaitEvent_fn(lanes_[k - 1], lane_events_[0], 0),
                         fmt::format("cuStreamWaitEvent (lane {} after lane 0)", k)));
  }
  return Ok{};
}

Result<void> GpuSession::join_lanes(std::size_t count) {
  if (count > lanes_.size()) return make_error(fmt::format("joining {} lanes of {} made", count, lanes_.size()));
  for (std::size_t k = 1; k <= count; ++k) {
    KSEEK_TRY(cuda_check(*api_, api_->cuEventRecord_fn(lane_events_[k], lanes_[k - 1]),
                         fmt::format("cuEventRecord (lane {})", k)));
    KSEEK_TRY(cuda_check(*api_, api_->cuStreamWaitEvent_fn(stream_, lane_events_[k], 0),
                         fmt::format("cuStreamWaitEvent (lane 0 after lane {})", k)));
  }
  return Ok{};
}

std::uint64_t GpuSession::harness_blocks(std::uint64_t work_items) const {
  return std::clamp<std::uint64_t>((work_items + kHarnessThreads - 1) / kHarnessThreads, 1, max_harness_blocks());
}

std::uint64_t GpuSession::max_harness_blocks() const {
  return static_cast<std::uint64_t>(std::max(identity_.multiprocessors, 1)) * 8;
}

Result<void> GpuSession::launch_harness(const char* kernel, void* params, std::uint64_t work_items) {
  if (harness_module_ == nullptr) return make_error("the harness kernels are not loaded");
  auto fn = function(harness_module_, "harness library", kernel);
  if (!fn) return fn.error();
  const std::uint64_t blocks = harness_blocks(work_items);
  return launch_function(*fn, {static_cast<unsigned>(blocks), 1, 1}, {kHarnessThreads, 1, 1}, {1, 1, 1}, 0, params,
                         kernel);
}

Result<void> GpuSession::fill(const DeviceBuffer& buffer, std::uint8_t value) {
  return cuda_check(*api_, api_->cuMemsetD8Async_fn(buffer.address, value, buffer.bytes, stream_), "memset");
}

Result<std::uint64_t> GpuSession::count_mismatches(const DeviceBuffer& buffer, std::uint64_t offset,
                                                   std::uint64_t bytes, std::uint8_t expected) {
  KSEEK_TRY(cuda_check(*api_, api_->cuMemsetD8Async_fn(counter_.address, 0, 64, stream_), "memset counters"));
  struct {
    CUdeviceptr bytes;
    std::uint64_t count;
    std::uint32_t expected;
    CUdeviceptr mismatches;
  } args{buffer.address + offset, bytes, expected, counter_.address};
  KSEEK_TRY(launch_harness("kseek_count_mismatch", &args, bytes));
  std::uint64_t count = 0;
  KSEEK_TRY(download(counter_, std::as_writable_bytes(std::span(&count, 1)), 0));
  return count;
}

Result<std::uint64_t> GpuSession::fingerprint(const DeviceBuffer& buffer, std::uint64_t offset, std::uint64_t bytes) {
  KSEEK_TRY(cuda_check(*api_, api_->cuMemsetD8Async_fn(counter_.address, 0, 64, stream_), "memset counters"));
  struct {
    CUdeviceptr bytes;
    std::uint64_t count;
    CUdeviceptr hash;
  } args{buffer.address + offset, bytes, counter_.address};
  KSEEK_TRY(launch_harness("kseek_fingerprint", &args, bytes / 8));
  std::uint64_t hash = 0;
  KSEEK_TRY(download(counter_, std::as_writable_bytes(std::span(&hash, 1)), 0));
  return hash;
}

Result<ErrorStatistics> GpuSession::compare(const DeviceBuffer& a, ElementType a_type, const DeviceBuffer& b,
                                            ElementType b_type, std::uint64_t elements, std::uint64_t a_offset) {
  auto code = [](ElementType t) -> int {
    switch (t) {
      case ElementType::kF32: return 0;
      case ElementType::kF16: return 1;
      case ElementType::kBF16: return 2;
      default: return 3;
    }
  };
  KSEEK_TRY(cuda_check(*api_, api_->cuMemsetD8Async_fn(counter_.address, 0, 64, stream_), "memset counters"));
  struct {
    CUdeviceptr a;
    int a_type;
    int b_type;
    CUdeviceptr b;
    std::uint64_t count;
    CUdeviceptr stats;
    CUdeviceptr block_sums;
  } args{a.address + a_offset, code(a_type), code(b_type), b.address, elements, counter_.address, block_sums_.address};
  KSEEK_TRY(launch_harness("kseek_compare", &args, elements));
  struct {
    std::uint32_t max_bits;
    std::uint32_t max_abs_b_bits;
    std::uint64_t nonfinite;
  } raw{};
  KSEEK_TRY(download(counter_, std::as_writable_bytes(std::span(&raw, 1)), 0));
  // Summed here in block order: a fixed order, so the mean repeats bit for bit (see kseek_compare).
  std::vector<double> block_sums(harness_blocks(elements));
  KSEEK_TRY(download(block_sums_, std::as_writable_bytes(std::span(block_sums)), 0));
  double sum = 0.0;
  for (double s : block_sums) sum += s;
  ErrorStatistics stats;
  float max_error = 0;
  std::memcpy(&max_error, &raw.max_bits, sizeof(max_error));
  stats.max_error = max_error;
  float max_abs_b = 0;
  std::memcpy(&max_abs_b, &raw.max_abs_b_bits, sizeof(max_abs_b));
  stats.max_abs_b = max_abs_b;
  stats.nonfinite = raw.nonfinite;
  stats.count = elements;
  const std::uint64_t finite = elements - std::min(elements, raw.nonfinite);
  stats.mean_error = finite > 0 ? sum / static_cast<double>(finite) : 0.0;
  return stats;
}

// Every line a candidate could have kept in the L2 goes: persisting lines (an access policy window's set-aside) are
// demoted first, then a sweep at evict_last priority displaces lines marked evict_last, then the sweep's own lines
// are demoted (kseek_flush_l2 in core/device/harness_kernels.cu says why).
Result<void> GpuSession::flush_l2() {
  KSEEK_TRY(cuda_check(*api_, api_->cuCtxResetPersistingL2Cache_fn(), "resetting persisting L2 lines"));
  struct {
    CUdeviceptr sink;
    std::uint64_t bytes;
  } args{flush_buffer_.address, flush_buffer_.bytes};
  KSEEK_TRY(launch_harness("kseek_flush_l2", &args, flush_buffer_.bytes / 8));
  return launch_harness("kseek_demote_l2", &args, flush_buffer_.bytes / 128);
}

Result<double> GpuSession::time_ms(const std::function<Result<void>()>& body) {
  KSEEK_TRY(cuda_check(*api_, api_->cuEventRecord_fn(start_, stream_), "cuEventRecord"));
  KSEEK_TRY(body());
  KSEEK_TRY(cuda_check(*api_, api_->cuEventRecord_fn(stop_, stream_), "cuEventRecord"));
  KSEEK_TRY(cuda_check(*api_, api_->cuEventSynchronize_fn(stop_), "waiting for the timed launches"));
  float ms = 0;
  KSEEK_TRY(cuda_check(*api_, api_->cuEventElapsedTime_fn(&ms, start_, stop_), "cuEventElapsedTime"));
  return static_cast<double>(ms);
}

Result<double> GpuSession::measure_copy_bandwidth(std::uint64_t bytes) {
  auto source = allocate("bandwidth source", bytes);
  if (!source) return source.error();
  auto target = allocate("bandwidth target", bytes);
  if (!target) return target.error();
  KSEEK_TRY(fill(*source, 0x3c));
  std::vector<double> rates;
  for (int i = 0; i < 7; ++i) {
    auto ms = time_ms([&]() -> Result<void> {
      return cuda_check(*api_, api_->cuMemcpyDtoDAsync_fn(target->address, source->address, bytes, stream_), "copy");
    });
    if (!ms) return ms.error();
    if (i > 1) rates.push_back(2.0 * static_cast<double>(bytes) / (*ms * 1e-3));  // read + write
  }
  release(*source);
  release(*target);
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

Result<void> GpuSession::end_scenario() {
  KSEEK_TRY(cuda_check(*api_, api_->cuCtxSynchronize_fn(), "finishing the scenario's work"));
  const auto own = [&](CUdeviceptr address) {
    return address == flush_buffer_.address || address == counter_.address || address == block_sums_.address;
  };
  for (const auto& [address, bytes] : allocations_) {
    if (own(address)) continue;
    KSEEK_TRY(cuda_check(*api_, api_->cuMemsetD8Async_fn(address, 0, bytes, stream_),
                         "scrubbing a finished scenario's memory"));
  }
  KSEEK_TRY(synchronize());
  for (auto it = allocations_.begin(); it != allocations_.end();) {
    if (own(it->first)) {
      ++it;
      continue;
    }
    KSEEK_TRY(cuda_check(*api_, api_->cuMemFree_fn(it->first), "freeing a finished scenario's memory"));
    it = allocations_.erase(it);
  }
  scratch_.clear();
  for (CUmodule module : modules_) {
    KSEEK_TRY(cuda_check(*api_, api_->cuModuleUnload_fn(module), "unloading a finished scenario's modules"));
  }
  modules_.clear();
  plugin_module_ = nullptr;
  harness_module_ = nullptr;
  wipe_host_staging();  // wiped after every use already; nothing of this scenario's references is left for the next
  return Ok{};
}

}  // namespace kseek::gpu
