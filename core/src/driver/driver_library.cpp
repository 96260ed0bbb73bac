// Minimal dlopen-based view of the driver API: enough to know whether a GPU can be used and which one.
// It must never create a CUDA context in the process that keeps verdicts and records.
#include "kseek/core/driver/driver_library.hpp"

#include <dlfcn.h>

#include <fmt/format.h>

namespace kseek {
namespace {

using CuResult = int;
using CuInit = CuResult (*)(unsigned);
using CuDriverGetVersion = CuResult (*)(int*);
using CuDeviceGetCount = CuResult (*)(int*);
using CuDeviceGet = CuResult (*)(int*, int);
using CuDeviceGetName = CuResult (*)(char*, int, int);
using CuDeviceGetAttribute = CuResult (*)(int*, int, int);
using CuDeviceTotalMem = CuResult (*)(std::size_t*, int);
using CuGetErrorName = CuResult (*)(CuResult, const char**);

constexpr int kAttributeComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kAttributeComputeCapabilityMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR

template <class F>
F symbol(void* library, const char* name) {
  return reinterpret_cast<F>(dlsym(library, name));
}

}  // namespace

DriverStatus probe_driver() {
  DriverStatus status;
  // The handle is kept open on purpose: unloading the driver while a process runs is never useful.
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    status.problem = fmt::format("no CUDA driver: libcuda.so.1 could not be loaded ({}); building and checking "
                                 "work without one, running a kernel needs a machine with an NVIDIA GPU and driver",
                                 why ? why : "unknown reason");
    return status;
  }
  auto init = symbol<CuInit>(library, "cuInit");
  auto get_version = symbol<CuDriverGetVersion>(library, "cuDriverGetVersion");
  auto get_count = symbol<CuDeviceGetCount>(library, "cuDeviceGetCount");
  auto get_device = symbol<CuDeviceGet>(library, "cuDeviceGet");
  auto get_name = symbol<CuDeviceGetName>(library, "cuDeviceGetName");
  auto get_attribute = symbol<CuDeviceGetAttribute>(library, "cuDeviceGetAttribute");
  auto total_mem = symbol<CuDeviceTotalMem>(library, "cuDeviceTotalMem_v2");
  auto error_name = symbol<CuGetErrorName>(library, "cuGetErrorName");
  if (!init || !get_version || !get_count || !get_device || !get_name || !get_attribute || !total_mem) {
    status.problem = "the CUDA driver library lacks basic entry points (cuInit, cuDeviceGet...); reinstall the driver";
    return status;
  }
  auto describe = [&](CuResult rc) {
    const char* name = nullptr;
    if (error_name != nullptr) error_name(rc, &name);
    return name ? std::string(name) : fmt::format("CUresult {}", rc);
  };
  if (CuResult rc = init(0); rc != 0) {
    status.problem = fmt::format("the CUDA driver is present but cuInit failed: {} (is a GPU visible to this "
                                 "process?)", describe(rc));
    return status;
  }
  get_version(&status.driver_version);
  int count = 0;
  if (CuResult rc = get_count(&count); rc != 0 || count == 0) {
    status.problem = rc != 0 ? fmt::format("cuDeviceGetCount failed: {}", describe(rc)) : "the driver sees no GPU";
    return status;
  }
  status.loaded = true;
  for (int i = 0; i < count; ++i) {
    int device = 0;
    if (get_device(&device, i) != 0) continue;
    GpuDescription gpu;
    gpu.ordinal = i;
    char name[256] = {};
    get_name(name, sizeof(name), device);
    gpu.name = name;
    get_attribute(&gpu.compute_capability_major, kAttributeComputeCapabilityMajor, device);
    get_attribute(&gpu.compute_capability_minor, kAttributeComputeCapabilityMinor, device);
    total_mem(&gpu.memory_bytes, device);
    status.gpus.push_back(std::move(gpu));
  }
  return status;
}

}  // namespace kseek
