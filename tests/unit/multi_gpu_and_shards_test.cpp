// Several GPUs and several machines, without a GPU: the multi-GPU scheduler driven by a fake worker (fake GPUs, one
// that crashes, a scenario that hangs), the cost-balanced shard split, and the merge of shard records and its checks.
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "kseek/core/eval/evaluator.hpp"
#include "kseek/core/worker/scenario_job.hpp"
#include "support/gpu_probes.hpp"
#include "support/temp_folder.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::probes_of;

// ---- the multi-GPU scheduler ---------------------------------------------------------------------------------------

class MultiGpuScheduler : public ::testing::Test {
 protected:
  const testing::TempFolder temp_{"kseek_multigpu"};
  const fs::path& work = temp_.path();
  fs::path worker = fs::path(KSEEK_FIXTURE_CANDIDATES).parent_path().parent_path() / "unit" / "fake_gpu_worker.sh";

  void SetUp() override {
    fs::create_directories(work / "rendezvous");
    ::setenv("KSEEK_FAKE_GPUS", "2", 1);
    ::setenv("KSEEK_FAKE_LOG", (work / "started.log").c_str(), 1);
    ::setenv("KSEEK_FAKE_RENDEZVOUS", (work / "rendezvous").c_str(), 1);
  }
  void TearDown() override {
    for (const char* name :
         {"KSEEK_FAKE_GPUS", "KSEEK_FAKE_BUSY_GPU", "KSEEK_FAKE_LOG", "KSEEK_FAKE_RENDEZVOUS", "KSEEK_FAKE_CRASH_GPU",
          "KSEEK_FAKE_UNUSABLE_GPU", "KSEEK_FAKE_CRASH_SCENARIO", "KSEEK_FAKE_HANG_SCENARIO"}) {
      ::unsetenv(name);
    }
  }

  static PreparedScenario scenario(const std::string& id, double estimated_seconds, const std::string& name = "plain") {
    PreparedScenario p;
    p.job.scenario = {id, name, "", 1e9, 1e6, "sm_90a"};
    p.arch = "sm_90a";
    p.estimated_seconds = estimated_seconds;
    return p;
  }

  std::vector<GpuTarget> gpus(const GpuSelection& selection) {
    std::vector<GpuTarget> targets;
    for (const auto& probe : probe_gpus(worker, selection, work)) {
      if (!probe.available) continue;
      auto target = gpu_target(probe);
      EXPECT_TRUE(target) << target.error().message;
      if (target) targets.push_back(std::move(*target));
    }
    return targets;
  }

  SchedulerOptions options(bool several) const {
    SchedulerOptions o;
    o.executable = worker;
    o.work_folder = work;
    o.scenario_timeout_seconds = 30;
    o.time_budget_seconds = 0;
    o.largest_first = several;
    o.record_gpu = several;
    return o;
  }

  std::vector<std::string> start_order() const {
    std::ifstream in(work / "started.log");
    std::vector<std::string> ids;
    for (std::string id, device; in >> id >> device;) ids.push_back(id);
    return ids;
  }
};

TEST_F(MultiGpuScheduler, ProbingAllFindsEveryFakeGpuAndStopsAtTheFirstMissingOrdinal) {
  ::setenv("KSEEK_FAKE_GPUS", "3", 1);
  const auto probes = probe_gpus(worker, {{}, true}, work);
  ASSERT_EQ(probes.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(probes[i].ordinal, i);
    EXPECT_EQ(to_json(probes[i]).value("uuid", ""), "GPU-fake-" + std::to_string(i));
    EXPECT_TRUE(probes[i].peaks);
  }
}

TEST_F(MultiGpuScheduler, ProbingAllReportsABusyGpuAndStillFindsTheOnesAfterIt) {
  ::setenv("KSEEK_FAKE_GPUS", "4", 1);
  ::setenv("KSEEK_FAKE_BUSY_GPU", "1", 1);
  const auto probes = probe_gpus(worker, {{}, true}, work);
  ::unsetenv("KSEEK_FAKE_BUSY_GPU");
  ASSERT_EQ(probes.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(probes[i].ordinal, i);
    EXPECT_EQ(probes[i].available, i != 1) << to_json(probes[i]).dump();
  }
  EXPECT_NE(probes[1].problem.find("DEVICES_UNAVAILABLE"), std::string::npos) << probes[1].problem;
}

