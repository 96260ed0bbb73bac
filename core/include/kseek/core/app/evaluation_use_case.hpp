// One evaluation as a use case, the same for `kseek eval` and the MCP server's `eval` tool: the request (a file or a
// campaign's candidate, the plugin, the selection, the settings), the evaluation itself, the record written where
// asked, and in a campaign the record stored and logged with its events, question and gate.
// It must never print nor choose an exit code: the CLI renders the outcome for people or as JSON, the MCP server as a
// tool result.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kseek/core/app/app_options.hpp"
#include "kseek/core/app/campaign_use_cases.hpp"
#include "kseek/core/eval/evaluation_record.hpp"
#include "kseek/core/eval/evaluator.hpp"

namespace kseek::app {

struct EvaluationRequest {
  std::filesystem::path file;  // empty: the plugin's seed evaluated against itself
  std::string plugin_id;       // empty: the campaign's (campaign_dir, else the one holding the current folder)
  std::string set_name;
  std::vector<std::string> scenario_ids;
  std::filesystem::path constraints_file;
  std::filesystem::path out_file;
  EvaluationSettings settings;
  bool correctness_only = false;
  std::filesystem::path campaign_dir;
  std::string gpus;                 // --gpus all|0,1,...
  std::string shard;                // --shard I/N
  std::string via = "cli";          // who asked, for the campaign log: "cli", "mcp"
  bool no_reference_cache = false;  // --no-reference-cache (a campaign's evaluation never uses it either)
};

// Called once the scenarios are known, before anything is built.
struct EvaluationStart {
  std::string candidate_path;
  std::string plugin_id;
  std::size_t scenarios = 0;
};

// What the evaluation says of the candidate, for whoever acts on it (the CLI's exit code, the MCP tool's isError).
enum class EvaluationVerdict {
  kAllPassed,     // COMPLETE, and no scenario that did not pass
  kNotAllPassed,  // COMPLETE with a scenario that did not pass, or BUILD_FAILED
  kNeedsGpu,      // NEEDS_GPU: everything possible without a GPU was done
};
EvaluationVerdict verdict_of(const EvaluationRecord& record);

struct EvaluationOutcome {
  std::string error;                      // the request was wrong or the evaluation could not start: nothing else
  nlohmann::json record;                  // the evaluation record, as `kseek eval --json` prints it
  std::optional<EvaluationRecord> typed;  // the same, read back (absent with `error`)
  EvaluationVerdict verdict = EvaluationVerdict::kNotAllPassed;
  std::optional<EvaluationFollowUp> follow_up;  // in a campaign: evaluation number, events, question, gate
  std::vector<std::string> notes;               // the build service's notes for people
  std::string write_problem;                    // --out could not be written (the evaluation itself stands)
};

EvaluationOutcome run_evaluation(const AppOptions& options, EvaluationRequest request,
                                 const std::function<void(const EvaluationStart&)>& started = {},
                                 const ProgressSink& progress = {});

}  // namespace kseek::app
