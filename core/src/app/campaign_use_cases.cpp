// The campaign verbs: each opens the campaign (which checks its config hash), reads the log, computes, appends.
// It must never append a record before the computation it reports has succeeded, never print, and never decide
// from the log without the campaign lock when what it appends must be there at most once.
#include "kseek/core/app/campaign_use_cases.hpp"

#include <algorithm>
#include <array>
#include <chrono>

#include <fmt/format.h>

#include "kseek/core/app/campaign_files.hpp"
#include "kseek/core/app/operator_contract.hpp"
#include "kseek/core/app/question_library.hpp"
#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/campaign/goal_expression.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/sha256.hpp"

namespace kseek::app {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The order in which events claim the one question an evaluation may bring.
int event_priority(const std::string& name) {
  static const std::array<const char*, 6> order = {
      "suspicious-win", "correctness-regression", "completion-claim", "limit-claim", "stagnation", "start"};
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (name == order[i]) return static_cast<int>(i);
  }
  return static_cast<int>(order.size());
}

json event_json(const CampaignEvent& e) {
  return {{"event", e.name}, {"detail", e.detail}, {"evaluation", e.evaluation}};
}

// Logs every event the log implies but does not hold yet; returns them.
Result<std::vector<CampaignEvent>> log_pending_events(const Campaign& campaign) {
  auto log = campaign.read_log();
  if (!log) return log.error();
  auto events = pending_events(campaign.config(), log->records, std::chrono::system_clock::now());
  for (const auto& e : events) {
    if (auto a = campaign.append("event", event_json(e)); !a) return a.error();
  }
  return events;
}

// Picks and logs the question for `event`; nothing when questions are off or no item fits.
Result<std::optional<AskedQuestion>> ask_and_log(const AppOptions& options, const Campaign& campaign,
                                                 const std::string& event, const std::string& via) {
  if (!campaign.config().questions) return std::optional<AskedQuestion>();
  const PackLibrary library = collect_question_packs(with_campaign(options, campaign.config()));
  auto packs = load_campaign_packs(campaign.config(), library.all());
  if (!packs) return packs.error();
  auto log = campaign.read_log();
  if (!log) return log.error();
  auto chosen = select_question(*packs, campaign.config(), event, log->records);
  if (!chosen) return std::optional<AskedQuestion>();
  AskedQuestion asked{event, std::move(*chosen), via};
  if (auto a = campaign.append("question", to_json(asked)); !a) return a.error();
  return std::optional<AskedQuestion>(std::move(asked));
}

json question_or_null(const std::optional<AskedQuestion>& question) { return question ? to_json(*question) : json(); }

// The folders later commands of the campaign must load plugins from: every given plugin folder, and the folder the
// plugin came from when that is not kseek's own (KSEEK_PLUGIN_PATH may differ in a hook's environment). Absolute.
std::vector<std::string> campaign_plugin_dirs(const AppOptions& options, const LoadedPlugin& loaded) {
  std::vector<fs::path> folders = options.plugin_dirs;
  const auto search = PluginRegistry::search_path({});
  std::error_code ec;
  const fs::path from = loaded.path.parent_path();
  if (search.empty() || !fs::equivalent(from, search.back(), ec)) folders.push_back(from);
  std::vector<std::string> out;
  for (const auto& folder : folders) {
    const std::string absolute = fs::absolute(folder, ec).lexically_normal().string();
    if (std::find(out.begin(), out.end(), absolute) == out.end()) out.push_back(absolute);
  }
  return out;
}

json pack_notes(const std::vector<InstalledPackNote>& list) {
  json out = json::array();
  for (const auto& n : list) {
    out.push_back({{"pack", n.id}, {"file", n.file}});
    if (!n.reason.empty()) out.back()["reason"] = n.reason;
  }
  return out;
}

}  // namespace