TEST(UsableGpus, OneModelPerEvaluationAndEveryOtherGpuSaysWhyItIsLeftOut) {
  const UsableGpus usable =
      usable_gpus(probes_of({{{"ordinal", 0}, {"available", true}, {"name", "NVIDIA H200"}},
                             {{"ordinal", 1}, {"available", false}, {"problem", "CUDA_ERROR_DEVICES_UNAVAILABLE"}},
                             {{"ordinal", 2}, {"available", true}, {"name", "NVIDIA H100 80GB HBM3"}},
                             {{"ordinal", 3}, {"available", true}, {"name", "NVIDIA H200"}}}));
  ASSERT_EQ(usable.gpus.size(), 2u);
  EXPECT_EQ(usable.gpus[0].gpu.ordinal, 0);
  EXPECT_EQ(usable.gpus[1].gpu.ordinal, 3);
  EXPECT_EQ(usable.gpus[1].gpu.name, "NVIDIA H200");
  EXPECT_NE(usable.not_used.find("DEVICES_UNAVAILABLE"), std::string::npos) << usable.not_used;
  EXPECT_NE(usable.not_used.find("GPU 2 (NVIDIA H100 80GB HBM3) is not used"), std::string::npos) << usable.not_used;

  // Without a driver every ordinal fails the same way: one reason, no GPU.
  const json no_driver = {{"available", false}, {"problem", "no CUDA driver"}};
  const UsableGpus none = usable_gpus(probes_of({no_driver, no_driver, no_driver}));
  EXPECT_TRUE(none.gpus.empty());
  EXPECT_EQ(none.not_used, "no CUDA driver");
}

TEST_F(MultiGpuScheduler, AnExplicitOrdinalThatDoesNotExistIsReportedWithItsProblem) {
  const auto probes = probe_gpus(worker, {{0, 5}, false}, work);
  ASSERT_EQ(probes.size(), 2u);
  EXPECT_TRUE(probes[0].available);
  EXPECT_FALSE(probes[1].available);
  EXPECT_EQ(probes[1].ordinal, 5);
  EXPECT_NE(probes[1].problem.find("INVALID_DEVICE"), std::string::npos) << probes[1].problem;
}

TEST_F(MultiGpuScheduler, TwoGpusRunAtOnceAndEachResultNamesItsGpu) {
  // The two "rendezvous" scenarios are the largest, so each GPU takes one first; each passes only if the other runs
  // at the same time (run one after the other, the first waits alone and FAILS).
  const std::vector<PreparedScenario> scenarios = {scenario("S1", 5), scenario("R1", 50, "rendezvous"),
                                                   scenario("S2", 5), scenario("R2", 40, "rendezvous"),
                                                   scenario("S3", 5)};
  const auto targets = gpus({{0, 1}, false});
  ASSERT_EQ(targets.size(), 2u);
  const auto results = run_scenarios(scenarios, targets, options(true));
  ASSERT_EQ(results.size(), scenarios.size());
  std::set<int> rendezvous_gpus;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    EXPECT_EQ(r.value("scenario", ""), scenarios[i].job.scenario.id) << "results come back in the given order";
    EXPECT_EQ(r.value("status", ""), "PASSED") << r.dump();
    ASSERT_TRUE(r.contains("gpu")) << r.dump();
    const int ordinal = r["gpu"].value("ordinal", -1);
    EXPECT_EQ(r["gpu"].value("uuid", ""), "GPU-fake-" + std::to_string(ordinal));
    if (r.value("name", "") == "rendezvous") rendezvous_gpus.insert(ordinal);
  }
  EXPECT_EQ(rendezvous_gpus, (std::set<int>{0, 1}));
}

TEST_F(MultiGpuScheduler, AGpuThatCannotOpenASessionHandsItsScenariosToTheOthers) {
  ::setenv("KSEEK_FAKE_UNUSABLE_GPU", "1", 1);
  std::vector<PreparedScenario> scenarios;
  for (int i = 0; i < 8; ++i) scenarios.push_back(scenario("S" + std::to_string(i), 8 - i));
  const auto results = run_scenarios(scenarios, gpus({{0, 1}, false}), options(true));
  ASSERT_EQ(results.size(), scenarios.size());
  for (const auto& r : results) {
    EXPECT_EQ(r.value("status", ""), "PASSED") << r.dump();
    EXPECT_EQ(r["gpu"].value("ordinal", -1), 0) << r.dump();
  }
}

