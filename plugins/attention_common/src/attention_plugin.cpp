// Shared attention Plugin: adapts the scenario library to the SDK's value types.
// It must never let a scenario through that the family's legality rules reject, nor ask which family it serves.
#include "kseek/attention/attention_plugin.hpp"

#include <fmt/format.h>

#include "kseek/attention/attention_workload.hpp"

namespace kseek::attention {
namespace {

constexpr std::string_view kSeedPrefix = "seed/";
constexpr std::string_view kPackPrefix = "packs/";
constexpr std::string_view kHeaderPrefix = "kseek/";

bool starts_with(const std::string& text, std::string_view prefix) { return text.rfind(prefix, 0) == 0; }

}  // namespace

AttentionPlugin::AttentionPlugin(AttentionPluginSpec spec) : spec_(std::move(spec)) {}

PluginInfo AttentionPlugin::info() const {
  PluginInfo info;
  info.id = spec_.id;
  info.operator_name = "forward attention (varlen, paged KV)";
  info.description = spec_.description;
  info.version = spec_.version;
  info.target_archs = {spec_.target_arch};
  for (std::string_view set : {kCaseStudySet, kFullSet}) {
    auto scenarios = spec_.family.scenario_set(set);
    info.scenario_sets.push_back({std::string(set),
                                  set == kCaseStudySet ? "the 26 case-study configurations" : "the full campaign",
                                  scenarios ? scenarios->size() : 0});
  }
  info.default_set = std::string(kCaseStudySet);
  return info;
}

Scenario AttentionPlugin::to_scenario(std::string id, std::string description, const AttentionConfig& config) const {
  Scenario scenario;
  scenario.id = std::move(id);
  scenario.name = format_scenario_name(config);
  scenario.description = std::move(description);
  scenario.flops = static_cast<double>(flops(config));
  scenario.bytes = static_cast<double>(bytes(config));
  scenario.required_arch = spec_.target_arch;
  return scenario;
}

Result<std::vector<Scenario>> AttentionPlugin::scenarios(std::string_view set_name) const {
  auto named = spec_.family.scenario_set(set_name);
  if (!named) return named.error();
  std::vector<Scenario> out;
  out.reserve(named->size());
  for (const auto& s : *named) out.push_back(to_scenario(s.id, s.purpose, s.config));
  return out;
}

Result<Scenario> AttentionPlugin::scenario_from_name(std::string_view name) const {
  auto config = parse_scenario_name(name);
  if (!config) return config.error();
  if (auto legal = spec_.family.validate(*config); !legal) {
    return make_error(fmt::format("not runnable by {}: {}", spec_.id, legal.error().message));
  }
  return to_scenario("", "user scenario", *config);
}

Result<SourceFile> AttentionPlugin::seed_source(std::string_view arch) const {
  std::vector<std::string> available;
  for (const auto& file : spec_.embedded) {
    if (!starts_with(file.name, kSeedPrefix)) continue;
    const std::string file_arch = file.name.substr(kSeedPrefix.size(), file.name.rfind('.') - kSeedPrefix.size());
    if (file_arch == arch) return SourceFile{fmt::format("{}_seed_{}.cu", spec_.family.name(), arch), file.text};
    available.push_back(file_arch);
  }
  std::string list;
  for (const auto& a : available) list += (list.empty() ? "" : ", ") + a;
  return make_error(
      fmt::format("{} has no seed kernel for {} (seeds: {})", spec_.id, arch, list.empty() ? "none" : list));
}

std::vector<SourceFile> AttentionPlugin::candidate_headers() const {
  std::vector<SourceFile> headers;
  for (const auto& file : spec_.embedded) {
    if (starts_with(file.name, kHeaderPrefix)) headers.push_back(file);
  }
  return headers;
}

std::vector<SourceFile> AttentionPlugin::question_packs() const {
  std::vector<SourceFile> packs;
  for (const auto& file : spec_.embedded) {
    if (starts_with(file.name, kPackPrefix)) packs.push_back(file);
  }
  return packs;
}

Constraints AttentionPlugin::default_constraints() const { return attention_constraints(); }

Result<WorkloadLayout> AttentionPlugin::workload_layout(const Scenario& scenario) const {
  auto layout = make_workload_layout(scenario.name, spec_.family);
  if (!layout) return make_error(fmt::format("{}: {}", spec_.id, layout.error().message));
  return layout;
}

std::vector<SourceFile> AttentionPlugin::device_library() const { return attention_device_library(spec_.embedded); }

Result<void> AttentionPlugin::fill_inputs(DeviceHost& host, const WorkloadLayout& layout,
                                          std::span<const DeviceBuffer> tensors, std::uint64_t seed) const {
  if (auto ok = fill_attention_inputs(host, layout, tensors, seed); !ok) {
    return make_error(fmt::format("{}: {}", spec_.id, ok.error().message));
  }
  return Ok{};
}

Result<void> AttentionPlugin::compute_reference(DeviceHost& host, const WorkloadLayout& layout,
                                                std::span<const DeviceBuffer> tensors,
                                                std::span<const DeviceBuffer> gold,
                                                std::span<const DeviceBuffer> same_precision) const {
  if (auto ok = compute_attention_reference(host, layout, tensors, gold, same_precision); !ok) {
    return make_error(fmt::format("{}: {}", spec_.id, ok.error().message));
  }
  return Ok{};
}

Constraints attention_constraints() {
  // Patterns match a scope boundary so that `mycutlass::` or `cutlass_free` stay legal names.
  Constraints c;
  c.forbidden_symbols = {
      {"no-cutlass", "CUTLASS code is not allowed in an attention candidate", {R"((^|[^A-Za-z0-9_])cutlass::)"}},
      {"no-cute", "CuTe code is not allowed in an attention candidate", {R"((^|[^A-Za-z0-9_])cute::)"}},
      {"no-cublas",
       "cuBLAS / cuBLASDx / cuBLASLt are not allowed in an attention candidate",
       {"^cublas[A-Z_]", "^cublasLt", R"((^|[^A-Za-z0-9_])cublasdx::)"}},
      {"no-cudnn",
       "cuDNN is not allowed in an attention candidate",
       {"^cudnn[A-Z_]", R"((^|[^A-Za-z0-9_])cudnn(_frontend)?::)"}},
  };
  c.forbid_device_launch = true;
  c.max_cubin_bytes = 32ull << 20;
  c.compile_timeout_seconds = 300.0;
  return c;
}

}  // namespace kseek::attention
