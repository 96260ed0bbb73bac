// `kseek questions`: lint packs, list the questions kseek knows (built-in, plugins, user folder), install a pack.
// It must never install a pack that does not parse or has lint errors, nor leave a half-written pack behind.
#include <algorithm>
#include <cstdlib>
#include <memory>

#include "commands.hpp"
#include "kseek/core/questions/question_lint.hpp"
#include "kseek/core/questions/question_pack.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/table.hpp"

namespace kseek {
// Generated at build time from questionbank/*.json (kseek_embed_files in core/CMakeLists.txt).
std::vector<SourceFile> builtin_question_packs();
}  // namespace kseek

namespace kseek::cli {
namespace {

// $KSEEK_QUESTION_PATH, else ~/.local/share/kernelseek/questions (empty when neither is known).
std::filesystem::path user_question_dir() {
  if (const char* env = std::getenv("KSEEK_QUESTION_PATH"); env != nullptr && *env != '\0') return env;
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::filesystem::path(home) / ".local/share/kernelseek/questions";
  }
  return {};
}

nlohmann::json finding_json(const LintFinding& f) {
  return {{"file", f.file}, {"line", f.line}, {"item", f.item_id}, {"rule", f.rule}, {"message", f.message},
          {"severity", to_string(f.severity)}};
}

std::string finding_line(const LintFinding& f) {
  return fmt::format("{}:{}: {}: {}{}", f.file, f.line, f.rule, f.message,
                     f.severity == LintSeverity::kWarning ? " (warning)" : "");
}

struct NamedPack {
  std::string source;  // "builtin", "plugin:<id>" or "user"
  std::string file;
  QuestionPack pack;
};

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
      nlohmann::json out = {{"status", exit_code == kExitOk ? "OK" : exit_code == kExitVerdict ? "FINDINGS" : "ERROR"},
                            {"files", *files}, {"errors", unreadable}, {"findings", nlohmann::json::array()}};
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
    std::vector<NamedPack> packs;
    std::vector<std::string> problems;
    auto take = [&](const std::string& source, const std::string& file, const std::string& text) {
      auto pack = parse_question_pack(text, file);
      if (pack) {
        packs.push_back({source, file, std::move(*pack)});
      } else {
        problems.push_back(pack.error().message);
      }
    };
    for (const auto& f : builtin_question_packs()) take("builtin", "builtin:" + f.name, f.text);
    PluginRegistry registry;
    load_plugins(options, registry);
    for (const auto& loaded : registry.plugins()) {
      for (const auto& f : loaded->plugin->question_packs()) take("plugin:" + loaded->id, loaded->id + ":" + f.name, f.text);
    }
    if (const auto dir = user_question_dir(); !dir.empty() && std::filesystem::is_directory(dir)) {
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
      }
      std::sort(files.begin(), files.end());
      for (const auto& path : files) {
        auto text = read_file(path);
        if (text) {
          take("user", path.string(), *text);
        } else {
          problems.push_back(text.error().message);
        }
      }
    }
    nlohmann::json listed = nlohmann::json::array();
    Table table({"pack", "id", "triggers", "intent", "question"});
    for (const auto& named : packs) {
      const auto& pack = named.pack;
      if (!args->pack_id.empty() && pack.id != args->pack_id) continue;
      for (const auto& q : pack.items) {
        if (!args->trigger.empty() && std::find(q.triggers.begin(), q.triggers.end(), args->trigger) == q.triggers.end()) {
          continue;
        }
        listed.push_back({{"pack", pack.id}, {"pack_version", pack.version}, {"source", named.source},
                          {"file", named.file}, {"architecture", pack.architecture ? nlohmann::json(*pack.architecture) : nlohmann::json()},
                          {"id", q.id}, {"text", q.text}, {"triggers", q.triggers}, {"intent", q.intent},
                          {"requires_other_implementation", q.requires_other_implementation},
                          {"provenance", q.provenance}, {"notes", q.notes}});
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
        nlohmann::json out = {{"status", "FINDINGS"}, {"error", fmt::format("{}: not installed: lint errors", *file)},
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
    const auto dir = user_question_dir();
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
      print_json({{"status", "OK"}, {"pack", pack->id}, {"version", pack->version}, {"path", destination.string()},
                  {"items", pack->items.size()}});
    } else {
      for (const auto& f : findings) std::cout << finding_line(f) << "\n";
      std::cout << fmt::format("installed pack {} {} ({} questions) to {}\n", pack->id, pack->version, pack->items.size(),
                               destination.string());
    }
  });
}

}  // namespace

void register_questions_command(CLI::App& app, GlobalOptions& options, int& exit_code) {
  auto* command = app.add_subcommand("questions", "Question packs: lint, list, install");
  command->require_subcommand(1);
  register_lint(*command, options, exit_code);
  register_list(*command, options, exit_code);
  register_install(*command, options, exit_code);
}

}  // namespace kseek::cli
