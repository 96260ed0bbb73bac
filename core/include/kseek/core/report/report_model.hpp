// What `kseek report` shows, gathered from a campaign folder: config, log records and full evaluation records.
// It must never write into the campaign, never trust a record whose hash disagrees with its log entry, and never
// drop a damaged log line or unreadable record without a warning that names it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kseek/sdk/result.hpp"

namespace kseek {

// Something the report could not use; `where` names it ("log line 12", "evaluations/0003.json").
struct ReportWarning {
  std::string where;
  std::string message;
};

// One scenario of one evaluation (the log's summary, completed by the full record when it is trusted).
struct ReportCell {
  std::string status;
  std::optional<double> ratio, ci_low, ci_high;
  std::string message;  // why, when not PASSED (full record only)
};

struct ReportEvaluation {
  int number = 0;  // as the log numbers it (a damaged line leaves a gap)
  std::size_t log_line = 0;
  std::string time;
  std::string candidate_sha256;
  std::string status;  // record status: COMPLETE, BUILD_FAILED, NEEDS_GPU
  std::string gpu;
  std::string record_file;  // relative to DIR/.kseek/
  bool all_passed = false;
  std::optional<double> geomean, geomean_low, geomean_high;
  std::map<std::string, ReportCell> cells;  // by scenario id
  nlohmann::json record;                    // the full kseek.eval/1 record; null when missing or not trusted
};

struct ReportScenario {
  std::string id;
  std::string name;  // key=value name from a full record; empty when no record named it
};

// A log record worth a line on the timeline: event, question, claim, steer, gate, config or session.
struct ReportTimelineEntry {
  std::size_t log_line = 0;
  std::string time;
  std::string type;                    // the log record's type
  std::string event;                   // event name, question trigger, claim kind, gate verdict, session phase
  std::string text;                    // detail, question text, claim text, steer text, unmet gate terms
  std::string source;                  // who or what produced it (bank/human, via, agent...)
  std::size_t evaluations_before = 0;  // how many evaluations the log holds before it: its place on the plot
  int after_evaluation = 0;            // number of the evaluation just before it (0: none)
  int next_evaluation = 0;             // number of the first evaluation recorded after it (0: none yet)
  std::optional<double> geomean_before, geomean_after;  // of those two evaluations, when they have one
};

struct ReportRooflineBar {
  std::string scenario, name, status;
  bool timed = false;  // false: no timing (not PASSED, or correctness only)
  double candidate_tflops = 0, candidate_gbps = 0;
  double percent_flops = 0, percent_bandwidth = 0;  // of the record's peaks
  double seed_percent_flops = 0, seed_percent_bandwidth = 0;
  bool compute_bound() const { return percent_flops >= percent_bandwidth; }
};

// Achieved rates of the newest trusted record that has peaks.
struct ReportRoofline {
  int evaluation = 0;
  std::string gpu;
  double peak_flops = 0;  // dense bf16 tensor-core rate (what percent_of_peak_flops is relative to)
  double peak_bytes_per_second = 0;
  std::string flops_source, bytes_source;
  std::vector<ReportRooflineBar> bars;
};

struct ReportFailure {
  int evaluation = 0;
  std::string time;
  std::string scenario, name;  // empty scenario: the whole evaluation (build failure, constraint violation)
  std::string status;
  std::string message;
};

struct ReportModel {
  std::string campaign;   // the folder's name
  nlohmann::json config;  // campaign.json as read
  std::string plugin, set, goal, arch, candidate;
  std::vector<std::string> packs;
  bool questions = true;
  std::string created;                        // time of the init record
  std::vector<ReportEvaluation> evaluations;  // log order
  std::vector<ReportScenario> scenarios;      // heatmap rows, sorted by id
  std::vector<ReportTimelineEntry> timeline;
  std::optional<ReportRoofline> roofline;
  std::vector<ReportFailure> failures;
  std::vector<ReportWarning> warnings;
  std::map<std::string, int> record_counts;   // log records by type
  std::map<std::string, int> hook_decisions;  // hook records by decision

  // Indexes into `evaluations`: best geomean among evaluations where every scenario passed; newest with one.
  std::optional<std::size_t> best() const;
  std::optional<std::size_t> latest_with_geomean() const;
};

// Reads DIR/campaign.json and DIR/.kseek/ (log and evaluation records). Errors only when DIR is not a campaign
// (no readable campaign.json that parses) or the log cannot be read at all; everything else becomes a warning.
Result<ReportModel> build_report_model(const std::filesystem::path& dir);

}  // namespace kseek
