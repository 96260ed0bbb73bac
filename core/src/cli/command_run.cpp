// `kseek run`: the campaign runner. Starts a coding agent headless in the campaign with kseek's hooks and MCP server
// passed on its command line, waits, checks the gate and the campaign's integrity, and starts the next session with
// the goal, the unmet terms and a question until the goal holds or a budget is spent (docs/campaigns-runner.md).
// It must never report success unless the gate holds at the end, never continue after tampering, and never leave
// the log without a `session` end and a `run` end record for a session it started.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "commands.hpp"
#include "kseek/core/app/campaign_files.hpp"
#include "kseek/core/app/campaign_use_cases.hpp"
#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/campaign/campaign_engine.hpp"
#include "kseek/core/campaign/run_process.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/sha256.hpp"
#include "kseek/core/util/shell.hpp"

extern char** environ;

namespace kseek::cli {
namespace fs = std::filesystem;
using nlohmann::json;
using SteadyClock = std::chrono::steady_clock;

namespace {

// Exit codes of `kseek run` beyond the shared ones (docs/campaigns-runner.md).
constexpr int kExitBudgetSpent = 4;    // a budget (sessions, evaluations, hours) ran out with the goal unmet
constexpr int kExitTampered = 5;       // campaign.json, the log, an evaluation record or the hook settings changed
constexpr int kExitInterrupted = 130;  // SIGINT/SIGTERM to `kseek run`

StopFlag g_stop_signal = 0;
StopFlag g_stop_count = 0;

extern "C" void on_stop_signal(int signal_number) {
  g_stop_signal = signal_number;
  g_stop_count = g_stop_count + 1;
}

struct RunArgs {
  fs::path dir;
  std::string agent;                    // claude, codex, or a command line split by split_agent_command
  std::string agent_cmd;                // a program path, never split
  std::vector<std::string> agent_args;  // appended to the agent's command line
  int budget_evals = 0;                 // 0: none
  double budget_hours = 0;              // 0: none
  int budget_sessions = 20;
  std::string prompt_mode;  // stdin | arg; default arg for claude/codex, stdin for other agents
  double grace_seconds = 10;
  bool dry_run = false;
};

enum class AgentKind { kClaude, kCodex, kCommand };

struct AgentSpec {
  AgentKind kind = AgentKind::kCommand;
  std::string label;              // for the log: "claude", "codex", or the program's file name
  std::vector<std::string> base;  // the command before kseek's own flags (generic: the whole command)
  bool prompt_as_argument = false;
};

// What the campaign looked like when last checked: any change not made by kseek is tampering.
struct Baseline {
  std::set<std::size_t> damaged_lines;
  std::vector<std::string> records;           // each record's JSON text, in order
  std::map<fs::path, std::string> run_files;  // settings files kseek wrote -> sha256
};

Result<AgentSpec> agent_spec(const RunArgs& args) {
  AgentSpec spec;
  if (args.agent.empty() == args.agent_cmd.empty()) {
    return make_error("give exactly one of --agent claude|codex|'COMMAND LINE' and --agent-cmd PROGRAM");
  }
  if (!args.agent_cmd.empty()) {
    spec.base = {args.agent_cmd};
  } else if (args.agent == "claude") {
    spec.kind = AgentKind::kClaude;
    spec.base = {"claude"};
  } else if (args.agent == "codex") {
    spec.kind = AgentKind::kCodex;
    spec.base = {"codex", "exec"};
  } else {
    auto words = split_agent_command(args.agent);
    if (!words) return words.error();
    spec.base = std::move(*words);
  }
  spec.label = spec.kind == AgentKind::kClaude  ? "claude"
               : spec.kind == AgentKind::kCodex ? "codex"
                                                : fs::path(spec.base.front()).filename().string();
  const std::string mode =
      args.prompt_mode.empty() ? (spec.kind == AgentKind::kCommand ? "stdin" : "arg") : args.prompt_mode;
  if (mode != "stdin" && mode != "arg")
    return make_error(fmt::format("--prompt-mode must be stdin or arg, not '{}'", mode));
  spec.prompt_as_argument = mode == "arg";
  return spec;
}

// Writes the hook and MCP settings the agent gets on its command line; returns the flags that pass them.
Result<std::vector<std::string>> host_flags(const AgentSpec& spec, const Campaign& campaign, const fs::path& run_dir,
                                            Baseline& baseline) {
  const fs::path& dir = campaign.dir();
  // A campaign whose key was not found here is registered as one with a per-user key: the server is told where
  // kseek looked, and says so if it is not there either.
  const KeyPlace key_place = campaign.key_place().value_or(KeyPlace::kUserFolder);
  auto self = self_executable();
  if (!self) return self.error();
  const fs::path& exe = *self;
  auto write = [&](const fs::path& file, const json& content) -> Result<void> {
    const std::string text = content.dump(2) + "\n";
    if (auto w = write_file_atomically(file, text); !w) return w.error();
    baseline.run_files[file] = sha256_hex(text);
    return Ok{};
  };
  if (spec.kind == AgentKind::kClaude) {
    const fs::path settings = run_dir / "claude-settings.json", mcp = run_dir / "claude-mcp.json";
    if (auto w = write(settings, app::hook_settings(exe, dir, "claude")); !w) return w.error();
    if (auto w = write(mcp, app::mcp_registration(exe, dir, key_place)); !w) return w.error();
    // --settings and --mcp-config work with and without --bare (which skips project settings); bypassPermissions
    // (the documented name of --dangerously-skip-permissions) because no person answers prompts in a -p run.
    return std::vector<std::string>{"--print",    "--settings",          settings.string(),   "--mcp-config",
                                    mcp.string(), "--strict-mcp-config", "--permission-mode", "bypassPermissions"};
  }
  if (spec.kind == AgentKind::kCodex) {
    const json hooks = app::hook_settings(exe, dir, "codex");
    const json server = app::codex_mcp_server(exe, dir, key_place);
    // Kept beside the session logs so a person can see exactly what Codex was given.
    if (auto w =
            write(run_dir / "codex-overrides.json", {{"hooks", hooks["hooks"]}, {"mcp_servers", {{"kseek", server}}}});
        !w) {
      return w.error();
    }
    std::vector<std::string> flags = {"--dangerously-bypass-hook-trust",
                                      "--skip-git-repo-check",
                                      "--sandbox",
                                      "workspace-write",
                                      "-c",
                                      "mcp_servers.kseek=" + app::toml_inline(server)};
    for (const auto& [event, groups] : hooks["hooks"].items()) {
      flags.insert(flags.end(), {"-c", fmt::format("hooks.{}={}", event, app::toml_inline(groups))});
    }
    return flags;
  }
  return std::vector<std::string>{};
}

// Claude Code ends a turn itself after 8 consecutive Stop-hook blocks unless CLAUDE_CODE_STOP_HOOK_BLOCK_CAP says
// otherwise (Claude Code 2.1.147 release notes; anthropics/claude-code#85547). The agent's host is told to honour one
// more block than the stop hook will ever ask for, so the campaign's own budget (hook_block_budget) is what ends a
// session's blocking, logged as such, never the host's cap.
std::vector<std::pair<std::string, std::string>> host_environment(const AgentSpec& spec, const Campaign& campaign) {
  if (spec.kind != AgentKind::kClaude) return {};
  return {{"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", std::to_string(campaign.config().thresholds.hook_block_budget + 1)}};
}

std::vector<std::string> agent_environment(const fs::path& dir, int session,
                                           const std::vector<std::pair<std::string, std::string>>& host) {
  std::vector<std::string> env;
  std::string path;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (entry.starts_with("KSEEK_CAMPAIGN=") || entry.starts_with("KSEEK_RUN_SESSION=")) continue;
    if (std::any_of(host.begin(), host.end(), [&](const auto& h) { return entry.starts_with(h.first + "="); }))
      continue;
    if (entry.starts_with("PATH=")) {
      path = entry.substr(5);
      continue;
    }
    env.push_back(entry);
  }
  // The agent's `kseek` is the one running it (and its hooks): its folder goes first on PATH.
  auto self = self_executable();  // host_flags has already refused to run without it
  const std::string own = self ? self->parent_path().string() : std::string();
  env.push_back("PATH=" + own + (path.empty() || own.empty() ? "" : ":") + path);
  env.push_back("KSEEK_CAMPAIGN=" + dir.string());
  env.push_back("KSEEK_RUN_SESSION=" + std::to_string(session));
  for (const auto& [name, value] : host) env.push_back(name + "=" + value);
  return env;
}

// Records of `type` in the log after position `from` (0-based index into records).
int count_after(const LogContents& log, std::size_t from, std::string_view type) {
  int n = 0;
  for (std::size_t i = from; i < log.records.size(); ++i) n += log.records[i].type == type;
  return n;
}

Result<Baseline> take_baseline(const Campaign& campaign, const Baseline& previous) {
  auto log = campaign.read_log();
  if (!log) return log.error();
  Baseline b;
  b.run_files = previous.run_files;
  for (const auto& d : log->damaged) b.damaged_lines.insert(d.line);
  for (const auto& r : log->records) b.records.push_back(r.value.dump());
  return b;
}

// Every way the campaign can have been changed behind kseek's back. Problems that a session kseek itself cut short
// can explain (a line torn by the kill) are returned in `warnings` instead.
std::vector<std::string> integrity_problems(const fs::path& dir, const Baseline& before, bool cut_short,
                                            std::vector<std::string>& warnings) {
  std::vector<std::string> problems;
  auto campaign = Campaign::open(dir, false);
  if (!campaign) return {campaign.error().message};
  auto log = campaign->read_log();
  if (!log) return {log.error().message};
  for (const auto& d : log->damaged) {
    if (before.damaged_lines.contains(d.line)) continue;
    const std::string text = fmt::format(
        "log line {} is damaged ({}): a line kseek wrote was changed or a line was "
        "written outside kseek",
        d.line, d.reason);
    (cut_short ? warnings : problems).push_back(text);
  }
  if (log->records.size() < before.records.size()) {
    problems.push_back(fmt::format("the log holds {} records, {} before the session: records were removed",
                                   log->records.size(), before.records.size()));
  } else {
    for (std::size_t i = 0; i < before.records.size(); ++i) {
      if (log->records[i].value.dump() != before.records[i]) {
        problems.push_back(
            fmt::format("log record at line {} differs from what it was before the session", log->records[i].line));
        break;
      }
    }
  }
  for (const auto& r : log->records) {
    if (auto e = evaluation_of(r)) {
      if (auto loaded = campaign->load_evaluation(*e); !loaded) problems.push_back(loaded.error().message);
    }
  }
  for (const auto& [file, hash] : before.run_files) {
    auto text = read_file(file);
    if (!text || sha256_hex(*text) != hash) {
      problems.push_back(fmt::format(
          "{} (the hook/MCP settings kseek run gave the agent) was changed during the session", file.string()));
    }
  }
  return problems;
}

std::string signal_name(int s) {
  switch (s) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGKILL: return "SIGKILL";
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGHUP: return "SIGHUP";
    default: return fmt::format("signal {}", s);
  }
}

