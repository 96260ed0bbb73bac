// A plugin's device library on GPU 0 behind the SDK's DeviceHost, for a plugin's own GPU tests: the host the worker
// hands a plugin, plus the memory calls a test needs to own its tensors (in an evaluation the worker owns them).
// It must never expose a core type: a plugin's tests include the SDK, their plugin and test support only
// (include_rules_test), so core's session, build service and loader stay behind this header.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "kseek/sdk/result.hpp"
#include "kseek/sdk/workload.hpp"

namespace kseek::testing {

class TestDeviceHost : public DeviceHost {
 public:
  // Device memory the test owns; whatever is left is freed with the host.
  virtual Result<DeviceBuffer> allocate(std::string_view name, std::uint64_t bytes) = 0;
  virtual void release(const DeviceBuffer& buffer) = 0;
  // Frees what scratch() handed out, as the worker does after each plugin call.
  virtual void release_scratch() = 0;
};

struct PluginDeviceHost {
  std::unique_ptr<TestDeviceHost> host;  // null when there is none
  std::string skip_reason;               // why there is none
};

// Loads `plugin_id` from the build tree's plugin folder, builds its device library with kseek's NVRTC service for
// GPU 0's architecture (sm_90a, sm_100a, else sm_XY) as the evaluator does, and opens a session on GPU 0 whose
// DeviceHost::launch runs that library. No GPU, a GPU below compute capability `min_major` (`needs` says what needs
// it), or a plugin that does not load: a skip reason. A library that does not build, no session, no module: an error.
Result<PluginDeviceHost> open_plugin_device_host(std::string_view plugin_id, int min_major, std::string_view needs);

}  // namespace kseek::testing