Result<InitOutcome> campaign_init(const AppOptions& options, const InitRequest& request,
                                  const fs::path& kseek_executable) {
  PluginRegistry registry;
  load_plugins(options, registry);
  auto loaded = registry.require(request.plugin_id);
  if (!loaded) return loaded.error();
  const Plugin& plugin = *(*loaded)->plugin;
  const PluginInfo info = plugin.info();
  auto scenarios = select_scenarios(plugin, request.set, request.scenarios);
  if (!scenarios) return scenarios.error();
  if (auto goal = parse_goal(request.goal); !goal) return make_error("--goal: " + goal.error().message);
  InitOutcome outcome;
  CampaignConfig& config = outcome.config;
  config.plugin = info.id;
  config.set = request.set.empty() ? info.default_set : request.set;
  config.scenarios = request.scenarios;
  config.goal = request.goal;
  config.peer = request.peer;
  config.questions = request.questions;
  config.arch = scenarios->empty() || scenarios->front().required_arch.empty() ? info.target_archs.front()
                                                                               : scenarios->front().required_arch;
  config.plugin_dirs = campaign_plugin_dirs(options, **loaded);
  // Packs: the ones named, else the built-in ones, the plugin's own and the installed ones that fit (pinned by file).
  const PackLibrary library = collect_question_packs(options);
  auto choice = choose_campaign_packs(library, info.id, config.arch, request.packs);
  if (!choice) return choice.error();
  outcome.packs = std::move(*choice);
  config.packs = outcome.packs.ids;
  config.pack_files = outcome.packs.pinned_files;
  if (auto packs = load_campaign_packs(config, library.all()); !packs) return packs.error();
  auto seed = plugin.seed_source(config.arch);
  if (!seed) return seed.error();
  std::string candidate = seed->text;
  if (!request.seed_file.empty()) {
    auto text = read_file(request.seed_file);
    if (!text) return make_error("--seed: " + text.error().message);
    candidate = std::move(*text);
  }
  auto constraints = load_constraints(plugin, {});
  if (!constraints) return constraints.error();
  auto campaign = Campaign::create(request.dir, config, candidate, sha256_hex(seed->text), request.key_place);
  if (!campaign) return campaign.error();
  const ContractFiles contract{contract_markdown(plugin, *constraints, config.arch, *scenarios, "include"),
                               candidate_header_files(plugin)};
  auto kept = write_agent_files(campaign->dir(), campaign->config(), request.key_place, kseek_executable,
                                info.description, contract);
  if (!kept) return kept.error();
  outcome.dir = campaign->dir();
  outcome.config = campaign->config();
  outcome.scenarios = scenarios->size();
  outcome.kept_existing_files = std::move(*kept);
  outcome.key_place = request.key_place;
  outcome.key_file = campaign->key_file();
  return outcome;
}

Result<EvaluationFollowUp> record_campaign_evaluation(const AppOptions& options, const fs::path& dir,
                                                      const json& eval_record, const std::string& via) {
  auto campaign = Campaign::open(dir, false);
  if (!campaign) return campaign.error();
  // One hold from the evaluation's entry to its events and question: each event is judged on its own evaluation.
  auto held = campaign->lock();
  if (!held) return held.error();
  auto summary = campaign->record_evaluation(eval_record);
  if (!summary) return summary.error();
  auto events = log_pending_events(*campaign);
  if (!events) return events.error();
  EvaluationFollowUp follow_up;
  follow_up.evaluation = summary->number;
  follow_up.record_file = summary->record_file;
  follow_up.events = std::move(*events);
  if (!follow_up.events.empty()) {
    const auto pressing =
        std::min_element(follow_up.events.begin(), follow_up.events.end(),
                         [](const auto& a, const auto& b) { return event_priority(a.name) < event_priority(b.name); });
    auto question = ask_and_log(options, *campaign, pressing->name, via);
    if (!question) return question.error();
    follow_up.question = std::move(*question);
  }
  auto log = campaign->read_log();
  if (!log) return log.error();
  follow_up.gate = compute_gate(*campaign, *log);
  return follow_up;
}