// The gate as `kseek run` acts on it: one that could not be computed holds nothing.
GateResult run_gate(const fs::path& dir) {
  auto gate = app::campaign_gate(dir, "run");
  return gate ? gate->gate : GateResult{};
}

std::string compose_prompt(const Campaign& campaign, int session, const GateResult& gate,
                           const std::optional<app::AskedQuestion>& question, const std::string& budget_line) {
  const CampaignConfig& c = campaign.config();
  std::ostringstream p;
  p << fmt::format(
      "kseek campaign, session {} (started by `kseek run`). Optimise `{}` for the operator {} on the "
      "scenario set {}, in {}. AGENTS.md there says how to work.\n\n",
      session, c.candidate, c.plugin, c.set, campaign.dir().string());
  p << "Goal (computed by `kseek gate`, not judged): " << c.goal << "\n";
  p << "It does not hold for the candidate as it is now:\n";
  for (const auto& u : gate.unmet()) p << "- " << u << "\n";  // evidence first
  if (question) p << "\nQuestion (" << question->event << "): " << question->chosen.text << "\n";
  p << "\nWork by measurement: change the candidate, run `kseek eval`, read `kseek status`. The goal is met only when "
       "`kseek gate` exits 0; a claim is not evidence. "
    << budget_line << "\n";
  return p.str();
}