TEST_F(MultiGpuScheduler, WhenNoGpuCanOpenASessionEveryScenarioStillGetsItsVerdict) {
  ::setenv("KSEEK_FAKE_GPUS", "1", 1);
  ::setenv("KSEEK_FAKE_UNUSABLE_GPU", "0", 1);
  const std::vector<PreparedScenario> scenarios = {scenario("S1", 5), scenario("S2", 4), scenario("S3", 3)};
  const auto results = run_scenarios(scenarios, gpus({{0}, false}), options(true));
  ASSERT_EQ(results.size(), scenarios.size());
  for (const auto& r : results) EXPECT_EQ(r.value("status", ""), "NOT_RUNNABLE") << r.dump();
}

TEST_F(MultiGpuScheduler, AGpuWhoseWorkersCrashDoesNotStopTheOther) {
  ::setenv("KSEEK_FAKE_CRASH_GPU", "1", 1);
  // Largest first, GPU 1 takes R2 (and dies after arriving), so GPU 0's R1 still meets it and both GPUs are used.
  const std::vector<PreparedScenario> scenarios = {scenario("R1", 50, "rendezvous"),
                                                   scenario("R2", 40, "rendezvous"),
                                                   scenario("S1", 5),
                                                   scenario("S2", 5),
                                                   scenario("S3", 5),
                                                   scenario("S4", 5)};
  const auto results = run_scenarios(scenarios, gpus({{0, 1}, false}), options(true));
  std::map<int, int> per_gpu;
  for (const auto& r : results) {
    ASSERT_TRUE(r.contains("gpu")) << r.dump();
    const int ordinal = r["gpu"].value("ordinal", -1);
    ++per_gpu[ordinal];
    if (ordinal == 1) {
      EXPECT_EQ(r.value("status", ""), "CRASHED") << r.dump();
      EXPECT_NE(r.value("message", "").find("signal 11"), std::string::npos) << r.dump();
    } else {
      EXPECT_EQ(ordinal, 0);
      EXPECT_EQ(r.value("status", ""), "PASSED") << r.dump();
    }
  }
  EXPECT_GE(per_gpu[0], 1);
  EXPECT_GE(per_gpu[1], 1);
  EXPECT_EQ(per_gpu[0] + per_gpu[1], 6);
}

TEST_F(MultiGpuScheduler, AHangingScenarioIsATimeoutAndTheRestStillRun) {
  ::setenv("KSEEK_FAKE_HANG_SCENARIO", "S2", 1);
  auto o = options(true);
  o.scenario_timeout_seconds = 1;
  const std::vector<PreparedScenario> scenarios = {scenario("S1", 5), scenario("S2", 5), scenario("S3", 5),
                                                   scenario("S4", 5)};
  const auto results = run_scenarios(scenarios, gpus({{0, 1}, false}), o);
  for (const auto& r : results) {
    EXPECT_EQ(r.value("status", ""), r.value("scenario", "") == "S2" ? "TIMEOUT" : "PASSED") << r.dump();
  }
}

// The same on one GPU, with a serving worker kept from scenario to scenario and with a process per scenario: a crash
// and a hang cost their own scenarios only, in both.
TEST_F(MultiGpuScheduler, OnOneGpuACrashAndAHangCostTheirScenariosOnlyWithOrWithoutWorkerReuse) {
  ::setenv("KSEEK_FAKE_HANG_SCENARIO", "S2", 1);
  ::setenv("KSEEK_FAKE_CRASH_SCENARIO", "S4", 1);
  const std::vector<PreparedScenario> scenarios = {scenario("S1", 5), scenario("S2", 5), scenario("S3", 5),
                                                   scenario("S4", 5), scenario("S5", 5)};
  for (const bool reuse : {true, false}) {
    auto o = options(false);
    o.scenario_timeout_seconds = 1;
    o.reuse_workers = reuse;
    const auto results = run_scenarios(scenarios, gpus({{0}, false}), o);
    ASSERT_EQ(results.size(), scenarios.size());
    for (const auto& r : results) {
      const std::string id = r.value("scenario", "");
      EXPECT_EQ(r.value("status", ""), id == "S2"   ? "TIMEOUT"
                                       : id == "S4" ? "CRASHED"
                                                    : "PASSED")
          << (reuse ? "serving worker: " : "worker per scenario: ") << r.dump();
    }
  }
}

