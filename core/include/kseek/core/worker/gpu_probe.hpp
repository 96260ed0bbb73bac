// What `kseek __worker --probe` writes for one GPU and the parent reads back: whether it can be used (and why not),
// its identity keys (gpu_description.hpp reads those), its measured copy bandwidth, and the peaks the parent rates
// kernels against. The record's `environment` is the first used GPU's probe (docs/result-schema.md).
// It must never decide whether a GPU is used: the scheduler does, from these fields.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kseek/sdk/result.hpp"

namespace kseek {

// The rates a kernel on this GPU is compared with: the data sheet's FLOP/s by name, the measured bandwidth where the
// probe measured one. `*_source` says which ("declared", "measured (...)", "unknown").
struct GpuPeaks {
  double dense_bf16_flops = 0;
  double fastest_flops = 0;  // the fastest precision's rate: the physics floor uses it so no real kernel is flagged
  std::string flops_source;
  double bytes_per_second = 0;
  std::string bytes_source;
};

struct GpuProbe {
  int ordinal = 0;  // added by the parent: the driver's device number
  bool available = false;
  std::string problem;                                    // why it cannot be used ("" when it can)
  std::optional<std::string> message;                     // a worker that failed before probing says why here
  std::optional<double> copy_bandwidth_bytes_per_second;  // measured device-to-device, read + write
  std::optional<GpuPeaks> peaks;                          // added by the parent to an available probe
  nlohmann::json unmodelled = nlohmann::json::object();   // the identity keys (name, uuid, ...) and anything else

  // Why the GPU is not used, for a person: the problem, else the worker's message, else "no GPU".
  std::string why_unavailable() const;
};

// Errors name the key (`GPU probe: available: expected true or false, found "yes"`).
Result<GpuProbe> gpu_probe_from_json(const nlohmann::json& probe);
nlohmann::json to_json(const GpuProbe& probe);

}  // namespace kseek
