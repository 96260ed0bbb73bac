// Whether this process can use a GPU, and which ones: the driver found at run time (driver_api.hpp), said plainly
// when there is none. It must never be linked against libcuda: kseek builds and checks on machines without a driver.
#pragma once

#include <string>
#include <vector>

#include "kseek/core/worker/gpu_description.hpp"
#include "kseek/sdk/result.hpp"

namespace kseek {

struct DriverStatus {
  bool loaded = false;               // libcuda.so.1 was found and cuInit succeeded
  int driver_version = 0;            // e.g. 13000
  std::vector<GpuDescription> gpus;  // ordinal, name, compute capability and memory: what needs no context
  std::string problem;               // why no GPU can be used, for people; empty when one can
};

// Probes the driver in this process. Only the GPU worker and diagnostic commands call this.
DriverStatus probe_driver();

}  // namespace kseek
