// The attention plugins' device library (input generation and references) compiles with kseek's NVRTC service for
// every architecture the plugins target, the way the evaluator builds it, with every kernel present and none spilling.
// It must never need a GPU: nothing here launches.
#include <algorithm>
#include <ostream>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "kseek/core/build/build_service.hpp"
#include "kseek/core/plugin/plugin_registry.hpp"

namespace kseek {
namespace {

struct LibraryCase {
  std::string plugin;
  std::string arch;
};

void PrintTo(const LibraryCase& c, std::ostream* os) { *os << c.plugin << " for " << c.arch; }

class AttentionDeviceLibrary : public ::testing::TestWithParam<LibraryCase> {};

// The request Evaluator builds for a plugin's device library: main file first, its own headers, the SDK's device
// headers and the plugin's candidate headers.
CompileRequest library_request(const Plugin& plugin, const std::string& arch) {
  const auto sources = plugin.device_library();
  CompileRequest request;
  request.source = sources.front();
  request.headers.assign(sources.begin() + 1, sources.end());
  for (auto& h : sdk_device_headers()) request.headers.push_back(h);
  for (auto& h : plugin.candidate_headers()) request.headers.push_back(h);
  deduplicate_headers(request.headers);
  request.arch = arch;
  return request;
}

TEST_P(AttentionDeviceLibrary, CompilesWithEveryKernelAndNoSpills) {
  PluginRegistry registry;
  registry.load_folders({KSEEK_TREE_PLUGIN_DIR});
  auto loaded = registry.require(GetParam().plugin);
  ASSERT_TRUE(loaded) << loaded.error().message;
  const Plugin& plugin = *(*loaded)->plugin;
  const auto sources = plugin.device_library();
  ASSERT_EQ(sources.size(), 3u) << "device/attention_device.cu, its params header and problem.h";
  EXPECT_EQ(sources.front().name, "device/attention_device.cu");
  // The library is the plugin's own: no candidate may include it.
  for (const auto& header : plugin.candidate_headers()) {
    EXPECT_NE(header.name, "attention_device_params.h");
    EXPECT_NE(header.name, "device/attention_device.cu");
  }

  BuildService service{std::nullopt};
  const CompileOutput out = service.compile(library_request(plugin, GetParam().arch));
  ASSERT_EQ(out.status, Status::kOk) << GetParam().arch << ": " << out.error << "\n" << out.log;
  EXPECT_FALSE(out.cubin.empty());
  std::set<std::string> kernels;
  for (const auto& k : out.kernels) {
    kernels.insert(k.kernel);
    EXPECT_EQ(k.spill_store_bytes, 0u) << k.kernel << " spills " << k.spill_store_bytes << " bytes on "
                                       << GetParam().arch;
    EXPECT_EQ(k.spill_load_bytes, 0u) << k.kernel << " on " << GetParam().arch;
    // Every kernel uses dynamic shared memory only (at most the 48 KiB launch default), no static buffers.
    EXPECT_EQ(k.static_shared_bytes, 0u) << k.kernel;
    std::printf("  %s on %s: %d registers\n", k.kernel.c_str(), GetParam().arch.c_str(), k.registers);
  }
  for (const char* name :
       {"attention_fill", "attention_reference_stats", "attention_reference_stats_mma",
        "attention_reference_finish_stats", "attention_reference_output", "attention_reference_output_mma",
        "attention_reference_output_mma_f16", "attention_reference_combine"}) {
    EXPECT_TRUE(kernels.count(name)) << name << " missing on " << GetParam().arch;
  }
}

INSTANTIATE_TEST_SUITE_P(InTree, AttentionDeviceLibrary,
                         ::testing::Values(LibraryCase{"attention.fa3", "sm_90a"},
                                           LibraryCase{"attention.fa4", "sm_100a"}),
                         [](const auto& info) {
                           std::string name = info.param.plugin + "_" + info.param.arch;
                           std::replace(name.begin(), name.end(), '.', '_');
                           return name;
                         });

}  // namespace
}  // namespace kseek
