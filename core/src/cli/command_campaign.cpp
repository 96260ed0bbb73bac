// The campaign commands: `kseek init`, `status`, `ask`, `claim`, `steer`, `gate`, `reconfigure`.
// It must never create a campaign whose config, goal or question packs it could not read back.
#include <algorithm>
#include <memory>

#include "campaign_actions.hpp"
#include "commands.hpp"
#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/campaign/campaign_engine.hpp"
#include "kseek/core/campaign/record_signature.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/sha256.hpp"
#include "kseek/core/util/shell.hpp"

namespace kseek::cli {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

inline constexpr const char* kDefaultGoal = "all_passed and geomean >= 1.10 and min_ratio >= 0.95";

// Renders an action for people or as JSON; returns its exit code.
int render(const GlobalOptions& options, const ActionResult& result, const std::function<void(const json&)>& human) {
  if (options.json) {
    print_json(result.document);
  } else if (result.document.contains("error")) {
    std::cerr << "kseek: " << result.document["error"].get<std::string>() << "\n";
  } else {
    human(result.document);
  }
  return result.exit_code;
}

fs::path campaign_dir_or_cwd(const fs::path& dir) { return dir.empty() ? fs::current_path() : dir; }

struct InitArgs {
  fs::path dir;
  std::string plugin_id, set, goal = kDefaultGoal, peer, questions = "on";
  fs::path seed_file;
  std::vector<std::string> scenarios, packs;
  bool key_in_campaign = false;
};

int run_init(const GlobalOptions& options, const InitArgs& args) {
  if (args.questions != "on" && args.questions != "off") {
    return fail(options, kExitUsage, "ERROR", fmt::format("--questions must be on or off, not '{}'", args.questions));
  }
  // The hooks and the MCP registration start this kseek again: an empty path there would break every hook.
  auto exe = self_executable();
  if (!exe) return fail(options, kExitUsage, "ERROR", exe.error().message);
  app::InitRequest request;
  request.dir = args.dir;
  request.plugin_id = args.plugin_id;
  request.set = args.set;
  request.scenarios = args.scenarios;
  request.goal = args.goal;
  request.peer = args.peer;
  request.questions = args.questions == "on";
  request.seed_file = args.seed_file;
  request.packs = args.packs;
  request.key_place = args.key_in_campaign ? KeyPlace::kCampaignFolder : KeyPlace::kUserFolder;
  auto outcome = app::campaign_init(options, request, *exe);
  if (!outcome) return fail(options, kExitUsage, "ERROR", outcome.error().message);
  if (options.json) {
    print_json(app::to_json(*outcome));
    return kExitOk;
  }
  const CampaignConfig& config = outcome->config;
  std::cout << fmt::format("campaign created in {}\n", outcome->dir.string());
  std::cout << fmt::format("  plugin {}  set {} ({} scenarios)  arch {}\n", config.plugin, config.set,
                           outcome->scenarios, config.arch);
  std::cout << fmt::format("  goal   {}\n", config.goal);
  std::cout << fmt::format("  questions {} (packs: {})\n", config.questions ? "on" : "off (control campaign)",
                           fmt::join(config.packs, ", "));
  for (const auto& n : outcome->packs.taken) std::cout << fmt::format("  installed pack {} taken ({})\n", n.id, n.file);
  for (const auto& n : outcome->packs.left_out) {
    std::cout << fmt::format("  installed pack {} left out: {} ({})\n", n.id, n.reason, n.file);
  }
  for (const auto& dir : config.plugin_dirs) std::cout << fmt::format("  plugin folder {} (recorded)\n", dir);
  std::cout << fmt::format(
      "  candidate {} (a copy of {}), agent files AGENTS.md CLAUDE.md CONTRACT.md include/ .claude/ .codex/ "
      ".mcp.json\n",
      config.candidate, args.seed_file.empty() ? "the seed" : args.seed_file.string());
  for (const auto& k : outcome->kept_existing_files) std::cout << fmt::format("  kept your existing {}\n", k);
  std::cout << fmt::format("  signing key {}\n", outcome->key_file.string());
  if (outcome->key_place == KeyPlace::kCampaignFolder) std::cout << fmt::format("  note: {}\n", kKeyInCampaignNote);
  std::cout << "next: cd into it and start your agent, or `kseek run` it\n";
  return kExitOk;
}

void print_status(const CampaignStatus& s) {
  std::cout << fmt::format("campaign {}  ({} on {})\n", s.campaign, s.plugin, s.set);
  std::cout << fmt::format("goal      {}\n", s.goal);
  std::cout << fmt::format("evaluations {}", s.evaluations);
  std::cout << fmt::format(
      ", best beyond the noise {:.4f} ({})", s.best.geomean,
      s.best.evaluation == 0 ? std::string("the seed") : fmt::format("evaluation {}", s.best.evaluation));
  std::cout << "\n";
  if (s.latest) {
    const auto& l = *s.latest;
    std::cout << fmt::format(
        "latest    evaluation {} at {}: {}{}{}\n", l.evaluation, l.time, l.all_passed ? "all passed" : "not all passed",
        l.geomean ? fmt::format(", geomean {:.4f}", *l.geomean) : "", l.failing.empty() ? "" : " (" + l.failing + ")");
  }
  std::string trend;
  for (const auto& t : s.trend) {
    trend += t.geomean ? fmt::format(" {:.3f}{}", *t.geomean, t.all_passed ? "" : "!")
                       : std::string(t.all_passed ? " -" : " -!");
  }
  if (!trend.empty()) std::cout << "trend    " << trend << "   (! = not all passed, - = untimed)\n";
  std::cout << fmt::format("progress  {} ({} timed evaluation{} since)\n", s.last_progress.what,
                           s.last_progress.timed_evaluations_since,
                           s.last_progress.timed_evaluations_since == 1 ? "" : "s");
  std::cout << fmt::format("gate      {}\n", s.gate.holds ? "MET" : "UNMET");
  for (const auto& u : s.gate.unmet) std::cout << "  - " << u << "\n";
  for (const auto& e : s.open_events) std::cout << fmt::format("open event {}: {}\n", e.event, e.detail);
  // Said once, where the records are verified with a key kept in the campaign folder: what its signatures can show.
  if (s.signatures.key == "in-campaign") std::cout << fmt::format("signatures: {}\n", s.signatures.note);
  for (const auto& d : s.damaged_lines) {
    std::cout << fmt::format("warning: log line {} is damaged ({}); it is not a record\n", d.line, d.reason);
  }
}

// A use case's outcome: --json prints its document (the one the MCP tool returns), people get `human` printed from
// the type; an error goes to stderr (or is the JSON document) with the usage exit code.
template <class Outcome, class Human>
int show(const GlobalOptions& options, const Result<Outcome>& outcome, Human&& human, int exit_code = kExitOk) {
  if (!outcome) return fail(options, kExitUsage, "ERROR", outcome.error().message);
  if (options.json) {
    print_json(app::to_json(*outcome));
  } else {
    human(*outcome);
  }
  return exit_code;
}

void print_question(const app::AskOutcome& asked) {
  if (asked.question) {
    const auto& q = *asked.question;
    std::cout << fmt::format("[{}] {}\n", asked.event.empty() ? q.event : asked.event, q.chosen.text);
  } else {
    std::cout << (asked.note.empty() ? "no question" : asked.note) << "\n";
  }
}

void print_claim(const app::ClaimOutcome& claim) {
  std::cout << fmt::format("claim recorded; goal {}\n", claim.gate.holds ? "MET" : "not met");
  for (const auto& u : claim.gate.unmet()) std::cout << "  - " << u << "\n";
  if (claim.question) std::cout << "question: " << claim.question->chosen.text << "\n";
}

void print_gate(const app::GateOutcome& gate) {
  std::cout << fmt::format("goal {}: {}\n", gate.gate.holds ? "MET" : "UNMET", gate.goal);
  for (const auto& t : gate.gate.terms) {
    std::cout << fmt::format("  {} {}: {}\n", t.holds ? "met  " : "UNMET", t.source, t.explanation);
  }
  if (!gate.gate.evidence_problem.empty()) std::cout << "  " << gate.gate.evidence_problem << "\n";
}

}  // namespace