TEST_F(MultiGpuScheduler, SeveralGpusTakeTheLargestScenariosFirstAndOneGpuKeepsTheGivenOrder) {
  const std::vector<PreparedScenario> scenarios = {scenario("small", 1), scenario("large", 100), scenario("medium", 10),
                                                   scenario("tiny", 0.5)};
  const auto targets = gpus({{0}, false});
  ASSERT_EQ(targets.size(), 1u);
  (void)run_scenarios(scenarios, targets, options(true));
  EXPECT_EQ(start_order(), (std::vector<std::string>{"large", "medium", "small", "tiny"}));
  fs::remove(work / "started.log");
  const auto results = run_scenarios(scenarios, targets, options(false));
  EXPECT_EQ(start_order(), (std::vector<std::string>{"small", "large", "medium", "tiny"}));
  EXPECT_FALSE(results.front().contains("gpu")) << "one GPU without --gpus: the record is unchanged";
}

TEST_F(MultiGpuScheduler, ProgressIsCalledOncePerScenario) {
  const std::vector<PreparedScenario> scenarios = {scenario("S1", 1), scenario("S2", 2), scenario("S3", 3)};
  std::multiset<std::string> seen;
  (void)run_scenarios(scenarios, gpus({{0, 1}, false}), options(true),
                      [&](const json& r) { seen.insert(r.value("scenario", "")); });
  EXPECT_EQ(seen, (std::multiset<std::string>{"S1", "S2", "S3"}));
}

// ---- the shard split and the command-line forms ---------------------------------------------------------------

// The worker's result enters the record typed: a result no reader would accept (a stand-in worker's unknown status) is
// that worker's crash, and the job, not the result, says which scenario it was and with which inputs.
TEST(WorkerResults, AnUnreadableResultIsTheWorkersCrashAndTheJobNamesTheScenario) {
  PreparedScenario prepared;
  prepared.job.scenario.id = "S07";
  prepared.job.scenario.name = "n=7";
  prepared.job.input_seed = 77;
  const ScenarioOutcome unreadable = outcome_of_worker({{"status", "GREAT"}, {"message", "fake"}}, prepared);
  EXPECT_EQ(unreadable.status, Status::kCrashed);
  EXPECT_NE(unreadable.message.value_or("").find("'GREAT'"), std::string::npos) << unreadable.message.value_or("");
  EXPECT_EQ(unreadable.scenario, "S07");
  EXPECT_EQ(unreadable.input_seed, 77u);

  const ScenarioOutcome read = outcome_of_worker(
      {{"status", "PASSED"}, {"message", ""}, {"input_seed", 5}, {"wall_seconds", 1.5}, {"timing", {{"ratio", 1.2}}}},
      prepared);
  EXPECT_EQ(read.status, Status::kPassed);
  EXPECT_EQ(read.name, "n=7");
  EXPECT_EQ(read.input_seed, 5u) << "the worker's own seed is kept";
  ASSERT_TRUE(read.timing.has_value());
  EXPECT_DOUBLE_EQ(read.timing->ratio, 1.2);
  // A verdict reached without a worker has no wall time, and the record writes none.
  EXPECT_FALSE(to_json(outcome_of_worker({{"status", "FAILED"}}, prepared)).contains("wall_seconds"));
}

TEST(ShardSplit, LongestFirstToTheLeastLoadedShard) {
  // 5 -> 0; 4 -> 1; 3 -> 1 (4 < 5); 3 -> 0 (5 < 7); 3 -> 1 (7 < 8)
  EXPECT_EQ(split_into_shards({5, 4, 3, 3, 3}, 2), (std::vector<int>{0, 1, 1, 0, 1}));
  // Ties in cost keep the set's order; ties in load go to the lower shard.
  EXPECT_EQ(split_into_shards({1, 9, 1, 9}, 2), (std::vector<int>{0, 0, 1, 1}));
  // Equal costs alternate like index mod N.
  EXPECT_EQ(split_into_shards({1, 1, 1, 1, 1}, 2), (std::vector<int>{0, 1, 0, 1, 0}));
}

