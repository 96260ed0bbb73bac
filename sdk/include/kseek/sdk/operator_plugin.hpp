// A base for operator plugins: the standard Plugin methods and the embedded-file conventions written once, so that a
// plugin is its operator — a scenario grammar, what a scenario costs, its workload layout, its constraints, and device
// kernels that receive the Problem itself. Header-only: plugins build against the installed SDK with nothing to link.
// It must never know an operator: everything it does follows from the description and the methods a subclass writes.
//
// Conventions (kseek_add_plugin's EMBED names): the seed for architecture ARCH is `seed/ARCH.cu`; question packs are
// every file under `packs/`; candidate headers and the device library are the names the description lists. The fill
// kernel takes kseek::FillArgs<Problem> (kseek/device/plugin_args.h), the two reference kernels the Problem with its
// compared outputs pointing at the gold (float) or same-precision buffers.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kseek/device/plugin_args.h"
#include "kseek/sdk/embedded_files.hpp"
#include "kseek/sdk/plugin.hpp"
#include "kseek/sdk/problem_binding.hpp"
#include "kseek/sdk/scenario_grammar.hpp"

namespace kseek {

// A scenario of a set is written as its name: the grammar reads it like a user's, so a set cannot hold a name that
// does not read back.
struct NamedScenario {
  std::string id;  // stable within the set: records refer to it
  std::string description;
  std::string name;
};

struct NamedSet {
  std::string name;
  std::string description;
  std::vector<NamedScenario> scenarios;
};

struct OperatorDescription {
  std::string id;  // the same literal as KSEEK_PLUGIN's
  std::string operator_name;
  std::string description;
  std::string version;
  std::vector<std::string> target_archs;       // one seed/ARCH.cu embedded for each
  std::vector<NamedSet> sets;                  // the first is the default set
  std::vector<std::string> candidate_headers;  // embedded include names
  std::vector<std::string> device_library;     // embedded include names, the main .cu first
  std::string fill_kernel;                     // extern "C" kernels of the device library
  std::string gold_kernel;
  std::string same_precision_kernel;
};

template <class Problem>
class OperatorPlugin : public Plugin {
 public:
  OperatorPlugin(OperatorDescription description, ScenarioGrammar grammar, std::vector<SourceFile> embedded)
      : d_(std::move(description)), grammar_(std::move(grammar)), files_(d_.id, std::move(embedded)) {}

  // ---- what the operator writes --------------------------------------------------------------------------------
  // The scenario a parsed name denotes: flops, bytes, required_arch (id, name and description are filled here).
  virtual Result<Scenario> describe(const ScenarioValues& values) const = 0;
  // Its tensors, tolerance and input sets, and the Problem with null pointers (set_problem).
  virtual Result<WorkloadLayout> layout(const ScenarioValues& values) const = 0;
  // Launch shapes of the device library's kernels for one problem.
  virtual HostLaunch fill_launch(const Problem& problem) const = 0;
  virtual HostLaunch reference_launch(const Problem& problem) const = 0;

  static void set_problem(WorkloadLayout& layout, const Problem& problem) {
    layout.problem.resize(sizeof(Problem));
    std::memcpy(layout.problem.data(), &problem, sizeof(Problem));
  }
  // Long names on purpose: inside a subclass, a member shadows a free function of the same name, and a constructor
  // that called an inherited grammar() for its own base's argument would read an unconstructed member.
  const ScenarioGrammar& scenario_grammar() const { return grammar_; }
  const EmbeddedFiles& embedded_files_of_plugin() const { return files_; }

  // ---- the Plugin methods, from the description ------------------------------------------------------------------
  PluginInfo info() const override {
    PluginInfo info{d_.id, d_.operator_name, d_.description, d_.version, d_.target_archs, {}, {}};
    for (const auto& set : d_.sets) info.scenario_sets.push_back({set.name, set.description, set.scenarios.size()});
    if (!d_.sets.empty()) info.default_set = d_.sets.front().name;
    return info;
  }

  Result<std::vector<Scenario>> scenarios(std::string_view set_name) const override {
    std::string known;
    for (const auto& set : d_.sets) {
      known += (known.empty() ? "" : ", ") + set.name;
      if (set.name != set_name) continue;
      std::vector<Scenario> out;
      for (const auto& entry : set.scenarios) {
        auto scenario = scenario_from_name(entry.name);
        if (!scenario)
          return make_error(d_.id + " set '" + set.name + "' " + entry.id + ": " + scenario.error().message);
        scenario->id = entry.id;
        scenario->description = entry.description;
        out.push_back(std::move(*scenario));
      }
      return out;
    }
    return make_error("unknown scenario set '" + std::string(set_name) + "' for " + d_.id + " (known: " + known + ")");
  }

