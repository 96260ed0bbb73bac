// A campaign directory: its config (`campaign.json`), its append-only log (`.kseek/log.jsonl`, written only by kseek)
// and the full evaluation records beside it. It must never accept a log or config that was changed behind its back.
//
// Layout (docs/campaigns.md):
//   DIR/campaign.json              the config (kseek.campaign/1); read-only to the agent by convention, hash-checked
//   DIR/<candidate>                the kernel the agent edits (default candidate.cu)
//   DIR/.kseek/log.jsonl           the log: one record per line, `<sha256> <json>` (record_log.hpp)
//   DIR/.kseek/evaluations/NNNN.json  full `kseek.eval/1` records; the log entry holds each file's sha256
//   DIR/.kseek/campaign.lock       flock'ed around every read-decide-append step (CampaignLock)
//   DIR/.kseek-key/<id>.key        the signing key, only in a campaign made with it (record_signature.hpp, two modes)
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kseek/core/campaign/record_log.hpp"
#include "kseek/core/campaign/record_signature.hpp"
#include "kseek/core/util/utc_time.hpp"
#include "kseek/sdk/result.hpp"

namespace kseek {

inline constexpr std::string_view kCampaignFormat = "kseek.campaign/1";
inline constexpr std::string_view kCampaignLogFormat = "kseek.campaign-log/1";
inline constexpr std::string_view kNotSignedReason = "not signed by kseek: written by something else, ignored";

// The fewest consecutive Stop-hook blocks a supported host honours before it ends the turn on its own. Claude Code:
// 8, then it overrides the hook and ends the turn with a warning (release notes 2.1.147;
// CLAUDE_CODE_STOP_HOOK_BLOCK_CAP changes it; anthropics/claude-code#85547). Codex: no cap, its turn loop continues
// after every block (codex-rs/core/src/session/turn.rs; openai/codex#37937).
inline constexpr int kHostStopBlockCap = 8;

// When the engine raises an event; all documented in docs/campaigns.md.
struct CampaignThresholds {
  int stagnation_evaluations = 3;     // evaluations without a real improvement
  double stagnation_minutes = 60.0;   // ... or this long since the last improvement
  double min_improvement = 0.01;      // relative geomean gain that counts, at least (beyond the CI anyway)
  double suspicious_win_ratio = 1.5;  // jump over the best so far that is questioned: the geomean's or a scenario's
  // Stop-hook blocks per agent session before it lets the agent stop. At most kHostStopBlockCap: a host that ends the
  // turn on its own first would make the log say "blocked" for a stop that happened, with no budget record.
  int hook_block_budget = 8;
};

// The campaign's own sampling settings for `kseek eval` (campaign.json "eval"); each given one overrides the default.
struct CampaignEvalSettings {
  std::optional<int> min_rounds;
  std::optional<int> settled_rounds;
  std::optional<int> max_rounds;
  std::optional<double> time_budget;       // seconds of timed rounds per scenario
  std::optional<double> target_ci;         // relative half-width of the ratio's interval that stops the rounds
  std::optional<double> scenario_timeout;  // seconds before a scenario's worker is stopped
};

// The campaign's peer command (campaign.json "peer_figures"): run after each of its evaluations that reached a GPU, in
// the campaign folder and on the same machine, so a target such as "1.10x cuDNN" is judged against a peer measured in
// the same run. It writes a JSON document to the file named by $KSEEK_PEER_FIGURES (docs/campaigns.md); what it
// wrote, or why it failed, goes into the evaluation's record.
struct PeerFiguresCommand {
  std::vector<std::string> command;       // argv; argv[0] is looked up on PATH when it has no '/'. No shell.
  std::optional<double> timeout_seconds;  // default kDefaultPeerTimeoutSeconds
};
inline constexpr double kDefaultPeerTimeoutSeconds = 600;

struct CampaignConfig {
  std::string plugin;                  // plugin id
  std::string set;                     // scenario set
  std::vector<std::string> scenarios;  // optional subset (ids of the set, or key=value names)
  std::string candidate = "candidate.cu";
  std::string arch;                // target arch (e.g. sm_90a): selects architecture packs
  std::string goal;                // goal expression (docs/goals.md)
  nlohmann::json constraints;      // null: the plugin's; else an override object (as `--constraints`)
  std::vector<std::string> packs;  // question pack ids
  // Absolute folders its plugin is loaded from besides kseek's own (`init --plugin-dir`), and absolute files of the
  // installed packs it took: every later command in the campaign (eval, hooks, MCP, run) loads them too.
  std::vector<std::string> plugin_dirs;
  std::vector<std::string> pack_files;
  bool questions = true;  // false: a control campaign (same goal and gate, no questions)
  std::string peer;       // another implementation exists (enables that pack); empty: none
  CampaignThresholds thresholds;
  std::optional<CampaignEvalSettings> eval;
  std::optional<PeerFiguresCommand> peer_figures;
  std::string created_at;
};

nlohmann::json to_json(const CampaignConfig& config);
// Strict: unknown keys and wrong types are errors naming the file and the key.
Result<CampaignConfig> parse_campaign_config(std::string_view text, std::string_view file_name);

// One scenario of an evaluation as the log keeps it: its verdict, and its ratio where it was timed.
struct LoggedScenario {
  std::string id;
  std::string status;  // spelled as the record spells it (PASSED, FAILED, ...); empty where the line lacks one
  std::optional<double> ratio, ci_low, ci_high;
};

// How near one goal term was to its target on an evaluation, as the log keeps it: its closeness (goal_closeness, a
// fraction of the target) and what its noise is made of. The engine tells a move of an unmet term toward its target
// from noise with it.
struct LoggedTermValue {
  std::string term;  // its text, as in goal_terms_met
  double closeness = 0;
  std::vector<std::string> scenarios;  // the scenarios whose timing the term reads (GoalTerm::scenarios_read)
  bool reads_summary = true;           // it also reads a figure of the whole record; true where the line does not say
};

// One evaluation as the log keeps it (small: enough for status, events, gate and reports).
struct EvaluationSummary {
  int number = 0;  // 1-based, in log order
  std::string time;
  std::string candidate_sha256;
  std::string record_file;  // relative to .kseek/
  std::string record_sha256;
  std::string status;  // record status: COMPLETE, BUILD_FAILED, NEEDS_GPU
  bool all_passed = false;
  std::optional<double> geomean, geomean_low, geomean_high;
  std::vector<LoggedScenario> scenarios;  // the line's [{id, status, ratio, ci_low, ci_high}]
  // The goal's terms that held on this record when it was logged, by their text (none in lines written before
  // kseek logged them): a term met for the first time is progress even when the geomean moves less than the noise.
  std::vector<std::string> goal_terms_met;
  // Each term that is a comparison of numbers with positive sides on this record (met or not); none in lines written
  // before kseek logged them.
  std::vector<LoggedTermValue> goal_term_values;
};

// The evaluation entry of a log record, or nothing when it is another type.
std::optional<EvaluationSummary> evaluation_of(const LogRecord& record);

// The campaign_id the log's init record holds ("" for a campaign made before signatures).
std::string campaign_id_of(const std::vector<LogRecord>& records);

// Moves every record that does not verify under `key` to log.damaged (reason kNotSignedReason), in line order.
void set_aside_unsigned(LogContents& log, std::string_view key);

// An exclusive hold on one campaign for a read-decide-append step: whatever must be logged at most once (an event,
// the question it brings, a steer id, a delivery, a stop-hook block) is decided from the log and appended while it is
// held, so two processes can never both read "not logged yet". Taken with Campaign::lock; re-entrant within a thread
// (an action holding it may call another that takes it); released when destroyed.
class CampaignLock {
 public:
  CampaignLock(CampaignLock&& other) noexcept;
  CampaignLock& operator=(CampaignLock&&) = delete;
  CampaignLock(const CampaignLock&) = delete;
  CampaignLock& operator=(const CampaignLock&) = delete;
  ~CampaignLock();