TEST(ShardSplit, EveryItemInOneShardAndLoadsWithinTheLargestItem) {
  std::vector<double> costs;
  for (int i = 0; i < 37; ++i) costs.push_back(1.0 + (i * 7919 % 23));  // uneven, deterministic
  for (int shards : {1, 2, 3, 5, 40}) {
    const auto split = split_into_shards(costs, shards);
    ASSERT_EQ(split.size(), costs.size());
    std::vector<double> load(static_cast<std::size_t>(shards), 0.0);
    for (std::size_t i = 0; i < split.size(); ++i) {
      ASSERT_GE(split[i], 0);
      ASSERT_LT(split[i], shards);
      load[static_cast<std::size_t>(split[i])] += costs[i];
    }
    const double max_cost = *std::max_element(costs.begin(), costs.end());
    if (shards <= static_cast<int>(costs.size())) {
      EXPECT_LE(*std::max_element(load.begin(), load.end()) - *std::min_element(load.begin(), load.end()), max_cost)
          << shards << " shards";
    }
    EXPECT_EQ(split, split_into_shards(costs, shards)) << "the split must be deterministic";
  }
}

TEST(ShardSplit, EstimatedCostGrowsWithTheWork) {
  EvaluationSettings settings;
  Scenario small{"S1", "n", "", 1e9, 1e6, ""}, large{"S2", "n", "", 1e14, 1e10, ""};
  EXPECT_LT(estimated_scenario_seconds(small, settings), estimated_scenario_seconds(large, settings));
  settings.measure_time = false;
  EvaluationSettings timed;
  EXPECT_LT(estimated_scenario_seconds(small, settings), estimated_scenario_seconds(small, timed));
  // Timing computes references again for its full checks (at least kMinTimedReferenceChecks), off the sampling
  // clock: on a 100-TFLOP scenario those, not the time budget, are what timing adds.
  const double timing_adds = estimated_scenario_seconds(large, timed) - estimated_scenario_seconds(large, settings);
  EXPECT_GT(timing_adds, timed.sampling.time_budget_seconds + kMinTimedReferenceChecks * 100.0)
      << "one set of references at the bound's 1 TFLOP/s takes 100 s here";
}

TEST(CommandLineForms, ShardAndGpuSelection) {
  ASSERT_TRUE(parse_shard("1/4"));
  EXPECT_EQ(parse_shard("1/4")->index, 1);
  EXPECT_EQ(parse_shard("1/4")->count, 4);
  for (const char* bad : {"4/4", "-1/2", "1", "a/b", "1/0", "", "1/2/3"}) EXPECT_FALSE(parse_shard(bad)) << bad;
  ASSERT_TRUE(parse_gpu_selection("all"));
  EXPECT_TRUE(parse_gpu_selection("all")->all);
  ASSERT_TRUE(parse_gpu_selection("0,2,3"));
  EXPECT_EQ(parse_gpu_selection("0,2,3")->ordinals, (std::vector<int>{0, 2, 3}));
  for (const char* bad : {"", "0,", "0,,1", "x", "1,1", "-1"}) EXPECT_FALSE(parse_gpu_selection(bad)) << bad;
}

// ---- merging shard records -------------------------------------------------------------------------------------

const std::vector<std::string> kSelection = {"S1", "S2", "S3", "S4"};

json passed(const std::string& id, double ratio) {
  return {{"scenario", id},
          {"name", "n=" + id},
          {"status", "PASSED"},
          {"timing",
           {{"rounds", 30},
            {"ratio", ratio},
            {"ci_low", ratio * 0.99},
            {"ci_high", ratio * 1.01},
            {"confidence", 0.95},
            {"meets_confidence", true},
            {"seed_median_ms", ratio},
            {"candidate_median_ms", 1.0}}}};
}

