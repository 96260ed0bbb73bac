// The plugin conformance suite, CPU part: every plugin of the build's plugin folder (and of the folders in
// $KSEEK_CONFORMANCE_PLUGIN_DIRS) loads cleanly, names its scenarios uniquely and reads each name back to the same
// scenario, lays out a workload for each, ships lint-clean question packs, and ships a seed and a device library that
// NVRTC compiles for each target, the seed within its own constraints. It must never need a GPU: nothing launches.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "kseek/core/build/build_service.hpp"
#include "kseek/core/questions/question_lint.hpp"
#include "kseek/core/questions/question_pack.hpp"
#include "support/conformance_plugins.hpp"

namespace kseek {
namespace {

using testing::conformance_plugin_ids;
using testing::conformance_registry;

const Plugin& plugin_named(const std::string& id) {
  const auto* loaded = conformance_registry().find(id);
  if (loaded == nullptr) throw std::runtime_error("plugin " + id + " vanished from the registry");
  return *loaded->plugin;
}

// A cache private to this build: the first run compiles cold, later runs of the suite reuse the cubins.
BuildService conformance_build_service() {
  return BuildService{BuildCache(std::filesystem::path(KSEEK_BINARY_DIR) / "conformance-nvrtc-cache")};
}

TEST(PluginConformance, EveryLibraryInThePluginFoldersLoads) {
  const auto& registry = conformance_registry();
  for (const auto& problem : registry.problems()) ADD_FAILURE() << problem.path << ": " << problem.message;
  const auto ids = conformance_plugin_ids();
  EXPECT_TRUE(std::find(ids.begin(), ids.end(), "example.softmax") != ids.end())
      << "the build's plugin folder " << KSEEK_TREE_PLUGIN_DIR << " lacks example.softmax";
  // The export test names the out-of-tree plugins it built, so a plugin that silently failed to load fails here.
  if (const char* expected = std::getenv("KSEEK_CONFORMANCE_EXPECT")) {
    std::stringstream list(expected);
    for (std::string id; std::getline(list, id, ',');) {
      EXPECT_TRUE(std::find(ids.begin(), ids.end(), id) != ids.end()) << "expected plugin " << id << " not loaded";
    }
  }
}

class Conformance : public ::testing::TestWithParam<std::string> {
 protected:
  const Plugin& plugin() const { return plugin_named(GetParam()); }
};

TEST_P(Conformance, DescriptorAndInfoAreComplete) {
  const auto* loaded = conformance_registry().find(GetParam());
  ASSERT_NE(loaded, nullptr);
  EXPECT_FALSE(loaded->build_fingerprint.empty());
  const PluginInfo info = plugin().info();
  EXPECT_EQ(info.id, GetParam()) << "info().id must equal the descriptor's id";
  EXPECT_EQ(info.version, loaded->version) << "info().version must equal the descriptor's version";
  EXPECT_FALSE(info.operator_name.empty());
  ASSERT_FALSE(info.target_archs.empty());
  for (const auto& arch : info.target_archs) {
    EXPECT_TRUE(arch.starts_with("sm_") && arch.size() >= 5) << "'" << arch << "' is not an NVRTC arch name";
  }
  ASSERT_FALSE(info.scenario_sets.empty());
  std::set<std::string> set_names;
  for (const auto& set : info.scenario_sets) {
    EXPECT_TRUE(set_names.insert(set.name).second) << "scenario set '" << set.name << "' is listed twice";
    auto scenarios = plugin().scenarios(set.name);
    ASSERT_TRUE(scenarios) << set.name << ": " << scenarios.error().message;
    EXPECT_EQ(scenarios->size(), set.size) << "info() announces " << set.size << " scenarios in '" << set.name << "'";
  }
  EXPECT_TRUE(set_names.count(info.default_set)) << "default set '" << info.default_set << "' is not listed";
  auto unknown = plugin().scenarios("no-such-set-of-scenarios");
  ASSERT_FALSE(unknown) << "an unknown set must be an error";
  EXPECT_NE(unknown.error().message.find("no-such-set-of-scenarios"), std::string::npos) << unknown.error().message;
}

TEST_P(Conformance, ScenarioNamesAreUniqueAndReadBackToTheSameScenario) {
  for (const auto& set : plugin().info().scenario_sets) {
    auto scenarios = plugin().scenarios(set.name);
    ASSERT_TRUE(scenarios) << scenarios.error().message;
    std::set<std::string> ids;
    std::set<std::string> names;
    for (const auto& s : *scenarios) {
      SCOPED_TRACE(set.name + "/" + s.id + " " + s.name);
      EXPECT_FALSE(s.id.empty());
      EXPECT_TRUE(ids.insert(s.id).second) << "id repeated in the set";
      EXPECT_TRUE(names.insert(s.name).second) << "name repeated in the set";
      EXPECT_GT(s.bytes, 0.0);
      EXPECT_GE(s.flops, 0.0);
      auto parsed = plugin().scenario_from_name(s.name);
      ASSERT_TRUE(parsed) << parsed.error().message;
      EXPECT_EQ(parsed->name, s.name) << "a set's name must be canonical: it reads back to itself";
      EXPECT_EQ(parsed->flops, s.flops);
      EXPECT_EQ(parsed->bytes, s.bytes);
      EXPECT_EQ(parsed->required_arch, s.required_arch);
      auto with_junk = plugin().scenario_from_name(s.name + ",no_such_key=1");
      EXPECT_FALSE(with_junk) << "an unknown key must be refused";
      if (!with_junk)
        EXPECT_NE(with_junk.error().message.find("no_such_key"), std::string::npos)
            << "the error must name the bad key: " << with_junk.error().message;
    }
  }
  EXPECT_FALSE(plugin().scenario_from_name("")) << "an empty name must be refused";
  EXPECT_FALSE(plugin().scenario_from_name("not a scenario name")) << "text without key=value must be refused";
}

// A plugin may list a scenario it refuses on purpose (the evaluator reports it NOT_RUNNABLE, e.g. a mask the Problem
// struct cannot express yet), but the refusal must name the scenario, each one is printed, and every set must have
// scenarios that lay out. The ones that do must be consistent.
TEST_P(Conformance, EveryScenarioLaysOutConsistentlyOrIsRefusedByName) {
  for (const auto& set : plugin().info().scenario_sets) {
    auto scenarios = plugin().scenarios(set.name);
    ASSERT_TRUE(scenarios) << scenarios.error().message;
    std::size_t laid_out = 0;
    for (const auto& s : *scenarios) {
      SCOPED_TRACE(set.name + "/" + s.id + " " + s.name);
      auto layout = plugin().workload_layout(s);
      if (!layout) {
        EXPECT_NE(layout.error().message.find(s.name), std::string::npos)
            << "a refusal must name the scenario: " << layout.error().message;
        std::cout << "NOTE: " << GetParam() << " refuses " << set.name << "/" << s.id << ": " << layout.error().message
                  << "\n";
        continue;
      }
      ++laid_out;
      ASSERT_FALSE(layout->problem.empty()) << "the candidate's Problem struct is missing";
      EXPECT_GE(layout->input_sets, 1u);
      EXPECT_GT(layout->tolerance.max_factor, 0.0);
      EXPECT_GT(layout->tolerance.mean_factor, 0.0);
      EXPECT_GE(layout->tolerance.atol, 0.0);
      std::set<std::string> tensor_names;
      std::set<std::uint32_t> offsets;
      int compared_outputs = 0;
      double bytes = 0;
      for (const auto& t : layout->tensors) {
        EXPECT_TRUE(tensor_names.insert(t.name).second) << "tensor '" << t.name << "' appears twice";
        bytes += static_cast<double>(t.elements * element_bytes(t.type));
        if (t.problem_offset != kNoProblemPointer) {  // a placeholder (no pointer) may be empty; a real tensor not
          EXPECT_GT(t.elements, 0u) << t.name;
          EXPECT_LE(t.problem_offset + sizeof(void*), layout->problem.size()) << t.name << "'s pointer is outside";
          EXPECT_EQ(t.problem_offset % alignof(void*), 0u) << t.name << "'s pointer is misaligned";
          EXPECT_TRUE(offsets.insert(t.problem_offset).second) << t.name << " shares its pointer slot";
        }
        if (t.role == TensorRole::kOutput && t.compared) ++compared_outputs;
      }
      EXPECT_GE(compared_outputs, 1) << "nothing would be checked";
      // The scenario's byte count is the minimum traffic: it may not exceed what its tensors hold, with slack for
      // plugins that count a tensor twice on purpose (e.g. read and written).
      EXPECT_LE(s.bytes, 2.0 * bytes + 1.0) << "bytes claims more traffic than the tensors hold";
    }
    EXPECT_GT(laid_out, 0u) << "set '" << set.name << "' has no scenario the plugin can lay out";
  }
}

TEST_P(Conformance, QuestionPacksAreLintClean) {
  for (const auto& pack_file : plugin().question_packs()) {
    auto pack = parse_question_pack(pack_file.text, pack_file.name);
    ASSERT_TRUE(pack) << pack_file.name << ": " << pack.error().message;
    const auto findings = lint_question_pack(*pack, pack_file.text, pack_file.name);
    for (const auto& f : findings) {
      if (f.severity == LintSeverity::kError)
        ADD_FAILURE() << pack_file.name << ":" << f.line << ": " << f.rule << " " << f.message;
    }
    EXPECT_FALSE(has_lint_errors(findings));
  }
}

TEST_P(Conformance, SeedBuildsConstraintCleanForEveryTarget) {
  const auto constraints = plugin().default_constraints();
  BuildService service = conformance_build_service();
  for (const auto& arch : plugin().info().target_archs) {
    auto seed = plugin().seed_source(arch);
    ASSERT_TRUE(seed) << arch << ": " << seed.error().message;
    const auto build = service.build_and_check(make_compile_request(plugin(), *seed, arch, constraints), constraints);
    ASSERT_EQ(build.status, Status::kOk) << arch << ": " << build.message << "\n" << build.compile.log;
    bool has_plan = false;
    for (const auto& kernel : build.compile.kernels) {
      has_plan = has_plan || kernel.kernel == "kseek_plan";
      EXPECT_EQ(kernel.spill_store_bytes, 0u) << kernel.kernel << " spills on " << arch;
    }
    EXPECT_TRUE(has_plan) << "the seed must export the candidate ABI's plan kernel";
  }
  EXPECT_FALSE(plugin().seed_source("sm_1")) << "an architecture without a seed must be an error";
}

TEST_P(Conformance, DeviceLibraryCompilesForEveryTarget) {
  const auto sources = plugin().device_library();
  ASSERT_FALSE(sources.empty()) << "no device library: inputs and references could not be made on the GPU";
  EXPECT_TRUE(sources.front().name.ends_with(".cu")) << "the main file comes first: " << sources.front().name;
  BuildService service = conformance_build_service();
  for (const auto& arch : plugin().info().target_archs) {
    CompileRequest request;  // as the evaluator builds it
    request.source = sources.front();
    request.headers.assign(sources.begin() + 1, sources.end());
    for (auto& h : sdk_device_headers()) request.headers.push_back(h);
    for (auto& h : plugin().candidate_headers()) request.headers.push_back(h);
    deduplicate_headers(request.headers);
    request.arch = arch;
    const CompileOutput out = service.compile(request);
    EXPECT_EQ(out.status, Status::kOk) << arch << ": " << out.error << "\n" << out.log;
  }
}

INSTANTIATE_TEST_SUITE_P(Plugins, Conformance, ::testing::ValuesIn(conformance_plugin_ids()),
                         [](const auto& info) { return testing::test_name_of(info.param); });

}  // namespace
}  // namespace kseek
