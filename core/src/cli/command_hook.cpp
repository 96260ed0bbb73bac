// `kseek hook stop|session-start|post-tool`: the agent-host hooks (Claude Code; Codex with --host codex).
// It must never crash, print anything but the decision on stdout, or trust `stop_hook_active`: a host treats a
// crash, a hang past its timeout or malformed output as "allow", so every path of `hook stop` ends in an explicit,
// well-formed answer, and that answer is "allow" only when the goal holds or the session's block budget is spent.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "commands.hpp"
#include "kseek/core/app/campaign_use_cases.hpp"
#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/campaign/campaign_engine.hpp"
#include "kseek/core/campaign/claim_classifier.hpp"
#include "kseek/core/campaign/record_signature.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/sha256.hpp"

namespace kseek::cli {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::size_t kMaxHookInput = 4 << 20;   // a host sends a few kB; anything larger is refused, never trusted
constexpr std::size_t kMaxDrained = 256u << 20;  // read (and drop) this much of an oversized input, then stop reading
constexpr std::size_t kMaxReason = 6000;         // hosts move longer texts to files; keep the reason inline
constexpr double kDefaultStopDeadline = 60.0;    // seconds; kseek registers the Stop hook with a 120 s host timeout
// The session key of blocks answered to a payload without a usable session_id: they share one budget.
constexpr const char* kMalformedSession = "(malformed hook input)";

struct HookArgs {
  std::string host = "claude";
  fs::path campaign_dir;
  double deadline = kDefaultStopDeadline;
};

// The host's JSON object, or why there is none (`problem`, which names what is wrong with it).
struct HookInput {
  json value = json::object();
  std::string problem;
};

HookInput read_hook_input() {
  std::string text;
  std::size_t total = 0;
  bool read_failed = false;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) read_failed = true;
    if (n <= 0) break;
    total += static_cast<std::size_t>(n);
    // Past the limit nothing more is kept; reading on (up to a bound) lets the host finish writing without EPIPE.
    if (total <= kMaxHookInput) text.append(buffer, static_cast<std::size_t>(n));
    if (total > kMaxDrained) break;
  }
  if (read_failed)
    return {json::object(), fmt::format("the hook input could not be read from stdin: {}", std::strerror(errno))};
  if (total > kMaxHookInput) {
    return {json::object(), fmt::format("the hook input is {}{} bytes, over the {} MiB limit (a host sends a few kB)",
                                        total > kMaxDrained ? "more than " : "", total, kMaxHookInput >> 20)};
  }
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return {json::object(), fmt::format("the hook input is not JSON ({} bytes)", text.size())};
  if (!j.is_object())
    return {json::object(), fmt::format("the hook input is not a JSON object (it is {})", j.type_name())};
  return {std::move(j), ""};
}

// A string field, or `fallback` when it is absent or not a string (the advisory hooks read leniently).
std::string text_or(const json& j, const char* key, const std::string& fallback) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
}