// A shard record as `kseek eval --shard I/2` writes it, with verdicts for `mine` (ratio 1 + 0.1 * position).
json shard_record(int index, const std::vector<std::string>& mine, const std::string& status = "COMPLETE") {
  json record = {{"schema", "kseek.eval/1"},
                 {"kseek_version", "0.1.0"},
                 {"created_at", "2025-01-01T00:00:00Z"},
                 {"status", status},
                 {"plugin", {{"id", "example.softmax"}, {"version", "1.0"}, {"path", "/p.so"}}},
                 {"candidate", {{"file", "c.cu"}, {"sha256", "aaa"}}},
                 {"seed", {{"file", "s.cu"}, {"sha256", "bbb"}}},
                 {"input_seed", 42},
                 {"settings", {{"measure_time", true}, {"min_rounds", 20}, {"geomean_clamp", {0.25, 4.0}}}},
                 {"environment", {{"nvrtc_version", "13.0"}}},
                 {"shard",
                  {{"index", index},
                   {"count", 2},
                   {"set", "small"},
                   {"selection", kSelection},
                   {"scenarios", mine},
                   {"host", "node" + std::to_string(index)}}},
                 {"wall_seconds", 10.0 + index}};
  if (status == "COMPLETE") {
    record["environment"]["name"] = "Fake GPU";
    record["environment"]["uuid"] = "GPU-" + std::to_string(index);
    json scenarios = json::array();
    for (const auto& id : mine) {
      const auto position = std::find(kSelection.begin(), kSelection.end(), id) - kSelection.begin();
      scenarios.push_back(passed(id, 1.0 + 0.1 * static_cast<double>(position)));
    }
    record["scenarios"] = scenarios;
  } else {
    record["message"] = "needs a GPU: no CUDA driver";
  }
  return record;
}

std::string merge_error(const std::vector<RecordFile>& files) {
  auto merged = merge_shard_records(files);
  EXPECT_FALSE(merged) << "expected a refusal, got " << (merged ? merged->dump() : "");
  return merged ? "" : merged.error().message;
}

TEST(MergeShards, VerdictsInSelectionOrderAndTheGeomeanOverAll) {
  auto merged =
      merge_shard_records({{"b.json", shard_record(1, {"S2", "S4"})}, {"a.json", shard_record(0, {"S3", "S1"})}});
  ASSERT_TRUE(merged) << merged.error().message;
  EXPECT_EQ(merged->value("status", ""), "COMPLETE");
  EXPECT_EQ(merged->value("schema", ""), "kseek.eval/1");
  EXPECT_FALSE(merged->contains("shard"));
  std::vector<std::string> order;
  for (const auto& r : (*merged)["scenarios"]) order.push_back(r.value("scenario", ""));
  EXPECT_EQ(order, kSelection);
  EXPECT_EQ((*merged)["scenarios"][1].value("shard", -1), 1);
  EXPECT_EQ((*merged)["scenarios"][2].value("shard", -1), 0);
  // The geomean over all four, as geomean_of_ratios computes it.
  std::vector<RatioEstimate> estimates;
  for (int i = 0; i < 4; ++i) {
    RatioEstimate e;
    e.ratio = 1.0 + 0.1 * i;
    e.ci_low = e.ratio * 0.99;
    e.ci_high = e.ratio * 1.01;
    e.meets_confidence = true;
    estimates.push_back(e);
  }
  const auto expected = geomean_of_ratios(estimates);
  ASSERT_TRUE(expected);
  const auto& g = (*merged)["summary"]["geomean"];
  EXPECT_EQ(g.value("scenarios", 0), 4);
  EXPECT_DOUBLE_EQ(g.value("value", 0.0), expected->geomean);
  EXPECT_DOUBLE_EQ(g.value("ci_low", 0.0), expected->ci_low);
  EXPECT_EQ((*merged)["summary"]["status_counts"].value("PASSED", 0), 4);
  ASSERT_EQ((*merged)["merged_from"].size(), 2u);
  EXPECT_EQ((*merged)["merged_from"][0].value("file", ""), "a.json");
  ASSERT_EQ((*merged)["environment"]["gpus"].size(), 2u);
  EXPECT_EQ((*merged)["environment"]["gpus"][1].value("host", ""), "node1");
  EXPECT_DOUBLE_EQ(merged->value("wall_seconds", 0.0), 11.0);
}

