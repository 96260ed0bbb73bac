// Loader tests: a valid plugin loads and describes itself; every broken library gets its own one-line error.
#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

#include "kseek/core/plugin/plugin_registry.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;
const fs::path kGood = KSEEK_FIXTURE_GOOD_DIR;
const fs::path kBad = KSEEK_FIXTURE_BAD_DIR;

TEST(PluginRegistry, LoadsValidPluginAndChecksDescriptor) {
  PluginRegistry registry;
  auto loaded = registry.load_file(kGood / "kseek_fixture_plugin.so");
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ((*loaded)->id, "test.fixture");
  EXPECT_EQ((*loaded)->version, "1.2.3");
  EXPECT_EQ((*loaded)->sdk_version, KSEEK_SDK_VERSION);
  const PluginInfo info = (*loaded)->plugin->info();
  EXPECT_EQ(info.target_archs, std::vector<std::string>{"sm_90a"});
  auto scenarios = (*loaded)->plugin->scenarios("tiny");
  ASSERT_TRUE(scenarios);
  EXPECT_EQ(scenarios->size(), 2u);
  EXPECT_FALSE((*loaded)->plugin->scenarios("nope"));
  auto seed = (*loaded)->plugin->seed_source("sm_90a");
  ASSERT_TRUE(seed);
  EXPECT_NE(seed->text.find("kScale"), std::string::npos);
}

TEST(PluginRegistry, LoadingTheSameFileTwiceReturnsTheSamePlugin) {
  PluginRegistry registry;
  auto first = registry.load_file(kGood / "kseek_fixture_plugin.so");
  auto second = registry.load_file(kGood / "kseek_fixture_plugin.so");
  ASSERT_TRUE(first && second);
  EXPECT_EQ(*first, *second);
  EXPECT_EQ(registry.plugins().size(), 1u);
}

TEST(PluginRegistry, WrongAbiNamesFileAndBothVersions) {
  PluginRegistry registry;
  const auto path = kBad / "kseek_fixture_wrong_abi.so";
  auto loaded = registry.load_file(path);
  ASSERT_FALSE(loaded);
  const std::string& message = loaded.error().message;
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
  EXPECT_NE(message.find("plugin ABI version " + std::to_string(KSEEK_PLUGIN_ABI_VERSION + 98)), std::string::npos)
      << message;
  EXPECT_NE(message.find("expects " + std::to_string(KSEEK_PLUGIN_ABI_VERSION)), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
}

TEST(PluginRegistry, MissingFactoryIsNamed) {
  PluginRegistry registry;
  auto loaded = registry.load_file(kBad / "kseek_fixture_no_factory.so");
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().message.find("kseek_plugin_create"), std::string::npos) << loaded.error().message;
}

TEST(PluginRegistry, OtherStandardLibraryIsRefusedWithBothSides) {
  PluginRegistry registry;
  auto loaded = registry.load_file(kBad / "kseek_fixture_wrong_stdlib.so");
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().message.find("'libc++'"), std::string::npos) << loaded.error().message;
  EXPECT_NE(loaded.error().message.find(KSEEK_STDLIB_ABI), std::string::npos) << loaded.error().message;
}

TEST(PluginRegistry, RandomSharedLibraryIsNotAPlugin) {
  PluginRegistry registry;
  const auto path = kBad / "kseek_fixture_not_a_plugin.so";
  auto loaded = registry.load_file(path);
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().message.find("not a kernelseek plugin"), std::string::npos) << loaded.error().message;
  EXPECT_NE(loaded.error().message.find(path.string()), std::string::npos);
}

TEST(PluginRegistry, NonElfFileIsNotLoadable) {
  const fs::path folder = fs::temp_directory_path() / ("kseek-loader-" + std::to_string(::getpid()));
  fs::create_directories(folder);
  const fs::path fake = folder / "fake.so";
  { std::ofstream(fake) << "this is not an ELF file\n"; }
  PluginRegistry registry;
  auto loaded = registry.load_file(fake);
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().message.find("not a loadable shared library"), std::string::npos) << loaded.error().message;
  fs::remove_all(folder);
}