// Cuts at a character boundary, so a clipped text is still valid UTF-8.
std::string clip(std::string text, std::size_t limit = kMaxReason) {
  if (text.size() <= limit) return text;
  std::size_t cut = limit - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

// Never throws: a byte sequence that is not UTF-8 is replaced, not an exception on the way out.
std::string dump_json(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

void log_hook(const Campaign& campaign, const std::string& hook, const std::string& session,
              const std::string& decision, const std::string& reason, const std::string& session_source = "") {
  json fields = {{"hook", hook}, {"session_id", session}, {"decision", decision}, {"reason", reason}};
  // SessionStart's `source` (startup, resume, clear, compact): only a startup or a resume ends a break between
  // sessions, which the stagnation clock leaves out (campaign_engine.hpp, working_time).
  if (!session_source.empty()) fields["session_source"] = session_source;
  (void)campaign.append("hook", std::move(fields));
}

// Context for SessionStart / PostToolUse, in the one shape both hosts accept for these events.
void print_context(const std::string& event_name, const std::string& text) {
  print_json({{"hookSpecificOutput", {{"hookEventName", event_name}, {"additionalContext", clip(text)}}}});
}

// ---- the stop gate ----

// One answer to a Stop: a block (the agent reads `reason`), or an allow; `system_message` reaches the person.
// Both hosts accept exactly these keys on Stop: Claude Code's universal `systemMessage` plus `decision`/`reason`, and
// Codex's stop.command.output schema (codex-rs/hooks/schema/generated/stop.command.output.schema.json:
// additionalProperties false; properties continue, decision, reason, stopReason, suppressOutput, systemMessage).
struct StopReply {
  bool block = false;
  std::string reason;
  std::string system_message;
};

std::string stop_reply_text(const StopReply& r) {
  json out = json::object();
  if (r.block) {
    out["decision"] = "block";
    out["reason"] = clip(r.reason.empty() ? std::string("kseek: the stop was not allowed") : r.reason);
  }
  if (!r.system_message.empty()) out["systemMessage"] = clip(r.system_message, 2000);
  return out.empty() ? std::string() : dump_json(out) + "\n";  // allow without a message: nothing at all
}

void write_all_stdout(const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(STDOUT_FILENO, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// Prints exactly one Stop answer: the decision's, or a block when no decision is reached by the deadline (a lock
// another process holds for ever, a stalled file system). Without it the host's timeout would be an allow.
class StopAnswer {
 public:
  explicit StopAnswer(double deadline_seconds) {
    watchdog_ = std::thread([this, deadline_seconds] {
      std::unique_lock<std::mutex> lock(mutex_);
      const auto deadline = std::chrono::duration<double>(deadline_seconds);
      if (done_cv_.wait_for(lock, deadline, [this] { return finished_; })) return;
      if (claimed_.exchange(true)) return;
      const std::string why = fmt::format(
          "kseek: the stop gate reached no decision within {:.0f} s (the campaign is "
          "locked by another process, or its file system stalls), so this stop was not "
          "checked",
          deadline_seconds);
      std::cerr << "kseek hook stop: " << why << "\n";
      write_all_stdout(
          stop_reply_text({true, why + ". Stopping stays blocked; a person should look at the campaign.", why}));
      std::_Exit(kExitOk);
    });
  }
  ~StopAnswer() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      finished_ = true;
    }
    done_cv_.notify_all();
    watchdog_.join();
  }
  void give(const StopReply& reply) {
    if (claimed_.exchange(true)) return;
    write_all_stdout(stop_reply_text(reply));
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool finished_ = false;
  std::atomic<bool> claimed_{false};
  std::thread watchdog_;
};

// Where a stop was being decided, for the answers given when it could not be.
struct StopContext {
  fs::path dir;  // the campaign folder (or where one was expected); empty: unknown
  std::string session = kMalformedSession;
};

// Blocks answered while the campaign's own log could not hold them (a damaged or missing campaign, an append that
// failed), counted per campaign folder and session beside the signing keys, outside the campaign folder. The budget
// must still bound them: a host may never cap a stop loop (Codex has no cap).
Result<int> fallback_blocks(const StopContext& ctx, bool add) {
  const fs::path folder = campaign_key_dir() / "stop-blocks";
  std::error_code ec;
  fs::create_directories(folder, ec);
  const std::string where = ctx.dir.empty() ? std::string("(unknown campaign)") : ctx.dir.string();
  const fs::path file = folder / (sha256_hex(where).substr(0, 32) + ".json");
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0)
    return make_error(fmt::format("cannot open the stop-block counter {}: {}", file.string(), std::strerror(errno)));
  std::unique_ptr<int, void (*)(int*)> closer(new int(fd), [](int* p) {
    ::close(*p);  // also releases the flock
    delete p;
  });
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno != EINTR) return make_error(fmt::format("cannot lock {}: {}", file.string(), std::strerror(errno)));
  }
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::pread(fd, buffer, sizeof buffer, static_cast<off_t>(text.size()))) > 0;)
    text.append(buffer, n);
  json j = json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("sessions") || !j["sessions"].is_object())
    j = {{"campaign", where}, {"sessions", json::object()}};
  const json& seen = j["sessions"].contains(ctx.session) ? j["sessions"][ctx.session] : json();
  int blocks =
      seen.is_number_unsigned() ? static_cast<int>(std::min<std::uint64_t>(seen.get<std::uint64_t>(), 1u << 30)) : 0;
  if (add) {
    j["sessions"][ctx.session] = ++blocks;
    const std::string out = dump_json(j) + "\n";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, out.data(), out.size(), 0) != static_cast<ssize_t>(out.size()) ||
        ::fsync(fd) != 0) {
      return make_error(fmt::format("cannot write the stop-block counter {}: {}", file.string(), std::strerror(errno)));
    }
  }
  return blocks;
}