 private:
  friend class Campaign;
  CampaignLock(int fd, std::string file) : fd_(fd), file_(std::move(file)) {}
  int fd_ = -1;       // -1 for a nested hold: the outer one owns the flock
  std::string file_;  // the lock file; empty once moved from
};

class Campaign {
 public:
  // Opens DIR (or the nearest parent holding campaign.json when `search_up`). Checks that campaign.json still
  // has the hash the log recorded; a mismatch is an error that says what to do.
  static Result<Campaign> open(const std::filesystem::path& dir, bool search_up = true);

  // Creates DIR's files: campaign.json, the candidate, .kseek/log.jsonl with an `init` record, and the signing key
  // where `key_place` says (KeyPlace::kCampaignFolder: DIR/.kseek-key/). DIR may exist but must not already hold a
  // campaign.
  static Result<Campaign> create(const std::filesystem::path& dir, const CampaignConfig& config,
                                 std::string_view candidate_text, std::string_view seed_sha256,
                                 KeyPlace key_place = KeyPlace::kUserFolder);

  const std::filesystem::path& dir() const { return dir_; }
  const CampaignConfig& config() const { return config_; }
  std::filesystem::path candidate_path() const { return dir_ / config_.candidate; }
  std::filesystem::path log_path() const { return dir_ / ".kseek" / "log.jsonl"; }
  std::filesystem::path state_dir() const { return dir_ / ".kseek"; }

