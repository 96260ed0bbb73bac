// `kseek hook stop|session-start|post-tool`: the agent-host hooks (Claude Code; Codex with --host codex).
// It must never crash, print anything but the decision on stdout, or trust `stop_hook_active`: a host treats a
// crash or malformed output as "allow", so every path ends in an explicit, well-formed answer.
#include <sys/file.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <sstream>

#include "campaign_actions.hpp"
#include "commands.hpp"
#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/campaign/campaign_engine.hpp"
#include "kseek/core/campaign/claim_classifier.hpp"
#include "kseek/core/util/files.hpp"

namespace kseek::cli {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::size_t kMaxHookInput = 4 << 20;  // a host sends a few kB; anything larger is cut, never trusted
constexpr std::size_t kMaxReason = 6000;        // hosts move longer texts to files; keep the reason inline

struct HookArgs {
  std::string host = "claude";
  fs::path campaign_dir;
};

json read_hook_input() {
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof(buffer));
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > kMaxHookInput) break;
  }
  try {
    json j = json::parse(text);
    return j.is_object() ? j : json::object();
  } catch (const json::exception&) {
    return json::object();
  }
}

// Per-session block counters in .kseek/hook-state.json, read-modify-written under an exclusive lock.
Result<int> count_block(const Campaign& campaign, const std::string& session, bool add) {
  const fs::path state = campaign.state_dir() / "hook-state.json";
  const fs::path lock = campaign.state_dir() / "hook-state.lock";
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return make_error("cannot open " + lock.string());
  ::flock(fd, LOCK_EX);
  json j = json::object();
  if (auto text = read_file(state)) {
    try {
      j = json::parse(*text);
    } catch (const json::exception&) {
      j = json::object();  // a damaged counter file restarts the counts; the log keeps every verdict anyway
    }
  }
  if (!j.is_object()) j = json::object();
  int blocks = j.value(session, 0);
  if (add) {
    j[session] = ++blocks;
    (void)write_file_atomically(state, j.dump(1) + "\n");
  }
  ::flock(fd, LOCK_UN);
  ::close(fd);
  return blocks;
}

std::string clip(std::string text) {
  if (text.size() > kMaxReason) text = text.substr(0, kMaxReason - 3) + "...";
  return text;
}

void log_hook(const Campaign& campaign, const std::string& hook, const std::string& session, const std::string& decision,
              const std::string& reason) {
  (void)campaign.append("hook", {{"hook", hook}, {"session_id", session}, {"decision", decision}, {"reason", reason}});
}

// Context for SessionStart / PostToolUse, in the one shape both hosts accept for these events.
void print_context(const std::string& event_name, const std::string& text) {
  print_json({{"hookSpecificOutput", {{"hookEventName", event_name}, {"additionalContext", clip(text)}}}});
}

