// Run-time binding of the driver API through cuGetProcAddress, so each entry point is the version the
// headers describe (cuMemAlloc -> cuMemAlloc_v2, ...). It must never call a function it failed to resolve.
#include "kseek/core/worker/driver_api.hpp"

#include <dlfcn.h>

#include <string_view>

#include <fmt/format.h>

namespace kseek::gpu {
namespace {

// The API version an entry point is resolved at: CUDA_VERSION, except where the default ABI at CUDA_VERSION is not
// the signature cuda.h declares, which is the type DriverApi calls it through. cudaTypedefs.h has
// cuCtxSynchronize(void) as v2000 and, from v13000, cuCtxSynchronize(CUcontext); asked at 13000 the driver returns the
// latter, and a call through the void type passes no context: on an H200 (driver 580, CUDA 13.0, 2026-12-02) every such
// call failed at once, so a worker could never tell a sticky fault apart or clean up after a scenario.
int abi_version(std::string_view name) {
  if (name == "cuCtxSynchronize") return 12000;
  return CUDA_VERSION;
}

Result<DriverApi> resolve() {
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    return make_error(
        fmt::format("no CUDA driver: libcuda.so.1 could not be loaded ({}); running kernels needs a "
                    "machine with an NVIDIA GPU and driver",
                    why ? why : "unknown reason"));
  }
  using GetProc = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
  auto get_proc = reinterpret_cast<GetProc>(dlsym(library, "cuGetProcAddress_v2"));
  if (get_proc == nullptr) {
    return make_error(
        fmt::format("the CUDA driver is too old: cuGetProcAddress_v2 is missing (kseek was built "
                    "against CUDA {}.{}); update the driver",
                    CUDA_VERSION / 1000, (CUDA_VERSION % 1000) / 10));
  }
  DriverApi api;
  std::string missing;
#define KSEEK_DRIVER_RESOLVE(name)                                                                       \
  {                                                                                                      \
    void* fn = nullptr;                                                                                  \
    CUdriverProcAddressQueryResult found{};                                                              \
    if (get_proc(#name, &fn, abi_version(#name), CU_GET_PROC_ADDRESS_DEFAULT, &found) == CUDA_SUCCESS && \
        found == CU_GET_PROC_ADDRESS_SUCCESS && fn != nullptr) {                                         \
      api.name##_fn = reinterpret_cast<decltype(api.name##_fn)>(fn);                                     \
    } else {                                                                                             \
      missing += (missing.empty() ? "" : ", ") + std::string(#name);                                     \
    }                                                                                                    \
  }
  KSEEK_DRIVER_FUNCTIONS(KSEEK_DRIVER_RESOLVE)
#undef KSEEK_DRIVER_RESOLVE
  if (!missing.empty()) {
    return make_error(
        fmt::format("the CUDA driver lacks {} at API version {} (update the driver)", missing, CUDA_VERSION));
  }
  return api;
}

}  // namespace

Result<const DriverApi*> load_driver_api() {
  static const Result<DriverApi> api = resolve();
  if (!api) return api.error();
  return &api.value();
}

std::string describe_cuda_error(const DriverApi& api, CUresult rc, std::string_view what) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.cuGetErrorName_fn) api.cuGetErrorName_fn(rc, &name);
  if (api.cuGetErrorString_fn) api.cuGetErrorString_fn(rc, &text);
  return fmt::format("{}: {} ({})", what, name ? name : fmt::format("CUresult {}", static_cast<int>(rc)),
                     text ? text : "no description");
}

Result<void> cuda_check(const DriverApi& api, CUresult rc, std::string_view what) {
  if (rc == CUDA_SUCCESS) return Ok{};
  return make_error(describe_cuda_error(api, rc, what));
}

bool is_sticky_cuda_error(CUresult rc) {
  switch (rc) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE: return true;
    default: return false;
  }
}

}  // namespace kseek::gpu