TEST(PluginRegistry, FolderScanKeepsGoodPluginsAndReportsEveryBadOne) {
  PluginRegistry registry;
  registry.load_folders({kGood, kBad, "/nonexistent/kseek/folder"});
  ASSERT_EQ(registry.plugins().size(), 1u);
  EXPECT_EQ(registry.plugins().front()->id, "test.fixture");
  // Wrong ABI, no factory, wrong stdlib, not a plugin, an object whose id is not its descriptor's.
  EXPECT_EQ(registry.problems().size(), 5u);
  auto missing = registry.require("attention.nope");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("test.fixture"), std::string::npos) << missing.error().message;
}

// Loading a folder checks descriptors only: no plugin object exists, so no info() ran and no scenario set was built
// (an attention plugin builds its sets only through its object). Asking for one id creates that one object.
TEST(PluginRegistry, LoadingAFolderCreatesNoPluginObjectUntilOneIsAskedFor) {
  PluginRegistry registry;
  registry.load_folders({KSEEK_TREE_PLUGIN_DIR});
  EXPECT_EQ(registry.objects_created(), 0u);
  const auto* fa3 = registry.find("attention.fa3");
  ASSERT_NE(fa3, nullptr);
  ASSERT_NE(fa3->plugin, nullptr);
  EXPECT_EQ(registry.objects_created(), 1u);
  EXPECT_EQ(registry.find("attention.fa3"), fa3);  // created once
  EXPECT_EQ(registry.objects_created(), 1u);
  const auto& all = registry.plugins();  // listing them all creates the rest
  EXPECT_GE(all.size(), 3u);
  EXPECT_EQ(registry.objects_created(), all.size());
  for (const auto& loaded : all) EXPECT_NE(loaded->plugin, nullptr) << loaded->id;
}

// The descriptor/object id check still runs, on the first ask: the plugin is then absent and a problem says why.
TEST(PluginRegistry, AnObjectWithAnotherIdIsRefusedWhenAskedFor) {
  PluginRegistry registry;
  registry.load_folders({kBad});
  EXPECT_EQ(registry.find("test.wrong_id"), nullptr);
  auto required = registry.require("test.wrong_id");
  ASSERT_FALSE(required);
  EXPECT_NE(required.error().message.find("the plugin object says 'test.some_other_id'"), std::string::npos)
      << required.error().message;
  EXPECT_TRUE(registry.plugins().empty());

  PluginRegistry direct;
  auto loaded = direct.load_file(kBad / "kseek_fixture_wrong_id.so");
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().message.find("descriptor says id 'test.wrong_id'"), std::string::npos)
      << loaded.error().message;
}

TEST(PluginRegistry, SearchPathHonoursFlagThenEnvironmentThenBuiltIn) {
  ::setenv("KSEEK_PLUGIN_PATH", "/env/one:/env/two", 1);
  const auto path = PluginRegistry::search_path({"/flag/dir"});
  ::unsetenv("KSEEK_PLUGIN_PATH");
  ASSERT_GE(path.size(), 4u);
  EXPECT_EQ(path[0], fs::path("/flag/dir"));
  EXPECT_EQ(path[1], fs::path("/env/one"));
  EXPECT_EQ(path[2], fs::path("/env/two"));
  EXPECT_NE(path[3].string().find("kernelseek/plugins"), std::string::npos) << path[3];
}

TEST(PluginRegistry, SdkCompatibilityIsMajorMinor) {
  EXPECT_TRUE(sdk_versions_compatible("0.1.0", "0.1.7"));
  EXPECT_FALSE(sdk_versions_compatible("0.1.0", "0.2.0"));
  EXPECT_FALSE(sdk_versions_compatible("1.0.0", "2.0.0"));
  EXPECT_EQ(fingerprint_field("sdk=0.1.0;stdlib=libc++;compiler=x", "stdlib"), "libc++");
  EXPECT_EQ(fingerprint_field("sdk=0.1.0", "stdlib"), "");
}

}  // namespace
}  // namespace kseek
