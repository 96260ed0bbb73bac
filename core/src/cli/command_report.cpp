// `kseek report DIR`: a campaign's evaluations, events and questions as a self-contained HTML page and a markdown
// summary. It must never write into the campaign folder, and never hide a damaged log line: each one is a warning.
#include <memory>

#include "commands.hpp"
#include "kseek/core/report/html_report.hpp"
#include "kseek/core/report/markdown_report.hpp"
#include "kseek/core/report/report_model.hpp"
#include "kseek/core/util/files.hpp"

namespace kseek::cli {
namespace {

struct ReportArgs {
  std::filesystem::path dir;
  std::filesystem::path html_file;
  std::filesystem::path markdown_file;
};

int run_report(const GlobalOptions& options, const ReportArgs& args) {
  auto model = build_report_model(args.dir);
  if (!model) return fail(options, kExitUsage, "ERROR", model.error().message);

  std::vector<std::string> written;
  const auto write = [&](const std::filesystem::path& file, const std::string& content) -> bool {
    if (auto done = write_file_atomically(file, content); !done) {
      fail(options, kExitUsage, "ERROR", "writing the report failed: " + done.error().message);
      return false;
    }
    written.push_back(file.string());
    return true;
  };
  if (!args.html_file.empty() && !write(args.html_file, render_html_report(*model))) return kExitUsage;
  const std::string markdown = render_markdown_report(*model);
  if (!args.markdown_file.empty() && !write(args.markdown_file, markdown)) return kExitUsage;

  if (options.json) {
    nlohmann::json out = {{"status", "OK"},
                          {"campaign", model->campaign},
                          {"files", written},
                          {"evaluations", model->evaluations.size()},
                          {"warnings", nlohmann::json::array()}};
    const auto geomean_of = [&](std::size_t i) {
      const auto& e = model->evaluations[i];
      return nlohmann::json{{"evaluation", e.number},
                            {"geomean", *e.geomean},
                            {"ci_low", e.geomean_low ? nlohmann::json(*e.geomean_low) : nlohmann::json()},
                            {"ci_high", e.geomean_high ? nlohmann::json(*e.geomean_high) : nlohmann::json()}};
    };
    out["best"] = model->best() ? geomean_of(*model->best()) : nlohmann::json();
    out["latest"] = model->latest_with_geomean() ? geomean_of(*model->latest_with_geomean()) : nlohmann::json();
    for (const auto& w : model->warnings) out["warnings"].push_back({{"where", w.where}, {"message", w.message}});
    print_json(out);
    return kExitOk;
  }
  for (const auto& w : model->warnings) std::cerr << "warning: " << w.where << ": " << w.message << "\n";
  for (const auto& file : written) std::cerr << "wrote " << file << "\n";
  if (args.markdown_file.empty()) std::cout << markdown;  // without a file, the summary goes to the terminal
  return kExitOk;
}

}  // namespace

void register_report_command(CLI::App& app, GlobalOptions& options, int& exit_code) {
  auto args = std::make_shared<ReportArgs>();
  auto* command = app.add_subcommand("report", "Render a campaign as an HTML page (plots) and a markdown summary");
  command->add_option("DIR", args->dir, "Campaign folder (holds campaign.json and .kseek/)")->required();
  command->add_option("--html", args->html_file, "Write the self-contained HTML report here")->type_name("FILE");
  command
      ->add_option("--markdown", args->markdown_file,
                   "Write the markdown summary here (default: print it unless --json)")
      ->type_name("FILE");
  command->callback([&options, &exit_code, args] { exit_code = run_report(options, *args); });
}

}  // namespace kseek::cli
