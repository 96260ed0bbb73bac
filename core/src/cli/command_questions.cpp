// `kseek questions`: lint packs, list the questions kseek knows (built-in, plugins, user folder), install a pack.
// It must never install a pack that does not parse or has lint errors, nor leave a half-written pack behind.
#include <algorithm>
#include <cstdlib>
#include <memory>

#include "commands.hpp"
#include "kseek/core/app/question_library.hpp"
#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/campaign/question_evidence.hpp"
#include "kseek/core/questions/question_lint.hpp"
#include "kseek/core/questions/question_pack.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/table.hpp"

namespace kseek::cli {
namespace {

nlohmann::json finding_json(const LintFinding& f) {
  return {{"file", f.file}, {"line", f.line},       {"item", f.item_id},
          {"rule", f.rule}, {"message", f.message}, {"severity", to_string(f.severity)}};
}

std::string finding_line(const LintFinding& f) {
  return fmt::format("{}:{}: {}: {}{}", f.file, f.line, f.rule, f.message,
                     f.severity == LintSeverity::kWarning ? " (warning)" : "");
}

void register_lint(CLI::App& parent, GlobalOptions& options, int& exit_code) {
  auto* command = parent.add_subcommand("lint", "Check question packs against the schema and the style rules");
  auto files = std::make_shared<std::vector<std::string>>();
  command->add_option("FILE", *files, "Question pack files (kseek.questions/1)")->required();
  command->callback([&options, &exit_code, files] {
    std::vector<LintFinding> findings;
    std::vector<std::string> unreadable;
    for (const auto& file : *files) {
      auto text = read_file(file);
      if (!text) {
        unreadable.push_back(text.error().message);
        continue;
      }
      auto pack = parse_question_pack(*text, file);
      if (!pack) {
        unreadable.push_back(pack.error().message);
        continue;
      }
      auto found = lint_question_pack(*pack, *text, file);
      findings.insert(findings.end(), found.begin(), found.end());
    }
    exit_code = !unreadable.empty() ? kExitUsage : has_lint_errors(findings) ? kExitVerdict : kExitOk;
    if (options.json) {
      nlohmann::json out = {{"status", exit_code == kExitOk        ? "OK"
                                       : exit_code == kExitVerdict ? "FINDINGS"
                                                                   : "ERROR"},
                            {"files", *files},
                            {"errors", unreadable},
                            {"findings", nlohmann::json::array()}};
      for (const auto& f : findings) out["findings"].push_back(finding_json(f));
      print_json(out);
      return;
    }
    for (const auto& message : unreadable) std::cerr << "kseek: " << message << "\n";
    for (const auto& f : findings) std::cout << finding_line(f) << "\n";
    if (findings.empty() && unreadable.empty()) std::cout << fmt::format("{} pack(s): no findings\n", files->size());
  });
}

void register_list(CLI::App& parent, GlobalOptions& options, int& exit_code) {
  auto* command = parent.add_subcommand("list", "List the questions of the built-in, plugin and user packs");
  struct Args {
    std::string pack_id, trigger;
  };
  auto args = std::make_shared<Args>();
  command->add_option("--pack", args->pack_id, "Only this pack id");
  command->add_option("--trigger", args->trigger, "Only questions with this trigger (e.g. stagnation)");
  command->callback([&options, &exit_code, args] {
    app::PackLibrary library = app::collect_question_packs(options);
    const auto& packs = library.packs;
    const auto& problems = library.problems;
    nlohmann::json listed = nlohmann::json::array();
    Table table({"pack", "id", "triggers", "intent", "question"});
    for (const auto& named : packs) {
      const auto& pack = named.pack;
      if (!args->pack_id.empty() && pack.id != args->pack_id) continue;
      for (const auto& q : pack.items) {
        if (!args->trigger.empty() &&
            std::find(q.triggers.begin(), q.triggers.end(), args->trigger) == q.triggers.end()) {
          continue;
        }
        listed.push_back({{"pack", pack.id},
                          {"pack_version", pack.version},
                          {"source", named.source},
                          {"file", named.file},
                          {"replaces", named.replaces},
                          {"architecture", pack.architecture ? nlohmann::json(*pack.architecture) : nlohmann::json()},
                          {"id", q.id},
                          {"text", q.text},
                          {"triggers", q.triggers},
                          {"intent", q.intent},
                          {"requires_other_implementation", q.requires_other_implementation},
                          {"answered_by_record", q.answered_by_record},
                          {"provenance", q.provenance},
                          {"notes", q.notes}});
        std::string triggers;
        for (const auto& t : q.triggers) triggers += (triggers.empty() ? "" : ",") + t;
        table.add_row({pack.id, q.id, triggers, q.intent, q.text});
      }
    }
    exit_code = kExitOk;
    if (options.json) {
      print_json({{"status", "OK"}, {"count", listed.size()}, {"questions", listed}, {"problems", problems}});
      return;
    }
    for (const auto& message : problems) std::cerr << "kseek: warning: " << message << "\n";
    for (const auto& named : packs) {
      if (!named.replaces.empty()) {
        std::cerr << fmt::format(
            "note: pack {} from {} replaces the one in {} (one id, one pack: the installed one "
            "wins)\n",
            named.pack.id, named.file, named.replaces);
      }
    }
    std::cout << table.render();
    std::cout << fmt::format("{} question(s) from {} pack(s)\n", listed.size(), packs.size());
  });
}

void register_install(CLI::App& parent, GlobalOptions& options, int& exit_code) {
  auto* command = parent.add_subcommand("install", "Lint a question pack, then copy it into the user's pack folder");
  auto file = std::make_shared<std::string>();
  command->add_option("FILE", *file, "Question pack file (kseek.questions/1)")->required();
  command->callback([&options, &exit_code, file] {
    auto text = read_file(*file);
    if (!text) {
      exit_code = fail(options, kExitUsage, "ERROR", text.error().message);
      return;
    }
    auto pack = parse_question_pack(*text, *file);
    if (!pack) {
      exit_code = fail(options, kExitUsage, "ERROR", pack.error().message);
      return;
    }
    const auto findings = lint_question_pack(*pack, *text, *file);
    if (has_lint_errors(findings)) {
      if (options.json) {
        nlohmann::json out = {{"status", "FINDINGS"},
                              {"error", fmt::format("{}: not installed: lint errors", *file)},
                              {"findings", nlohmann::json::array()}};
        for (const auto& f : findings) out["findings"].push_back(finding_json(f));
        print_json(out);
      } else {
        for (const auto& f : findings) std::cout << finding_line(f) << "\n";
        std::cerr << fmt::format("kseek: {}: not installed: fix the lint errors above\n", *file);
      }
      exit_code = kExitVerdict;
      return;
    }
    const auto dir = app::user_question_dir();
    if (dir.empty()) {
      exit_code = fail(options, kExitUsage, "ERROR", "no pack folder: set KSEEK_QUESTION_PATH or HOME");
      return;
    }
    const auto destination = dir / (pack->id + ".json");
    if (auto written = write_file_atomically(destination, *text); !written) {
      exit_code = fail(options, kExitUsage, "ERROR", written.error().message);
      return;
    }
    exit_code = kExitOk;
    if (options.json) {
      print_json({{"status", "OK"},
                  {"pack", pack->id},
                  {"version", pack->version},
                  {"path", destination.string()},
                  {"items", pack->items.size()}});
    } else {
      for (const auto& f : findings) std::cout << finding_line(f) << "\n";
      std::cout << fmt::format("installed pack {} {} ({} questions) to {}\n", pack->id, pack->version,
                               pack->items.size(), destination.string());
    }
  });
}

// The logs of the campaigns named (default: the one holding the current folder).
Result<std::vector<CampaignLog>> campaign_logs(const std::vector<std::string>& dirs) {
  std::vector<CampaignLog> logs;
  const std::vector<std::string> chosen = dirs.empty() ? std::vector<std::string>{"."} : dirs;
  for (const auto& dir : chosen) {
    auto campaign = Campaign::open(dir, dirs.empty());
    if (!campaign) return campaign.error();
    auto log = campaign->read_log();
    if (!log) return log.error();
    for (const auto& d : log->damaged) {
      std::cerr << fmt::format("kseek: warning: {}: line {} is damaged ({}); skipped\n", campaign->log_path().string(),
                               d.line, d.reason);
    }
    logs.push_back({campaign->dir().string(), std::move(log->records), campaign->config().thresholds.min_improvement});
  }
  return logs;
}

void register_stats(CLI::App& parent, GlobalOptions& options, int& exit_code) {
  auto* command = parent.add_subcommand("stats", "Per question: times asked and what followed within K evaluations");
  auto dirs = std::make_shared<std::vector<std::string>>();
  auto within = std::make_shared<int>(3);
  command->add_option("CAMPAIGN", *dirs, "Campaign folders (default: the current campaign)");
  command->add_option("--within", *within, "Evaluations after a question that decide its outcome")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->callback([&options, &exit_code, dirs, within] {
    auto logs = campaign_logs(*dirs);
    if (!logs) {
      exit_code = fail(options, kExitUsage, "ERROR", logs.error().message);
      return;
    }
    const auto outcomes = question_outcomes(*logs, *within);
    exit_code = kExitOk;
    if (options.json) {
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& o : outcomes) {
        rows.push_back({{"id", o.id},
                        {"pack", o.pack},
                        {"text", o.text},
                        {"asked", o.asked},
                        {"improvement", o.improvement},
                        {"regression", o.regression},
                        {"nothing", o.nothing},
                        {"pending", o.pending},
                        {"campaigns_improved", o.campaigns_improved},
                        {"eligible_for_trace", o.eligible_for_trace}});
      }
      print_json({{"status", "OK"}, {"campaigns", logs->size()}, {"within", *within}, {"questions", rows}});
      return;
    }
    Table table({"pack", "id", "asked", "improved", "regressed", "nothing", "pending", "trace?", "question"});
    for (const auto& o : outcomes) {
      table.add_row({o.pack, o.id, std::to_string(o.asked), std::to_string(o.improvement), std::to_string(o.regression),
                     std::to_string(o.nothing), std::to_string(o.pending), o.eligible_for_trace ? "eligible" : "",
                     o.text.size() > 70 ? o.text.substr(0, 67) + "..." : o.text});
    }
    std::cout << table.render();
    std::cout << fmt::format("{} question(s) over {} campaign(s); outcome = within the next {} evaluation(s)\n",
                             outcomes.size(), logs->size(), *within);
  });
}

void register_harvest(CLI::App& parent, GlobalOptions& options, int& exit_code) {
  auto* command = parent.add_subcommand("harvest", "Turn the questions people asked (kseek steer) into a draft pack");
  auto dirs = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  auto id = std::make_shared<std::string>("harvested");
  command->add_option("CAMPAIGN", *dirs, "Campaign folders (default: the current campaign)");
  command->add_option("--out", *out, "Write the draft pack here (default: print it)");
  command->add_option("--id", *id, "Pack id of the draft")->capture_default_str();
  command->callback([&options, &exit_code, dirs, out, id] {
    auto logs = campaign_logs(*dirs);
    if (!logs) {
      exit_code = fail(options, kExitUsage, "ERROR", logs.error().message);
      return;
    }
    const nlohmann::json pack = harvest_human_questions(*logs, *id);
    exit_code = kExitOk;
    if (out->empty()) {
      print_json(pack);
      return;
    }
    if (auto w = write_file_atomically(*out, pack.dump(2) + "\n"); !w) {
      exit_code = fail(options, kExitUsage, "ERROR", w.error().message);
      return;
    }
    if (options.json) {
      print_json({{"status", "OK"}, {"file", *out}, {"items", pack["items"].size()}});
    } else {
      std::cout << fmt::format("draft pack with {} question(s) written to {}; edit it, then `kseek questions lint`\n",
                               pack["items"].size(), *out);
    }
  });
}

}  // namespace

void register_questions_command(CLI::App& app, GlobalOptions& options, int& exit_code) {
  auto* command = app.add_subcommand("questions", "Question packs: lint, list, install; evidence: stats, harvest");
  command->require_subcommand(1);
  register_lint(*command, options, exit_code);
  register_list(*command, options, exit_code);
  register_install(*command, options, exit_code);
  register_stats(*command, options, exit_code);
  register_harvest(*command, options, exit_code);
}

}  // namespace kseek::cli
