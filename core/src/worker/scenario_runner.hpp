// One scenario's evaluation protocol on a GPU session and plugin the caller owns (scenario_runner.cpp); the worker's
// entry points (job_server.cpp) decide which session that is and whether it may run another scenario.
#pragma once

#include <nlohmann/json.hpp>

#include "kseek/core/plugin/plugin_registry.hpp"
#include "kseek/core/worker/gpu_session.hpp"
#include "kseek/core/worker/scenario_job.hpp"

namespace kseek {

struct ScenarioRun {
  nlohmann::json result;      // the scenario's result (docs/result-schema.md), with at least "status" and "message"
  bool context_lost = false;  // a sticky CUDA error: the session must not run another scenario
};

// `plugin_library_sha256`: of the plugin's library file as the worker loaded it (empty: unknown, and the reference
// cache is not used).
ScenarioRun run_scenario(const ScenarioJob& job, gpu::GpuSession& session, const Plugin& plugin,
                         const std::string& plugin_library_sha256);

}  // namespace kseek