  // sha256 of the candidate file as it is now, or an error if it cannot be read.
  Result<std::string> candidate_sha256() const;

  // Waits for the campaign's exclusive lock (.kseek/campaign.lock). Hold it across a read of the log and the append
  // that depends on what was read.
  Result<CampaignLock> lock() const;

  // Appends a record: `type` and `time` are added. Only returns after the record is durable.
  Result<void> append(std::string_view type, nlohmann::json fields) const;

  // Stores a full evaluation record (atomically, under .kseek/evaluations/) and appends its summary.
  Result<EvaluationSummary> record_evaluation(const nlohmann::json& eval_record) const;

  // The whole log; damaged lines are reported by the caller (they are never dropped silently). In a signed campaign
  // a record kseek did not sign is one of them (reason kNotSignedReason), never a record.
  Result<LogContents> read_log() const;

  // Loads a full evaluation record and checks it against the hash its log entry holds.
  Result<nlohmann::json> load_evaluation(const EvaluationSummary& summary) const;

  // True when this record carries a valid signature under this campaign's key (record_signature.hpp): kseek wrote
  // it. False without the key (a campaign copied from another machine) or for a campaign made before signatures.
  bool written_by_kseek(const LogRecord& record) const;
  // False for a campaign made before kseek signed its records (none of its records can be verified).
  bool signs_records() const { return !id_.empty(); }
  // Why records cannot be verified here (empty when they can).
  const std::string& signature_problem() const { return signature_problem_; }
  // True when the key was found in the campaign's own .kseek-key/ (not in the per-user folder): its signatures guard
  // against accidents only, and whatever reports verification says so (kKeyInCampaignNote).
  bool key_kept_in_campaign() const { return key_ && key_->place == KeyPlace::kCampaignFolder; }
  // Where the key was found; nothing when it was not (signature_problem() says why).
  std::optional<KeyPlace> key_place() const { return key_ ? std::optional<KeyPlace>(key_->place) : std::nullopt; }
  // The key file it was read from (empty when it was not found).
  std::filesystem::path key_file() const { return key_ ? key_->file : std::filesystem::path(); }

 private:
  Campaign(std::filesystem::path dir, CampaignConfig config) : dir_(std::move(dir)), config_(std::move(config)) {}
  std::filesystem::path dir_;
  CampaignConfig config_;
  std::string id_;                  // from the init record; empty for campaigns made before signatures
  std::optional<CampaignKey> key_;  // the signing key and where it was found, when this machine holds it
  std::string signature_problem_;
};

// Appends a signed record to the log of the campaign in `dir` without the config hash check (for `kseek
// reconfigure`, which is what re-establishes it).
Result<void> append_signed_record(const std::filesystem::path& dir, std::string_view type, nlohmann::json fields);

// The config a person last accepted for the campaign in `dir`: the newest init/config record of its log that kseek
// signed (any, for a campaign made before signatures). Nothing when the log, its key or such a record is missing.
// For deciding what an edited or damaged campaign.json must not change (the stop hook's block budget).
std::optional<CampaignConfig> last_accepted_config(const std::filesystem::path& dir);

}  // namespace kseek
