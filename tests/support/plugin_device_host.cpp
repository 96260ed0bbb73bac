// open_plugin_device_host: core's GPU session, NVRTC build service and plugin loader behind the SDK's DeviceHost, so
// that a plugin's GPU tests reach a GPU the way the plugin does in an evaluation. Compiled, not header-only, because it
// is the one piece of test support that needs core. It must never hand out a core type, nor a call a plugin could not
// make in an evaluation beyond owning its tensors.
#include "support/plugin_device_host.hpp"

#include <optional>
#include <utility>

#include "kseek/core/build/build_service.hpp"
#include "kseek/core/plugin/plugin_registry.hpp"
#include "kseek/core/worker/driver_probe.hpp"
#include "kseek/core/worker/gpu_session.hpp"

namespace kseek::testing {
namespace {

class SessionHost final : public TestDeviceHost {
 public:
  explicit SessionHost(std::unique_ptr<gpu::GpuSession> session) : session_(std::move(session)) {}

  Result<void> launch(std::string_view kernel, const HostLaunch& dims, const void* params,
                      std::size_t params_bytes) override {
    return session_->launch(kernel, dims, params, params_bytes);
  }
  Result<void> upload(const DeviceBuffer& buffer, std::span<const std::byte> data, std::uint64_t offset) override {
    return session_->upload(buffer, data, offset);
  }
  Result<void> download(const DeviceBuffer& buffer, std::span<std::byte> data, std::uint64_t offset) override {
    return session_->download(buffer, data, offset);
  }
  Result<DeviceBuffer> scratch(std::string_view name, std::uint64_t bytes) override {
    return session_->scratch(name, bytes);
  }
  Result<void> synchronize() override { return session_->synchronize(); }
  DeviceProperties properties() const override { return session_->properties(); }

  Result<DeviceBuffer> allocate(std::string_view name, std::uint64_t bytes) override {
    return session_->allocate(name, bytes);
  }
  void release(const DeviceBuffer& buffer) override { session_->release(buffer); }
  void release_scratch() override { session_->release_scratch(); }

 private:
  std::unique_ptr<gpu::GpuSession> session_;
};

// The architecture the evaluator builds for: the arch-specific target on Hopper and Blackwell, else the plain one.
std::string build_arch(const GpuDescription& gpu) {
  if (gpu.compute_capability_major == 10) return "sm_100a";
  return "sm_" + std::to_string(gpu.compute_capability_major) + std::to_string(gpu.compute_capability_minor) +
         (gpu.compute_capability_major == 9 ? "a" : "");
}

}  // namespace

Result<PluginDeviceHost> open_plugin_device_host(std::string_view plugin_id, int min_major, std::string_view needs) {
  PluginDeviceHost opened;
  const DriverStatus driver = probe_driver();
  if (!driver.loaded || driver.gpus.empty()) {
    opened.skip_reason = "no GPU: " + driver.problem;
    return opened;
  }
  const GpuDescription& gpu = driver.gpus.front();
  if (gpu.compute_capability_major < min_major) {
    opened.skip_reason = std::string(needs) + ", GPU 0 is " + gpu.name;
    return opened;
  }
  PluginRegistry registry;  // the library stays loaded after it: plugins are never unloaded
  registry.load_folders({KSEEK_TREE_PLUGIN_DIR});
  auto loaded = registry.require(plugin_id);
  if (!loaded) {
    opened.skip_reason = std::string(plugin_id) + " does not load: " + loaded.error().message;
    return opened;
  }
  const auto sources = (*loaded)->plugin->device_library();
  CompileRequest request;
  request.source = sources.front();
  request.headers.assign(sources.begin() + 1, sources.end());
  for (auto& h : sdk_device_headers()) request.headers.push_back(h);
  deduplicate_headers(request.headers);
  request.arch = build_arch(gpu);
  BuildService service{std::nullopt};
  const CompileOutput out = service.compile(request);
  if (out.status != Status::kOk) {
    return make_error("the device library of " + std::string(plugin_id) + " does not build for " + request.arch + ": " +
                      out.error + "\n" + out.log);
  }
  auto session = gpu::GpuSession::open(0);
  if (!session) return make_error("no CUDA session: " + session.error().message);
  auto module = (*session)->load_module(std::string(plugin_id) + " device library", out.cubin);
  if (!module) return make_error(module.error().message);
  (*session)->set_plugin_module(*module);
  opened.host = std::make_unique<SessionHost>(std::move(*session));
  return opened;
}

}  // namespace kseek::testing
