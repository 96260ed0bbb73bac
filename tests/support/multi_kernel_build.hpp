// What the build pipelines' tests (per kernel, lto) share: a request that builds a small multi-kernel source for
// sm_90a with a pipeline and a process count of the test's choosing, and a build's kernels by name.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kseek/core/build/build_service.hpp"
#include "kseek/core/build/nvrtc_compiler.hpp"

namespace kseek::test {

inline CompileRequest multi_kernel_request(std::string source, BuildPipeline pipeline, int processes) {
  CompileRequest request;
  request.source = {"multi.cu", std::move(source)};
  request.headers = sdk_device_headers();
  request.arch = "sm_90a";
  request.timeout_seconds = 120;
  request.pipeline = pipeline;
  request.compile_threads = processes;
  return request;
}

inline std::map<std::string, KernelResources> resources_by_kernel(const std::vector<KernelResources>& kernels) {
  std::map<std::string, KernelResources> out;
  for (const auto& k : kernels) out[k.kernel] = k;
  return out;
}

}  // namespace kseek::test
