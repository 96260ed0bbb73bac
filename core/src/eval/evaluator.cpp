// Orchestration of an evaluation in the parent process: builds, worker processes on one GPU or several (a shared
// queue), watchdog, record; the shard split and the merge of shard records.
// It must never lose a scenario's verdict: a worker that dies or hangs becomes CRASHED or TIMEOUT for that
// scenario only, and the evaluation goes on with a fresh worker (on the same GPU, and on every other one).
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

#include "kseek/core/build/nvrtc_compiler.hpp"
#include "kseek/core/eval/stage_summary.hpp"
#include "kseek/core/worker/scenario_job.hpp"
#include "kseek/core/worker/worker_process.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/shell.hpp"
#include "kseek/core/util/utc_time.hpp"
#include "kseek/core/util/sha256.hpp"
#include "kseek/sdk/version.hpp"

namespace kseek {
namespace fs = std::filesystem;
using nlohmann::json;

std::vector<SourceFile> harness_embedded_files();  // generated from core/device/*.cu

namespace {

using Clock = std::chrono::steady_clock;

// An upper bound on a scenario's references over up to three input sets, from deliberately slow rates (attention's
// fp32 reference measured 3-4 TFLOP/s on an H200): the watchdog and the shard estimate both use it, so a large
// scenario is neither killed while its references run nor under-counted in a split.
double reference_seconds_bound(const Scenario& scenario) {
  constexpr double kReferenceFlopsPerSecond = 1e12;
  constexpr double kReferenceBytesPerSecond = 1e11;
  return 3.0 * (scenario.flops / kReferenceFlopsPerSecond + scenario.bytes / kReferenceBytesPerSecond);
}


// Data-sheet peaks by GPU name (dense tensor-core rates); the bandwidth is replaced by the measured one.
// The physics floor uses the fastest precision's rate so that no legitimate kernel is ever flagged.
struct DeclaredPeaks {
  const char* name_fragment;
  double dense_bf16_flops;
  double fastest_flops;
  double bytes_per_second;
};
constexpr DeclaredPeaks kDeclaredPeaks[] = {
    {"H200", 989e12, 1979e12, 4.8e12},
    {"H100", 989e12, 1979e12, 3.35e12},
    {"B200", 2250e12, 4500e12, 8.0e12},
    {"B300", 2250e12, 4500e12, 8.0e12},
};

std::optional<DeclaredPeaks> declared_peaks(const std::string& gpu_name) {
  for (const auto& p : kDeclaredPeaks) {
    if (gpu_name.find(p.name_fragment) != std::string::npos) return p;
  }
  return std::nullopt;
}

int compute_capability_of_arch(std::string_view arch) {  // "sm_90a" -> 90
  int value = 0;
  for (char c : arch) {
    if (c >= '0' && c <= '9') value = value * 10 + (c - '0');
  }
  return value;
}

json build_summary(const std::string& role, const CandidateBuild& build) {
  json j = to_json(build);
  j["role"] = role;
  j.erase("log");
  return j;
}

}  // namespace

SourceFile harness_kernels_source() {
  for (auto& file : harness_embedded_files()) {
    if (file.name == "harness_kernels.cu") return file;
  }
  return {"harness_kernels.cu", ""};
}

// ---- estimates, shards, GPU selection ------------------------------------------------------------------------------

// The references one scenario's worker may compute: reference_seconds_bound covers the correctness phase's input
// sets; timing adds its full checks, whose time stays off the sampling clock: the owed minimum, and (for scenarios
// large enough for the references to matter, which stop near the minimum number of rounds) about two drawn ones.
double worker_reference_seconds_bound(const Scenario& scenario, bool measure_time) {
  const double one_set = reference_seconds_bound(scenario) / 3.0;
  return reference_seconds_bound(scenario) +
         (measure_time ? one_set * static_cast<double>(kMinTimedReferenceChecks + 2) : 0.0);
}

double estimated_scenario_seconds(const Scenario& scenario, const EvaluationSettings& settings) {
  // Worker start-up and module loads, then the references, then timing.
  constexpr double kWorkerStartSeconds = 3.0;
  return kWorkerStartSeconds + worker_reference_seconds_bound(scenario, settings.measure_time) +
         (settings.measure_time ? settings.sampling.time_budget_seconds : 0.0);
}

std::vector<int> split_into_shards(const std::vector<double>& costs, int shards) {
  std::vector<std::size_t> order(costs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  std::vector<double> load(static_cast<std::size_t>(std::max(shards, 1)), 0.0);
  std::vector<int> shard_of(costs.size(), 0);
  for (std::size_t i : order) {
    const auto lightest = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    shard_of[i] = static_cast<int>(lightest);
    load[lightest] += costs[i];
  }
  return shard_of;
}

namespace {

std::optional<int> parse_non_negative(std::string_view text) {
  if (text.empty() || text.size() > 6) return std::nullopt;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

}  // namespace

Result<ShardSpec> parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  const auto index = slash == std::string_view::npos ? std::nullopt : parse_non_negative(text.substr(0, slash));
  const auto count = slash == std::string_view::npos ? std::nullopt : parse_non_negative(text.substr(slash + 1));
  if (!index || !count || *count < 1 || *index >= *count) {
    return make_error(fmt::format("--shard '{}': expected I/N with 0 <= I < N, e.g. 0/4", text));
  }
  return ShardSpec{*index, *count};
}

Result<GpuSelection> parse_gpu_selection(std::string_view text) {
  if (text == "all") return GpuSelection{{}, true};
  GpuSelection selection;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t comma = std::min(text.find(',', begin), text.size());
    const auto ordinal = parse_non_negative(text.substr(begin, comma - begin));
    if (!ordinal) return make_error(fmt::format("--gpus '{}': expected 'all' or GPU ordinals such as 0,1,3", text));
    if (std::find(selection.ordinals.begin(), selection.ordinals.end(), *ordinal) != selection.ordinals.end()) {
      return make_error(fmt::format("--gpus '{}': GPU {} is listed twice", text, *ordinal));
    }
    selection.ordinals.push_back(*ordinal);
    begin = comma + 1;
  }
  return selection;
}

// ---- probing and scheduling -------------------------------------------------------------------------------------

namespace {

// The declared FLOP/s and the measured (else declared) bandwidth, added to a probe as "peaks".
void add_peaks(json& probe) {
  const auto declared = declared_peaks(probe.value("name", ""));
  const double measured_bw = probe.value("copy_bandwidth_bytes_per_second", 0.0);
  probe["peaks"] = {{"dense_bf16_flops", declared ? declared->dense_bf16_flops : 0.0},
                    {"fastest_flops", declared ? declared->fastest_flops : 0.0},
                    {"flops_source", declared ? "declared" : "unknown"},
                    {"bytes_per_second", measured_bw > 0 ? measured_bw : (declared ? declared->bytes_per_second : 0.0)},
                    {"bytes_source", measured_bw > 0 ? "measured (device-to-device copy, read + write)" : "declared"}};
}

json probe_one(const fs::path& executable, int ordinal, const fs::path& work) {
  const fs::path file = work / fmt::format("probe-{}.json", ordinal);
  json probe = run_worker(executable, {"--probe", file.string(), "--device", std::to_string(ordinal)}, file, 60.0);
  if (!probe.is_object()) probe = {{"available", false}, {"problem", "the probe wrote no JSON object"}};
  if (!probe.contains("available")) probe["available"] = false;
  probe["ordinal"] = ordinal;
  if (probe.value("available", false)) add_peaks(probe);
  return probe;
}

std::vector<json> probe_concurrently(const fs::path& executable, const std::vector<int>& ordinals, const fs::path& work) {
  std::vector<json> probes(ordinals.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < ordinals.size(); ++i) {
    threads.emplace_back([&, i] { probes[i] = probe_one(executable, ordinals[i], work); });
  }
  for (auto& t : threads) t.join();
  return probes;
}

int compute_capability_of_probe(const json& probe) {  // "9.0" -> 90
  const std::string cc = probe.value("compute_capability", "0.0");
  const auto dot = cc.find('.');
  if (dot == std::string::npos) return 0;
  try {
    return std::stoi(cc.substr(0, dot)) * 10 + std::stoi(cc.substr(dot + 1));
  } catch (const std::exception&) {
    return 0;
  }
}

// The per-scenario worker launch: the job for this GPU, the watchdog, the physics floor. Never throws a verdict away.
json run_scenario_on_gpu(const PreparedScenario& prepared, std::size_t slot, const GpuTarget& gpu,
                         const SchedulerOptions& options) {
  const auto started = Clock::now();
  const Scenario& s = prepared.job.scenario;
  const std::string gpu_name = gpu.probe.value("name", "");
  const int device_cc = compute_capability_of_probe(gpu.probe);
  const int needed_cc = compute_capability_of_arch(prepared.arch);
  const auto declared = declared_peaks(gpu_name);
  json result;
  if (needed_cc / 10 != device_cc / 10 || needed_cc > device_cc) {
    result = {{"scenario", s.id}, {"name", s.name}, {"status", "NOT_RUNNABLE"},
              {"message", fmt::format("needs {} (compute capability {}.{}); this GPU is {} ({}.{})", prepared.arch,
                                      needed_cc / 10, needed_cc % 10, gpu_name, device_cc / 10, device_cc % 10)}};
  } else {
    ScenarioJob job = prepared.job;
    job.device = gpu.ordinal;
    const double measured_bw = gpu.probe.value("copy_bandwidth_bytes_per_second", 0.0);
    job.peak_flops = declared ? declared->dense_bf16_flops : 0.0;
    job.floor_flops = declared ? declared->fastest_flops : 0.0;
    job.peak_bytes_per_second = gpu.probe.contains("peaks") ? gpu.probe["peaks"].value("bytes_per_second", 0.0) : 0.0;
    job.peak_source = measured_bw > 0 ? "measured" : "declared";
    const fs::path job_file = options.work_folder / fmt::format("job-{}.json", slot);
    const fs::path result_file = options.work_folder / fmt::format("result-{}.json", slot);
    (void)write_file_atomically(job_file, json(job).dump(2));
    // The watchdog grows with the scenario's work: a 100-TFLOP prefill's references legitimately need minutes where
    // a hang on a small scenario does not.
    const double watchdog = options.scenario_timeout_seconds + options.time_budget_seconds +
                            worker_reference_seconds_bound(s, job.measure_time);
    result = run_worker(options.executable, {job_file.string(), result_file.string()}, result_file, watchdog);
    if (!result.is_object()) result = {{"status", "CRASHED"}, {"message", "the GPU worker's result is not a JSON object"}};
    result["scenario"] = s.id;
    result["name"] = s.name;
    if (options.functional_arch) {
      result["functional_arch"] = prepared.arch;  // built and run for this arch, not the scenario's own
      if (result.contains("timing")) result["timing"]["representative"] = false;
    }
  }
  if (options.record_gpu) result["gpu"] = {{"ordinal", gpu.ordinal}, {"uuid", gpu.probe.value("uuid", "")}};
  result["wall_seconds"] = std::chrono::duration<double>(Clock::now() - started).count();
  return result;
}

}  // namespace

std::vector<json> probe_gpus(const fs::path& executable, const GpuSelection& gpus, const fs::path& work_folder) {
  if (!gpus.all) return probe_concurrently(executable, gpus.ordinals, work_folder);
  // "all": the parent never loads the driver, so ordinals are probed in batches until one does not exist. A busy or
  // broken GPU is reported and the GPUs after it are still used; a batch in which nothing works (no driver) ends it.
  constexpr int kBatch = 8;
  constexpr int kMaxOrdinal = 64;
  std::vector<json> found;
  for (int first = 0; first < kMaxOrdinal; first += kBatch) {
    std::vector<int> batch;
    for (int i = first; i < first + kBatch; ++i) batch.push_back(i);
    bool any_available = false;
    for (auto& probe : probe_concurrently(executable, batch, work_folder)) {
      const bool available = probe.value("available", false);
      const bool past_the_end =
          !available && probe.value("problem", "").find("INVALID_DEVICE") != std::string::npos;
      if (past_the_end) {
        if (found.empty()) found.push_back(std::move(probe));  // no GPU at all: say why
        return found;
      }
      any_available = any_available || available;
      found.push_back(std::move(probe));
    }
    if (!any_available) return found;
  }
  return found;
}

UsableGpus usable_gpus(const std::vector<json>& probes) {
  UsableGpus usable;
  std::string& problems = usable.not_used;
  const auto add_problem = [&](const std::string& problem) {
    if (problems.find(problem) == std::string::npos) problems += (problems.empty() ? "" : "; ") + problem;
  };
  for (const auto& probe : probes) {
    const bool available = probe.value("available", false);
    if (available && !usable.gpus.empty() && probe.value("name", "") != usable.gpus.front().probe.value("name", "")) {
      // Ratios (and NOT_RUNNABLE verdicts) from two models do not make one geomean.
      add_problem(fmt::format("GPU {} ({}) is not used: it is another model than GPU {} ({})", probe.value("ordinal", 0),
                              probe.value("name", ""), usable.gpus.front().ordinal,
                              usable.gpus.front().probe.value("name", "")));
    } else if (available) {
      usable.gpus.push_back({probe.value("ordinal", 0), probe});
    } else {
      // Without a driver every probed ordinal gives the same reason: it is said once.
      add_problem(probe.value("problem", probe.value("message", std::string("no GPU"))));
    }
  }
  return usable;
}

std::vector<json> run_scenarios(const std::vector<PreparedScenario>& scenarios, const std::vector<GpuTarget>& gpus,
                                const SchedulerOptions& options, const ProgressSink& progress) {
  std::vector<std::size_t> queue(scenarios.size());
  for (std::size_t i = 0; i < queue.size(); ++i) queue[i] = i;
  if (options.largest_first) {  // the longest scenarios start first so that no GPU is left with one at the end
    std::stable_sort(queue.begin(), queue.end(), [&](std::size_t a, std::size_t b) {
      return scenarios[a].estimated_seconds > scenarios[b].estimated_seconds;
    });
  }
  std::vector<json> results(scenarios.size());
  std::mutex queue_mutex;  // guards next, retry and working
  std::size_t next = 0;
  std::vector<std::size_t> retry;  // scenarios handed back by a GPU that could not open a session
  std::size_t working = gpus.size();  // GPU threads still taking scenarios
  std::mutex progress_mutex;
  const auto take = [&]() -> std::optional<std::size_t> {
    const std::lock_guard lock(queue_mutex);
    if (next < queue.size()) return queue[next++];
    if (retry.empty()) {
      --working;  // this thread ends: a scenario handed back from now on must stay with its GPU
      return std::nullopt;
    }
    const std::size_t slot = retry.back();
    retry.pop_back();
    return slot;
  };
  auto drain = [&](const GpuTarget& gpu) {
    while (const auto taken = take()) {
      const std::size_t slot = *taken;
      try {
        results[slot] = run_scenario_on_gpu(scenarios[slot], slot, gpu, options);
      } catch (const std::exception& e) {
        // On a worker thread an escaped exception would terminate the process and lose every other verdict.
        const Scenario& scenario = scenarios[slot].job.scenario;
        results[slot] = json{{"scenario", scenario.id}, {"name", scenario.name}, {"status", "CRASHED"},
                             {"message", fmt::format("kseek could not read this scenario's result: {}", e.what())}};
      }
      if (results[slot].value("gpu_unusable", false)) {
        // A GPU that cannot open a session would stamp NOT_RUNNABLE on everything it takes, fast: while another GPU
        // thread still takes scenarios (it will see the retry list), it hands the scenario back and stops. The last
        // one keeps the verdict, so every scenario has one.
        const std::lock_guard lock(queue_mutex);
        if (working > 1) {
          --working;
          retry.push_back(slot);
          return;
        }
      }
      if (progress) {
        const std::lock_guard lock(progress_mutex);
        progress(results[slot]);
      }
    }
  };
  if (gpus.size() == 1) {
    drain(gpus.front());
  } else {
    std::vector<std::thread> threads;
    for (const auto& gpu : gpus) threads.emplace_back(drain, std::cref(gpu));
    for (auto& t : threads) t.join();
  }
  return results;
}

void summarize(json& record, const GeomeanOptions& geomean) {
  std::vector<RatioEstimate> estimates;
  std::vector<std::string> estimate_ids;
  json counts = json::object();
  const json scenarios = record.value("scenarios", json::array());
  for (const auto& r : scenarios) {
    const std::string status = r.value("status", "UNKNOWN");
    counts[status] = counts.value(status, 0) + 1;
    if (status != "PASSED" || !r.contains("timing")) continue;
    RatioEstimate e;
    const auto& t = r["timing"];
    e.rounds = t.value("rounds", 0);
    e.ratio = t.value("ratio", 1.0);
    e.ci_low = t.value("ci_low", 1.0);
    e.ci_high = t.value("ci_high", 1.0);
    e.confidence = t.value("confidence", 0.95);
    e.meets_confidence = t.value("meets_confidence", false);
    e.seed_median_seconds = t.value("seed_median_ms", 0.0) * 1e-3;
    e.candidate_median_seconds = t.value("candidate_median_ms", 0.0) * 1e-3;
    estimates.push_back(e);
    estimate_ids.push_back(r.value("scenario", ""));
  }
  record["summary"] = {{"scenarios", scenarios.size()}, {"status_counts", counts}};
  if (estimates.empty()) return;
  if (auto g = geomean_of_ratios(estimates, geomean); g) {
    json clamped = json::array();
    for (const auto& c : g->clamped) clamped.push_back({{"scenario", estimate_ids[c.index]}, {"raw", c.raw_ratio}, {"clamped", c.clamped_ratio}});
    record["summary"]["geomean"] = {{"value", g->geomean}, {"ci_low", g->ci_low}, {"ci_high", g->ci_high},
                                    {"scenarios", g->scenarios}, {"clamped", clamped}};
  }
}

// ---- the evaluation ---------------------------------------------------------------------------------------------

json evaluate(const EvaluationInput& input, const EvaluationSettings& settings, BuildService& builds,
              const ProgressSink& progress) {
  const auto started = Clock::now();
  const Plugin& plugin = *input.plugin->plugin;
  const PluginInfo info = plugin.info();
  std::uint64_t input_seed = settings.input_seed;
  if (input_seed == 0) input_seed = std::random_device{}() | (static_cast<std::uint64_t>(std::time(nullptr)) << 32);
  // Test-only (docs/campaigns-runner.md): with KSEEK_TESTING=1, KSEEK_WORKER_EXECUTABLE stands in for the GPU worker;
  // the record is marked "synthetic" and the campaign gate refuses such records unless KSEEK_TESTING=1 there too.
  const char* testing = std::getenv("KSEEK_TESTING");
  const char* test_worker = std::getenv("KSEEK_WORKER_EXECUTABLE");
  const bool synthetic = settings.worker_executable.empty() && testing != nullptr && std::string_view(testing) == "1" &&
                         test_worker != nullptr && *test_worker != '\0';
  auto self = self_executable();
  if (!self && settings.worker_executable.empty() && !synthetic) throw std::runtime_error(self.error().message);
  const fs::path executable = !settings.worker_executable.empty() ? settings.worker_executable
                              : synthetic                         ? fs::path(test_worker)
                                                                  : *self;
  const bool several_gpus = settings.all_devices || !settings.devices.empty();

  // The plugin library is named by its file only: records are shared between people and machines.
  json record = {{"schema", kEvalRecordSchema},
                 {"kseek_version", KSEEK_SDK_VERSION},
                 {"created_at", utc_timestamp()},
                 {"plugin", {{"id", info.id}, {"version", info.version}, {"path", input.plugin->path.filename().string()}}},
                 {"candidate", {{"file", input.candidate_path}, {"sha256", sha256_hex(input.candidate.text)}}},
                 {"input_seed", input_seed},
                 {"settings",
                  {{"measure_time", settings.measure_time},
                   {"target_relative_half_width", settings.sampling.target_relative_half_width},
                   {"min_rounds", settings.sampling.min_rounds},
                   {"max_rounds", settings.sampling.max_rounds},
                   {"time_budget_seconds", settings.sampling.time_budget_seconds},
                   {"scenario_timeout_seconds", settings.scenario_timeout_seconds},
                   {"geomean_clamp", {settings.geomean.clamp_low, settings.geomean.clamp_high}}}}};
  if (synthetic) record["synthetic"] = true;

  // ---- the evaluation order: scenarios grouped by the arch they are built for; index i draws input_seed + 7919·i --
  std::map<std::string, std::vector<const Scenario*>> by_arch;
  for (const auto& s : input.scenarios) {
    const std::string& target = s.required_arch.empty() ? info.target_archs.front() : s.required_arch;
    by_arch[settings.functional_arch.empty() ? target : settings.functional_arch].push_back(&s);
  }
  struct Planned {
    const Scenario* scenario;
    std::string arch;
    bool selected;  // in this shard
  };
  std::vector<Planned> planned;
  std::vector<double> costs;
  for (const auto& [arch, scenarios] : by_arch) {
    for (const Scenario* s : scenarios) {
      planned.push_back({s, arch, true});
      costs.push_back(estimated_scenario_seconds(*s, settings));
    }
  }
  if (settings.shard.count > 0) {
    const std::vector<int> shard_of = split_into_shards(costs, settings.shard.count);
    json selection = json::array(), mine = json::array();
    for (std::size_t i = 0; i < planned.size(); ++i) {
      planned[i].selected = shard_of[i] == settings.shard.index;
      selection.push_back(planned[i].scenario->id);
      if (planned[i].selected) mine.push_back(planned[i].scenario->id);
    }
    char host[256] = {};
    ::gethostname(host, sizeof(host) - 1);
    record["shard"] = {{"index", settings.shard.index}, {"count", settings.shard.count},
                       {"split", "cost-balanced: longest estimated first, each to the least loaded shard"},
                       {"set", input.set_name}, {"selection", selection}, {"scenarios", mine}, {"host", host}};
  }
  std::vector<std::optional<json>> verdicts(planned.size());  // by position in `planned`; what the record lists
  EvaluationPhases phases;
  const auto seconds_since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  auto list_verdicts = [&] {
    json list = json::array();
    for (const auto& v : verdicts) {
      if (v) list.push_back(*v);
    }
    if (!list.empty()) record["scenarios"] = list;
  };

  // ---- builds (no GPU needed) ----------------------------------------------------------------------------
  if (!settings.functional_arch.empty()) {
    record["settings"]["functional_arch"] = settings.functional_arch;
    record["timings_representative"] = false;
  }
  const fs::path work = fs::temp_directory_path() / fmt::format("kseek-eval-{}-{}", ::getpid(), input_seed);
  fs::create_directories(work);
  struct ArchBinaries {
    std::string candidate, seed, library, harness;
    bool ok = true;
  };
  std::map<std::string, ArchBinaries> binaries;
  json build_list = json::array();
  bool builds_ok = true;
  const auto builds_started = Clock::now();
  for (const auto& [arch, scenarios] : by_arch) {
    ArchBinaries& bin = binaries[arch];
    auto seed = plugin.seed_source(arch);
    if (!seed) {
      record["status"] = "BUILD_FAILED";
      record["message"] = seed.error().message;
      return record;
    }
    record["seed"] = {{"file", seed->name}, {"sha256", sha256_hex(seed->text)}};
    const CandidateBuild candidate_build = builds.build_and_check(make_compile_request(plugin, input.candidate, arch, input.constraints), input.constraints);
    const CandidateBuild seed_build = builds.build_and_check(make_compile_request(plugin, *seed, arch, input.constraints), input.constraints);
    build_list.push_back(build_summary("candidate", candidate_build));
    build_list.push_back(build_summary("seed", seed_build));
    auto library_sources = plugin.device_library();
    CompileOutput library;
    library.status = Status::kOk;  // a plugin without device code has nothing to build; its worker says what is missing
    if (!library_sources.empty()) {
      CompileRequest request;
      request.source = library_sources.front();
      request.headers.assign(library_sources.begin() + 1, library_sources.end());
      for (auto& h : sdk_device_headers()) request.headers.push_back(h);
      for (auto& h : plugin.candidate_headers()) request.headers.push_back(h);
      deduplicate_headers(request.headers);
      request.arch = arch;
      library = builds.compile(request);
      build_list.push_back({{"role", "plugin device library"}, {"status", to_string(library.status)}, {"message", library.error}});
    }
    CompileRequest harness_request;
    harness_request.source = harness_kernels_source();
    harness_request.arch = arch;
    const CompileOutput harness = builds.compile(harness_request);
    build_list.push_back({{"role", "harness kernels"}, {"status", to_string(harness.status)}, {"message", harness.error}});

    bin.candidate = (work / fmt::format("candidate-{}.cubin", arch)).string();
    bin.seed = (work / fmt::format("seed-{}.cubin", arch)).string();
    bin.library = (work / fmt::format("library-{}.cubin", arch)).string();
    bin.harness = (work / fmt::format("harness-{}.cubin", arch)).string();
    // Anything but the candidate failing to build is the evaluation's failure, not the candidate's verdict.
    if (seed_build.status != Status::kOk) {
      builds_ok = false;
      record["message"] = "the seed does not build: " + seed_build.message;
    } else if (library.status != Status::kOk) {
      builds_ok = false;
      record["message"] = "the plugin's device library does not build: " + library.error;
    } else if (harness.status != Status::kOk) {
      builds_ok = false;
      record["message"] = "the harness kernels do not build: " + harness.error;
    }
    bin.ok = candidate_build.status == Status::kOk && seed_build.status == Status::kOk &&
             harness.status == Status::kOk && library.status == Status::kOk;
    if (candidate_build.status != Status::kOk) {
      // The candidate's build verdict is every scenario's verdict; nothing runs.
      for (std::size_t i = 0; i < planned.size(); ++i) {
        if (planned[i].arch != arch || !planned[i].selected) continue;
        const Scenario* s = planned[i].scenario;
        verdicts[i] = json{{"scenario", s->id}, {"name", s->name}, {"status", to_string(candidate_build.status)}, {"message", candidate_build.message}};
        if (progress) progress(*verdicts[i]);
      }
      continue;
    }
    if (!bin.ok) continue;
    (void)write_file_atomically(bin.candidate, candidate_build.compile.cubin);
    (void)write_file_atomically(bin.seed, seed_build.compile.cubin);
    if (library.cubin.empty()) {
      bin.library.clear();
    } else {
      (void)write_file_atomically(bin.library, library.cubin);
    }
    (void)write_file_atomically(bin.harness, harness.cubin);
  }
  record["builds"] = build_list;
  phases.build = seconds_since(builds_started);
  record["environment"] = {{"nvrtc_version", nvrtc_version()}, {"cuda_headers_version", fmt::format("{}.{}", CUDA_VERSION / 1000, (CUDA_VERSION % 1000) / 10)}};
  list_verdicts();
  if (!builds_ok) {
    record["status"] = "BUILD_FAILED";
    phases.total = seconds_since(started);
    record["stage_seconds"] = stage_summary(phases, json::array());
    fs::remove_all(work);
    return record;
  }

  // ---- what needs a GPU (a candidate that did not build has its verdict already) ----------------------------------
  std::vector<PreparedScenario> prepared;
  std::vector<std::size_t> prepared_position;  // its place in `planned`
  for (std::size_t i = 0; i < planned.size(); ++i) {
    const ArchBinaries& bin = binaries[planned[i].arch];
    if (!planned[i].selected || !bin.ok) continue;
    PreparedScenario p;
    p.arch = planned[i].arch;
    p.estimated_seconds = costs[i];
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
    prepared.push_back(std::move(p));
    prepared_position.push_back(i);
  }
  auto complete = [&] {
    list_verdicts();
    if (!record.contains("scenarios")) record["scenarios"] = json::array();
    summarize(record, settings.geomean);
    record["status"] = "COMPLETE";
    record["wall_seconds"] = std::chrono::duration<double>(Clock::now() - started).count();
    phases.total = record["wall_seconds"].get<double>();
    record["stage_seconds"] = stage_summary(phases, record["scenarios"]);
    fs::remove_all(work);
    return record;
  };
  if (prepared.empty()) return complete();

  // ---- the devices, probed in workers (this process never holds a context) ------------------------------------------
  GpuSelection selection{several_gpus ? settings.devices : std::vector<int>{settings.device}, settings.all_devices};
  const auto probe_started = Clock::now();
  const std::vector<json> probes = probe_gpus(executable, selection, work);
  phases.probe = seconds_since(probe_started);
  auto [gpus, problems] = usable_gpus(probes);
  if (gpus.empty()) {
    record["status"] = "NEEDS_GPU";
    record["message"] = fmt::format("needs a GPU: {}", problems.empty() ? "no GPU" : problems);
    phases.total = seconds_since(started);
    record["stage_seconds"] = stage_summary(phases, json::array());
    fs::remove_all(work);
    return record;
  }
  // The first GPU's identity stays where one GPU's always was; with --gpus, every probed one is listed too.
  for (auto& [key, value] : gpus.front().probe.items()) {
    if (key != "ordinal") record["environment"][key] = value;
  }
  if (several_gpus) record["environment"]["gpus"] = probes;
  if (!problems.empty()) record["environment"]["gpus_not_used"] = problems;  // busy, broken or another model

  // ---- scenarios, one worker each, on one GPU in order or on several from a shared queue --------------------------
  SchedulerOptions options;
  options.executable = executable;
  options.work_folder = work;
  options.scenario_timeout_seconds = settings.scenario_timeout_seconds;
  options.time_budget_seconds = settings.sampling.time_budget_seconds;
  options.functional_arch = !settings.functional_arch.empty();
  options.largest_first = several_gpus;
  options.record_gpu = several_gpus;
  const auto scenarios_started = Clock::now();
  std::vector<json> results = run_scenarios(prepared, gpus, options, progress);
  phases.scenarios = seconds_since(scenarios_started);
  for (std::size_t k = 0; k < results.size(); ++k) {
    results[k]["input_seed"] = results[k].value("input_seed", prepared[k].job.input_seed);
    verdicts[prepared_position[k]] = std::move(results[k]);
  }
  return complete();
}

// ---- merging shard records ---------------------------------------------------------------------------------------

namespace {

// `a.b.c` of a record, or null.
json at_path(const json& record, std::string_view path) {
  const json* node = &record;
  std::size_t begin = 0;
  while (begin <= path.size()) {
    const std::size_t dot = std::min(path.find('.', begin), path.size());
    const std::string key(path.substr(begin, dot - begin));
    if (!node->is_object() || !node->contains(key)) return nullptr;
    node = &(*node)[key];
    begin = dot + 1;
  }
  return *node;
}

std::string brief(const json& value) {
  std::string text = value.is_null() ? "(absent)" : value.dump();
  if (text.size() > 120) text = text.substr(0, 117) + "...";
  return text;
}

// The GPUs a shard used: its environment.gpus (with --gpus), else its single GPU's identity.
json shard_gpus(const json& record, int shard, const std::string& host) {
  json gpus = json::array();
  const json environment = record.value("environment", json::object());
  if (environment.contains("gpus")) {
    gpus = environment["gpus"];
  } else if (environment.contains("uuid")) {
    json gpu = environment;
    gpu.erase("nvrtc_version");
    gpu.erase("cuda_headers_version");
    gpus.push_back(gpu);
  }
  for (auto& gpu : gpus) {
    gpu["shard"] = shard;
    gpu["host"] = host;
  }
  return gpus;
}

}  // namespace

Result<json> merge_shard_records(const std::vector<RecordFile>& shards) {
  if (shards.empty()) return make_error("merge: no records given");
  for (const auto& s : shards) {
    if (!s.record.is_object() || s.record.value("schema", "") != kEvalRecordSchema) {
      return make_error(fmt::format("{}: not a {} record (schema {})", s.file, kEvalRecordSchema,
                                    brief(s.record.is_object() ? at_path(s.record, "schema") : json(nullptr))));
    }
    if (!s.record.contains("shard") || !s.record["shard"].is_object()) {
      return make_error(fmt::format("{}: not a shard record (no \"shard\" block: it was written without --shard)", s.file));
    }
  }
  // Everything that makes the shards parts of one evaluation must agree (the plugin's path may differ per node).
  const RecordFile& first = shards.front();
  constexpr std::string_view kMustAgree[] = {"kseek_version", "plugin.id", "plugin.version", "candidate.sha256",
                                             "seed.sha256", "input_seed", "settings", "synthetic", "shard.count",
                                             "shard.set", "shard.selection"};
  for (const auto& s : shards) {
    for (std::string_view path : kMustAgree) {
      const json a = at_path(first.record, path), b = at_path(s.record, path);
      if (a != b) {
        return make_error(fmt::format("{} and {} are not shards of one evaluation: they differ in {} ({} vs {})",
                                      first.file, s.file, path, brief(a), brief(b)));
      }
    }
  }  // One evaluation is one GPU model; a shard that found no GPU has none to compare.
  const RecordFile* measured = nullptr;
  for (const auto& s : shards) {
    const json name = at_path(s.record, "environment.name");
    if (name.is_null()) continue;
    if (measured == nullptr) {
      measured = &s;
    } else if (name != at_path(measured->record, "environment.name")) {
      return make_error(fmt::format("{} and {} ran on different GPU models ({} vs {}): one evaluation is one model",
                                    measured->file, s.file, brief(at_path(measured->record, "environment.name")),
                                    brief(name)));
    }
  }

  const int count = first.record["shard"].value("count", 0);
  const json selection = first.record["shard"].value("selection", json::array());
  std::map<int, const RecordFile*> by_index;
  for (const auto& s : shards) {
    const int index = s.record["shard"].value("index", -1);
    if (index < 0 || index >= count) {
      return make_error(fmt::format("{}: shard index {} is not in 0..{}", s.file, index, count - 1));
    }
    if (auto [it, fresh] = by_index.emplace(index, &s); !fresh) {
      return make_error(fmt::format("{} and {} are both shard {} of {}", it->second->file, s.file, index, count));
    }
  }
  std::string missing;
  for (int i = 0; i < count; ++i) {
    if (!by_index.count(i)) missing += fmt::format("{}{}", missing.empty() ? "" : ", ", i);
  }
  if (!missing.empty()) return make_error(fmt::format("shard(s) {} of {} missing: give every shard's record", missing, count));

  // Each scenario of the selection in exactly one shard, and each COMPLETE shard with a verdict for each of its own.
  std::map<std::string, const RecordFile*> owner;
  std::map<std::string, json> verdict;
  for (const auto& [index, s] : by_index) {
    for (const auto& id : s->record["shard"].value("scenarios", json::array())) {
      if (auto [it, fresh] = owner.emplace(id.get<std::string>(), s); !fresh) {
        return make_error(fmt::format("scenario {} is in both {} and {}", id.get<std::string>(), it->second->file, s->file));
      }
    }
    for (json r : s->record.value("scenarios", json::array())) {
      const std::string id = r.value("scenario", "");
      const auto it = owner.find(id);
      if (it == owner.end() || it->second != s) {
        return make_error(fmt::format("{}: has a verdict for scenario {}, which is not among its shard's scenarios", s->file, id));
      }
      r["shard"] = index;
      verdict[id] = std::move(r);
    }
    if (s->record.value("status", "") == "COMPLETE") {
      for (const auto& id : s->record["shard"].value("scenarios", json::array())) {
        if (!verdict.count(id.get<std::string>())) {
          return make_error(fmt::format("{}: COMPLETE but without a verdict for its scenario {}", s->file, id.get<std::string>()));
        }
      }
    }
  }
  for (const auto& id : selection) {
    if (!owner.count(id.get<std::string>())) return make_error(fmt::format("no shard covers scenario {}", id.get<std::string>()));
  }
  if (owner.size() != selection.size()) return make_error("the shards list scenarios that are not in their selection");

  // The merged record: the first shard's common parts, every verdict in the selection's order, one summary.
  json merged = first.record;
  merged.erase("shard");
  merged.erase("message");
  merged["created_at"] = utc_timestamp();
  json scenarios = json::array(), merged_from = json::array(), gpus = json::array();
  for (const auto& id : selection) {
    if (auto it = verdict.find(id.get<std::string>()); it != verdict.end()) scenarios.push_back(it->second);
  }
  merged["scenarios"] = scenarios;
  std::string build_failed, needs_gpu;
  int needs_gpu_count = 0;
  double wall = 0;
  for (const auto& [index, s] : by_index) {
    const json& r = s->record;
    const std::string status = r.value("status", "");
    const std::string host = r["shard"].value("host", "");
    json entry = {{"file", s->file}, {"shard", index}, {"status", status}, {"host", host},
                  {"created_at", r.value("created_at", "")}, {"wall_seconds", r.value("wall_seconds", 0.0)}};
    if (r.contains("message")) entry["message"] = r["message"];
    merged_from.push_back(entry);
    for (auto& gpu : shard_gpus(r, index, host)) gpus.push_back(gpu);
    wall = std::max(wall, r.value("wall_seconds", 0.0));
    const std::string line = fmt::format("{} (shard {}): {}", s->file, index, r.value("message", status));
    if (status == "BUILD_FAILED") build_failed += (build_failed.empty() ? "" : "; ") + line;
    if (status == "NEEDS_GPU") {
      needs_gpu += (needs_gpu.empty() ? "" : "; ") + line;
      ++needs_gpu_count;
    }
    if (status != "BUILD_FAILED" && status != "NEEDS_GPU" && status != "COMPLETE") {
      return make_error(fmt::format("{}: unknown record status '{}'", s->file, status));
    }
    // The environment with a GPU identity, when any shard had one.
    if (r.contains("environment") && r["environment"].contains("uuid") && !merged["environment"].contains("uuid")) {
      merged["environment"] = r["environment"];
      merged["environment"].erase("gpus");
    }
  }
  if (merged.contains("environment") && !gpus.empty()) merged["environment"]["gpus"] = gpus;
  merged["merged_from"] = merged_from;
  GeomeanOptions geomean;
  if (const json clamp = at_path(merged, "settings.geomean_clamp"); clamp.is_array() && clamp.size() == 2) {
    geomean.clamp_low = clamp[0].get<double>();
    geomean.clamp_high = clamp[1].get<double>();
  }
  summarize(merged, geomean);
  merged["wall_seconds"] = wall;  // the longest shard: the elapsed time when they ran at once
  if (!build_failed.empty()) {
    merged["status"] = "BUILD_FAILED";
    merged["message"] = build_failed;
  } else if (!needs_gpu.empty()) {
    merged["status"] = "NEEDS_GPU";
    merged["message"] = fmt::format("{} of {} shards need a GPU: {}", needs_gpu_count, count, needs_gpu);
  } else {
    merged["status"] = "COMPLETE";
  }
  return merged;
}

}  // namespace kseek
