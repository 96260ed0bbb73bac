// Orchestration of an evaluation in the parent process: builds, worker processes, watchdog, record.
// It must never lose a scenario's verdict: a worker that dies or hangs becomes CRASHED or TIMEOUT for that
// scenario only, and the evaluation goes on with a fresh worker.
#include "kseek/core/eval/evaluator.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>
#include <random>
#include <thread>

#include <cuda.h>
#include <fmt/format.h>

#include "kseek/core/build/nvrtc_compiler.hpp"
#include "kseek/core/eval/scenario_job.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/sha256.hpp"
#include "kseek/sdk/version.hpp"

extern char** environ;

namespace kseek {
namespace fs = std::filesystem;
using nlohmann::json;

std::vector<SourceFile> harness_embedded_files();  // generated from core/device/*.cu

namespace {

using Clock = std::chrono::steady_clock;

// A deliberately slow rate for a plugin's fp32 reference (measured: 3-4 TFLOP/s for attention on an H200), used
// only to size the watchdog so large scenarios are not killed while their references run.
constexpr double kWatchdogReferenceFlopsPerSecond = 1e12;

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
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

json run_worker(const fs::path& executable, const std::vector<std::string>& arguments, const fs::path& result_file,
                double timeout_seconds) {
  std::vector<std::string> argv_storage = {executable.string(), "__worker"};
  argv_storage.insert(argv_storage.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::error_code ec;
  fs::remove(result_file, ec);
  pid_t pid = 0;
  if (posix_spawn(&pid, executable.c_str(), nullptr, nullptr, argv.data(), environ) != 0) {
    return {{"status", "CRASHED"}, {"message", fmt::format("could not start the GPU worker {}", executable.string())}};
  }
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (Clock::now() >= deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return {{"status", "TIMEOUT"},
              {"message", fmt::format("the scenario did not finish within {:.0f} s; the GPU worker was killed",
                                      timeout_seconds)}};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polling a child's exit, not synchronising data
  }
  if (auto text = read_file(result_file); text) {
    try {
      return json::parse(*text);
    } catch (const std::exception& e) {
      return {{"status", "CRASHED"}, {"message", fmt::format("the GPU worker wrote an unreadable result ({})", e.what())}};
    }
  }
  if (WIFSIGNALED(status)) {
    return {{"status", "CRASHED"},
            {"message", fmt::format("the GPU worker died with signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)))}};
  }
  return {{"status", "CRASHED"},
          {"message", fmt::format("the GPU worker exited with status {} without a result", WEXITSTATUS(status))}};
}

json evaluate(const EvaluationInput& input, const EvaluationSettings& settings, BuildService& builds,
              const ProgressSink& progress) {
  const auto started = Clock::now();
  const Plugin& plugin = *input.plugin->plugin;
  const PluginInfo info = plugin.info();
  std::uint64_t input_seed = settings.input_seed;
  if (input_seed == 0) input_seed = std::random_device{}() | (static_cast<std::uint64_t>(std::time(nullptr)) << 32);
  const fs::path executable = settings.worker_executable.empty() ? fs::read_symlink("/proc/self/exe")
                                                                 : settings.worker_executable;

  json record = {{"schema", kEvalRecordSchema},
                 {"kseek_version", KSEEK_SDK_VERSION},
                 {"created_at", utc_now()},
                 {"plugin", {{"id", info.id}, {"version", info.version}, {"path", input.plugin->path.string()}}},
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

  // ---- builds (no GPU needed) ----------------------------------------------------------------------------
  std::map<std::string, std::vector<const Scenario*>> by_arch;
  for (const auto& s : input.scenarios) {
    const std::string& target = s.required_arch.empty() ? info.target_archs.front() : s.required_arch;
    by_arch[settings.functional_arch.empty() ? target : settings.functional_arch].push_back(&s);
  }
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
      for (const Scenario* s : scenarios) {
        json r = {{"scenario", s->id}, {"name", s->name}, {"status", to_string(candidate_build.status)}, {"message", candidate_build.message}};
        record["scenarios"].push_back(r);
        if (progress) progress(r);
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
  record["environment"] = {{"nvrtc_version", nvrtc_version()}, {"cuda_headers_version", fmt::format("{}.{}", CUDA_VERSION / 1000, (CUDA_VERSION % 1000) / 10)}};
  if (!builds_ok) {
    record["status"] = "BUILD_FAILED";
    fs::remove_all(work);
    return record;
  }

  // A candidate that did not build has its verdict already; nothing is left that needs a GPU.
  const bool anything_to_run = std::any_of(binaries.begin(), binaries.end(), [](const auto& b) { return b.second.ok; });
  if (!anything_to_run) {
    json counts = json::object();
    for (const auto& r : record["scenarios"]) counts[r.value("status", "UNKNOWN")] = counts.value(r.value("status", "UNKNOWN"), 0) + 1;
    record["summary"] = {{"scenarios", record["scenarios"].size()}, {"status_counts", counts}};
    record["status"] = "COMPLETE";
    record["wall_seconds"] = std::chrono::duration<double>(Clock::now() - started).count();
    fs::remove_all(work);
    return record;
  }

  // ---- the device, probed in a worker (this process never holds a context) ------------------------------------
  const fs::path probe_file = work / "probe.json";
  json probe = run_worker(executable, {"--probe", probe_file.string(), "--device", std::to_string(settings.device)},
                          probe_file, 60.0);
  if (!probe.value("available", false)) {
    record["status"] = "NEEDS_GPU";
    record["message"] = fmt::format("needs a GPU: {}", probe.value("problem", probe.value("message", std::string("no GPU"))));
    fs::remove_all(work);
    return record;
  }
  const std::string gpu_name = probe.value("name", "");
  const auto declared = declared_peaks(gpu_name);
  const double measured_bw = probe.value("copy_bandwidth_bytes_per_second", 0.0);
  probe["peaks"] = {{"dense_bf16_flops", declared ? declared->dense_bf16_flops : 0.0},
                    {"fastest_flops", declared ? declared->fastest_flops : 0.0},
                    {"flops_source", declared ? "declared" : "unknown"},
                    {"bytes_per_second", measured_bw > 0 ? measured_bw : (declared ? declared->bytes_per_second : 0.0)},
                    {"bytes_source", measured_bw > 0 ? "measured (device-to-device copy, read + write)" : "declared"}};
  for (auto& [key, value] : probe.items()) record["environment"][key] = value;
  int device_cc = 0;
  {
    const std::string cc = probe.value("compute_capability", "0.0");
    device_cc = std::stoi(cc.substr(0, cc.find('.'))) * 10 + std::stoi(cc.substr(cc.find('.') + 1));
  }

  // ---- scenarios, one worker each ---------------------------------------------------------------------------------
  std::vector<RatioEstimate> estimates;
  std::vector<std::string> estimate_ids;
  std::uint64_t scenario_index = 0;
  for (const auto& [arch, scenarios] : by_arch) {
    const ArchBinaries& bin = binaries[arch];
    if (!bin.ok) continue;
    for (const Scenario* s : scenarios) {
      const auto scenario_started = Clock::now();
      json result;
      const int needed_cc = compute_capability_of_arch(arch);
      if (needed_cc / 10 != device_cc / 10 || needed_cc > device_cc) {
        result = {{"scenario", s->id}, {"name", s->name}, {"status", "NOT_RUNNABLE"},
                  {"message", fmt::format("needs {} (compute capability {}.{}); this GPU is {} ({}.{})", arch,
                                          needed_cc / 10, needed_cc % 10, gpu_name, device_cc / 10, device_cc % 10)}};
      } else {
        ScenarioJob job;
        job.plugin_path = input.plugin->path.string();
        job.plugin_id = info.id;
        job.scenario = *s;
        job.candidate_cubin = bin.candidate;
        job.seed_cubin = bin.seed;
        job.plugin_library_cubin = bin.library;
        job.harness_cubin = bin.harness;
        job.input_seed = input_seed + 7919 * scenario_index;
        job.device = settings.device;
        job.measure_time = settings.measure_time;
        job.sampling = settings.sampling;
        job.peak_flops = declared ? declared->dense_bf16_flops : 0.0;
        job.peak_bytes_per_second = probe["peaks"]["bytes_per_second"];
        job.peak_source = measured_bw > 0 ? "measured" : "declared";
        const fs::path job_file = work / fmt::format("job-{}.json", scenario_index);
        const fs::path result_file = work / fmt::format("result-{}.json", scenario_index);
        (void)write_file_atomically(job_file, json(job).dump(2));
        // The watchdog grows with the scenario's work: its references run at a few TFLOP/s in fp32 over up to
        // three input sets, so a 100-TFLOP prefill legitimately needs minutes where a hang on a small one does not.
        const double watchdog = settings.scenario_timeout_seconds + settings.sampling.time_budget_seconds +
                                3.0 * s->flops / kWatchdogReferenceFlopsPerSecond;
        result = run_worker(executable, {job_file.string(), result_file.string()}, result_file, watchdog);
        result["scenario"] = s->id;
        result["name"] = s->name;
        if (!settings.functional_arch.empty()) {
          result["functional_arch"] = arch;  // built and run for this arch, not the scenario's own
          if (result.contains("timing")) result["timing"]["representative"] = false;
        }
        // The physics floor uses the fastest precision's rate: a faster time is impossible, not excellent.
        if (result.value("status", "") == "PASSED" && declared && result.contains("timing")) {
          const double floor = physics_floor_seconds(s->flops, s->bytes, {declared->fastest_flops, job.peak_bytes_per_second, PeakSource::kDeclared});
          const double t = result["timing"].value("candidate_median_ms", 0.0) * 1e-3;
          if (below_physics_floor(t, floor)) {
            result["status"] = "MISTRUSTED";
            result["message"] = fmt::format("candidate median {:.4g} ms is below the physics floor {:.4g} ms", t * 1e3, floor * 1e3);
          }
        }
      }
      result["wall_seconds"] = std::chrono::duration<double>(Clock::now() - scenario_started).count();
      if (result.value("status", "") == "PASSED" && result.contains("timing")) {
        RatioEstimate e;
        const auto& t = result["timing"];
        e.rounds = t.value("rounds", 0);
        e.ratio = t.value("ratio", 1.0);
        e.ci_low = t.value("ci_low", 1.0);
        e.ci_high = t.value("ci_high", 1.0);
        e.confidence = t.value("confidence", 0.95);
        e.meets_confidence = t.value("meets_confidence", false);
        e.seed_median_seconds = t.value("seed_median_ms", 0.0) * 1e-3;
        e.candidate_median_seconds = t.value("candidate_median_ms", 0.0) * 1e-3;
        estimates.push_back(e);
        estimate_ids.push_back(s->id);
      }
      record["scenarios"].push_back(result);
      if (progress) progress(result);
      ++scenario_index;
    }
  }

  json counts = json::object();
  for (const auto& r : record["scenarios"]) counts[r.value("status", "UNKNOWN")] = counts.value(r.value("status", "UNKNOWN"), 0) + 1;
  record["summary"] = {{"scenarios", record["scenarios"].size()}, {"status_counts", counts}};
  if (!estimates.empty()) {
    auto g = geomean_of_ratios(estimates, settings.geomean);
    if (g) {
      json clamped = json::array();
      for (const auto& c : g->clamped) clamped.push_back({{"scenario", estimate_ids[c.index]}, {"raw", c.raw_ratio}, {"clamped", c.clamped_ratio}});
      record["summary"]["geomean"] = {{"value", g->geomean}, {"ci_low", g->ci_low}, {"ci_high", g->ci_high},
                                      {"scenarios", g->scenarios}, {"clamped", clamped}};
    }
  }
  record["status"] = "COMPLETE";
  record["wall_seconds"] = std::chrono::duration<double>(Clock::now() - started).count();
  fs::remove_all(work);
  return record;
}

}  // namespace kseek