// Appends a hook record to the log in `dir` when it still has its init record (a log that is gone is not restarted).
void log_where_possible(const fs::path& dir, const std::string& session, const std::string& decision,
                        const std::string& reason) {
  const fs::path log_file = dir / ".kseek" / "log.jsonl";
  auto log = read_records(log_file);
  if (!log) return;
  const bool has_init = std::any_of(log->records.begin(), log->records.end(), [](const LogRecord& r) {
    return r.value.is_object() && r.value.contains("type") && r.value["type"] == "init";
  });
  if (!has_init) return;
  (void)append_signed_record(
      dir, "hook", {{"hook", "stop"}, {"session_id", session}, {"decision", decision}, {"reason", clip(reason)}});
}

// The stop cannot be checked (`problem`): block, within the budget, saying what a person must do.
StopReply unverifiable_stop(const StopContext& ctx, const std::string& problem, const std::string& to_do, int budget) {
  std::cerr << "kseek hook stop: " << problem << "\n";
  auto counted = fallback_blocks(ctx, false);
  if (counted && *counted >= budget) {
    const std::string why = fmt::format(
        "kseek: stop allowed after {} blocks in this session (budget {}) although it "
        "could not be checked: {}",
        *counted, budget, problem);
    log_where_possible(ctx.dir, ctx.session, "allow", why);
    return {false, "", why + " " + to_do};
  }
  auto added = fallback_blocks(ctx, true);
  std::string uncounted;
  if (!added) {
    std::cerr << "kseek hook stop: " << added.error().message << "\n";
    uncounted = " (this block could not be counted: " + added.error().message + ")";
  }
  const std::string reason = fmt::format(
      "kseek: this stop cannot be checked: {}\nWhat a person must do: {}\nStopping "
      "stays blocked until the campaign can be checked again (block {} of {} in this "
      "session{}).",
      problem, to_do, added ? *added : 0, budget, uncounted);
  log_where_possible(ctx.dir, ctx.session, "block", reason);
  return {true, reason, "kseek: the stop gate cannot check this campaign: " + problem + " " + to_do};
}

// The budget that holds when campaign.json cannot be trusted: the one a person last accepted (signed in the log).
int accepted_block_budget(const fs::path& dir) {
  if (auto config = last_accepted_config(dir)) return config->thresholds.hook_block_budget;
  return CampaignThresholds{}.hook_block_budget;
}

// The folder holding campaign.json or .kseek/, from `start` upwards; nothing when there is no campaign at all.
std::optional<fs::path> campaign_root(const fs::path& start) {
  std::error_code ec;
  for (fs::path dir = fs::absolute(start, ec).lexically_normal();; dir = dir.parent_path()) {
    if (fs::exists(dir / "campaign.json", ec) || fs::exists(dir / ".kseek", ec)) return dir;
    if (dir == dir.root_path() || !dir.has_parent_path()) return std::nullopt;
  }
}