// One `kseek run`: the agent's command, the budgets, the campaign's baseline, and the sessions started so far. Every
// way out logs a `run` end record through finish().
class CampaignRun {
 public:
  CampaignRun(const GlobalOptions& options, const RunArgs& args, const AgentSpec& spec, Campaign campaign,
              fs::path run_dir)
      : options_(options),
        args_(args),
        spec_(spec),
        campaign_(std::move(campaign)),
        dir_(campaign_.dir()),
        run_dir_(std::move(run_dir)),
        host_env_(host_environment(spec_, campaign_)) {}

  // The host's flags (hook and MCP settings written under run_dir) and the campaign's baseline; an error is a usage
  // error, an inconsistent campaign is TAMPERED (its gate could not be trusted, so it is not run).
  int prepare() {
    auto flags = host_flags(spec_, campaign_, run_dir_, baseline_);
    if (!flags) return fail(options_, kExitUsage, "ERROR", flags.error().message);
    flags_ = std::move(*flags);
    if (args_.dry_run) return kExitOk;
    std::vector<std::string> ignored;
    auto current = take_baseline(campaign_, baseline_);
    if (!current) return fail(options_, kExitUsage, "ERROR", current.error().message);
    baseline_ = std::move(*current);
    if (auto problems = integrity_problems(dir_, baseline_, false, ignored); !problems.empty()) {
      return fail(options_, kExitTampered, "TAMPERED",
                  "the campaign is not consistent, so it is not run: " + problems.front());
    }
    return kExitOk;
  }