  Result<Scenario> scenario_from_name(std::string_view name) const override {
    auto values = grammar_.parse(name);
    if (!values) return values.error();
    auto scenario = describe(*values);
    if (!scenario) return scenario.error();
    scenario->name = grammar_.canonical(*values);
    if (scenario->description.empty()) scenario->description = "user scenario";
    return scenario;
  }

  Result<SourceFile> seed_source(std::string_view arch) const override {
    std::string archs;
    bool targeted = false;
    for (const auto& target : d_.target_archs) {
      archs += (archs.empty() ? "" : ", ") + target;
      targeted = targeted || target == arch;
    }
    if (!targeted)
      return make_error(d_.id + " has no seed kernel for " + std::string(arch) + " (seeds: " + archs + ")");
    // Every declared name is checked here, the first thing an evaluation or `kseek conform` builds, because
    // candidate_headers() and device_library() cannot return an error.
    for (const auto& name : d_.candidate_headers) {
      if (auto file = files_.require(name, "candidate header"); !file) return file.error();
    }
    for (const auto& name : d_.device_library) {
      if (auto file = files_.require(name, "device library"); !file) return file.error();
    }
    auto seed = files_.require("seed/" + std::string(arch) + ".cu", "seed for " + std::string(arch));
    if (!seed) return seed.error();
    std::string ident = d_.id;
    for (char& c : ident) c = c == '.' ? '_' : c;
    return SourceFile{ident + "_seed_" + std::string(arch) + ".cu", seed->text};
  }

  std::vector<SourceFile> candidate_headers() const override { return named(d_.candidate_headers); }
  std::vector<SourceFile> question_packs() const override { return files_.under("packs/"); }
  std::vector<SourceFile> device_library() const override { return named(d_.device_library); }

  Result<WorkloadLayout> workload_layout(const Scenario& scenario) const override {
    auto values = grammar_.parse(scenario.name);
    if (!values)
      return make_error(d_.id + " workload_layout: scenario '" + scenario.name + "': " + values.error().message);
    auto out = layout(*values);
    if (!out) return make_error(d_.id + " workload_layout: scenario '" + scenario.name + "': " + out.error().message);
    out->plugin_context = grammar_.canonical(*values);
    return out;
  }

  Result<void> fill_inputs(DeviceHost& host, const WorkloadLayout& layout, std::span<const DeviceBuffer> tensors,
                           std::uint64_t seed) const override {
    auto problem = bind_problem<Problem>(layout, tensors);
    if (!problem) return make_error(d_.id + " fill_inputs: " + problem.error().message);
    const FillArgs<Problem> args{*problem, seed};
    return launch_all<FillArgs<Problem>>("fill_inputs", host, {{d_.fill_kernel, fill_launch(*problem), args}});
  }

  Result<void> compute_reference(DeviceHost& host, const WorkloadLayout& layout, std::span<const DeviceBuffer> tensors,
                                 std::span<const DeviceBuffer> gold,
                                 std::span<const DeviceBuffer> same_precision) const override {
    auto to_gold = bind_problem<Problem>(layout, tensors, BoundOutputs::kGold, gold);
    if (!to_gold) return make_error(d_.id + " compute_reference: " + to_gold.error().message);
    auto to_same = bind_problem<Problem>(layout, tensors, BoundOutputs::kSamePrecision, same_precision);
    if (!to_same) return make_error(d_.id + " compute_reference: " + to_same.error().message);
    return launch_all<Problem>("compute_reference", host,
                               {{d_.gold_kernel, reference_launch(*to_gold), *to_gold},
                                {d_.same_precision_kernel, reference_launch(*to_same), *to_same}});
  }

 private:
  template <class Params>
  struct Call {
    std::string kernel;
    HostLaunch dims;
    Params params;
  };

  // Launches in order, then waits, so that a fault is reported by the call that caused it.
  template <class Params>
  Result<void> launch_all(std::string_view call, DeviceHost& host, std::initializer_list<Call<Params>> calls) const {
    for (const auto& c : calls) {
      if (auto ok = host.launch(c.kernel, c.dims, &c.params, sizeof(Params)); !ok) {
        return make_error(d_.id + " " + std::string(call) + ": " + c.kernel + ": " + ok.error().message);
      }
    }
    if (auto ok = host.synchronize(); !ok)
      return make_error(d_.id + " " + std::string(call) + ": " + ok.error().message);
    return Ok{};
  }

  std::vector<SourceFile> named(const std::vector<std::string>& names) const {
    std::vector<SourceFile> out;
    for (const auto& name : names) {
      if (const auto* file = files_.find(name)) out.push_back(*file);
    }
    return out;
  }

  OperatorDescription d_;
  ScenarioGrammar grammar_;
  EmbeddedFiles files_;
};

}  // namespace kseek
