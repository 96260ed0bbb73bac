// The campaign verbs as functions (eval, status, ask, claim, steer, gate), shared by the CLI commands, the hooks
// and the MCP server so each answers the same way everywhere. They must never print: callers render the document.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_context.hpp"

namespace kseek::cli {

// What `kseek <verb> --json` prints and the exit code it returns (kExitOk, kExitVerdict, kExitUsage, ...).
// document always has "status"; on a usage error it also has "error".
struct ActionResult {
  int exit_code = kExitOk;
  nlohmann::json document;
};

// Evaluation settings a caller may override on top of the campaign's `eval` block.
struct CampaignEvalOptions {
  bool correctness_only = false;
  int device = 0;
  std::uint64_t input_seed = 0;
};

// Evaluates the campaign's candidate through the use case `kseek eval` uses (evaluation_use_case.hpp), in this process
// (builds and GPU work run in their own processes anyway), and returns the compact result: status, summary,
// per-scenario verdicts and the campaign follow-up. Never parses another process's output.
ActionResult campaign_eval(const GlobalOptions& options, const std::filesystem::path& dir, const CampaignEvalOptions& eval);

// After `kseek eval` in a campaign: stores and logs the record, logs the events it raises and, when questions are
// on, the question for the most pressing one. document: {"evaluation", "record_file", "events", "question", "gate"}.
ActionResult record_campaign_evaluation(const GlobalOptions& options, const std::filesystem::path& dir,
                                        const nlohmann::json& eval_record, const std::string& via);

// Prints that follow-up for people (events, the question, the gate's unmet terms).
void print_campaign_follow_up(const nlohmann::json& follow_up);

ActionResult campaign_status_action(const GlobalOptions& options, const std::filesystem::path& dir);

// `event` empty: the newest unanswered event, else `stagnation`-style name; `via`: "cli", "mcp", "hook:<name>".
ActionResult campaign_ask(const GlobalOptions& options, const std::filesystem::path& dir, const std::string& event,
                          const std::string& via);

// kind: "limit" or "done".
ActionResult campaign_claim(const GlobalOptions& options, const std::filesystem::path& dir, const std::string& kind,
                            const std::string& text, const std::string& source);

// A person's question for the agent, delivered at its next hook or `kseek ask`.
ActionResult campaign_steer(const GlobalOptions& options, const std::filesystem::path& dir, const std::string& text);

// exit_code kExitOk when the goal holds for the current candidate, else kExitVerdict with the unmet terms.
ActionResult campaign_gate(const GlobalOptions& options, const std::filesystem::path& dir, const std::string& caller);

}  // namespace kseek::cli