  int print_dry_run() const {
    json environment = {
        {"KSEEK_CAMPAIGN", dir_.string()}, {"KSEEK_RUN_SESSION", "<SESSION>"}, {"PATH", "<kseek's folder>:$PATH"}};
    for (const auto& [name, value] : host_env_) environment[name] = value;
    print_json({{"status", "OK"},
                {"agent", spec_.label},
                {"argv", command_for("<PROMPT>")},
                {"prompt_mode", spec_.prompt_as_argument ? "arg" : "stdin"},
                {"working_directory", dir_.string()},
                {"environment", environment}});
    return kExitOk;
  }

  // Sessions until the goal holds, a budget is spent, the campaign is tampered with, or a signal stops the run.
  int run() {
    if (auto started = log_start(); !started) return fail(options_, kExitUsage, "ERROR", started.error().message);
    GateResult gate = run_gate(dir_);
    if (gate.holds) return finish("goal-met", kExitOk, "the goal already holds; no agent session was needed");
    for (;;) {
      if (g_stop_signal != 0)
        return finish("interrupted", kExitInterrupted, fmt::format("stopped by {}", signal_name(g_stop_signal)));
      if (auto spent = budget_spent()) return *spent;
      if (auto ended = run_session(++sessions_, gate)) return *ended;
      gate = run_gate(dir_);
      if (gate.holds) {
        return finish("goal-met", kExitOk,
                      fmt::format("the goal holds after session {} (evaluation {})", sessions_, gate.evaluation));
      }
      if (!options_.json) {
        std::cout << "kseek run: goal not met:\n";
        for (const auto& u : gate.unmet()) std::cout << "  - " << u << "\n";
      }
    }
  }

 private:
  std::vector<std::string> command_for(const std::string& prompt) const {
    std::vector<std::string> argv = spec_.base;
    argv.insert(argv.end(), flags_.begin(), flags_.end());
    argv.insert(argv.end(), args_.agent_args.begin(), args_.agent_args.end());
    if (spec_.prompt_as_argument) argv.push_back(prompt);
    return argv;
  }

  Result<Ok> log_start() {
    run_started_ = SteadyClock::now();
    if (args_.budget_hours > 0) {
      deadline_ = run_started_ + std::chrono::duration_cast<SteadyClock::duration>(
                                     std::chrono::duration<double>(args_.budget_hours * 3600.0));
    }
    json budgets = {{"sessions", args_.budget_sessions},
                    {"evaluations", args_.budget_evals ? json(args_.budget_evals) : json()},
                    {"hours", args_.budget_hours > 0 ? json(args_.budget_hours) : json()}};
    if (auto a = campaign_.append("run", {{"phase", "start"},
                                          {"agent", spec_.label},
                                          {"command", command_for("<PROMPT>")},
                                          {"prompt_mode", spec_.prompt_as_argument ? "arg" : "stdin"},
                                          {"budgets", budgets}});
        !a) {
      return a.error();
    }
    run_start_index_ = baseline_.records.size();  // the run start record's position
    return Ok{};
  }

