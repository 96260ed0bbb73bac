// The one description of a GPU on kseek's side: what the driver probe lists (`kseek doctor`), what the worker's session
// opened, what the parent schedules on, and the identity keys a probe and the record's `environment` carry
// (docs/result-schema.md). Plugins see the SDK's DeviceProperties instead: that is the plugin ABI, not this.
// It must never hold a measurement (copy bandwidth, peaks): those are the probe's, next to the description.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "kseek/sdk/result.hpp"

namespace kseek {

struct GpuDescription {
  int ordinal = 0;  // the driver's device number on the machine that saw it
  std::string name;
  std::string uuid;  // "GPU-..."; empty where it was not read (the driver probe)
  int driver_version = 0;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessors = 0;
  int l2_bytes = 0;
  std::uint64_t memory_bytes = 0;
  int sm_clock_khz = 0;
  int memory_clock_khz = 0;

  int sm() const { return compute_capability_major * 10 + compute_capability_minor; }  // 9.0 -> 90
  std::string compute_capability() const;                                              // "9.0"
};

// The identity keys of a probe and of the record's environment: name, uuid, driver_version, compute_capability ("9.0"),
// multiprocessors, l2_bytes, memory_bytes, sm_clock_khz, memory_clock_khz. Not the ordinal: the parent adds it to a
// probe, and a record names its GPU by UUID.
nlohmann::json identity_json(const GpuDescription& gpu);

// A probe's description (its "ordinal" included). A key it lacks keeps its default (a stand-in worker writes only a
// few); a key of the wrong type, or a compute capability that is not "M.m", is an error that names the key.
Result<GpuDescription> gpu_description_from_probe(const nlohmann::json& probe);

}  // namespace kseek
