// A toy operator (y = 2x over n floats) on the SDK's OperatorPlugin, with two sets (one the grammar refuses) and a
// set of embedded files: enough plugin for tests of what sits above the seam, no GPU and no library to load.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kseek/sdk/operator_plugin.hpp"

namespace kseek::testing {

struct ToyProblem {  // y = 2 * x over n floats
  const void* x;
  void* y;
  int n;
  int reserved;
};

inline OperatorDescription toy_description() {
  return {.id = "toy.double",
          .operator_name = "double",
          .description = "y = 2x",
          .version = "0.1.0",
          .target_archs = {"sm_90a"},
          .sets = {{"default", "two", {{"D01", "small", "n=100"}, {"D02", "odd", "n=77"}}},
                   {"broken", "a name the grammar refuses", {{"B01", "bad", "n=0"}}}},
          .candidate_headers = {"toy/problem.h"},
          .device_library = {"device/toy.cu", "toy/problem.h"},
          .fill_kernel = "toy_fill",
          .gold_kernel = "toy_gold",
          .same_precision_kernel = "toy_same"};
}

class ToyPlugin final : public OperatorPlugin<ToyProblem> {
 public:
  explicit ToyPlugin(std::vector<SourceFile> files)
      : OperatorPlugin(toy_description(), ScenarioGrammar().integer("n", 1, 1 << 20, "elements"), std::move(files)) {}
  Result<Scenario> describe(const ScenarioValues& v) const override {
    Scenario s;
    s.flops = double(v.integer("n"));
    s.bytes = 8.0 * double(v.integer("n"));
    return s;
  }
  Result<WorkloadLayout> layout(const ScenarioValues& v) const override {
    const auto n = std::uint64_t(v.integer("n"));
    WorkloadLayout out;
    out.tensors = {{"x", TensorRole::kInput, ElementType::kF32, n, offsetof(ToyProblem, x), false, {}},
                   {"y", TensorRole::kOutput, ElementType::kBF16, n, offsetof(ToyProblem, y), true, {}}};
    set_problem(out, ToyProblem{nullptr, nullptr, int(n), 0});
    return out;
  }
  HostLaunch fill_launch(const ToyProblem&) const override { return {{3, 1, 1}, {128, 1, 1}, 0}; }
  HostLaunch reference_launch(const ToyProblem& p) const override { return {{unsigned(p.n), 1, 1}, {32, 1, 1}, 0}; }
  Constraints default_constraints() const override { return {}; }
};

inline std::vector<SourceFile> all_files() {
  return {{"seed/sm_90a.cu", "seed"},
          {"toy/problem.h", "problem"},
          {"device/toy.cu", "device"},
          {"packs/toy.json", "{}"},
          {"notes.txt", "not a pack"}};
}

}  // namespace kseek::testing
