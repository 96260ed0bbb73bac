// The campaign verbs as use cases (init, record an evaluation, status, ask, claim, steer, gate), the same for the CLI,
// the hooks and the MCP server. Each returns a typed outcome, or an error when the verb could not do its job; each
// outcome has one JSON document, the one `kseek <verb> --json` prints and the MCP tool returns. It must never print,
// nor choose an exit code: that is how the CLI shows an outcome, not what happened.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kseek/core/app/app_options.hpp"
#include "kseek/core/app/campaign_pack_choice.hpp"
#include "kseek/core/campaign/campaign_engine.hpp"
#include "kseek/core/campaign/claim_classifier.hpp"
#include "kseek/core/campaign/record_signature.hpp"
#include "kseek/sdk/result.hpp"

namespace kseek::app {

// A new campaign: where, for which plugin and selection, with which goal and questions.
struct InitRequest {
  std::filesystem::path dir;  // may exist, must not hold a campaign
  std::string plugin_id;
  std::string set;                     // empty: the plugin's default
  std::vector<std::string> scenarios;  // empty: the whole set
  std::string goal;
  std::string peer;                 // another implementation exists (named): enables those questions
  bool questions = true;            // false: a control campaign
  std::filesystem::path seed_file;  // empty: start from the plugin's seed
  std::vector<std::string> packs;   // empty: built-in packs, the plugin's own and the installed ones that fit
  // kCampaignFolder (`--key-in-campaign`): the signing key in DIR/.kseek-key/, travelling with the folder; its
  // signatures then guard against accidents, not forgery (record_signature.hpp).
  KeyPlace key_place = KeyPlace::kUserFolder;
};

struct InitOutcome {
  std::filesystem::path dir;
  CampaignConfig config;
  std::size_t scenarios = 0;
  std::vector<std::string> kept_existing_files;  // a person's files the agent files did not overwrite
  PackChoice packs;                              // which installed packs were taken or left out, and why
  KeyPlace key_place = KeyPlace::kUserFolder;    // where the signing key was made
  std::filesystem::path key_file;
};

// A question chosen for an event and logged (the log's `question` line, as written).
struct AskedQuestion {
  std::string event;
  SelectedQuestion chosen;
  std::string via;  // who asked: "cli", "mcp", "run", "hook:<name>"
};

// An evaluation stored in the campaign and logged, with what followed from it.
struct EvaluationFollowUp {
  int evaluation = 0;  // its number in the log
  std::string record_file;
  std::vector<CampaignEvent> events;      // raised by it
  std::optional<AskedQuestion> question;  // for the most pressing event, when questions are on and one fits
  GateResult gate;
};

struct AskOutcome {
  std::string event;  // empty: no open event (only a person's waiting question could be asked)
  std::optional<AskedQuestion> question;
  std::string note;  // why there is no question, when there is none
};

struct ClaimOutcome {
  ClaimKind kind = ClaimKind::kLimit;  // kLimit or kDone
  GateResult gate;
  std::optional<AskedQuestion> question;  // none for a completion claim when the goal holds
};

// When a queued steering question reaches the agent (said by `kseek steer` and in its JSON).
inline constexpr const char* kSteerDelivery = "the agent receives it at its next hook or `kseek ask`";

struct SteerOutcome {
  int steer_id = 0;
  std::string text;
};

struct GateOutcome {
  GateResult gate;   // gate.holds: the goal holds for the current candidate
  std::string goal;  // the campaign's goal expression
  std::string caller;
};

// Creates the campaign folder: campaign.json, the log, the candidate (the seed, or seed_file), the operator's contract
// and the agent files (hooks and MCP registration naming `kseek_executable`). Nothing is created when the request is
// wrong (plugin, selection, goal, packs).
Result<InitOutcome> campaign_init(const AppOptions& options, const InitRequest& request,
                                  const std::filesystem::path& kseek_executable);

// After an evaluation in a campaign: stores and logs the record, logs the events it raises and, when questions are
// on, the question for the most pressing one. `via` names who evaluated ("cli", "mcp").
Result<EvaluationFollowUp> record_campaign_evaluation(const AppOptions& options, const std::filesystem::path& dir,
                                                      const nlohmann::json& eval_record, const std::string& via);

// Best and latest geomean, trend, unmet goal terms, open events, counts (campaign_engine's campaign_status).
Result<CampaignStatus> campaign_status(const std::filesystem::path& dir);

// `event` empty: the newest unanswered event; else one of kCampaignEvents (another is an error that lists them).
Result<AskOutcome> campaign_ask(const AppOptions& options, const std::filesystem::path& dir, const std::string& event,
                                const std::string& via);

// kind: "limit" or "done" (another is an error); `source` is who claims ("cli", "mcp", "hook:stop").
Result<ClaimOutcome> campaign_claim(const AppOptions& options, const std::filesystem::path& dir,
                                    const std::string& kind, const std::string& text, const std::string& source);

// A person's question for the agent, delivered at its next hook or `kseek ask`.
Result<SteerOutcome> campaign_steer(const std::filesystem::path& dir, const std::string& text);

// The goal over the current candidate's newest evaluation, logged as a `gate` line with `caller`.
Result<GateOutcome> campaign_gate(const std::filesystem::path& dir, const std::string& caller);

// The documents: each has "status" ("OK", or "MET"/"UNMET" for the gate).
nlohmann::json to_json(const InitOutcome& outcome);
nlohmann::json to_json(const AskedQuestion& question);
nlohmann::json to_json(const GateResult& gate);
nlohmann::json to_json(const EvaluationFollowUp& follow_up);
nlohmann::json to_json(const AskOutcome& outcome);
nlohmann::json to_json(const ClaimOutcome& outcome);
nlohmann::json to_json(const SteerOutcome& outcome);
nlohmann::json to_json(const GateOutcome& outcome);

}  // namespace kseek::app
