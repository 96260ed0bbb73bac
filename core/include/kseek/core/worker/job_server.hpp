// The GPU worker process's side of its work: scenario jobs run one after another on one kept GPU session
// (`kseek __worker --serve`). Keeping the session saves each scenario the context's creation and the plugin's
// loading; end_scenario leaves nothing of one scenario in device memory for the next.
// It must never run a job on a session a previous job left in doubt: a lost context, a failed clean-up or a GPU that
// would not open ends the process after that job's result is written.
#pragma once

#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "kseek/core/plugin/plugin_registry.hpp"
#include "kseek/core/worker/gpu_session.hpp"
#include "kseek/core/worker/scenario_job.hpp"

namespace kseek {

// Runs scenarios in this process (the worker; needs a GPU). A result is a JSON object with at least "status" and
// "message"; the fields are documented in docs/result-schema.md.
class ScenarioWorker {
 public:
  // One job: the session is opened on the job's GPU at the first job and kept while it stays usable.
  nlohmann::json run(const ScenarioJob& job);
  // The job file at `path`, read and run; a file that cannot be read or parsed is that job's NOT_RUNNABLE verdict.
  nlohmann::json run_file(const std::string& path);
  bool usable() const { return usable_; }

 private:
  nlohmann::json run_job(const ScenarioJob& job);

  std::unique_ptr<gpu::GpuSession> session_;
  int device_ = -1;
  PluginRegistry registry_;
  struct LoadedLibrary {
    const Plugin* plugin = nullptr;
    std::string sha256;  // of the library file as it was loaded: part of every reference cache key
  };
  std::map<std::string, LoadedLibrary> plugins_;  // by library path
  bool usable_ = true;
  int jobs_ = 0;  // run so far: a result's "worker_job"
};

// `kseek __worker --serve`: reads job lines (job_channel.hpp) from `channel_fd` until it closes or the worker is no
// longer usable, writing each result file and replying after it. Returns the process's exit code.
int serve_scenario_jobs(int channel_fd);

// Measures the device's copy bandwidth and reads its identity, for the record and the peaks.
nlohmann::json probe_device(int device);

}  // namespace kseek