Result<CampaignStatus> campaign_status(const fs::path& dir) {
  auto campaign = Campaign::open(dir);
  if (!campaign) return campaign.error();
  auto log = campaign->read_log();
  if (!log) return log.error();
  return kseek::campaign_status(*campaign, *log);
}

Result<AskOutcome> campaign_ask(const AppOptions& options, const fs::path& dir, const std::string& event_in,
                                const std::string& via) {
  auto campaign = Campaign::open(dir);
  if (!campaign) return campaign.error();
  // Events, the open event and its question are read and logged under one hold: hooks fire together.
  auto held = campaign->lock();
  if (!held) return held.error();
  AskOutcome outcome;
  outcome.event = event_in;
  if (!outcome.event.empty() &&
      std::find(std::begin(kCampaignEvents), std::end(kCampaignEvents), outcome.event) == std::end(kCampaignEvents)) {
    std::string known;
    for (auto e : kCampaignEvents) known += (known.empty() ? "" : ", ") + std::string(e);
    return make_error(fmt::format("unknown event '{}' (events: {})", outcome.event, known));
  }
  auto events = log_pending_events(*campaign);
  if (!events) return events.error();
  if (outcome.event.empty()) {
    auto log = campaign->read_log();
    if (!log) return log.error();
    if (auto open = unanswered_event(log->records)) outcome.event = open->name;
  }
  // With no open event only a person's waiting question can be asked (select_question puts it first).
  auto question = ask_and_log(options, *campaign, outcome.event, via);
  if (!question) return question.error();
  outcome.question = std::move(*question);
  if (!outcome.question && outcome.event.empty()) {
    outcome.note = "no open event: every event so far has had its question";
  } else if (!outcome.question) {
    outcome.note = campaign->config().questions ? "no question in the campaign's packs fits this event"
                                                : "questions are off in this campaign (a control campaign)";
  }
  return outcome;
}

Result<ClaimOutcome> campaign_claim(const AppOptions& options, const fs::path& dir, const std::string& kind,
                                    const std::string& text, const std::string& source) {
  if (kind != "limit" && kind != "done")
    return make_error(fmt::format("unknown claim '{}' (claims: limit, done)", kind));
  if (text.empty()) return make_error("a claim needs its text: what limit, or why the work is done");
  auto campaign = Campaign::open(dir);
  if (!campaign) return campaign.error();
  auto held = campaign->lock();
  if (!held) return held.error();
  auto hash = campaign->candidate_sha256();
  if (!hash) return hash.error();
  if (auto a =
          campaign->append("claim", {{"kind", kind}, {"text", text}, {"candidate_sha256", *hash}, {"source", source}});
      !a) {
    return a.error();
  }
  ClaimOutcome outcome;
  outcome.kind = kind == "limit" ? ClaimKind::kLimit : ClaimKind::kDone;
  const std::string event = outcome.kind == ClaimKind::kLimit ? "limit-claim" : "completion-claim";
  const std::string excerpt = text.size() > 160 ? text.substr(0, 157) + "..." : text;
  if (auto a = campaign->append("event", {{"event", event}, {"detail", excerpt}, {"evaluation", 0}}); !a)
    return a.error();
  auto log = campaign->read_log();
  if (!log) return log.error();
  outcome.gate = compute_gate(*campaign, *log);
  // A completion claim with the goal met needs no question; every other claim gets one.
  if (!(outcome.kind == ClaimKind::kDone && outcome.gate.holds)) {
    auto question = ask_and_log(options, *campaign, event, source);
    if (!question) return question.error();
    outcome.question = std::move(*question);
  }
  return outcome;
}

