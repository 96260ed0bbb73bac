// `kseek slurm submit` without a cluster: the job scripts (golden text), the options it refuses, and a clear error
// where sbatch is missing. The real cluster run is tests/slurm/run_slurm_test.sh.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"

namespace {

kseek::testing::CommandRun kseek(const std::string& args) {
  return kseek::testing::run_kseek(args, "slurm-submit-test", /*merge_stderr=*/true);
}

// Paths are fictional and absolute, so the scripts do not depend on where the test runs.
const std::string kDryRun =
    "slurm submit --dry-run --shards 3 --partition gpu --time 02:00:00 --dir /scratch/kseek-run "
    "--kseek /opt/kseek/bin/kseek /scratch/candidate.cu --plugin attention.fa3 --set case-study --input-seed 42 "
    "--time-budget 5";

TEST(SlurmSubmit, DryRunPrintsTheGoldenJobScripts) {
  const auto run = kseek(kDryRun);
  ASSERT_EQ(run.exit_code, 0) << run.out;
  std::ifstream in(std::string(KSEEK_GOLDEN_DIR) + "/slurm-submit-dry-run.txt");
  ASSERT_TRUE(in);
  std::stringstream golden;
  golden << in.rdbuf();
  EXPECT_EQ(run.out, golden.str()) << "update tests/golden/slurm-submit-dry-run.txt with the new text if intended";
}

TEST(SlurmSubmit, EveryTaskGetsTheSameDrawnSeedAndItsOwnShard) {
  const auto run = kseek("--json slurm submit --dry-run --shards 4 --gpus-per-task 2 --plugin example.softmax");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const auto j = nlohmann::json::parse(run.out);
  std::string array;
  for (const auto& [path, text] : j.at("scripts").items()) {
    if (path.ends_with("eval-array.sh")) array = text.get<std::string>();
  }
  EXPECT_NE(array.find("#SBATCH --array=0-3\n"), std::string::npos) << array;
  EXPECT_NE(array.find("#SBATCH --gpus-per-task=2\n"), std::string::npos) << array;
  EXPECT_NE(array.find(" --input-seed "), std::string::npos) << "a seed is drawn once for every shard:\n" << array;
  EXPECT_NE(array.find(" --gpus all "), std::string::npos) << "two GPUs per task run at once:\n" << array;
  EXPECT_NE(array.find("--shard \"$shard/4\""), std::string::npos) << array;
  EXPECT_EQ(j.at("records").size(), 4u);
}

TEST(SlurmSubmit, NoGpuRequestWithZeroGpusPerTask) {
  const auto run = kseek("slurm submit --dry-run --shards 2 --gpus-per-task 0 --plugin example.softmax --input-seed 1");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_EQ(run.out.find("--gpus"), std::string::npos) << run.out;
}

TEST(SlurmSubmit, OptionsTheShardsMustNotSetAreRefused) {
  auto run = kseek("slurm submit --dry-run --shards 2 --plugin example.softmax --shard 0/2");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.out.find("--shard is set by kseek slurm submit"), std::string::npos) << run.out;
  run = kseek("slurm submit --dry-run --shards 0 --plugin example.softmax");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.out.find("--shards must be at least 1"), std::string::npos) << run.out;
  run = kseek("slurm submit --dry-run --shards 2 --time soon --plugin example.softmax");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.out.find("--time 'soon'"), std::string::npos) << run.out;
}

TEST(SlurmSubmit, MissingSbatchIsAClearError) {
  const auto run = kseek::testing::run_command(
      "PATH=/nonexistent '" + std::string(KSEEK_EXE) +
      "' slurm submit --shards 2 --plugin example.softmax --dir \"${TMPDIR:-/tmp}/kseek-no-sbatch\" 2>&1");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.out.find("sbatch was not found on PATH"), std::string::npos) << run.out;
}

}  // namespace