  int evaluations_so_far() const {
    auto log = campaign_.read_log();
    return log ? count_after(*log, run_start_index_, "evaluation") : 0;
  }

  double hours_so_far() const {
    return std::chrono::duration<double>(SteadyClock::now() - run_started_).count() / 3600.0;
  }

  // Ends the run: a `run` end record, one line for people, the exit code.
  int finish(const std::string& outcome, int code, const std::string& detail, const std::string& budget = "") {
    json record = {{"phase", "end"},
                   {"outcome", outcome},
                   {"detail", detail},
                   {"sessions", sessions_},
                   {"evaluations", evaluations_so_far()},
                   {"seconds", std::chrono::duration<double>(SteadyClock::now() - run_started_).count()}};
    if (!budget.empty()) record["budget"] = budget;
    if (auto a = campaign_.append("run", record); !a)
      std::cerr << "kseek run: cannot log the end of the run: " << a.error().message << "\n";
    if (options_.json) {
      record["status"] = outcome == "goal-met"      ? "MET"
                         : outcome == "budget"      ? "BUDGET_SPENT"
                         : outcome == "tampering"   ? "TAMPERED"
                         : outcome == "interrupted" ? "INTERRUPTED"
                                                    : "ERROR";
      print_json(record);
    } else {
      std::cout << fmt::format("kseek run: {}: {}\n", outcome, detail);
    }
    return code;
  }

  // The run's end when a budget (sessions, evaluations, hours) is spent.
  std::optional<int> budget_spent() {
    const int evals = evaluations_so_far();
    if (sessions_ >= args_.budget_sessions) {
      return finish("budget", kExitBudgetSpent,
                    fmt::format("the sessions budget is spent ({} of {}) and the goal is unmet", sessions_,
                                args_.budget_sessions),
                    "sessions");
    }
    if (args_.budget_evals > 0 && evals >= args_.budget_evals) {
      return finish(
          "budget", kExitBudgetSpent,
          fmt::format("the evaluations budget is spent ({} of {}) and the goal is unmet", evals, args_.budget_evals),
          "evaluations");
    }
    if (deadline_ && SteadyClock::now() >= *deadline_) {
      return finish("budget", kExitBudgetSpent,
                    fmt::format("the hours budget is spent ({:.3f} of {}) and the goal is unmet", hours_so_far(),
                                args_.budget_hours),
                    "hours");
    }
    return std::nullopt;
  }

  // The question: for the newest unanswered event; else ending a session with the goal unmet is a completion claim
  // (as the stop hook reads a stop).
  std::optional<app::AskedQuestion> session_question(int session) const {
    if (auto asked = app::campaign_ask(options_, dir_, "", "run"); asked && asked->question) return asked->question;
    if (session > 1 && campaign_.config().questions) {
      if (auto claim = app::campaign_ask(options_, dir_, "completion-claim", "run"); claim) return claim->question;
    }
    return std::nullopt;
  }

  std::string budget_line(int session) const {
    std::string line = fmt::format("This is session {} of at most {}", session, args_.budget_sessions);
    if (args_.budget_evals > 0)
      line += fmt::format("; {} of {} evaluations used", evaluations_so_far(), args_.budget_evals);
    if (args_.budget_hours > 0) line += fmt::format("; {:.2f} of {} hours used", hours_so_far(), args_.budget_hours);
    return line + ".";
  }