int hook_stop(const GlobalOptions& options, const HookArgs& args) {
  const json input = read_hook_input();
  const std::string session = input.value("session_id", std::string("unknown-session"));
  auto campaign = Campaign::open(args.campaign_dir.empty() ? fs::path(input.value("cwd", std::string("."))) : args.campaign_dir);
  if (!campaign) {
    // No campaign, or a tampered one: stopping is the only safe outcome; the person is told why.
    if (args.host == "claude") print_json({{"systemMessage", "kseek: " + campaign.error().message}});
    std::cerr << "kseek hook stop: " << campaign.error().message << "\n";
    return kExitOk;
  }
  std::string claim;
  if (input.contains("last_assistant_message") && input["last_assistant_message"].is_string()) {
    const std::string message = input["last_assistant_message"].get<std::string>();
    const ClaimReading reading = read_claim(message);  // explicit claims (`kseek claim`, MCP) never come here
    if (reading.kind != ClaimKind::kNone) claim = std::string(claim_kind_name(reading.kind));
    if (!claim.empty()) {
      (void)campaign_claim(options, campaign->dir(), claim, message.size() > 400 ? message.substr(0, 397) + "..." : message,
                           "hook:stop");
    }
  }
  auto log = campaign->read_log();
  if (!log) {
    std::cerr << "kseek hook stop: " << log.error().message << "\n";
    return kExitOk;
  }
  const GateResult gate = compute_gate(*campaign, *log);
  if (gate.holds) {
    log_hook(*campaign, "stop", session, "allow", "the goal holds for the current candidate");
    return kExitOk;  // allow: nothing on stdout
  }
  auto blocks = count_block(*campaign, session, false);
  const int budget = campaign->config().thresholds.hook_block_budget;
  if (blocks && *blocks >= budget) {
    const std::string why = fmt::format("stop allowed after {} blocks in this session (budget {}); the goal is still "
                                        "unmet", *blocks, budget);
    log_hook(*campaign, "stop", session, "allow", why);
    if (args.host == "claude") print_json({{"systemMessage", "kseek: " + why}});
    return kExitOk;
  }
  (void)count_block(*campaign, session, true);
  // The question: for the claim made, else the newest unanswered event, else stopping is itself a completion claim.
  std::string event = claim.empty() ? "" : (claim == "limit" ? "limit-claim" : "completion-claim");
  if (event.empty()) {
    if (auto open = unanswered_event(log->records)) event = open->name;
  }
  if (event.empty()) event = "completion-claim";
  std::string question_text;
  if (claim.empty()) {  // a claim already logged its question in campaign_claim
    ActionResult asked = campaign_ask(options, campaign->dir(), event, "hook:stop");
    if (asked.document.contains("question") && asked.document["question"].is_object()) {
      question_text = asked.document["question"].value("text", "");
    }
  } else if (auto relog = campaign->read_log()) {
    for (auto it = relog->records.rbegin(); it != relog->records.rend(); ++it) {
      if (it->value.value("type", "") == "question") {
        question_text = it->value.value("text", "");
        break;
      }
    }
  }
  std::ostringstream reason;
  reason << "kseek: the campaign goal (" << campaign->config().goal << ") is not met for the current candidate:\n";
  for (const auto& u : gate.unmet()) reason << "- " << u << "\n";
  if (!question_text.empty()) reason << "Question: " << question_text << "\n";
  reason << "Make progress with a measurement or a change and run `kseek eval`; `kseek status` shows where the "
            "campaign stands.";
  const std::string text = clip(reason.str());
  log_hook(*campaign, "stop", session, "block", text);
  print_json({{"decision", "block"}, {"reason", text}});  // the only keys Codex accepts; Claude accepts them too
  return kExitOk;
}

int hook_session_start(const GlobalOptions& options, const HookArgs& args) {
  const json input = read_hook_input();
  const std::string session = input.value("session_id", std::string("unknown-session"));
  auto campaign = Campaign::open(args.campaign_dir.empty() ? fs::path(input.value("cwd", std::string("."))) : args.campaign_dir);
  if (!campaign) {
    std::cerr << "kseek hook session-start: " << campaign.error().message << "\n";
    return kExitOk;
  }
  ActionResult status = campaign_status_action(options, campaign->dir());
  ActionResult asked = campaign_ask(options, campaign->dir(), "", "hook:session-start");
  std::ostringstream text;
  text << "kseek campaign: optimise " << campaign->config().candidate << " for " << campaign->config().plugin
       << " on the scenario set " << campaign->config().set << ".\nGoal (computed by `kseek gate`): "
       << campaign->config().goal << "\n";
  const json& s = status.document;
  if (s.contains("latest")) {
    text << fmt::format("Latest evaluation {}: {}", s["latest"].value("evaluation", 0),
                        s["latest"].value("all_passed", false) ? "all scenarios passed" : "not all scenarios passed");
    if (s["latest"]["geomean"].is_number()) text << fmt::format(", geomean {:.4f}", s["latest"]["geomean"].get<double>());
    text << ".\n";
  } else {
    text << "No evaluation yet: `kseek eval` measures the candidate against the seed.\n";
  }
  for (const auto& u : s.value("gate", json::object()).value("unmet", json::array())) text << "Unmet: " << u.get<std::string>() << "\n";
  if (asked.document.contains("question") && asked.document["question"].is_object()) {
    text << "Question: " << asked.document["question"].value("text", "") << "\n";
  }
  log_hook(*campaign, "session-start", session, "inject", "goal, status and a question");
  print_context("SessionStart", text.str());
  return kExitOk;
}

