// The GPU probe's one JSON reading and writing (json_binding: each key listed once).
// It must never drop a key it does not model: a stand-in worker's odd probe reaches the record as it was written.
#include "kseek/core/worker/gpu_probe.hpp"

#include "kseek/core/util/json_binding.hpp"

namespace kseek {

template <class Io>
void bind_keys(Io& io, GpuPeaks& v) {
  io("dense_bf16_flops", v.dense_bf16_flops);
  io("fastest_flops", v.fastest_flops);
  io("flops_source", v.flops_source);
  io("bytes_per_second", v.bytes_per_second);
  io("bytes_source", v.bytes_source);
  io.no_other_keys();
}

template <class Io>
void bind_keys(Io& io, GpuProbe& v) {
  io("ordinal", v.ordinal);
  io("available", v.available);
  io("problem", v.problem);
  io("message", v.message);
  io("copy_bandwidth_bytes_per_second", v.copy_bandwidth_bytes_per_second);
  io("peaks", v.peaks);
  io.unmodelled(v.unmodelled);
}

std::string GpuProbe::why_unavailable() const {
  if (!problem.empty()) return problem;
  if (message && !message->empty()) return *message;
  return "no GPU";
}

Result<GpuProbe> gpu_probe_from_json(const nlohmann::json& probe) {
  return json_binding::read_bound<GpuProbe>(probe, "GPU probe");
}

nlohmann::json to_json(const GpuProbe& probe) {
  nlohmann::json j = json_binding::write_bound(probe);
  if (probe.problem.empty()) j.erase("problem");  // an available probe has none to say
  return j;
}

}  // namespace kseek