// Why a Stop payload cannot be used ("" when it can); fills the session and the last message.
std::string stop_payload_problem(const json& in, std::string& session, std::optional<std::string>& message) {
  if (!in.contains("session_id") || !in["session_id"].is_string() || in["session_id"].get<std::string>().empty()) {
    return fmt::format("the hook input's 'session_id' must be a non-empty string (it is {})",
                       in.contains("session_id") ? std::string(in["session_id"].type_name()) : std::string("missing"));
  }
  session = in["session_id"].get<std::string>();
  if (in.contains("last_assistant_message") && !in["last_assistant_message"].is_null()) {
    if (!in["last_assistant_message"].is_string()) {
      return fmt::format("the hook input's 'last_assistant_message' must be a string or null (it is {})",
                         in["last_assistant_message"].type_name());
    }
    message = in["last_assistant_message"].get<std::string>();
  }
  if (in.contains("cwd") && !in["cwd"].is_string()) {
    return fmt::format("the hook input's 'cwd' must be a string (it is {})", in["cwd"].type_name());
  }
  return "";
}

// A fault injected by kseek's own tests (KSEEK_TESTING=1 KSEEK_TESTING_STOP_FAULT=throw): the catch-all's path.
void injected_fault() {
  const char* testing = std::getenv("KSEEK_TESTING");
  const char* fault = std::getenv("KSEEK_TESTING_STOP_FAULT");
  if (testing != nullptr && std::string_view(testing) == "1" && fault != nullptr &&
      std::string_view(fault) == "throw") {
    throw std::runtime_error("a fault injected by KSEEK_TESTING_STOP_FAULT=throw");
  }
}

// What a person does about a campaign whose config, log or state folder was changed or deleted.
std::string repair_campaign(const fs::path& dir) {
  return fmt::format(
      "a person must restore what was changed or deleted (campaign.json, .kseek/log.jsonl, .kseek/) from "
      "a backup, or, if a person changed campaign.json on purpose, accept it with `kseek reconfigure "
      "--campaign {}`; `kseek status --campaign {}` names the damage.",
      dir.string(), dir.string());
}

// This agent session's stop blocks so far: the hook records kseek signed (an agent can neither forge nor inflate them),
// plus any counted outside the log when it could not be written.
int session_blocks(const Campaign& campaign, const LogContents& log, const StopContext& ctx) {
  int blocks = 0;
  for (const auto& r : log.records) {
    const json& v = r.value;
    if (r.type == "hook" && r.hook == "stop" && text_or(v, "decision", "") == "block" &&
        text_or(v, "session_id", "") == ctx.session && (campaign.written_by_kseek(r) || !campaign.signs_records())) {
      ++blocks;
    }
  }
  if (auto outside = fallback_blocks(ctx, false)) blocks += *outside;
  return blocks;
}

// What a blocked stop tells the agent: the unmet goal, then the question (for the claim it made, else the newest
// unanswered event, else stopping is itself a completion claim), or what was malformed in the host's input.
std::string block_reason(const GlobalOptions& options, const Campaign& campaign, const GateResult& gate,
                         const std::vector<LogRecord>& records, const std::string& claim, const std::string& problem) {
  std::ostringstream reason;
  reason << "kseek: the campaign goal (" << campaign.config().goal << ") is not met for the current candidate:\n";
  for (const auto& u : gate.unmet()) reason << "- " << u << "\n";
  if (problem.empty()) {
    std::string event = claim.empty() ? "" : (claim == "limit" ? "limit-claim" : "completion-claim");
    if (event.empty()) {
      if (auto open = unanswered_event(records)) event = open->name;
    }
    if (event.empty()) event = "completion-claim";
    std::string question_text;
    if (claim.empty()) {  // a claim already logged its question in campaign_claim
      auto asked = app::campaign_ask(options, campaign.dir(), event, "hook:stop");
      if (asked && asked->question) question_text = asked->question->chosen.text;
    } else if (auto relog = campaign.read_log()) {
      for (auto it = relog->records.rbegin(); it != relog->records.rend(); ++it) {
        if (it->type == "question") {
          question_text = it->text;
          break;
        }
      }
    }
    if (!question_text.empty()) reason << "Question: " << question_text << "\n";
  } else {
    reason << "The hook input from the host is malformed (" << problem << "); no claim or session could be read.\n";
  }
  reason << "Make progress with a measurement or a change and run `kseek eval`; `kseek status` shows where the "
            "campaign stands.";
  return reason.str();
}

