// The worker owns the CUDA context: kseek's own process (builds, verdicts, records) never creates one. Checked with a
// stand-in libcuda.so.1 (tests/fixtures/fake_driver) that logs which process asks for a context and refuses it.
// It must never need a GPU: the stand-in is found first through LD_LIBRARY_PATH wherever the test runs.
#include <cuda.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/run_command.hpp"
#include "support/temp_folder.hpp"

namespace {

TEST(WorkerIsolation, OnlyWorkerProcessesAskForACudaContext) {
  kseek::testing::TempFolder folder("kseek-worker-isolation");
  const auto log = folder.path() / "contexts.log";
  // NVRTC itself looks for libcuda and does not survive the stand-in, so the builds are made (and cached) first with
  // whatever driver the machine has; the run under the stand-in then only loads cubins from the cache.
  const std::string cache = "KSEEK_CACHE_DIR=\"${TMPDIR:-/tmp}/kseek-worker-isolation-cache\" ";
  const std::string eval = " --json eval --plugin example.softmax --set small --correctness-only 2>/dev/null";
  const auto warm = kseek::testing::run_command(cache + "'" + std::string(KSEEK_EXE) + "'" + eval);
  ASSERT_NE(kseek::testing::json_output(warm, "kseek eval (warming the cache)").value("status", ""), "BUILD_FAILED");
  const auto isolated =
      kseek::testing::run_command("LD_LIBRARY_PATH='" + std::string(KSEEK_FAKE_DRIVER_DIR) + "' KSEEK_FAKE_CUDA_LOG='" +
                                  log.string() + "' " + cache + "'" + std::string(KSEEK_EXE) + "'" + eval);
  const auto record = kseek::testing::json_output(isolated, "kseek eval with the stand-in driver");
  EXPECT_EQ(record.value("status", ""), "NEEDS_GPU") << "the stand-in refuses every context: " << record.dump(2);

  std::ifstream in(log);
  std::vector<std::string> attempts;
  for (std::string line; std::getline(in, line);) attempts.push_back(line);
  ASSERT_FALSE(attempts.empty()) << "nobody asked the stand-in driver for a context: it was not loaded, and this "
                                    "test would prove nothing";
  for (const auto& line : attempts) {
    EXPECT_NE(line.find(" __worker"), std::string::npos)
        << "a process other than a GPU worker asked for a context: " << line;
  }
}

// Each driver entry point is resolved at the API version whose ABI is the signature cuda.h declares, the type kseek
// calls it through. At CUDA 13.0 cuCtxSynchronize's default ABI takes a context that its declaration does not pass.
TEST(WorkerIsolation, DriverEntryPointsAreResolvedAtTheVersionOfTheirDeclaredSignature) {
  kseek::testing::TempFolder folder("kseek-driver-versions");
  const auto log = folder.path() / "procs.log";
  const auto probe = folder.path() / "probe.json";
  (void)kseek::testing::run_command("LD_LIBRARY_PATH='" + std::string(KSEEK_FAKE_DRIVER_DIR) +
                                    "' KSEEK_FAKE_CUDA_PROC_LOG='" + log.string() + "' '" + std::string(KSEEK_EXE) +
                                    "' __worker --probe '" + probe.string() + "' --device 0");
  std::ifstream in(log);
  std::map<std::string, int> versions;
  for (std::string symbol; in >> symbol;) in >> versions[symbol];
  ASSERT_TRUE(versions.count("cuCtxSynchronize")) << "the stand-in driver was not asked: this test proves nothing";
  EXPECT_LT(versions["cuCtxSynchronize"], 13000) << "the v13000 ABI is cuCtxSynchronize(CUcontext)";
  EXPECT_EQ(versions["cuMemAlloc"], CUDA_VERSION);
  EXPECT_EQ(versions["cuLaunchKernelEx"], CUDA_VERSION);
}

}  // namespace