  // One agent session, from its prompt to its end record; the run's end when the session ends it (an error,
  // tampering, a stop signal), else nothing and the caller checks the gate.
  std::optional<int> run_session(int session, const GateResult& gate) {
    const auto question = session_question(session);
    const std::string prompt = compose_prompt(campaign_, session, gate, question, budget_line(session));
    const fs::path prompt_file = run_dir_ / fmt::format("session-{:03}.prompt", session);
    const fs::path output_file = run_dir_ / fmt::format("session-{:03}.log", session);
    if (auto w = write_file_atomically(prompt_file, prompt); !w) return finish("error", kExitUsage, w.error().message);
    // Rewritten for every session: what the agent may have changed is restored (and a change is caught below).
    if (auto f = host_flags(spec_, campaign_, run_dir_, baseline_); !f)
      return finish("error", kExitUsage, f.error().message);

    AgentLaunch launch;
    launch.argv = command_for(prompt);
    launch.environment = agent_environment(dir_, session, host_env_);
    launch.working_directory = dir_;
    launch.stdin_file = spec_.prompt_as_argument ? fs::path() : prompt_file;
    launch.output_file = output_file;
    if (auto a = campaign_.append("session", {{"phase", "start"},
                                              {"agent", spec_.label},
                                              {"session", session},
                                              {"question", question ? question->chosen.id : ""},
                                              {"prompt_file", fs::relative(prompt_file, dir_).string()}});
        !a) {
      return finish("error", kExitUsage, a.error().message);
    }
    auto before = take_baseline(campaign_, baseline_);
    if (!before) return finish("error", kExitUsage, before.error().message);
    baseline_ = std::move(*before);
    const std::size_t session_index = baseline_.records.size();
    if (!options_.json) {
      std::cout << fmt::format("kseek run: session {} ({}) started; its output goes to {}\n", session, spec_.label,
                               fs::relative(output_file, dir_).string());
      std::cout.flush();
    }
    auto process = AgentProcess::start(launch);
    if (!process) {
      (void)campaign_.append("session", {{"phase", "end"},
                                         {"agent", spec_.label},
                                         {"session", session},
                                         {"exit_status", "not-started"},
                                         {"seconds", 0},
                                         {"evaluations", 0},
                                         {"questions", 0}});
      return finish("error", kExitUsage, process.error().message);
    }
    const AgentEnd end =
        process->wait(deadline_, &g_stop_signal, &g_stop_count, std::chrono::duration<double>(args_.grace_seconds));
    return end_session(session, session_index, end);
  }

  // The session's end record and its line for people; the run's end when the campaign was tampered with or a signal
  // stopped the session.
  std::optional<int> end_session(int session, std::size_t session_index, const AgentEnd& end) {
    json exit_status;
    switch (end.reason) {
      case AgentEnd::Reason::kExited: exit_status = end.code; break;
      case AgentEnd::Reason::kSignalled: exit_status = "signal:" + signal_name(end.code); break;
      case AgentEnd::Reason::kDeadline: exit_status = "hours-budget"; break;
      case AgentEnd::Reason::kStopRequested: exit_status = "interrupted"; break;
    }
    const bool cut_short = end.reason == AgentEnd::Reason::kDeadline || end.reason == AgentEnd::Reason::kStopRequested;
    auto log = campaign_.read_log();
    const int session_evals = log ? count_after(*log, session_index, "evaluation") : 0;
    const int session_questions = log ? count_after(*log, session_index, "question") : 0;
    const int session_hooks = log ? count_after(*log, session_index, "hook") : 0;
    std::vector<std::string> warnings;
    const std::vector<std::string> problems = integrity_problems(dir_, baseline_, cut_short, warnings);
    json end_record = {{"phase", "end"},
                       {"agent", spec_.label},
                       {"session", session},
                       {"exit_status", exit_status},
                       {"seconds", end.seconds},
                       {"evaluations", session_evals},
                       {"questions", session_questions},
                       {"hooks", session_hooks}};
    if (end.killed) end_record["killed"] = true;
    if (!warnings.empty()) end_record["warnings"] = warnings;
    if (auto a = campaign_.append("session", end_record); !a) return finish("error", kExitUsage, a.error().message);
    if (!options_.json) {
      std::cout << fmt::format(
          "kseek run: session {} ended ({}) after {:.0f} s: {} evaluation(s), {} question(s)\n", session,
          exit_status.is_number() ? fmt::format("exit {}", exit_status.get<int>()) : exit_status.get<std::string>(),
          end.seconds, session_evals, session_questions);
      for (const auto& w : warnings) std::cout << "  warning: " << w << "\n";
      if (session_hooks == 0 && spec_.kind != AgentKind::kCommand) {
        std::cout << "  warning: no kseek hook ran during this session: the host may have skipped the hooks\n";
      }
    }
    if (!problems.empty()) {
      std::string detail = "the campaign was changed outside kseek during session " + std::to_string(session) + ": ";
      for (std::size_t i = 0; i < problems.size(); ++i) detail += (i ? "; " : "") + problems[i];
      return finish("tampering", kExitTampered, detail);
    }
    if (auto after = take_baseline(campaign_, baseline_); after) baseline_ = std::move(*after);
    if (end.reason == AgentEnd::Reason::kStopRequested) {
      return finish("interrupted", kExitInterrupted,
                    fmt::format("stopped by {} during session {}", signal_name(end.code), session));
    }
    return std::nullopt;
  }