StopReply decide_stop(const GlobalOptions& options, const HookArgs& args, const HookInput& input, StopContext& ctx) {
  std::string problem = input.problem;
  std::string session;
  std::optional<std::string> message;
  if (problem.empty()) problem = stop_payload_problem(input.value, session, message);
  if (problem.empty()) ctx.session = session;
  if (!problem.empty()) std::cerr << "kseek hook stop: malformed hook input: " << problem << "\n";
  const std::string payload_note = problem.empty() ? "" : " The host sent malformed hook input (" + problem + ").";

  const std::string cwd = text_or(input.value, "cwd", "");
  const fs::path start =
      !args.campaign_dir.empty() ? args.campaign_dir : (!cwd.empty() ? fs::path(cwd) : fs::current_path());
  ctx.dir = fs::absolute(start).lexically_normal();
  const auto root = campaign_root(start);
  if (!root && args.campaign_dir.empty()) {
    // Outside any campaign: not a session kseek gates. The person is told; nothing reads as a decision.
    const std::string why = fmt::format(
        "kseek: no campaign at {} (no campaign.json or .kseek/ there or above): this "
        "stop was not checked.{}",
        ctx.dir.string(), payload_note);
    std::cerr << "kseek hook stop: " << why << "\n";
    return {false, "", why};
  }
  if (!root) {
    // Registered for a campaign folder that holds no campaign any more: deleting the folder is no way out.
    return unverifiable_stop(ctx,
                             fmt::format("the campaign folder {} this hook was registered for is gone (no "
                                         "campaign.json or .kseek/ there).{}",
                                         ctx.dir.string(), payload_note),
                             "Restore the folder; if the campaign was ended on purpose, end this agent session and "
                             "start the agent without kseek's hooks.",
                             CampaignThresholds{}.hook_block_budget);
  }
  ctx.dir = *root;
  if (!fs::exists(*root / "campaign.json")) {
    return unverifiable_stop(
        ctx,
        fmt::format("{} is missing (its log is still in .kseek/).{}", (*root / "campaign.json").string(), payload_note),
        repair_campaign(*root), accepted_block_budget(*root));
  }
  auto campaign = Campaign::open(*root, false);
  if (!campaign) {
    return unverifiable_stop(ctx, campaign.error().message + payload_note, repair_campaign(*root),
                             accepted_block_budget(*root));
  }
  // Claims, the count of this session's blocks and the block's own record are one step: a second stop of the
  // same session waits here.
  auto held = campaign->lock();
  if (!held)
    return unverifiable_stop(ctx, held.error().message + payload_note, repair_campaign(*root),
                             accepted_block_budget(*root));
  injected_fault();

  std::string claim;
  if (message) {
    const ClaimReading reading = read_claim(*message);  // explicit claims (`kseek claim`, MCP) never come here
    if (reading.kind != ClaimKind::kNone) claim = std::string(claim_kind_name(reading.kind));
    if (!claim.empty()) {
      (void)app::campaign_claim(options, campaign->dir(), claim, message->size() > 400 ? clip(*message, 400) : *message,
                                "hook:stop");
    }
  }
  auto log = campaign->read_log();
  if (!log)
    return unverifiable_stop(ctx, log.error().message + payload_note, repair_campaign(*root),
                             accepted_block_budget(*root));
  const GateResult gate = compute_gate(*campaign, *log);
  if (gate.holds) {
    log_hook(*campaign, "stop", ctx.session, "allow", "the goal holds for the current candidate");
    // The goal decides; a malformed payload is still named for the person, and so is evidence whose key sat in the
    // campaign folder, where whoever works there could have signed it (record_signature.hpp).
    std::string note = payload_note;
    if (campaign->key_kept_in_campaign()) {
      note += fmt::format(" Its records were verified, but {}.", kKeyInCampaignNote);
    }
    return {false, "", note.empty() ? "" : "kseek: the goal holds; stop allowed." + note};
  }
  const int blocks = session_blocks(*campaign, *log, ctx);
  const int budget = campaign->config().thresholds.hook_block_budget;
  if (blocks >= budget) {
    const std::string why = fmt::format(
        "stop allowed after {} blocks in this session (budget {}); the goal is still "
        "unmet",
        blocks, budget);
    log_hook(*campaign, "stop", ctx.session, "allow", why);
    return {false, "", "kseek: " + why + payload_note};
  }
  const std::string text =
      clip(block_reason(options, *campaign, gate, log->records, problem.empty() ? claim : "", problem));
  StopReply reply{
      true, text,
      payload_note.empty() ? "" : "kseek: the stop gate blocked a stop on malformed hook input: " + problem};
  if (auto logged = campaign->append(
          "hook", {{"hook", "stop"}, {"session_id", ctx.session}, {"decision", "block"}, {"reason", text}});
      !logged) {
    // Counted outside the log instead, so the budget still ends a loop; the person learns the log is not writable.
    std::cerr << "kseek hook stop: " << logged.error().message << "\n";
    (void)fallback_blocks(ctx, true);
    reply.system_message = "kseek: the stop was blocked but could not be logged: " + logged.error().message;
  }
  return reply;
}

