// A temporary campaign with synthetic evaluation records, for engine, gate and hook tests without a GPU.
// It must never leave its folder behind, and never write a record the way kseek would not (it goes through the store).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/sha256.hpp"
#include "support/temp_folder.hpp"

namespace kseek::testing {

// One scenario of a synthetic record: id, status and (for PASSED with timing) the ratio and its interval.
struct SyntheticScenario {
  std::string id;
  std::string status = "PASSED";
  double ratio = 1.0;
  double half_width = 0.01;
};

// A kseek.eval/1-shaped record for `candidate_text`; geomean = the product rule is not recomputed here: the
// caller states it, as a real record would carry it.
inline nlohmann::json synthetic_record(const std::string& candidate_text,
                                       const std::vector<SyntheticScenario>& scenarios, std::optional<double> geomean,
                                       double geomean_half_width = 0.01, bool timed = true) {
  nlohmann::json record = {{"schema", "kseek.eval/1"},
                           {"status", "COMPLETE"},
                           {"candidate", {{"file", "candidate.cu"}, {"sha256", sha256_hex(candidate_text)}}},
                           {"settings", {{"measure_time", timed}}},
                           {"environment", {{"name", "NVIDIA H200"}}},
                           {"scenarios", nlohmann::json::array()}};
  for (const auto& s : scenarios) {
    nlohmann::json r = {{"scenario", s.id}, {"name", "n=" + s.id}, {"status", s.status}, {"message", ""}};
    if (timed && s.status == "PASSED") {
      r["timing"] = {{"ratio", s.ratio}, {"ci_low", s.ratio - s.half_width}, {"ci_high", s.ratio + s.half_width}};
    }
    record["scenarios"].push_back(r);
  }
  record["summary"] = {{"scenarios", scenarios.size()}};
  if (geomean) {
    record["summary"]["geomean"] = {{"value", *geomean},
                                    {"ci_low", *geomean - geomean_half_width},
                                    {"ci_high", *geomean + geomean_half_width},
                                    {"scenarios", scenarios.size()}};
  }
  return record;
}

class CampaignFixture {
 public:
  explicit CampaignFixture(CampaignConfig config, std::string candidate = "// candidate v1\n")
      : candidate_(std::move(candidate)) {
    dir_ = temp_.path() / "campaign";
    auto created = Campaign::create(dir_, config, candidate_, sha256_hex("// seed\n"));
    if (!created) throw std::runtime_error(created.error().message);
  }
  CampaignFixture(const CampaignFixture&) = delete;
  CampaignFixture& operator=(const CampaignFixture&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  const std::string& candidate() const { return candidate_; }
  Campaign open() const {
    auto c = Campaign::open(dir_);
    if (!c) throw std::runtime_error(c.error().message);
    return std::move(*c);
  }
  // Rewrites the candidate (as an agent's edit would).
  void edit_candidate(std::string text) {
    candidate_ = std::move(text);
    if (!write_file_atomically(dir_ / "candidate.cu", candidate_))
      throw std::runtime_error("cannot write the candidate");
  }
  EvaluationSummary evaluate(const std::vector<SyntheticScenario>& scenarios, std::optional<double> geomean,
                             double half_width = 0.01, bool timed = true) {
    auto s = open().record_evaluation(synthetic_record(candidate_, scenarios, geomean, half_width, timed));
    if (!s) throw std::runtime_error(s.error().message);
    return *s;
  }

 private:
  TempFolder temp_{"kseek_campaign"};  // first: removed last, with the campaign inside it
  std::filesystem::path dir_;
  std::string candidate_;
};

inline CampaignConfig synthetic_config() {
  CampaignConfig c;
  c.plugin = "example.softmax";
  c.set = "default";
  c.arch = "sm_90a";
  c.goal = "all_passed and geomean >= 1.10";
  c.thresholds.stagnation_evaluations = 3;
  c.thresholds.stagnation_minutes = 60;
  c.thresholds.suspicious_win_ratio = 1.5;
  c.thresholds.hook_block_budget = 3;
  return c;
}

}  // namespace kseek::testing