Result<SteerOutcome> campaign_steer(const fs::path& dir, const std::string& text) {
  if (text.empty()) return make_error("a steering question needs its text");
  auto campaign = Campaign::open(dir);
  if (!campaign) return campaign.error();
  auto held = campaign->lock();  // the next steer id is read and taken in one step
  if (!held) return held.error();
  auto log = campaign->read_log();
  if (!log) return log.error();
  int next = 1;
  for (const auto& r : log->records) {
    if (r.type == "steer") next = std::max(next, r.steer_id + 1);
  }
  if (auto a = campaign->append("steer", {{"text", text}, {"steer_id", next}}); !a) return a.error();
  return SteerOutcome{next, text};
}

Result<GateOutcome> campaign_gate(const fs::path& dir, const std::string& caller) {
  auto campaign = Campaign::open(dir);
  if (!campaign) return campaign.error();
  auto log = campaign->read_log();
  if (!log) return log.error();
  GateOutcome outcome{compute_gate(*campaign, *log), campaign->config().goal, caller};
  json logged = to_json(outcome.gate);
  logged["caller"] = caller;
  if (auto a = campaign->append("gate", logged); !a) return a.error();
  return outcome;
}

json to_json(const InitOutcome& outcome) {
  return {
      {"status", "OK"},
      {"campaign", outcome.dir.string()},
      {"config", to_json(outcome.config)},
      {"scenarios", outcome.scenarios},
      {"kept_existing_files", outcome.kept_existing_files},
      {"signing_key", {{"key", std::string(key_place_name(outcome.key_place))}, {"file", outcome.key_file.string()}}},
      {"installed_packs",
       {{"taken", pack_notes(outcome.packs.taken)}, {"left_out", pack_notes(outcome.packs.left_out)}}}};
}

json to_json(const AskedQuestion& question) {
  const SelectedQuestion& q = question.chosen;
  json j = {{"event", question.event}, {"id", q.id},         {"pack", q.pack},
            {"text", q.text},          {"source", q.source}, {"via", question.via}};
  // A person's question carries its steer id ("human-3"): the log shows which `kseek steer` it delivers.
  if (q.source == "human") j["steer_id"] = std::stoi(q.id.substr(q.id.find('-') + 1));
  return j;
}

json to_json(const GateResult& gate) {
  json terms = json::array();
  for (const auto& t : gate.terms)
    terms.push_back({{"source", t.source}, {"holds", t.holds}, {"explanation", t.explanation}});
  return {{"holds", gate.holds},
          {"evaluation", gate.evaluation},
          {"candidate_sha256", gate.candidate_sha256},
          {"evidence_problem", gate.evidence_problem},
          {"terms", terms},
          {"unmet", gate.unmet()}};
}

json to_json(const EvaluationFollowUp& f) {
  json events = json::array();
  for (const auto& e : f.events) events.push_back(event_json(e));
  return {{"status", "OK"},
          {"evaluation", f.evaluation},
          {"record_file", f.record_file},
          {"events", events},
          {"question", question_or_null(f.question)},
          {"gate", to_json(f.gate)}};
}

json to_json(const AskOutcome& outcome) {
  json j = {{"status", "OK"},
            {"event", outcome.event.empty() ? json() : json(outcome.event)},
            {"question", question_or_null(outcome.question)}};
  if (!outcome.note.empty()) j["note"] = outcome.note;
  return j;
}

json to_json(const ClaimOutcome& outcome) {
  return {{"status", "OK"},
          {"claim", std::string(claim_kind_name(outcome.kind))},
          {"gate", to_json(outcome.gate)},
          {"question", question_or_null(outcome.question)}};
}

json to_json(const SteerOutcome& outcome) {
  return {{"status", "OK"}, {"steer_id", outcome.steer_id}, {"text", outcome.text}, {"note", kSteerDelivery}};
}

json to_json(const GateOutcome& outcome) {
  json j = to_json(outcome.gate);
  j["caller"] = outcome.caller;
  j["status"] = outcome.gate.holds ? "MET" : "UNMET";
  j["goal"] = outcome.goal;
  return j;
}

}  // namespace kseek::app
