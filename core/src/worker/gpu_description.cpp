// The GPU description's JSON: the identity keys a worker's probe writes and the parent reads back.
// It must never spell a key two ways: the record's environment keys are these (golden key-path test).
#include "kseek/core/worker/gpu_description.hpp"

#include <charconv>
#include <optional>

#include <fmt/format.h>

namespace kseek {
using nlohmann::json;

std::string GpuDescription::compute_capability() const {
  return fmt::format("{}.{}", compute_capability_major, compute_capability_minor);
}

json identity_json(const GpuDescription& gpu) {
  return {{"name", gpu.name},
          {"uuid", gpu.uuid},
          {"driver_version", gpu.driver_version},
          {"compute_capability", gpu.compute_capability()},
          {"multiprocessors", gpu.multiprocessors},
          {"l2_bytes", gpu.l2_bytes},
          {"memory_bytes", gpu.memory_bytes},
          {"sm_clock_khz", gpu.sm_clock_khz},
          {"memory_clock_khz", gpu.memory_clock_khz}};
}

namespace {

std::optional<std::string> read_key(const json& probe, const char* key, std::string& out) {
  const auto it = probe.find(key);
  if (it == probe.end()) return std::nullopt;
  if (!it->is_string()) return fmt::format("{}: expected a string, found {}", key, it->dump());
  out = it->get<std::string>();
  return std::nullopt;
}

template <class Integer>
std::optional<std::string> read_key(const json& probe, const char* key, Integer& out) {
  const auto it = probe.find(key);
  if (it == probe.end()) return std::nullopt;
  if (!it->is_number_integer()) return fmt::format("{}: expected an integer, found {}", key, it->dump());
  out = it->get<Integer>();
  return std::nullopt;
}

// "9.0" -> 9 and 0.
std::optional<std::string> read_compute_capability(const json& probe, GpuDescription& gpu) {
  std::string text;
  if (auto e = read_key(probe, "compute_capability", text)) return e;
  if (text.empty()) return std::nullopt;
  const auto dot = text.find('.');
  const char* end = text.data() + text.size();
  const bool ok =
      dot != std::string::npos &&
      std::from_chars(text.data(), text.data() + dot, gpu.compute_capability_major).ptr == text.data() + dot &&
      std::from_chars(text.data() + dot + 1, end, gpu.compute_capability_minor).ptr == end && dot > 0 &&
      dot + 1 < text.size();
  if (!ok) return fmt::format("compute_capability: expected \"major.minor\", found \"{}\"", text);
  return std::nullopt;
}

}  // namespace

Result<GpuDescription> gpu_description_from_probe(const json& probe) {
  if (!probe.is_object()) return make_error("GPU probe: expected a JSON object, found " + probe.dump());
  GpuDescription gpu;
  for (const auto& error :
       {read_key(probe, "ordinal", gpu.ordinal), read_key(probe, "name", gpu.name), read_key(probe, "uuid", gpu.uuid),
        read_key(probe, "driver_version", gpu.driver_version), read_compute_capability(probe, gpu),
        read_key(probe, "multiprocessors", gpu.multiprocessors), read_key(probe, "l2_bytes", gpu.l2_bytes),
        read_key(probe, "memory_bytes", gpu.memory_bytes), read_key(probe, "sm_clock_khz", gpu.sm_clock_khz),
        read_key(probe, "memory_clock_khz", gpu.memory_clock_khz)}) {
    if (error) return make_error("GPU probe: " + *error);
  }
  return gpu;
}

}  // namespace kseek