int hook_post_tool(const GlobalOptions& options, const HookArgs& args) {
  const json input = read_hook_input();
  const std::string session = input.value("session_id", std::string("unknown-session"));
  auto campaign = Campaign::open(args.campaign_dir.empty() ? fs::path(input.value("cwd", std::string("."))) : args.campaign_dir);
  if (!campaign) return kExitOk;  // not our campaign: say nothing
  auto log = campaign->read_log();
  if (!log) return kExitOk;
  // A question logged since this hook last injected one (an evaluation's event, a claim: printed by that command,
  // repeated here in the host's context channel) is shown next to the tool result; so is a person's steering
  // question waiting for delivery.
  std::size_t last_injection = 0;
  for (std::size_t i = 0; i < log->records.size(); ++i) {
    const json& v = log->records[i].value;
    if (v.value("type", "") == "hook" && v.value("hook", "") == "post-tool") last_injection = i + 1;
  }
  const json* fresh = nullptr;
  for (std::size_t i = last_injection; i < log->records.size(); ++i) {
    const json& v = log->records[i].value;
    // Questions a hook delivered itself (session start, a stop) are not repeated here.
    if (v.value("type", "") == "question" && !v.value("via", "").starts_with("hook:")) fresh = &v;
  }
  std::string text;
  if (fresh != nullptr) {
    text = fmt::format("kseek: event {}. Question: {}", fresh->value("event", ""), fresh->value("text", ""));
  } else {
    if (pending_steers(log->records).empty()) return kExitOk;
    ActionResult asked = campaign_ask(options, campaign->dir(), "", "hook:post-tool");
    if (!asked.document.contains("question") || !asked.document["question"].is_object()) return kExitOk;
    text = "kseek: a question from the person watching this campaign: " + asked.document["question"].value("text", "");
  }
  log_hook(*campaign, "post-tool", session, "inject", text);
  print_context("PostToolUse", text);
  return kExitOk;
}

}  // namespace

void register_hook_command(CLI::App& app, GlobalOptions& options, int& exit_code) {
  auto args = std::make_shared<HookArgs>();
  auto* hook = app.add_subcommand("hook", "Agent-host hooks: stop (the gate), session-start, post-tool (stdin: the host's JSON)");
  hook->require_subcommand(1);
  auto add = [&](const char* name, const char* help, int (*fn)(const GlobalOptions&, const HookArgs&)) {
    auto* c = hook->add_subcommand(name, help);
    c->add_option("--host", args->host, "claude or codex")->check(CLI::IsMember({"claude", "codex"}))->capture_default_str();
    c->add_option("--campaign", args->campaign_dir, "Campaign folder (default: the host's cwd)")->type_name("DIR");
    c->callback([&options, &exit_code, args, fn] {
      try {
        exit_code = fn(options, *args);
      } catch (const std::exception& e) {
        // Never fail open silently: the person sees why, and the host gets a well-formed answer.
        std::cerr << "kseek hook: internal error: " << e.what() << "\n";
        if (args->host == "claude") print_json({{"systemMessage", std::string("kseek hook: internal error, nothing was checked: ") + e.what()}});
        exit_code = kExitOk;
      }
    });
  };
  add("stop", "Block the stop unless the goal holds for the current candidate (per-session block budget)", hook_stop);
  add("session-start", "Inject the goal, the status and a start question", hook_session_start);
  add("post-tool", "Inject the question an evaluation or claim just raised, or a person's steering question", hook_post_tool);
}

}  // namespace kseek::cli
