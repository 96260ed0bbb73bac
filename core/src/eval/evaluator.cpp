// One evaluation in the parent process, as a pipeline: the order (scenarios grouped by arch, the shard), the builds,
// the jobs, the GPUs (gpu_scheduler.cpp), the verdicts and the record. Costs and shards are shard_plan.cpp's, the
// summary record_summary.cpp's, the merge of shard records shard_merge.cpp's.
// It must never hold a CUDA context: everything that touches the GPU runs in `kseek __worker`.
#include "kseek/core/eval/evaluator.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include <cuda.h>
#include <fmt/format.h>

#include "evaluation_parts.hpp"
#include "kseek/core/build/background_build.hpp"
#include "kseek/core/build/nvrtc_compiler.hpp"
#include "kseek/core/eval/stage_summary.hpp"
#include "kseek/core/util/elapsed.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/sha256.hpp"
#include "kseek/core/util/shell.hpp"
#include "kseek/core/util/utc_time.hpp"
#include "kseek/core/worker/scenario_job.hpp"
#include "kseek/core/worker/worker_process.hpp"
#include "kseek/sdk/version.hpp"

namespace kseek {
namespace fs = std::filesystem;
using evaluation_parts::Clock;
using nlohmann::json;

std::vector<SourceFile> harness_embedded_files();  // generated from core/device/*.cu

namespace {

// A build as the record lists it: build/'s own JSON of the build (its log left out), read into the record's type.
RecordedBuild recorded_build(const std::string& role, const CandidateBuild& build) {
  json j = to_json(build);
  j["role"] = role;
  j.erase("log");
  auto recorded = recorded_build_from_json(j);
  // build_service.cpp writes every key the record models with the record's types; anything else is a bug there.
  if (!recorded)
    throw std::logic_error("the " + role + " build's JSON is not a record's build: " + recorded.error().message);
  return std::move(*recorded);
}

// The plugin device library's and the harness kernels' builds: a role, a status, a message and the time.
RecordedBuild recorded_build(const std::string& role, const CompileOutput& output) {
  RecordedBuild recorded;
  recorded.role = role;
  recorded.status = output.status;
  recorded.message = output.error;
  recorded.build_seconds = output.seconds;
  recorded.cache_hit = output.cache_hit;
  return recorded;
}

// The program each scenario's worker runs: the settings' own, a test's stand-in (KSEEK_TESTING=1 with
// KSEEK_WORKER_EXECUTABLE: the record is then marked "synthetic", docs/campaigns-runner.md), else this kseek.
struct WorkerProgram {
  fs::path executable;
  bool synthetic = false;
};

WorkerProgram worker_program(const EvaluationSettings& settings) {
  const char* testing = std::getenv("KSEEK_TESTING");
  const char* test_worker = std::getenv("KSEEK_WORKER_EXECUTABLE");
  const bool synthetic = settings.worker_executable.empty() && testing != nullptr && std::string_view(testing) == "1" &&
                         test_worker != nullptr && *test_worker != '\0';
  if (!settings.worker_executable.empty()) return {settings.worker_executable, false};
  if (synthetic) return {fs::path(test_worker), true};
  auto self = self_executable();
  if (!self) throw std::runtime_error(self.error().message);
  return {*self, false};
}

// The kseek that builds beside the candidate (`kseek __build`): the settings' worker executable, which is a kseek,
// else this very image through /proc/self/exe, which still opens after the file was replaced or deleted (a long
// `kseek mcp` outlives a rebuild) and so always computes the cache keys this process computes.
fs::path build_executable(const EvaluationSettings& settings) {
  if (!settings.worker_executable.empty()) return settings.worker_executable;
  return "/proc/self/exe";
}

// The record's opening: what was evaluated, with what, how. The plugin library is named by its file only: records
// are shared between people and machines.
EvaluationRecord record_header(const EvaluationInput& input, const EvaluationSettings& settings, const PluginInfo& info,
                               std::uint64_t input_seed) {
  EvaluationRecord record;
  record.kseek_version = KSEEK_SDK_VERSION;
  record.created_at = utc_timestamp();
  record.plugin.id = info.id;
  record.plugin.version = info.version;
  record.plugin.path = input.plugin->path.filename().string();
  record.candidate.file = input.candidate_path;
  record.candidate.sha256 = sha256_hex(input.candidate.text);
  record.input_seed = input_seed;
  RecordSettings& recorded = record.settings.emplace();
  recorded.measure_time = settings.measure_time;
  recorded.geomean_clamp = std::vector<double>{settings.geomean.clamp_low, settings.geomean.clamp_high};
  recorded.unmodelled = {{"target_relative_half_width", settings.sampling.target_relative_half_width},
                         {"min_rounds", settings.sampling.min_rounds},
                         {"settled_rounds", settings.sampling.settled_rounds},
                         {"max_rounds", settings.sampling.max_rounds},
                         {"time_budget_seconds", settings.sampling.time_budget_seconds},
                         {"scenario_timeout_seconds", settings.scenario_timeout_seconds}};
  recorded.reference_cache = settings.reference_cache.describe();
  if (!settings.functional_arch.empty()) {
    recorded.functional_arch = settings.functional_arch;
    record.timings_representative = false;
  }
  return record;
}

// A scenario in the evaluation's order: grouped by the arch it is built for; index i draws input_seed + 7919·i.
struct Planned {
  const Scenario* scenario;
  std::string arch;
  bool selected;  // in this shard
  double cost;    // estimated seconds (the shard split's weights)
};

std::map<std::string, std::vector<const Scenario*>> scenarios_by_arch(const EvaluationInput& input,
                                                                      const EvaluationSettings& settings,
                                                                      const PluginInfo& info) {
  std::map<std::string, std::vector<const Scenario*>> by_arch;
  for (const auto& s : input.scenarios) {
    const std::string& target = s.required_arch.empty() ? info.target_archs.front() : s.required_arch;
    by_arch[settings.functional_arch.empty() ? target : settings.functional_arch].push_back(&s);
  }
  return by_arch;
}

// Every scenario in order, and with --shard the ones this shard takes (recorded in record.shard).
std::vector<Planned> plan_order(const std::map<std::string, std::vector<const Scenario*>>& by_arch,
                                const EvaluationInput& input, const EvaluationSettings& settings,
                                EvaluationRecord& record) {
  std::vector<Planned> planned;
  for (const auto& [arch, scenarios] : by_arch) {
    for (const Scenario* s : scenarios) planned.push_back({s, arch, true, estimated_scenario_seconds(*s, settings)});
  }
  if (settings.shard.count == 0) return planned;
  std::vector<double> costs;
  for (const auto& p : planned) costs.push_back(p.cost);
  const std::vector<int> shard_of = split_into_shards(costs, settings.shard.count);
  ShardBlock& shard = record.shard.emplace();
  shard.index = settings.shard.index;
  shard.count = settings.shard.count;
  for (std::size_t i = 0; i < planned.size(); ++i) {
    planned[i].selected = shard_of[i] == settings.shard.index;
    shard.selection.push_back(planned[i].scenario->id);
    if (planned[i].selected) shard.scenarios.push_back(planned[i].scenario->id);
  }
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  shard.host = host;
  shard.unmodelled = {{"split", "cost-balanced: longest estimated first, each to the least loaded shard"},
                      {"set", input.set_name}};
  return planned;
}

// One arch's four binaries, written into the evaluation's work folder.
struct ArchBinaries {
  std::string candidate, seed, library, harness;
  bool ok = true;
};

// What the build stage leaves: the binaries per arch, the candidate's build verdict where it failed, and why the
// evaluation itself cannot go on (a seed, library or harness that does not build), if it cannot.
struct BuildStage {
  std::map<std::string, ArchBinaries> binaries;
  std::map<std::string, CandidateBuild> failed_candidates;  // by arch
  std::vector<RecordedBuild> list;
  std::string failure;  // "": the evaluation goes on
};

// The plugin device library's build request, when the plugin has device code.
std::optional<CompileRequest> plugin_library_request(const Plugin& plugin, const std::string& arch) {
  auto library_sources = plugin.device_library();
  if (library_sources.empty()) return std::nullopt;
  CompileRequest request;
  request.source = library_sources.front();
  request.headers.assign(library_sources.begin() + 1, library_sources.end());
  for (auto& h : sdk_device_headers()) request.headers.push_back(h);
  for (auto& h : plugin.candidate_headers()) request.headers.push_back(h);
  deduplicate_headers(request.headers);
  request.arch = arch;
  return request;
}

CompileRequest harness_request(const std::string& arch) {
  CompileRequest request;
  request.source = harness_kernels_source();
  request.arch = arch;
  return request;
}

// What the record says of a build that `beside` was asked to make: the other process's own time where it built it
// (the build here was then the cache read that followed), else why it did not, when the build here was not a hit.
void note_built_beside(RecordedBuild& recorded, const CompileOutput& here, const CompileRequest& request,
                       const BackgroundBuild& beside) {
  const auto seconds = beside.built_seconds(request);
  if (seconds && here.cache_hit) {
    recorded.build_seconds = *seconds;
    recorded.cache_hit = false;
    recorded.unmodelled["built_beside_the_candidate"] = true;
  } else if (seconds) {
    recorded.unmodelled["not_built_beside_the_candidate"] =
        "built there, but not read back from the build cache here (the store was refused or the entry discarded)";
  } else if (!here.cache_hit) {
    recorded.unmodelled["not_built_beside_the_candidate"] = beside.why_not_built(request);
  }
}

// Builds (no GPU needed) candidate, seed, plugin device library and harness kernels for every arch. Anything but the
// candidate failing to build is the evaluation's failure, not the candidate's verdict. A seed the plugin does not
// have ends the evaluation at once (returned as an error; record.seed is set for the archs that have one).
Result<BuildStage> build_binaries(const std::map<std::string, std::vector<const Scenario*>>& by_arch,
                                  const EvaluationInput& input, BuildService& builds, const fs::path& work,
                                  const fs::path& build_executable, EvaluationRecord& record) {
  const Plugin& plugin = *input.plugin->plugin;
  BuildStage stage;
  for (const auto& [arch, scenarios] : by_arch) {
    ArchBinaries& bin = stage.binaries[arch];
    auto seed = plugin.seed_source(arch);
    if (!seed) return seed.error();
    record.seed = SourceIdentity{seed->name, sha256_hex(seed->text), json::object()};
    const CompileRequest candidate_request = make_compile_request(plugin, input.candidate, arch, input.constraints);
    const CompileRequest seed_request = make_compile_request(plugin, *seed, arch, input.constraints);
    const std::optional<CompileRequest> library_request = plugin_library_request(plugin, arch);
    const CompileRequest harness = harness_request(arch);
    // What is not yet in the cache of the seed, the library and the harness builds in another kseek beside the
    // candidate (the two cold builds of a fresh machine were 28 s one after the other on an H200); the results come
    // back through the cache. Not the seed in an A/A run: there the candidate's build is the seed's.
    std::vector<CompileRequest> others;
    if (seed_request != candidate_request) others.push_back(seed_request);
    if (library_request) others.push_back(*library_request);
    others.push_back(harness);
    BackgroundBuild beside = BackgroundBuild::start(builds, others, build_executable);
    const CandidateBuild candidate_build = builds.build_and_check(candidate_request, input.constraints);
    beside.wait();
    const CandidateBuild seed_build = builds.build_and_check(seed_request, input.constraints);
    stage.list.push_back(recorded_build("candidate", candidate_build));
    stage.list.push_back(recorded_build("seed", seed_build));
    note_built_beside(stage.list.back(), seed_build.compile, seed_request, beside);
    CompileOutput library;
    library.status = Status::kOk;  // a plugin without device code has nothing to build; its worker says what is missing
    if (library_request) {
      library = builds.compile(*library_request);
      stage.list.push_back(recorded_build("plugin device library", library));
      note_built_beside(stage.list.back(), library, *library_request, beside);
    }
    const CompileOutput harness_build = builds.compile(harness);
    stage.list.push_back(recorded_build("harness kernels", harness_build));
    note_built_beside(stage.list.back(), harness_build, harness, beside);

    bin.candidate = (work / fmt::format("candidate-{}.cubin", arch)).string();
    bin.seed = (work / fmt::format("seed-{}.cubin", arch)).string();
    bin.library = (work / fmt::format("library-{}.cubin", arch)).string();
    bin.harness = (work / fmt::format("harness-{}.cubin", arch)).string();
    if (seed_build.status != Status::kOk) {
      stage.failure = "the seed does not build: " + seed_build.message;
    } else if (library.status != Status::kOk) {
      stage.failure = "the plugin's device library does not build: " + library.error;
    } else if (harness_build.status != Status::kOk) {
      stage.failure = "the harness kernels do not build: " + harness_build.error;
    }
    bin.ok = candidate_build.status == Status::kOk && seed_build.status == Status::kOk &&
             harness_build.status == Status::kOk && library.status == Status::kOk;
    if (candidate_build.status != Status::kOk) stage.failed_candidates[arch] = candidate_build;
    if (!bin.ok) continue;
    (void)write_file_atomically(bin.candidate, candidate_build.compile.cubin);
    (void)write_file_atomically(bin.seed, seed_build.compile.cubin);
    if (library.cubin.empty()) {
      bin.library.clear();
    } else {
      (void)write_file_atomically(bin.library, library.cubin);
    }
    (void)write_file_atomically(bin.harness, harness_build.cubin);
  }
  return stage;
}

// The jobs of the selected scenarios whose arch built; `position` gets each job's place in `planned`.
std::vector<PreparedScenario> prepare_jobs(const std::vector<Planned>& planned, const BuildStage& built,
                                           const EvaluationInput& input, const EvaluationSettings& settings,
                                           std::uint64_t input_seed, std::vector<std::size_t>& position) {
  const PluginInfo info = input.plugin->plugin->info();
  std::vector<PreparedScenario> prepared;
  for (std::size_t i = 0; i < planned.size(); ++i) {
    const ArchBinaries& bin = built.binaries.at(planned[i].arch);
    if (!planned[i].selected || !bin.ok) continue;
    PreparedScenario p;
    p.arch = planned[i].arch;
    p.estimated_seconds = planned[i].cost;
    p.job.plugin_path = input.plugin->path.string();
    p.job.plugin_id = info.id;
    p.job.scenario = *planned[i].scenario;
    p.job.candidate_cubin = bin.candidate;
    p.job.seed_cubin = bin.seed;
    p.job.plugin_library_cubin = bin.library;
    p.job.harness_cubin = bin.harness;
    p.job.input_seed = input_seed + 7919 * i;
    p.job.measure_time = settings.measure_time;
    p.job.sampling = settings.sampling;
    if (settings.reference_cache.on()) {
      p.job.reference_cache_folder = settings.reference_cache.folder.string();
      p.job.reference_cache_bytes = settings.reference_cache.max_bytes;
    }
    prepared.push_back(std::move(p));
    position.push_back(i);
  }
  return prepared;
}

// The record's environment: the toolkit, then the first usable GPU's probe (its identity, bandwidth and peaks), as the
// worker wrote it; with --gpus every probe, and why a probed GPU was not used.
RecordEnvironment record_environment(const UsableGpus& usable, const std::vector<GpuProbe>& probes, bool several_gpus) {
  json probe = to_json(usable.gpus.front().probe);
  probe.erase("ordinal");
  RecordEnvironment environment;
  if (auto read = record_environment_from_json(probe)) {
    environment = std::move(*read);
  } else {
    environment.unmodelled = std::move(probe);  // a stand-in worker's odd probe is kept as it was written
  }
  environment.nvrtc_version = nvrtc_version();
  environment.cuda_headers_version = fmt::format("{}.{}", CUDA_VERSION / 1000, (CUDA_VERSION % 1000) / 10);
  if (several_gpus) {
    environment.gpus = json::array();
    for (const auto& p : probes) environment.gpus->push_back(to_json(p));
  }
  if (!usable.not_used.empty()) environment.unmodelled["gpus_not_used"] = usable.not_used;  // busy, broken, other model
  return environment;
}

}  // namespace

ScenarioOutcome outcome_of_worker(const json& result, const PreparedScenario& prepared) {
  auto read = scenario_outcome_from_json(result);
  ScenarioOutcome outcome;
  if (read) {
    outcome = std::move(*read);
  } else {
    outcome.status = Status::kCrashed;
    outcome.message = "kseek could not read the GPU worker's result: " + read.error().message;
  }
  outcome.scenario = prepared.job.scenario.id;
  outcome.name = prepared.job.scenario.name;
  if (!outcome.input_seed) outcome.input_seed = prepared.job.input_seed;
  return outcome;
}

namespace {}  // namespace

std::string ReferenceCacheChoice::describe() const {
  if (on()) return "on";
  return off_because.empty() ? "off" : fmt::format("off ({})", off_because);
}

SourceFile harness_kernels_source() {
  for (auto& file : harness_embedded_files()) {
    if (file.name == "harness_kernels.cu") return file;
  }
  return {"harness_kernels.cu", ""};
}

json evaluate(const EvaluationInput& input, const EvaluationSettings& settings, BuildService& builds,
              const ProgressSink& progress) {
  const auto started = Clock::now();
  const PluginInfo info = input.plugin->plugin->info();
  std::uint64_t input_seed = settings.input_seed;
  if (input_seed == 0) input_seed = std::random_device{}() | (static_cast<std::uint64_t>(std::time(nullptr)) << 32);
  const WorkerProgram worker = worker_program(settings);
  const bool several_gpus = settings.all_devices || !settings.devices.empty();
  EvaluationRecord record = record_header(input, settings, info, input_seed);
  if (worker.synthetic) record.synthetic = true;
  const auto by_arch = scenarios_by_arch(input, settings, info);
  const std::vector<Planned> planned = plan_order(by_arch, input, settings, record);

  std::vector<std::optional<ScenarioOutcome>> verdicts(planned.size());  // by position in `planned`
  EvaluationPhases phases;
  const fs::path work = fs::temp_directory_path() / fmt::format("kseek-eval-{}-{}", ::getpid(), input_seed);
  fs::create_directories(work);
  // Every way out: the verdicts so far, the summary, the stage times, the work folder removed.
  const auto finish = [&](RecordStatus status) {
    std::vector<ScenarioOutcome> outcomes;
    for (auto& v : verdicts) {
      if (v) outcomes.push_back(std::move(*v));
    }
    if (status == RecordStatus::kComplete) {
      record.summary = summarize(outcomes, settings.geomean);
      record.wall_seconds = seconds_since(started);
    }
    record.status = status;
    phases.total = seconds_since(started);
    record.stage_seconds = stage_summary(phases, outcomes);
    if (!outcomes.empty() || status == RecordStatus::kComplete) record.scenarios = std::move(outcomes);
    fs::remove_all(work);
    return to_json(record);
  };

  // ---- builds (no GPU needed) ----------------------------------------------------------------------------------
  const auto builds_started = Clock::now();
  auto built = build_binaries(by_arch, input, builds, work, build_executable(settings), record);
  if (!built) {
    record.message = built.error().message;
    return finish(RecordStatus::kBuildFailed);
  }
  record.builds = built->list;
  RecordEnvironment& environment = record.environment.emplace();
  environment.nvrtc_version = nvrtc_version();
  environment.cuda_headers_version = fmt::format("{}.{}", CUDA_VERSION / 1000, (CUDA_VERSION % 1000) / 10);
  phases.build = seconds_since(builds_started);
  // The candidate's build verdict is every scenario's verdict where it did not build; nothing runs there.
  for (std::size_t i = 0; i < planned.size(); ++i) {
    const auto failed = built->failed_candidates.find(planned[i].arch);
    if (failed == built->failed_candidates.end() || !planned[i].selected) continue;
    const Scenario* s = planned[i].scenario;
    ScenarioOutcome& verdict = verdicts[i].emplace();
    verdict.scenario = s->id;
    verdict.name = s->name;
    verdict.status = failed->second.status;
    verdict.message = failed->second.message;
    if (progress) progress(to_json(verdict));
  }
  if (!built->failure.empty()) {
    record.message = built->failure;
    return finish(RecordStatus::kBuildFailed);
  }

  // ---- what needs a GPU (a candidate that did not build has its verdict already) ----------------------------------
  std::vector<std::size_t> position;  // each job's place in `planned`
  std::vector<PreparedScenario> prepared = prepare_jobs(planned, *built, input, settings, input_seed, position);
  if (prepared.empty()) return finish(RecordStatus::kComplete);

  // The devices, probed in workers (this process never holds a context).
  const auto probe_started = Clock::now();
  GpuSelection selection{several_gpus ? settings.devices : std::vector<int>{settings.device}, settings.all_devices};
  const std::vector<GpuProbe> probes = probe_gpus(worker.executable, selection, work);
  phases.probe = seconds_since(probe_started);
  const UsableGpus usable = usable_gpus(probes);
  if (usable.gpus.empty()) {
    record.message = fmt::format("needs a GPU: {}", usable.not_used.empty() ? "no GPU" : usable.not_used);
    return finish(RecordStatus::kNeedsGpu);
  }
  // The first GPU's identity stays where one GPU's always was; with --gpus, every probed one is listed too.
  record.environment = record_environment(usable, probes, several_gpus);

  // Scenarios, one worker each, on one GPU in order or on several from a shared queue.
  SchedulerOptions options;
  options.executable = worker.executable;
  options.work_folder = work;
  options.scenario_timeout_seconds = settings.scenario_timeout_seconds;
  options.time_budget_seconds = settings.sampling.time_budget_seconds;
  options.functional_arch = !settings.functional_arch.empty();
  options.largest_first = several_gpus;
  options.record_gpu = several_gpus;
  options.reuse_workers = !settings.worker_per_scenario;
  const auto scenarios_started = Clock::now();
  const std::vector<json> results = run_scenarios(prepared, usable.gpus, options, progress);
  phases.scenarios = seconds_since(scenarios_started);
  for (std::size_t k = 0; k < results.size(); ++k) verdicts[position[k]] = outcome_of_worker(results[k], prepared[k]);
  return finish(RecordStatus::kComplete);
}

}  // namespace kseek
