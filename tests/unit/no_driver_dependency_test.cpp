// Proves the "no driver needed" promise: no binary kseek builds depends on libcuda, directly or through
// another library, and kseek starts and lists plugins on a machine where the driver cannot be loaded.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "support/run_command.hpp"

namespace {

namespace fs = std::filesystem;

std::string run(const std::string& command) { return kseek::testing::run_command(command).out; }

std::vector<fs::path> built_binaries() {
  std::vector<fs::path> binaries = {KSEEK_EXE};
  for (const auto& folder : {fs::path(KSEEK_TREE_PLUGIN_DIR), fs::path(KSEEK_FIXTURE_GOOD_DIR)}) {
    for (const auto& entry : fs::directory_iterator(folder)) {
      if (entry.path().extension() == ".so") binaries.push_back(entry.path());
    }
  }
  return binaries;
}

TEST(NoDriverDependency, NoBuiltBinaryNeedsLibcuda) {
  const auto binaries = built_binaries();
  ASSERT_GE(binaries.size(), 3u) << "kseek and at least the two attention plugins";
  for (const auto& binary : binaries) {
    // ldd lists the whole transitive closure, so an indirect dependency is caught too.
    const std::string libraries = run("ldd '" + binary.string() + "' 2>&1");
    ASSERT_NE(libraries.find("libc.so"), std::string::npos) << "ldd did not run on " << binary << ": " << libraries;
    EXPECT_EQ(libraries.find("libcuda.so"), std::string::npos) << binary << " depends on the driver:\n" << libraries;
  }
}

TEST(NoDriverDependency, PluginsAndDoctorRunWhateverTheDriver) {
  // Where no driver exists (CI, the development machines) this is the "no driver needed" promise in action;
  // where one exists it still shows that listing plugins and probing succeed. Nothing here hides a driver.
  const std::string plugins = run("'" + std::string(KSEEK_EXE) + "' plugins --json 2>&1; echo \"exit=$?\"");
  EXPECT_NE(plugins.find("\"attention.fa3\""), std::string::npos) << plugins;
  EXPECT_NE(plugins.find("exit=0"), std::string::npos) << plugins;
  const std::string doctor = run("'" + std::string(KSEEK_EXE) + "' doctor --json 2>&1; echo \"exit=$?\"");
  EXPECT_NE(doctor.find("\"driver\""), std::string::npos) << doctor;
  EXPECT_NE(doctor.find("exit=0"), std::string::npos) << doctor;
}

}  // namespace
