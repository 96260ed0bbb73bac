// The C++ interface an operator plugin implements, and the macro that exports it behind the C handshake.
// It must never grow except at the end, and never expose CUDA types: plugins load where no GPU exists.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kseek/sdk/plugin_abi.h"
#include "kseek/sdk/result.hpp"
#include "kseek/sdk/types.hpp"
#include "kseek/sdk/version.hpp"
#include "kseek/sdk/workload.hpp"

namespace kseek {

class Plugin {
 public:
  virtual ~Plugin() = default;

  // Who the plugin is: id, operator, target architectures, scenario sets.
  virtual PluginInfo info() const = 0;

  // Every scenario of a named set, in a stable order; an unknown set is an error listing the known ones.
  virtual Result<std::vector<Scenario>> scenarios(std::string_view set_name) const = 0;

  // Reads a user-written `key=value,...` name back into a scenario, or says which key is wrong and why.
  virtual Result<Scenario> scenario_from_name(std::string_view name) const = 0;

  // The shipped seed kernel for an architecture (one `.cu`, candidate ABI); the baseline of a campaign.
  virtual Result<SourceFile> seed_source(std::string_view arch) const = 0;

  // Headers a candidate may include (offered to NVRTC by include name), besides the SDK's device headers.
  virtual std::vector<SourceFile> candidate_headers() const = 0;

  // The constraints every candidate of this operator must meet unless a campaign overrides them.
  virtual Constraints default_constraints() const = 0;

  // The plugin's question packs (JSON text, docs/question-packs.md), e.g. its architecture pack.
  virtual std::vector<SourceFile> question_packs() const = 0;

  // ---- GPU side (runs inside the GPU worker only) -------------------------------------------------------

  // The tensors of a scenario, where their pointers sit in the candidate's Problem struct, the tolerance.
  virtual Result<WorkloadLayout> workload_layout(const Scenario& scenario) const = 0;

  // The plugin's own device code (input generation, fp32 and same-precision references), compiled by kseek's
  // NVRTC service for the GPU in use; the first file is the main one, the rest are headers it includes.
  virtual std::vector<SourceFile> device_library() const = 0;

  // Writes one input set into the input tensors (`tensors` is parallel to layout.tensors; the entries of outputs
  // are empty: address 0, 0 bytes). Deterministic in `seed`; must produce scales and outliers that make wrong kernels
  // fail (see docs/plugin-guide.md).
  virtual Result<void> fill_inputs(DeviceHost& host, const WorkloadLayout& layout,
                                   std::span<const DeviceBuffer> tensors, std::uint64_t seed) const = 0;

  // For every compared output k (in layout order): writes the fp32 reference into gold[k] (float elements)
  // and a reference computed in the output's own precision into same_precision[k] (the output's type). `tensors` is
  // the input set, as for fill_inputs (outputs' entries empty).
  virtual Result<void> compute_reference(DeviceHost& host, const WorkloadLayout& layout,
                                         std::span<const DeviceBuffer> tensors, std::span<const DeviceBuffer> gold,
                                         std::span<const DeviceBuffer> same_precision) const = 0;
};

}  // namespace kseek

// Exports the handshake and the factory for a Plugin subclass with a default constructor:
//   KSEEK_PLUGIN(kseek::plugins::fa3::Fa3Plugin, "attention.fa3", "0.1.0")
#define KSEEK_PLUGIN(PluginClass, plugin_id_literal, plugin_version_literal)                                          \
  extern "C" __attribute__((visibility("default"))) const kseek_plugin_descriptor_t* kseek_plugin_descriptor(void) {  \
    static const kseek_plugin_descriptor_t descriptor = {KSEEK_PLUGIN_ABI_VERSION, sizeof(kseek_plugin_descriptor_t), \
                                                         KSEEK_SDK_VERSION,        plugin_id_literal,                 \
                                                         plugin_version_literal,   KSEEK_BUILD_FINGERPRINT};          \
    return &descriptor;                                                                                               \
  }                                                                                                                   \
  extern "C" __attribute__((visibility("default"))) void* kseek_plugin_create(void) {                                 \
    try {                                                                                                             \
      return static_cast<kseek::Plugin*>(new PluginClass());                                                          \
    } catch (...) {                                                                                                   \
      return nullptr;                                                                                                 \
    }                                                                                                                 \
  }                                                                                                                   \
  extern "C" __attribute__((visibility("default"))) void kseek_plugin_destroy(void* plugin) {                         \
    delete static_cast<kseek::Plugin*>(plugin);                                                                       \
  }
