// `kseek __worker`: the GPU worker process. It owns the CUDA context for one scenario, a device probe, or (with
// --serve) scenarios one after another as the parent sends them (worker/job_server.hpp), and writes each result file
// atomically. It must never be the process that keeps records: a fault here costs one scenario, never the campaign.
#include <memory>

#include "commands.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/worker/job_channel.hpp"
#include "kseek/core/worker/job_server.hpp"
#include "kseek/core/worker/scenario_job.hpp"

namespace kseek::cli {

void register_worker_command(CLI::App& app, GlobalOptions& options, int& exit_code) {
  struct Args {
    std::string job_file;
    std::string result_file;
    std::string probe_file;
    int device = 0;
    bool serve = false;
  };
  auto args = std::make_shared<Args>();
  auto* command = app.add_subcommand("__worker", "GPU worker process (started by kseek eval)");
  command->group("");  // hidden from --help: not a user command
  command->add_option("JOB", args->job_file);
  command->add_option("RESULT", args->result_file);
  command->add_option("--probe", args->probe_file);
  command->add_option("--device", args->device);
  command->add_flag("--serve", args->serve);
  command->callback([&options, &exit_code, args] {
    (void)options;
    if (args->serve) {
      exit_code = serve_scenario_jobs(kJobChannelFd);
      return;
    }
    if (!args->probe_file.empty()) {
      const auto probe = probe_device(args->device);
      exit_code = write_file_atomically(args->probe_file, probe.dump(2)) ? kExitOk : kExitVerdict;
      return;
    }
    ScenarioWorker worker;
    const nlohmann::json result = worker.run_file(args->job_file);
    exit_code = write_file_atomically(args->result_file, result.dump(2)) ? kExitOk : kExitVerdict;
  });
}

}  // namespace kseek::cli
