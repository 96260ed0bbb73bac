// Conformance checks of one loaded plugin: what kseek relies on before any campaign runs on it.
// It must never stop at the first problem of a check: a plugin author fixes them all from one report.
#include "kseek/core/plugin/plugin_conformance.hpp"

#include <set>

#include <fmt/format.h>

#include "kseek/core/build/build_service.hpp"
#include "kseek/core/questions/question_lint.hpp"
#include "kseek/core/questions/question_pack.hpp"

namespace kseek {
namespace {

class CheckBuilder {
 public:
  CheckBuilder(std::string name, std::string summary) {
    check_.name = std::move(name), check_.summary = std::move(summary);
  }
  template <class... Args>
  void problem(fmt::format_string<Args...> format, Args&&... args) {
    check_.problems.push_back(fmt::format(format, std::forward<Args>(args)...));
  }
  ConformanceCheck done() {
    check_.status = check_.problems.empty() ? "PASSED" : "FAILED";
    return std::move(check_);
  }

 private:
  ConformanceCheck check_;
};

ConformanceCheck descriptor_and_info(const LoadedPlugin& loaded) {
  CheckBuilder c("descriptor-and-info", "the descriptor matches info(); archs, sets and the default set are complete");
  const Plugin& plugin = *loaded.plugin;
  const PluginInfo info = plugin.info();
  if (info.id != loaded.id) c.problem("info().id is '{}', the descriptor says '{}'", info.id, loaded.id);
  if (info.version != loaded.version)
    c.problem("info().version is '{}', the descriptor says '{}'", info.version, loaded.version);
  if (info.operator_name.empty()) c.problem("info().operator_name is empty");
  if (info.target_archs.empty()) c.problem("info().target_archs is empty");
  for (const auto& arch : info.target_archs) {
    if (!arch.starts_with("sm_") || arch.size() < 5) c.problem("'{}' is not an NVRTC arch name (e.g. sm_90a)", arch);
  }
  std::set<std::string> names;
  for (const auto& set : info.scenario_sets) {
    if (!names.insert(set.name).second) c.problem("scenario set '{}' is listed twice", set.name);
    auto scenarios = plugin.scenarios(set.name);
    if (!scenarios) {
      c.problem("set '{}': {}", set.name, scenarios.error().message);
    } else if (scenarios->size() != set.size) {
      c.problem("info() announces {} scenarios in '{}', scenarios() returns {}", set.size, set.name, scenarios->size());
    }
  }
  if (info.scenario_sets.empty()) c.problem("info().scenario_sets is empty");
  if (!names.count(info.default_set)) c.problem("the default set '{}' is not listed", info.default_set);
  if (auto unknown = plugin.scenarios("no-such-set-of-scenarios"); unknown) {
    c.problem("an unknown set name is accepted; it must be an error naming the set");
  } else if (unknown.error().message.find("no-such-set-of-scenarios") == std::string::npos) {
    c.problem("the error for an unknown set does not name it: {}", unknown.error().message);
  }
  return c.done();
}

ConformanceCheck names_read_back(const Plugin& plugin) {
  CheckBuilder c("names-read-back", "ids and names unique per set; every name reads back to the same scenario");
  for (const auto& set : plugin.info().scenario_sets) {
    auto scenarios = plugin.scenarios(set.name);
    if (!scenarios) continue;  // descriptor-and-info reports it
    std::set<std::string> ids, names;
    for (const auto& s : *scenarios) {
      const std::string where = fmt::format("{}/{} '{}'", set.name, s.id, s.name);
      if (s.id.empty() || !ids.insert(s.id).second) c.problem("{}: id empty or repeated", where);
      if (!names.insert(s.name).second) c.problem("{}: name repeated", where);
      if (!(s.bytes > 0.0) || s.flops < 0.0) c.problem("{}: bytes must be > 0 and flops >= 0", where);
      auto parsed = plugin.scenario_from_name(s.name);
      if (!parsed) {
        c.problem("{}: does not read back: {}", where, parsed.error().message);
        continue;
      }
      if (parsed->name != s.name)
        c.problem("{}: reads back as '{}' (a set's names must be canonical)", where, parsed->name);
      if (parsed->flops != s.flops || parsed->bytes != s.bytes || parsed->required_arch != s.required_arch) {
        c.problem("{}: reads back with other flops, bytes or arch", where);
      }
      auto junk = plugin.scenario_from_name(s.name + ",no_such_key=1");
      if (junk) {
        c.problem("{}: an unknown key (no_such_key) is accepted", where);
      } else if (junk.error().message.find("no_such_key") == std::string::npos) {
        c.problem("{}: the error for an unknown key does not name it: {}", where, junk.error().message);
      }
    }
  }
  if (plugin.scenario_from_name("")) c.problem("an empty scenario name is accepted");
  if (plugin.scenario_from_name("not a scenario name")) c.problem("text without key=value is accepted");
  return c.done();
}

ConformanceCheck layouts(const Plugin& plugin) {
  CheckBuilder c("layouts", "every scenario lays out consistently, or is refused by name");
  for (const auto& set : plugin.info().scenario_sets) {
    auto scenarios = plugin.scenarios(set.name);
    if (!scenarios) continue;
    std::size_t laid_out = 0;
    for (const auto& s : *scenarios) {
      const std::string where = fmt::format("{}/{}", set.name, s.id);
      auto layout = plugin.workload_layout(s);
      if (!layout) {
        if (layout.error().message.find(s.name) == std::string::npos) {
          c.problem("{}: a refusal must name the scenario: {}", where, layout.error().message);
        }
        continue;
      }
      ++laid_out;
      if (layout->problem.empty()) c.problem("{}: the Problem struct is empty", where);
      if (layout->input_sets < 1) c.problem("{}: input_sets must be at least 1", where);
      const auto& t = layout->tolerance;
      if (!(t.max_factor > 0) || !(t.mean_factor > 0) || !(t.atol >= 0)) c.problem("{}: tolerance out of range", where);
      std::set<std::string> tensor_names;
      std::set<std::uint32_t> offsets;
      int compared = 0;
      double bytes = 0;
      for (const auto& tensor : layout->tensors) {
        if (!tensor_names.insert(tensor.name).second) c.problem("{}: tensor '{}' appears twice", where, tensor.name);
        bytes += static_cast<double>(tensor.elements * element_bytes(tensor.type));
        if (tensor.problem_offset != kNoProblemPointer) {
          if (tensor.elements == 0) c.problem("{}: tensor '{}' is empty", where, tensor.name);
          if (tensor.problem_offset + sizeof(void*) > layout->problem.size() ||
              tensor.problem_offset % alignof(void*) != 0 || !offsets.insert(tensor.problem_offset).second) {
            c.problem("{}: tensor '{}' has its pointer outside, misaligned or shared", where, tensor.name);
          }
        }
        if (tensor.role == TensorRole::kOutput && tensor.compared) ++compared;
      }
      if (compared < 1) c.problem("{}: no compared output: nothing would be checked", where);
      if (s.bytes > 2.0 * bytes + 1.0) c.problem("{}: bytes claims more traffic than the tensors hold", where);
    }
    if (laid_out == 0) c.problem("set '{}' has no scenario the plugin can lay out", set.name);
  }
  return c.done();
}

ConformanceCheck packs_lint(const Plugin& plugin) {
  CheckBuilder c("packs-lint", "the plugin's question packs parse and are lint-clean");
  for (const auto& file : plugin.question_packs()) {
    auto pack = parse_question_pack(file.text, file.name);
    if (!pack) {
      c.problem("{}", pack.error().message);
      continue;
    }
    for (const auto& f : lint_question_pack(*pack, file.text, file.name)) {
      if (f.severity == LintSeverity::kError) c.problem("{}:{}: {}: {}", file.name, f.line, f.rule, f.message);
    }
  }
  return c.done();
}

ConformanceCheck seed_builds(const Plugin& plugin, BuildService& service) {
  CheckBuilder c("seed-builds",
                 "the seed builds constraint-clean, without spills, with a kseek_plan, for every target");
  const auto constraints = plugin.default_constraints();
  for (const auto& arch : plugin.info().target_archs) {
    auto seed = plugin.seed_source(arch);
    if (!seed) {
      c.problem("{}: {}", arch, seed.error().message);
      continue;
    }
    const auto build = service.build_and_check(make_compile_request(plugin, *seed, arch, constraints), constraints);
    if (build.status != Status::kOk) {
      c.problem("{}: {}", arch, build.message);
      continue;
    }
    bool has_plan = false;
    for (const auto& kernel : build.compile.kernels) {
      has_plan = has_plan || kernel.kernel == "kseek_plan";
      if (kernel.spill_store_bytes > 0)
        c.problem("{}: kernel {} spills {} bytes", arch, kernel.kernel, kernel.spill_store_bytes);
    }
    if (!has_plan) c.problem("{}: the seed exports no kseek_plan (candidate ABI)", arch);
  }
  if (plugin.seed_source("sm_1")) c.problem("an architecture without a seed (sm_1) is accepted");
  return c.done();
}

ConformanceCheck device_library_builds(const Plugin& plugin, BuildService& service) {
  CheckBuilder c("device-library-builds", "the device library (inputs, references) builds for every target");
  const auto sources = plugin.device_library();
  if (sources.empty()) c.problem("no device library: inputs and references could not be made on a GPU");
  if (!sources.empty() && !sources.front().name.ends_with(".cu")) {
    c.problem("the main .cu file must come first, not {}", sources.front().name);
  }
  for (const auto& arch : plugin.info().target_archs) {
    if (sources.empty()) break;
    CompileRequest request;  // as the evaluator builds it: no toolkit headers
    request.source = sources.front();
    request.headers.assign(sources.begin() + 1, sources.end());
    for (auto& h : sdk_device_headers()) request.headers.push_back(h);
    for (auto& h : plugin.candidate_headers()) request.headers.push_back(h);
    deduplicate_headers(request.headers);
    request.arch = arch;
    const CompileOutput out = service.compile(request);
    if (out.status != Status::kOk) c.problem("{}: {}", arch, out.error);
  }
  return c.done();
}

}  // namespace

std::vector<ConformanceCheck> check_plugin_conformance(const LoadedPlugin& loaded, std::optional<BuildCache> cache) {
  const Plugin& plugin = *loaded.plugin;
  BuildService service(std::move(cache));
  std::vector<ConformanceCheck> checks = {
      descriptor_and_info(loaded), names_read_back(plugin),      layouts(plugin),
      packs_lint(plugin),          seed_builds(plugin, service), device_library_builds(plugin, service)};
  checks.push_back({"gpu",
                    "SKIPPED",
                    fmt::format("the GPU half is the seed against itself on a GPU: kseek eval --plugin {}", loaded.id),
                    {}});
  return checks;
}

std::filesystem::path conformance_cache_folder(const std::filesystem::path& folder) { return folder / "conform"; }

nlohmann::json to_json(const ConformanceCheck& check) {
  return {{"check", check.name}, {"status", check.status}, {"summary", check.summary}, {"problems", check.problems}};
}

}  // namespace kseek