TEST(MergeShards, RecordsOfDifferentEvaluationsAreRefusedNamingTheFilesAndTheField) {
  const std::vector<std::pair<std::string, json>> changes = {
      {"candidate.sha256", "zzz"},
      {"seed.sha256", "yyy"},
      {"input_seed", 43},
      {"plugin.id", "other"},
      {"settings", {{"measure_time", false}}},
      {"shard.set", "large"},
      {"kseek_version", "0.2.0"},
      {"synthetic", true}};  // a test worker's shard must not lose that mark in a merge with a real one
  for (const auto& [path, value] : changes) {
    json other = shard_record(1, {"S2", "S4"});
    json* node = &other;
    std::stringstream keys(path);
    for (std::string key; std::getline(keys, key, '.');) node = &(*node)[key];
    *node = value;
    const std::string error = merge_error({{"a.json", shard_record(0, {"S1", "S3"})}, {"b.json", other}});
    EXPECT_NE(error.find("a.json"), std::string::npos) << error;
    EXPECT_NE(error.find("b.json"), std::string::npos) << error;
    EXPECT_NE(error.find(path), std::string::npos) << error;
  }
}

TEST(MergeShards, ShardsFromTwoGpuModelsAreRefused) {
  json other = shard_record(1, {"S2", "S4"});
  other["environment"]["name"] = "Other GPU";
  const std::string error = merge_error({{"a.json", shard_record(0, {"S1", "S3"})}, {"b.json", other}});
  EXPECT_NE(error.find("different GPU models"), std::string::npos) << error;
  EXPECT_NE(error.find("b.json"), std::string::npos) << error;
}

TEST(MergeShards, CoverageMustBeExactlyOnce) {
  EXPECT_NE(merge_error({{"a.json", shard_record(0, {"S1", "S3"})}}).find("shard(s) 1 of 2 missing"),
            std::string::npos);
  EXPECT_NE(merge_error({{"a.json", shard_record(0, {"S1", "S3"})}, {"c.json", shard_record(0, {"S1", "S3"})}})
                .find("a.json and c.json are both shard 0"),
            std::string::npos);
  EXPECT_NE(merge_error({{"a.json", shard_record(0, {"S1", "S3"})}, {"b.json", shard_record(1, {"S2", "S3", "S4"})}})
                .find("scenario S3 is in both a.json and b.json"),
            std::string::npos);
  EXPECT_NE(merge_error({{"a.json", shard_record(0, {"S1", "S3"})}, {"b.json", shard_record(1, {"S2"})}})
                .find("no shard covers scenario S4"),
            std::string::npos);
  json incomplete = shard_record(1, {"S2", "S4"});
  incomplete["scenarios"].erase(1);
  EXPECT_NE(merge_error({{"a.json", shard_record(0, {"S1", "S3"})}, {"b.json", incomplete}})
                .find("b.json: COMPLETE but without a verdict for its scenario S4"),
            std::string::npos);
}

TEST(MergeShards, OnlyShardRecordsOfThisSchema) {
  json whole = shard_record(0, {"S1", "S3"});
  whole.erase("shard");
  EXPECT_NE(merge_error({{"whole.json", whole}}).find("whole.json: not a shard record"), std::string::npos);
  json other = shard_record(0, {"S1", "S3"});
  other["schema"] = "kseek.eval/0";
  EXPECT_NE(merge_error({{"old.json", other}}).find("old.json: not a kseek.eval/1 record"), std::string::npos);
  EXPECT_NE(merge_error({}).find("no records"), std::string::npos);
}

TEST(MergeShards, AShardThatNeededAGpuMakesTheMergeNeedOneAndSaysWhich) {
  auto merged = merge_shard_records(
      {{"a.json", shard_record(0, {"S1", "S3"})}, {"b.json", shard_record(1, {"S2", "S4"}, "NEEDS_GPU")}});
  ASSERT_TRUE(merged) << merged.error().message;
  EXPECT_EQ(merged->value("status", ""), "NEEDS_GPU");
  EXPECT_NE(merged->value("message", "").find("1 of 2 shards need a GPU: b.json (shard 1)"), std::string::npos)
      << merged->value("message", "");
  EXPECT_EQ((*merged)["scenarios"].size(), 2u) << "the verdicts that exist are kept";
  EXPECT_EQ((*merged)["environment"].value("uuid", ""), "GPU-0");
}

}  // namespace
}  // namespace kseek
