// `kseek doctor`: what this machine can do — NVRTC, the driver and GPUs, plugin folders, the build cache.
// It must never fail because a GPU is missing: that is a finding, not an error.
#include <nvrtc.h>

#include "commands.hpp"
#include "kseek/core/build/nvrtc_compiler.hpp"
#include "kseek/core/build/toolkit_headers.hpp"
#include "kseek/core/worker/driver_probe.hpp"

namespace kseek::cli {

void register_doctor_command(CLI::App& app, GlobalOptions& options, int& exit_code) {
  auto* command = app.add_subcommand("doctor", "Show NVRTC, GPU driver, plugin folders and cache on this machine");
  command->callback([&options, &exit_code] {
    int count = 0;
    nvrtcGetNumSupportedArchs(&count);
    std::vector<int> archs(static_cast<std::size_t>(count));
    if (count > 0) nvrtcGetSupportedArchs(archs.data());
    const DriverStatus driver = probe_driver();
    PluginRegistry registry;
    const auto search = PluginRegistry::search_path(options.plugin_dirs);
    registry.load_folders(search);
    const auto& toolkit = toolkit_headers();
    const auto cache = options.cache_dir.empty() ? BuildCache::default_folder() : options.cache_dir;
    nlohmann::json gpus = nlohmann::json::array();
    for (const auto& g : driver.gpus) {
      gpus.push_back(
          {{"ordinal", g.ordinal},
           {"name", g.name},
           {"compute_capability", fmt::format("{}.{}", g.compute_capability_major, g.compute_capability_minor)},
           {"memory_bytes", g.memory_bytes}});
    }
    nlohmann::json folders = nlohmann::json::array();
    for (const auto& f : search) folders.push_back(f.string());
    if (options.json) {
      print_json(
          {{"status", "OK"},
           {"nvrtc_version", nvrtc_version()},
           {"nvrtc_archs", archs},
           {"toolkit_headers", toolkit ? nlohmann::json{{"include_dir", toolkit->include_dir.string()},
                                                        {"cuda_version", toolkit->cuda_version},
                                                        {"origin", toolkit->origin},
                                                        {"note", toolkit->note}}
                                       : nlohmann::json()},
           {"driver", {{"available", driver.loaded}, {"version", driver.driver_version}, {"problem", driver.problem}}},
           {"gpus", gpus},
           {"plugin_search_path", folders},
           {"plugins_loaded", registry.plugins().size()},
           {"cache_dir", cache.string()}});
    } else {
      std::string arch_list;
      for (int a : archs) arch_list += fmt::format("{}sm_{}", arch_list.empty() ? "" : " ", a);
      std::cout << fmt::format("NVRTC        {} (targets: {})\n", nvrtc_version(), arch_list);
      if (toolkit) {
        std::cout << fmt::format("CUDA headers {} (CUDA_VERSION {}, from {}), offered to candidates\n",
                                 toolkit->include_dir.string(), toolkit->cuda_version, toolkit->origin);
        if (!toolkit->note.empty()) std::cout << "  warning: " << toolkit->note << "\n";
      } else {
        std::cout << "CUDA headers none found: candidates cannot include cuda_bf16.h and friends (set CUDA_HOME)\n";
      }
      if (driver.loaded) {
        std::cout << fmt::format("CUDA driver  {}.{}\n", driver.driver_version / 1000,
                                 (driver.driver_version % 1000) / 10);
        for (const auto& g : driver.gpus) {
          std::cout << fmt::format("GPU {}        {} (sm_{}{}, {:.0f} GiB)\n", g.ordinal, g.name,
                                   g.compute_capability_major, g.compute_capability_minor,
                                   static_cast<double>(g.memory_bytes) / (1ull << 30));
        }
      } else {
        std::cout << "CUDA driver  none: " << driver.problem << "\n";
      }
      std::cout << fmt::format("plugins      {} loaded from:\n", registry.plugins().size());
      for (const auto& f : search) std::cout << "  " << f.string() << "\n";
      std::cout << "build cache  " << cache.string() << "\n";
    }
    exit_code = kExitOk;
  });
}

}  // namespace kseek::cli
