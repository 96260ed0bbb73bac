// How the commands and `kseek mcp` show the campaign use cases (kseek/core/app/campaign_use_cases.hpp):
// each outcome as its JSON document with the exit code `kseek <verb>` returns. It must never decide anything itself:
// what happened is the use case's, only the exit code and the rendering are chosen here.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_context.hpp"
#include "kseek/core/app/campaign_use_cases.hpp"
#include "kseek/core/app/evaluation_use_case.hpp"

namespace kseek::cli {

// What `kseek <verb> --json` prints and the exit code it returns (kExitOk, kExitVerdict, kExitUsage, ...).
// document always has "status"; when the verb could not do its job it is "ERROR" with "error" (kExitUsage).
struct ActionResult {
  int exit_code = kExitOk;
  nlohmann::json document;
};

// `kseek eval`'s exit code for an evaluation's outcome.
int exit_code_of(const app::EvaluationOutcome& outcome);

// Evaluation settings a caller may override on top of the campaign's `eval` block.
struct CampaignEvalOptions {
  bool correctness_only = false;
  int device = 0;
  std::uint64_t input_seed = 0;
};

// The MCP `eval` tool: the campaign's candidate evaluated through the use case `kseek eval` uses, in this process
// (builds and GPU work run in their own processes anyway), shown compactly: status, summary, per-scenario verdicts
// and the campaign follow-up. Never parses another process's output.
ActionResult campaign_eval(const GlobalOptions& options, const std::filesystem::path& dir,
                           const CampaignEvalOptions& eval);

// Prints an evaluation's campaign follow-up for people (events, the question, the gate's unmet terms).
void print_campaign_follow_up(const app::EvaluationFollowUp& follow_up);

ActionResult campaign_status_action(const GlobalOptions& options, const std::filesystem::path& dir);

// `event` empty: the newest unanswered event, else `stagnation`-style name; `via`: "cli", "mcp", "hook:<name>".
ActionResult campaign_ask(const GlobalOptions& options, const std::filesystem::path& dir, const std::string& event,
                          const std::string& via);

// kind: "limit" or "done".
ActionResult campaign_claim(const GlobalOptions& options, const std::filesystem::path& dir, const std::string& kind,
                            const std::string& text, const std::string& source);

ActionResult campaign_steer(const GlobalOptions& options, const std::filesystem::path& dir, const std::string& text);

// exit_code kExitOk when the goal holds for the current candidate, else kExitVerdict with the unmet terms.
ActionResult campaign_gate(const GlobalOptions& options, const std::filesystem::path& dir, const std::string& caller);

}  // namespace kseek::cli
