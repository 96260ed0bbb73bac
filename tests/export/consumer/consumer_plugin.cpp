// The smallest out-of-tree plugin ("test.consumer"), written against the installed SDK alone.
// It must never include anything but the SDK's public headers.
#include <kseek/sdk/plugin.hpp>

namespace consumer {
std::vector<kseek::SourceFile> embedded_files();

class ConsumerPlugin final : public kseek::Plugin {
 public:
  kseek::PluginInfo info() const override {
    return {.id = "test.consumer",
            .operator_name = "copy",
            .description = "export test",
            .version = "0.0.1",
            .target_archs = {"sm_90a"},
            .scenario_sets = {{"one", "one case", 1}},
            .default_set = "one"};
  }
  kseek::Result<std::vector<kseek::Scenario>> scenarios(std::string_view set) const override {
    if (set != "one") return kseek::make_error("unknown set");
    return std::vector<kseek::Scenario>{{"C1", "n=256", "copy", 0, 2048, ""}};
  }
  kseek::Result<kseek::Scenario> scenario_from_name(std::string_view name) const override {
    return kseek::Scenario{"", std::string(name), "", 0, 0, ""};
  }
  kseek::Result<kseek::SourceFile> seed_source(std::string_view) const override { return embedded_files().front(); }
  std::vector<kseek::SourceFile> candidate_headers() const override { return {}; }
  kseek::Constraints default_constraints() const override { return {}; }
  std::vector<kseek::SourceFile> question_packs() const override { return {}; }
  kseek::Result<kseek::WorkloadLayout> workload_layout(const kseek::Scenario&) const override {
    return kseek::make_error("test.consumer has no GPU side: it only proves the SDK package builds and loads");
  }
  std::vector<kseek::SourceFile> device_library() const override { return {}; }
  kseek::Result<void> fill_inputs(kseek::DeviceHost&, const kseek::WorkloadLayout&,
                                  std::span<const kseek::DeviceBuffer>, std::uint64_t) const override {
    return kseek::make_error("test.consumer has no GPU side");
  }
  kseek::Result<void> compute_reference(kseek::DeviceHost&, const kseek::WorkloadLayout&,
                                        std::span<const kseek::DeviceBuffer>, std::span<const kseek::DeviceBuffer>,
                                        std::span<const kseek::DeviceBuffer>) const override {
    return kseek::make_error("test.consumer has no GPU side");
  }
};
}  // namespace consumer

KSEEK_PLUGIN(consumer::ConsumerPlugin, "test.consumer", "0.0.1")
