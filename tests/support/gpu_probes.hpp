// Typed GPU probes from the JSON a worker would write, for scheduler tests that model several GPUs.
#pragma once

#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kseek/core/worker/gpu_probe.hpp"

namespace kseek::testing {

inline std::vector<GpuProbe> probes_of(const std::vector<nlohmann::json>& written) {
  std::vector<GpuProbe> probes;
  for (const auto& j : written) {
    auto probe = gpu_probe_from_json(j);
    EXPECT_TRUE(probe) << probe.error().message;
    if (probe) probes.push_back(std::move(*probe));
  }
  return probes;
}

}  // namespace kseek::testing