void register_campaign_commands(CLI::App& app, GlobalOptions& options, int& exit_code) {
  {
    auto args = std::make_shared<InitArgs>();
    auto* c = app.add_subcommand("init", "Create a campaign directory for a coding agent");
    c->add_option("DIR", args->dir, "Folder to create the campaign in (may exist, must not hold one)")->required();
    c->add_option("--plugin", args->plugin_id, "Plugin id, e.g. attention.fa3")->required();
    c->add_option("--seed", args->seed_file, "Start from this .cu instead of the plugin's seed");
    c->add_option("--set", args->set, "Scenario set (default: the plugin's default)");
    c->add_option("--scenarios", args->scenarios, "Only these scenarios (ids or key=value names, ';'-separated)")
        ->delimiter(';');
    c->add_option("--goal", args->goal, "Goal expression (docs/goals.md)")->capture_default_str();
    c->add_option("--peer", args->peer, "Another implementation exists (name it): enables those questions");
    c->add_option("--questions", args->questions, "on, or off for a control campaign without questions")
        ->capture_default_str();
    c->add_option("--packs", args->packs, "Question pack ids (default: built-in packs and the plugin's)")
        ->delimiter(',');
    c->add_flag("--key-in-campaign", args->key_in_campaign,
                "Keep the signing key in DIR/.kseek-key/ so it travels with the folder: signatures then guard against "
                "accidents, not forgery (docs/campaigns.md)");
    c->callback([&options, &exit_code, args] { exit_code = run_init(options, *args); });
  }
  auto dir = std::make_shared<fs::path>();
  auto add_dir = [dir](CLI::App* c) {
    c->add_option("--campaign", *dir, "Campaign folder (default: the one holding the current folder)")
        ->type_name("DIR");
  };
  {
    auto* c = app.add_subcommand("status", "Where the campaign stands: geomeans, trend, unmet goal terms, open events");
    add_dir(c);
    c->callback([&options, &exit_code, dir] {
      // --json (and the MCP tool) show the document; people get the table, printed from the type.
      if (options.json) {
        exit_code = render(options, campaign_status_action(options, campaign_dir_or_cwd(*dir)), [](const json&) {});
        return;
      }
      auto status = app::campaign_status(campaign_dir_or_cwd(*dir));
      if (!status) {
        std::cerr << "kseek: " << status.error().message << "\n";
        exit_code = kExitUsage;
        return;
      }
      print_status(*status);
      exit_code = kExitOk;
    });
  }
  {
    auto event = std::make_shared<std::string>();
    auto* c = app.add_subcommand("ask", "The question for the current event (logged; never the last one asked)");
    add_dir(c);
    c->add_option("--event", *event, "Ask for this event instead of the newest unanswered one");
    c->callback([&options, &exit_code, dir, event] {
      exit_code = show(options, app::campaign_ask(options, campaign_dir_or_cwd(*dir), *event, "cli"), print_question);
    });
  }
  {
    auto kind = std::make_shared<std::string>();
    auto text = std::make_shared<std::vector<std::string>>();
    auto* c =
        app.add_subcommand("claim", "Record a claim: `limit TEXT` (a limit was hit) or `done TEXT` (the work is done)");
    add_dir(c);
    c->add_option("KIND", *kind, "limit or done")->required();
    c->add_option("TEXT", *text, "What the claim rests on")->required();
    c->callback([&options, &exit_code, dir, kind, text] {
      std::string joined;
      for (const auto& t : *text) joined += (joined.empty() ? "" : " ") + t;
      exit_code =
          show(options, app::campaign_claim(options, campaign_dir_or_cwd(*dir), *kind, joined, "cli"), print_claim);
    });
  }
  {
    auto text = std::make_shared<std::vector<std::string>>();
    auto* c = app.add_subcommand("steer", "Send the agent a question of your own (delivered at its next hook)");
    add_dir(c);
    c->add_option("TEXT", *text, "The question")->required();
    c->callback([&options, &exit_code, dir, text] {
      std::string joined;
      for (const auto& t : *text) joined += (joined.empty() ? "" : " ") + t;
      exit_code =
          show(options, app::campaign_steer(campaign_dir_or_cwd(*dir), joined), [](const app::SteerOutcome& steer) {
            std::cout << fmt::format("steering question {} queued: {}\n", steer.steer_id, app::kSteerDelivery);
          });
    });
  }
  {
    auto* c =
        app.add_subcommand("gate", "Exit 0 when the goal holds for the current candidate, else 1 with the unmet terms");
    add_dir(c);
    c->callback([&options, &exit_code, dir] {
      const auto gate = app::campaign_gate(campaign_dir_or_cwd(*dir), "cli");
      exit_code = show(options, gate, print_gate, gate && gate->gate.holds ? kExitOk : kExitVerdict);
    });
  }
  {
    auto* c = app.add_subcommand("reconfigure", "Accept a person's edit of campaign.json (validated, then logged)");
    add_dir(c);
    c->callback([&options, &exit_code, dir] {
      // Find campaign.json without the hash check (that is what is being accepted).
      fs::path d = fs::absolute(campaign_dir_or_cwd(*dir));
      while (!fs::exists(d / "campaign.json") && d.has_parent_path() && d != d.root_path()) d = d.parent_path();
      auto text = read_file(d / "campaign.json");
      if (!text) {
        exit_code = fail(options, kExitUsage, "ERROR", text.error().message);
        return;
      }
      auto config = parse_campaign_config(*text, (d / "campaign.json").string());
      if (!config) {
        exit_code = fail(options, kExitUsage, "ERROR", config.error().message);
        return;
      }
      if (auto goal = parse_goal(config->goal); !goal) {
        exit_code = fail(options, kExitUsage, "ERROR", "campaign.json 'goal': " + goal.error().message);
        return;
      }
      auto appended = append_signed_record(
          d, "config",
          {{"config", to_json(*config)}, {"config_sha256", sha256_hex(*text)}, {"reason", "accepted by a person"}});
      if (!appended) {
        exit_code = fail(options, kExitUsage, "ERROR", appended.error().message);
        return;
      }
      exit_code = kExitOk;
      if (options.json) {
        print_json({{"status", "OK"}, {"config_sha256", sha256_hex(*text)}});
      } else {
        std::cout << "campaign.json accepted and logged\n";
      }
    });
  }
}

}  // namespace kseek::cli