int hook_stop(const GlobalOptions& options, const HookArgs& args) {
  StopAnswer answer(args.deadline);
  StopContext ctx;
  StopReply reply;
  try {
    const HookInput input = read_hook_input();
    reply = decide_stop(options, args, input, ctx);
  } catch (const std::exception& e) {
    reply = {true, "", ""};
    try {
      reply = unverifiable_stop(ctx, fmt::format("internal error in the stop hook: {}", e.what()),
                                "Report it with this message; `kseek status` shows the campaign.",
                                CampaignThresholds{}.hook_block_budget);
    } catch (...) {
      reply.reason = fmt::format("kseek: internal error in the stop hook ({}); this stop was not checked.", e.what());
      reply.system_message = reply.reason;
    }
  } catch (...) {
    reply = {true, "kseek: internal error in the stop hook; this stop was not checked.",
             "kseek: internal error in the stop hook; this stop was not checked."};
  }
  answer.give(reply);
  return kExitOk;
}

int hook_session_start(const GlobalOptions& options, const HookArgs& args) {
  const HookInput input = read_hook_input();
  if (!input.problem.empty()) std::cerr << "kseek hook session-start: malformed hook input: " << input.problem << "\n";
  const std::string session = text_or(input.value, "session_id", "unknown-session");
  auto campaign =
      Campaign::open(args.campaign_dir.empty() ? fs::path(text_or(input.value, "cwd", ".")) : args.campaign_dir);
  if (!campaign) {
    std::cerr << "kseek hook session-start: " << campaign.error().message << "\n";
    return kExitOk;
  }
  auto status = app::campaign_status(campaign->dir());
  auto asked = app::campaign_ask(options, campaign->dir(), "", "hook:session-start");
  std::ostringstream text;
  text << "kseek campaign: optimise " << campaign->config().candidate << " for " << campaign->config().plugin
       << " on the scenario set " << campaign->config().set
       << ".\nGoal (computed by `kseek gate`): " << campaign->config().goal << "\n";
  // A status that could not be read says nothing.
  if (status && status->latest) {
    const auto& l = *status->latest;
    text << fmt::format("Latest evaluation {}: {}", l.evaluation,
                        l.all_passed ? "all scenarios passed" : "not all scenarios passed");
    if (l.geomean) text << fmt::format(", geomean {:.4f}", *l.geomean);
    text << ".\n";
  } else {
    text << "No evaluation yet: `kseek eval` measures the candidate against the seed.\n";
  }
  if (status) {
    for (const auto& u : status->gate.unmet) text << "Unmet: " << u << "\n";
  }
  if (asked && asked->question) text << "Question: " << asked->question->chosen.text << "\n";
  log_hook(*campaign, "session-start", session, "inject", "goal, status and a question",
           text_or(input.value, "source", ""));
  print_context("SessionStart", text.str());
  return kExitOk;
}

