// Loads the CUDA driver API at run time (dlopen of libcuda.so.1) and says plainly when there is none.
// It must never be linked against libcuda: kseek builds and checks on machines without a GPU driver.
#pragma once

#include <string>
#include <vector>

#include "kseek/sdk/result.hpp"

namespace kseek {

struct GpuDescription {
  int ordinal = 0;
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  std::size_t memory_bytes = 0;
};

struct DriverStatus {
  bool loaded = false;            // libcuda.so.1 was found and cuInit succeeded
  int driver_version = 0;         // e.g. 13000
  std::vector<GpuDescription> gpus;
  std::string problem;            // why no GPU can be used, for people; empty when one can
};

// Probes the driver in this process. Only the GPU worker and diagnostic commands call this.
DriverStatus probe_driver();

}  // namespace kseek
