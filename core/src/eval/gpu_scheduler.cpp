// Where an evaluation's scenarios run: the GPUs probed in workers, the ones of one model kept, and the scenarios in
// worker processes under a watchdog (one serving worker per GPU that runs scenario after scenario, or one process
// per scenario), on one GPU in order or on several from a shared queue.
// It must never lose a scenario's verdict: a worker that dies or hangs becomes CRASHED or TIMEOUT for that
// scenario only, and the evaluation goes on with a fresh worker (on the same GPU, and on every other one).
#include <algorithm>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "evaluation_parts.hpp"
#include "kseek/core/eval/evaluator.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/worker/scenario_job.hpp"
#include "kseek/core/worker/worker_process.hpp"

namespace kseek {
namespace fs = std::filesystem;
using evaluation_parts::Clock;
using evaluation_parts::compute_capability_of_arch;
using evaluation_parts::worker_reference_seconds_bound;
using nlohmann::json;

namespace {

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

}  // namespace

namespace {

double measured_bandwidth(const GpuProbe& probe) { return probe.copy_bandwidth_bytes_per_second.value_or(0.0); }

// The declared FLOP/s and the measured (else declared) bandwidth of an available GPU, given its name.
GpuPeaks peaks_of(const GpuProbe& probe, const std::string& gpu_name) {
  const auto declared = declared_peaks(gpu_name);
  const double measured_bw = measured_bandwidth(probe);
  GpuPeaks peaks;
  peaks.dense_bf16_flops = declared ? declared->dense_bf16_flops : 0.0;
  peaks.fastest_flops = declared ? declared->fastest_flops : 0.0;
  peaks.flops_source = declared ? "declared" : "unknown";
  peaks.bytes_per_second = measured_bw > 0 ? measured_bw : (declared ? declared->bytes_per_second : 0.0);
  peaks.bytes_source = measured_bw > 0 ? "measured (device-to-device copy, read + write)" : "declared";
  return peaks;
}

GpuProbe probe_one(const fs::path& executable, int ordinal, const fs::path& work) {
  const fs::path file = work / fmt::format("probe-{}.json", ordinal);
  const json written =
      run_worker(executable, {"--probe", file.string(), "--device", std::to_string(ordinal)}, file, 60.0);
  GpuProbe probe;
  if (!written.is_object()) {
    probe.problem = "the probe wrote no JSON object";
  } else if (auto read = gpu_probe_from_json(written)) {
    probe = std::move(*read);
  } else {
    probe.problem = read.error().message;
  }
  probe.ordinal = ordinal;
  if (probe.available) {
    auto gpu = gpu_description_from_probe(to_json(probe));
    probe.peaks = peaks_of(probe, gpu ? gpu->name : "");
  }
  return probe;
}

std::vector<GpuProbe> probe_concurrently(const fs::path& executable, const std::vector<int>& ordinals,
                                         const fs::path& work) {
  std::vector<GpuProbe> probes(ordinals.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < ordinals.size(); ++i) {
    threads.emplace_back([&, i] { probes[i] = probe_one(executable, ordinals[i], work); });
  }
  for (auto& t : threads) t.join();
  return probes;
}

// The per-scenario worker launch: the job for this GPU, the watchdog, the physics floor. Never throws a verdict away.
json run_scenario_on_gpu(const PreparedScenario& prepared, std::size_t slot, const GpuTarget& gpu,
                         const SchedulerOptions& options, ServingWorker* serving) {
  const auto started = Clock::now();
  const Scenario& s = prepared.job.scenario;
  const std::string& gpu_name = gpu.gpu.name;
  const int device_cc = gpu.gpu.sm();
  const int needed_cc = compute_capability_of_arch(prepared.arch);
  json result;
  if (needed_cc / 10 != device_cc / 10 || needed_cc > device_cc) {
    result = verdict_result(Status::kNotRunnable,
                            fmt::format("needs {} (compute capability {}.{}); this GPU is {} ({}.{})", prepared.arch,
                                        needed_cc / 10, needed_cc % 10, gpu_name, device_cc / 10, device_cc % 10));
    result["scenario"] = s.id;
    result["name"] = s.name;
  } else {
    ScenarioJob job = prepared.job;
    job.device = gpu.gpu.ordinal;
    // The peaks the probe was given when it was read (probe_one): the job takes them, it does not look them up again.
    const GpuPeaks peaks = gpu.probe.peaks.value_or(GpuPeaks{});
    job.peak_flops = peaks.dense_bf16_flops;
    job.floor_flops = peaks.fastest_flops;
    job.peak_bytes_per_second = peaks.bytes_per_second;
    job.peak_source = measured_bandwidth(gpu.probe) > 0 ? "measured" : "declared";
    const fs::path job_file = options.work_folder / fmt::format("job-{}.json", slot);
    const fs::path result_file = options.work_folder / fmt::format("result-{}.json", slot);
    (void)write_file_atomically(job_file, json(job).dump(2));
    // The watchdog grows with the scenario's work: a 100-TFLOP prefill's references legitimately need minutes where
    // a hang on a small scenario does not.
    const double watchdog = options.scenario_timeout_seconds + options.time_budget_seconds +
                            worker_reference_seconds_bound(s, job.measure_time);
    result = serving ? serving->run(job_file, result_file, watchdog)
                     : run_worker(options.executable, {job_file.string(), result_file.string()}, result_file, watchdog);
    if (!result.is_object()) result = verdict_result(Status::kCrashed, "the GPU worker's result is not a JSON object");
    result["scenario"] = s.id;
    result["name"] = s.name;
    if (options.functional_arch) {
      result["functional_arch"] = prepared.arch;  // built and run for this arch, not the scenario's own
      if (result.contains("timing")) result["timing"]["representative"] = false;
    }
  }
  if (options.record_gpu) result["gpu"] = {{"ordinal", gpu.gpu.ordinal}, {"uuid", gpu.gpu.uuid}};
  result["wall_seconds"] = std::chrono::duration<double>(Clock::now() - started).count();
  return result;
}

}  // namespace

std::vector<GpuProbe> probe_gpus(const fs::path& executable, const GpuSelection& gpus, const fs::path& work_folder) {
  if (!gpus.all) return probe_concurrently(executable, gpus.ordinals, work_folder);
  // "all": the parent never loads the driver, so ordinals are probed in batches until one does not exist. A busy or
  // broken GPU is reported and the GPUs after it are still used; a batch in which nothing works (no driver) ends it.
  constexpr int kBatch = 8;
  constexpr int kMaxOrdinal = 64;
  std::vector<GpuProbe> found;
  for (int first = 0; first < kMaxOrdinal; first += kBatch) {
    std::vector<int> batch;
    for (int i = first; i < first + kBatch; ++i) batch.push_back(i);
    bool any_available = false;
    for (auto& probe : probe_concurrently(executable, batch, work_folder)) {
      const bool past_the_end = !probe.available && probe.problem.find("INVALID_DEVICE") != std::string::npos;
      if (past_the_end) {
        if (found.empty()) found.push_back(std::move(probe));  // no GPU at all: say why
        return found;
      }
      any_available = any_available || probe.available;
      found.push_back(std::move(probe));
    }
    if (!any_available) return found;
  }
  return found;
}

Result<GpuTarget> gpu_target(const GpuProbe& probe) {
  auto gpu = gpu_description_from_probe(to_json(probe));
  if (!gpu) return gpu.error();
  return GpuTarget{std::move(*gpu), probe};
}

UsableGpus usable_gpus(const std::vector<GpuProbe>& probes) {
  UsableGpus usable;
  std::string& problems = usable.not_used;
  const auto add_problem = [&](const std::string& problem) {
    if (problems.find(problem) == std::string::npos) problems += (problems.empty() ? "" : "; ") + problem;
  };
  for (const auto& probe : probes) {
    const bool available = probe.available;
    auto target = available ? gpu_target(probe) : Result<GpuTarget>(make_error(""));
    if (available && !target) {
      add_problem(fmt::format("GPU {} is not used: {}", probe.ordinal, target.error().message));
    } else if (available && !usable.gpus.empty() && target->gpu.name != usable.gpus.front().gpu.name) {
      // Ratios (and NOT_RUNNABLE verdicts) from two models do not make one geomean.
      add_problem(fmt::format("GPU {} ({}) is not used: it is another model than GPU {} ({})", target->gpu.ordinal,
                              target->gpu.name, usable.gpus.front().gpu.ordinal, usable.gpus.front().gpu.name));
    } else if (available) {
      usable.gpus.push_back(std::move(*target));
    } else {
      // Without a driver every probed ordinal gives the same reason: it is said once.
      add_problem(probe.why_unavailable());
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
  std::vector<std::size_t> retry;     // scenarios handed back by a GPU that could not open a session
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
    std::optional<ServingWorker> serving;
    if (options.reuse_workers) serving.emplace(options.executable, std::vector<std::string>{"--serve"});
    while (const auto taken = take()) {
      const std::size_t slot = *taken;
      try {
        results[slot] = run_scenario_on_gpu(scenarios[slot], slot, gpu, options, serving ? &*serving : nullptr);
      } catch (const std::exception& e) {
        // On a worker thread an escaped exception would terminate the process and lose every other verdict.
        const Scenario& scenario = scenarios[slot].job.scenario;
        results[slot] =
            verdict_result(Status::kCrashed, fmt::format("kseek could not read this scenario's result: {}", e.what()));
        results[slot]["scenario"] = scenario.id;
        results[slot]["name"] = scenario.name;
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

}  // namespace kseek