int hook_post_tool(const GlobalOptions& options, const HookArgs& args) {
  const HookInput input = read_hook_input();
  if (!input.problem.empty()) std::cerr << "kseek hook post-tool: malformed hook input: " << input.problem << "\n";
  const std::string session = text_or(input.value, "session_id", "unknown-session");
  auto campaign =
      Campaign::open(args.campaign_dir.empty() ? fs::path(text_or(input.value, "cwd", ".")) : args.campaign_dir);
  if (!campaign) return kExitOk;  // not our campaign: say nothing
  // What was injected last and this injection are one step: hooks of parallel tool calls fire together.
  auto held = campaign->lock();
  if (!held) return kExitOk;
  auto log = campaign->read_log();
  if (!log) return kExitOk;
  // A question logged since this hook last injected one (an evaluation's event, a claim: printed by that command,
  // repeated here in the host's context channel) is shown next to the tool result; so is a person's steering
  // question waiting for delivery.
  std::size_t last_injection = 0;
  for (std::size_t i = 0; i < log->records.size(); ++i) {
    const LogRecord& r = log->records[i];
    if (r.type == "hook" && r.hook == "post-tool") last_injection = i + 1;
  }
  const LogRecord* fresh = nullptr;
  for (std::size_t i = last_injection; i < log->records.size(); ++i) {
    const LogRecord& r = log->records[i];
    // Questions a hook delivered itself (session start, a stop) are not repeated here.
    if (r.type == "question" && !r.via.starts_with("hook:")) fresh = &r;
  }
  std::string text;
  if (fresh != nullptr) {
    text = fmt::format("kseek: event {}. Question: {}", fresh->event, fresh->text);
  } else {
    if (pending_steers(log->records).empty()) return kExitOk;
    auto asked = app::campaign_ask(options, campaign->dir(), "", "hook:post-tool");
    if (!asked || !asked->question) return kExitOk;
    text = "kseek: a question from the person watching this campaign: " + asked->question->chosen.text;
  }
  log_hook(*campaign, "post-tool", session, "inject", text);
  print_context("PostToolUse", text);
  return kExitOk;
}

}  // namespace

void register_hook_command(CLI::App& app, GlobalOptions& options, int& exit_code) {
  auto args = std::make_shared<HookArgs>();
  auto* hook = app.add_subcommand(
      "hook", "Agent-host hooks: stop (the gate), session-start, post-tool (stdin: the host's JSON)");
  hook->require_subcommand(1);
  auto add = [&](const char* name, const char* help, int (*fn)(const GlobalOptions&, const HookArgs&)) {
    auto* c = hook->add_subcommand(name, help);
    c->add_option("--host", args->host, "claude or codex")
        ->check(CLI::IsMember({"claude", "codex"}))
        ->capture_default_str();
    c->add_option("--campaign", args->campaign_dir, "Campaign folder (default: the host's cwd)")->type_name("DIR");
    const bool is_stop = std::string_view(name) == "stop";
    if (is_stop) {
      c->add_option("--deadline", args->deadline,
                    "Answer with a block when no decision is reached within this many "
                    "seconds (keep it below the host's hook timeout)")
          ->check(CLI::Range(0.1, 3600.0))
          ->capture_default_str();
    }
    c->callback([&options, &exit_code, args, fn, is_stop] {
      try {
        exit_code = fn(options, *args);
      } catch (const std::exception& e) {
        // Never fail open silently: the person sees why, and the host gets a well-formed answer (for a stop, a block).
        std::cerr << "kseek hook: internal error: " << e.what() << "\n";
        const std::string why = std::string("kseek hook: internal error, nothing was checked: ") + e.what();
        if (is_stop) {
          write_all_stdout(stop_reply_text({true, why, why}));
        } else if (args->host == "claude") {
          print_json({{"systemMessage", why}});
        }
        exit_code = kExitOk;
      }
    });
  };
  add("stop", "Block the stop unless the goal holds for the current candidate (per-session block budget)", hook_stop);
  add("session-start", "Inject the goal, the status and a start question", hook_session_start);
  add("post-tool", "Inject the question an evaluation or claim just raised, or a person's steering question",
      hook_post_tool);
}

}  // namespace kseek::cli
