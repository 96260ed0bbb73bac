// The campaign summary as GitHub-flavoured markdown, for pasting into an issue or a pull request.
// It must never let campaign text (agent or human) become markup: links, HTML, table breaks or headings.
#include "kseek/core/report/markdown_report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "kseek/core/report/svg_plot.hpp"

namespace kseek {
namespace {

using report::fixed;

std::string interval(const std::optional<double>& value, const std::optional<double>& low,
                     const std::optional<double>& high) {
  if (!value) return "\xE2\x80\x94";
  std::string text = fixed(*value, 3);
  if (low && high) text += fmt::format(" [{}, {}]", fixed(*low, 3), fixed(*high, 3));
  return text;
}

std::string evaluation_line(const ReportEvaluation& e) {
  return fmt::format("{} (#{}, {}{})", interval(e.geomean, e.geomean_low, e.geomean_high), e.number,
                     markdown_cell(e.status.empty() ? "no status" : e.status, 40),
                     e.all_passed ? "" : ", not every scenario passed");
}

}  // namespace

std::string markdown_cell(std::string_view text, std::size_t max_chars) {
  const std::string shortened = report::shorten(text, max_chars);
  std::string out;
  out.reserve(shortened.size() + 8);
  for (char c : shortened) {
    switch (c) {
      case '\n':
      case '\r':
      case '\t': out += ' '; break;
      // CommonMark lets a backslash escape any ASCII punctuation; these could start markup inside a table cell
      // (emphasis, code, links, images, HTML, entities, cell breaks, strikethrough, issue links and mentions).
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '<':
      case '>':
      case '|':
      case '#':
      case '!':
      case '~':
      case '&':
      case '@':
        out += '\\';
        out += c;
        break;
      default: out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
    }
  }
  return out;
}

std::string render_markdown_report(const ReportModel& m) {
  std::string md = fmt::format("## kseek campaign `{}`\n\n", markdown_cell(m.campaign, 80));
  md += "| | |\n|---|---|\n";
  md += fmt::format("| plugin | {}{}{} |\n", markdown_cell(m.plugin, 80),
                    m.set.empty() ? "" : ", set " + markdown_cell(m.set, 40),
                    m.arch.empty() ? "" : ", arch " + markdown_cell(m.arch, 40));
  md += fmt::format("| goal | {} |\n", m.goal.empty() ? "(none)" : markdown_cell(m.goal, 300));
  std::string packs;
  for (const auto& p : m.packs) packs += (packs.empty() ? "" : ", ") + markdown_cell(p, 60);
  md += fmt::format("| questions | {} |\n", m.questions ? "on" + (packs.empty() ? "" : " (" + packs + ")")
                                                        : std::string("off (control campaign)"));
  std::size_t all_passed = 0;
  for (const auto& e : m.evaluations) all_passed += e.all_passed;
  md += fmt::format("| evaluations | {} ({} with every scenario passing) |\n", m.evaluations.size(), all_passed);
  if (const auto best = m.best()) {
    md += fmt::format("| best geomean | **{}** |\n", evaluation_line(m.evaluations[*best]));
  } else {
    md += "| best geomean | \xE2\x80\x94 (no evaluation where every scenario passed) |\n";
  }
  if (!m.evaluations.empty()) md += fmt::format("| latest | {} |\n", evaluation_line(m.evaluations.back()));
  const auto count = [&](const char* type) {
    const auto it = m.record_counts.find(type);
    return it == m.record_counts.end() ? 0 : it->second;
  };
  md += fmt::format("| log | {} events, {} questions, {} claims, {} steers, {} gate checks |\n", count("event"),
                    count("question"), count("claim"), count("steer"), count("gate"));
  if (!m.failures.empty()) {
    std::size_t evaluations_with_failures = 0;
    for (const auto& e : m.evaluations) {
      evaluations_with_failures += std::any_of(m.failures.begin(), m.failures.end(),
                                               [&](const ReportFailure& f) { return f.evaluation == e.number; });
    }
    md += fmt::format("| failures | {} evaluation(s) with failures, constraint violations or scenarios not run |\n",
                      evaluations_with_failures);
  }
  if (!m.warnings.empty()) md += fmt::format("| **warnings** | {} (see below) |\n", m.warnings.size());

  // The five lowest ratios of the newest evaluation that has ratios.
  for (auto e = m.evaluations.rbegin(); e != m.evaluations.rend(); ++e) {
    std::vector<std::pair<double, std::string>> ratios;
    for (const auto& [id, cell] : e->cells) {
      if (cell.ratio) ratios.emplace_back(*cell.ratio, id);
    }
    if (ratios.empty()) continue;
    std::sort(ratios.begin(), ratios.end());
    md += fmt::format(
        "\n### Slowest scenarios (evaluation #{})\n\n| scenario | name | status | ratio [95% CI] |\n"
        "|---|---|---|---|\n",
        e->number);
    for (std::size_t i = 0; i < std::min<std::size_t>(5, ratios.size()); ++i) {
      const std::string& id = ratios[i].second;
      const ReportCell& cell = e->cells.at(id);
      std::string name;
      for (const auto& s : m.scenarios) {
        if (s.id == id) name = s.name;
      }
      md += fmt::format("| {} | {} | {} | {} |\n", markdown_cell(id, 40), markdown_cell(name, 120),
                        markdown_cell(cell.status, 40), interval(cell.ratio, cell.ci_low, cell.ci_high));
    }
    break;
  }

  bool any = false;
  for (std::size_t k = 0; k < m.timeline.size(); ++k) {
    const auto& t = m.timeline[k];
    if (t.type != "event" && t.type != "question" && t.type != "claim" && t.type != "steer") continue;
    if (!any) {
      md +=
          "\n### Events and questions\n\n| # | when | after | kind | event | text | what followed |\n"
          "|---|---|---|---|---|---|---|\n";
      any = true;
    }
    std::string followed = "no evaluation since";
    if (t.next_evaluation > 0) {
      followed = fmt::format("#{}: ", t.next_evaluation);
      if (t.geomean_before && t.geomean_after) {
        followed += fmt::format("{} \xE2\x86\x92 {} ({:+.1f}%)", fixed(*t.geomean_before, 3),
                                fixed(*t.geomean_after, 3), (*t.geomean_after / *t.geomean_before - 1.0) * 100.0);
      } else {
        followed += t.geomean_after ? "geomean " + fixed(*t.geomean_after, 3) : "no geomean";
      }
    }
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", k + 1, markdown_cell(t.time, 40),
                      t.after_evaluation == 0 ? std::string("\xE2\x80\x94") : fmt::format("#{}", t.after_evaluation),
                      markdown_cell(t.type, 20), markdown_cell(t.event, 40), markdown_cell(t.text, 200),
                      followed);  // written here from numbers: no campaign text in it
  }

  if (!m.warnings.empty()) {
    md += "\n### Warnings\n\n";
    for (const auto& w : m.warnings) {
      md += fmt::format("- **{}**: {}\n", markdown_cell(w.where, 80), markdown_cell(w.message, 300));
    }
  }
  md += "\n_Generated by `kseek report`; the HTML report has the plots._\n";
  return md;
}

}  // namespace kseek
