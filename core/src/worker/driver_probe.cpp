// Whether a GPU can be used and which ones, through the one driver loader (driver_api.cpp).
// It must never create a CUDA context: `kseek doctor`, the GPU tests' skip decision and the worker's parent call it.
#include "kseek/core/worker/driver_probe.hpp"

#include <fmt/format.h>

#include "kseek/core/worker/driver_api.hpp"

namespace kseek {

DriverStatus probe_driver() {
  DriverStatus status;
  auto loaded = gpu::load_driver_api();
  if (!loaded) {
    status.problem = loaded.error().message + "; building and checking work without one";
    return status;
  }
  const gpu::DriverApi& api = **loaded;
  // cuInit and the device queries read the driver's state; none of them creates a context.
  if (CUresult rc = api.cuInit_fn(0); rc != CUDA_SUCCESS) {
    status.problem = gpu::describe_cuda_error(api, rc, "the CUDA driver is present but cuInit failed") +
                     " (is a GPU visible to this process?)";
    return status;
  }
  api.cuDriverGetVersion_fn(&status.driver_version);
  int count = 0;
  if (CUresult rc = api.cuDeviceGetCount_fn(&count); rc != CUDA_SUCCESS || count == 0) {
    status.problem =
        rc != CUDA_SUCCESS ? gpu::describe_cuda_error(api, rc, "cuDeviceGetCount failed") : "the driver sees no GPU";
    return status;
  }
  status.loaded = true;
  for (int i = 0; i < count; ++i) {
    CUdevice device = 0;
    if (api.cuDeviceGet_fn(&device, i) != CUDA_SUCCESS) continue;
    GpuDescription gpu;
    gpu.ordinal = i;
    char name[256] = {};
    api.cuDeviceGetName_fn(name, sizeof(name), device);
    gpu.name = name;
    api.cuDeviceGetAttribute_fn(&gpu.compute_capability_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
    api.cuDeviceGetAttribute_fn(&gpu.compute_capability_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
    std::size_t memory_bytes = 0;
    api.cuDeviceTotalMem_fn(&memory_bytes, device);
    gpu.memory_bytes = memory_bytes;
    status.gpus.push_back(std::move(gpu));
  }
  return status;
}

}  // namespace kseek