  const GlobalOptions& options_;
  const RunArgs& args_;
  const AgentSpec& spec_;
  const Campaign campaign_;
  const fs::path dir_;
  const fs::path run_dir_;
  const std::vector<std::pair<std::string, std::string>> host_env_;
  std::vector<std::string> flags_;
  Baseline baseline_;
  int sessions_ = 0;
  SteadyClock::time_point run_started_ = SteadyClock::now();
  std::optional<SteadyClock::time_point> deadline_;
  std::size_t run_start_index_ = 0;
};

int run_campaign(const GlobalOptions& options, const RunArgs& args) {
  auto spec = agent_spec(args);
  if (!spec) return fail(options, kExitUsage, "ERROR", spec.error().message);
  if (args.budget_sessions < 1) return fail(options, kExitUsage, "ERROR", "--budget-sessions must be at least 1");
  if (args.budget_evals < 0 || args.budget_hours < 0 || args.grace_seconds < 0) {
    return fail(options, kExitUsage, "ERROR", "budgets and --grace-seconds cannot be negative");
  }
  auto opened = Campaign::open(args.dir.empty() ? fs::current_path() : args.dir);
  if (!opened) return fail(options, kExitUsage, "ERROR", opened.error().message);
  const fs::path run_dir = opened->state_dir() / "run";
  std::error_code ec;
  fs::create_directories(run_dir, ec);
  if (ec)
    return fail(options, kExitUsage, "ERROR", fmt::format("cannot create {}: {}", run_dir.string(), ec.message()));

  CampaignRun run(options, args, *spec, std::move(*opened), run_dir);
  if (const int prepared = run.prepare(); prepared != kExitOk) return prepared;
  if (args.dry_run) return run.print_dry_run();

  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
  return run.run();
}

}  // namespace

void register_run_command(CLI::App& app, GlobalOptions& options, int& exit_code) {
  auto args = std::make_shared<RunArgs>();
  auto* c = app.add_subcommand("run",
                               "Run a coding agent on a campaign, session after session, until the goal holds or a "
                               "budget is spent");
  c->add_option("DIR", args->dir, "Campaign folder (default: the one holding the current folder)");
  c->add_option("--agent", args->agent, "claude, codex, or an agent's command line (split on blanks; quotes group)");
  c->add_option("--agent-cmd", args->agent_cmd, "An agent program, taken as one path (never split)");
  c->add_option("--agent-arg", args->agent_args, "Extra argument for the agent (repeatable; --agent-arg=--flag)");
  c->add_option("--budget-evals", args->budget_evals, "Stop after this many evaluations in this run (0: no limit)");
  c->add_option("--budget-hours", args->budget_hours,
                "Stop after this many hours; a running session is terminated (0: none)");
  c->add_option("--budget-sessions", args->budget_sessions, "Stop after this many agent sessions")
      ->capture_default_str();
  c->add_option("--prompt-mode", args->prompt_mode, "stdin or arg (default: arg for claude/codex, stdin otherwise)");
  c->add_option("--grace-seconds", args->grace_seconds, "Between SIGTERM and SIGKILL when a session is stopped")
      ->capture_default_str();
  c->add_flag("--dry-run", args->dry_run, "Write the agent's settings, print its command line, start nothing");
  c->callback([&options, &exit_code, args] { exit_code = run_campaign(options, *args); });
}

}  // namespace kseek::cli
