// The Plugin implementation every attention plugin shares: scenario names and layouts from the scenario library, sets
// and legality from the family the plugin passes in, the constraints every attention candidate meets, embedded files.
// It must never hold anything one family needs that another must not see: the family object answers those questions.
#pragma once

#include <string>
#include <vector>

#include "kseek/attention/attention_family.hpp"
#include "kseek/sdk/plugin.hpp"

namespace kseek::attention {

struct AttentionPluginSpec {
  const AttentionFamily& family;  // outlives the plugin (a static of the family's plugin library)
  std::string id;                 // "attention.<family>"
  std::string description;
  std::string version;
  std::string target_arch;           // NVRTC arch of the seed and of every scenario, e.g. "sm_90a"
  std::vector<SourceFile> embedded;  // seeds ("seed/<arch>.cu"), headers ("kseek/..."), packs ("packs/...json")
};

class AttentionPlugin : public Plugin {
 public:
  explicit AttentionPlugin(AttentionPluginSpec spec);

  PluginInfo info() const override;
  Result<std::vector<Scenario>> scenarios(std::string_view set_name) const override;
  Result<Scenario> scenario_from_name(std::string_view name) const override;
  Result<SourceFile> seed_source(std::string_view arch) const override;
  std::vector<SourceFile> candidate_headers() const override;
  Constraints default_constraints() const override;
  std::vector<SourceFile> question_packs() const override;

  // The GPU side (attention_workload.hpp): the layout of a scenario as one AttentionProblem, the embedded device
  // library, seeded inputs, and the fp32 gold and same-precision references. Not yet run on a GPU.
  Result<WorkloadLayout> workload_layout(const Scenario& scenario) const override;
  std::vector<SourceFile> device_library() const override;
  Result<void> fill_inputs(DeviceHost& host, const WorkloadLayout& layout, std::span<const DeviceBuffer> tensors,
                           std::uint64_t seed) const override;
  Result<void> compute_reference(DeviceHost& host, const WorkloadLayout& layout, std::span<const DeviceBuffer> tensors,
                                 std::span<const DeviceBuffer> gold,
                                 std::span<const DeviceBuffer> same_precision) const override;

 private:
  Scenario to_scenario(std::string id, std::string description, const AttentionConfig& config) const;

  AttentionPluginSpec spec_;
};

// No CUTLASS, CuTe, cuBLAS(Dx) or cuDNN in a candidate's binary, and no device-side launches.
Constraints attention_constraints();

}  // namespace kseek::attention
