// The CUDA driver API, resolved at run time: dlopen("libcuda.so.1") and cuGetProcAddress for every entry
// point, at the API version of the headers we compiled against. It must never be linked against libcuda:
// only the GPU worker process loads it.
#pragma once

#include <cuda.h>

#include <string>

#include "kseek/sdk/result.hpp"

namespace kseek::gpu {

// One X per driver entry point, kept one line per group by hand (clang-format would stair-step the continuation).
// clang-format off
#define KSEEK_DRIVER_FUNCTIONS(X)                                                                                \
  X(cuInit) X(cuDriverGetVersion) X(cuDeviceGet) X(cuDeviceGetCount) X(cuDeviceGetName)                          \
  X(cuDeviceGetAttribute) X(cuDeviceGetUuid) X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain)                     \
  X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuModuleLoadData)                        \
  X(cuModuleGetFunction) X(cuModuleUnload) X(cuFuncGetAttribute) X(cuFuncSetAttribute) X(cuLaunchKernel)         \
  X(cuLaunchKernelEx) X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoD)                \
  X(cuMemsetD8Async) X(cuMemcpyDtoDAsync) X(cuMemGetInfo) X(cuStreamCreate) X(cuStreamDestroy)                   \
  X(cuStreamSynchronize) X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize)              \
  X(cuEventElapsedTime) X(cuGetErrorName) X(cuGetErrorString) X(cuTensorMapEncodeTiled) X(cuCtxSetLimit)         \
  X(cuCtxResetPersistingL2Cache) X(cuMemHostAlloc) X(cuMemFreeHost) X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync)  \
  X(cuStreamWaitEvent)
// clang-format on

struct DriverApi {
#define KSEEK_DRIVER_MEMBER(name) decltype(&name) name##_fn = nullptr;
  KSEEK_DRIVER_FUNCTIONS(KSEEK_DRIVER_MEMBER)
#undef KSEEK_DRIVER_MEMBER
};

// Loads the driver once per process; the error says plainly that a GPU and driver are needed.
Result<const DriverApi*> load_driver_api();

// "cuMemAlloc(1024 bytes): CUDA_ERROR_OUT_OF_MEMORY (out of memory)"
std::string describe_cuda_error(const DriverApi& api, CUresult rc, std::string_view what);

// A CUresult as a Result, naming the call.
Result<void> cuda_check(const DriverApi& api, CUresult rc, std::string_view what);

// True for errors after which the context is unusable (illegal address, trap, launch failure...).
bool is_sticky_cuda_error(CUresult rc);

}  // namespace kseek::gpu
