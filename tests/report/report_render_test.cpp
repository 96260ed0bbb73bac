// `kseek report` on the synthetic campaign: the model, the HTML's structure (SVG plots, every scenario, nothing
// external, hostile text escaped), the markdown, damaged inputs as named warnings, and the CLI. It must never
// compare whole rendered files: the checks name what the page must and must not contain.
#include <algorithm>
#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kseek/core/campaign/record_log.hpp"
#include "kseek/core/report/html_report.hpp"
#include "kseek/core/report/markdown_report.hpp"
#include "kseek/core/report/report_model.hpp"
#include "kseek/core/report/svg_plot.hpp"
#include "report/report_test_support.hpp"
#include "support/campaign_fixture.hpp"
#include "support/run_command.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;
using kseek::testing::count_of;

ReportModel model_of(const fs::path& dir) {
  auto model = build_report_model(dir);
  EXPECT_TRUE(model.ok()) << (model.ok() ? "" : model.error().message);
  return model.ok() ? std::move(model).value() : ReportModel{};
}

bool has_warning(const ReportModel& m, std::string_view where, std::string_view words) {
  for (const auto& w : m.warnings) {
    if (w.where == where && w.message.find(words) != std::string::npos) return true;
  }
  return false;
}

std::string all_warnings(const ReportModel& m) {
  std::string text;
  for (const auto& w : m.warnings) text += w.where + ": " + w.message + "\n";
  return text;
}

// Everything in the page that would make a browser fetch or run something: since all text content is escaped,
// every '<' starts a real tag, so looking inside tags is enough.
std::vector<std::string> external_references(const std::string& html) {
  std::vector<std::string> found;
  static const std::regex kFetchingAttribute(R"(\s(href|src|xlink:href|srcset|action|poster|data)\s*=)",
                                             std::regex::icase);
  static const std::regex kFetchingElement(R"(^<\s*(script|link|iframe|object|embed|img|base|image|use|audio|video)\b)",
                                           std::regex::icase);
  for (std::size_t at = html.find('<'); at != std::string::npos; at = html.find('<', at + 1)) {
    const std::size_t end = html.find('>', at);
    const std::string tag = html.substr(at, end == std::string::npos ? std::string::npos : end - at + 1);
    if (std::regex_search(tag, kFetchingAttribute) || std::regex_search(tag, kFetchingElement) ||
        tag.find("://") != std::string::npos || tag.find("@import") != std::string::npos ||
        tag.find("http-equiv=\"refresh\"") != std::string::npos) {
      found.push_back(tag);
    }
  }
  for (std::size_t at = html.find("url("); at != std::string::npos; at = html.find("url(", at + 1)) {
    if (html.compare(at, 5, "url(#") != 0) found.push_back(html.substr(at, 40));
  }
  if (html.find("@import") != std::string::npos) found.push_back("@import");
  return found;
}

TEST(ReportModel, ReadsTheSyntheticCampaignWithoutWarnings) {
  const ReportModel m = model_of(kseek::testing::synthetic_campaign());
  EXPECT_TRUE(m.warnings.empty()) << all_warnings(m);
  EXPECT_EQ(m.campaign, "synthetic");
  EXPECT_EQ(m.plugin, "attention.fa3");
  EXPECT_EQ(m.goal, "all_passed and geomean_low >= 1.40");
  ASSERT_EQ(m.evaluations.size(), 5u);
  ASSERT_EQ(m.scenarios.size(), 6u);
  for (const auto& e : m.evaluations) EXPECT_TRUE(e.record.is_object()) << "evaluation " << e.number;
  EXPECT_FALSE(m.evaluations[3].geomean);  // the constraint violation
  ASSERT_TRUE(m.best());
  EXPECT_EQ(m.evaluations[*m.best()].number, 5);
  EXPECT_EQ(m.evaluations[2].cells.at("S03").status, "FAILED");
  EXPECT_NE(m.evaluations[2].cells.at("S03").message.find("max error"), std::string::npos);
  ASSERT_TRUE(m.roofline);
  EXPECT_EQ(m.roofline->evaluation, 5);
  ASSERT_EQ(m.roofline->bars.size(), 6u);
  EXPECT_TRUE(m.roofline->bars[0].compute_bound());   // S01, a long prefill
  EXPECT_FALSE(m.roofline->bars[2].compute_bound());  // S03, decode
  EXPECT_EQ(m.timeline.size(), 12u);
  // The correctness-regression event came after evaluation 3; the next one (a constraint violation) has no geomean.
  const auto regression = std::find_if(m.timeline.begin(), m.timeline.end(), [](const ReportTimelineEntry& t) {
    return t.type == "event" && t.event == "correctness-regression";
  });
  ASSERT_NE(regression, m.timeline.end());
  EXPECT_EQ(regression->after_evaluation, 3);
  EXPECT_EQ(regression->next_evaluation, 4);
  EXPECT_TRUE(regression->geomean_before);
  EXPECT_FALSE(regression->geomean_after);
  EXPECT_EQ(m.hook_decisions.at("block"), 2);
  // One FAILED scenario, one build violation, and the six scenarios that violation failed, grouped in one row.
  ASSERT_EQ(m.failures.size(), 3u);
  EXPECT_EQ(m.failures[2].scenario, "all 6 scenarios");
}

TEST(HtmlReport, HasEveryPlotEveryScenarioAndNothingExternal) {
  const ReportModel m = model_of(kseek::testing::synthetic_campaign());
  const std::string html = render_html_report(m);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* id : {"summary", "geomean", "heatmap", "roofline", "timeline", "failures"}) {
    EXPECT_NE(html.find(fmt::format("<section id=\"{}\">", id)), std::string::npos) << id;
  }
  EXPECT_EQ(html.find("id=\"warnings\""), std::string::npos);
  EXPECT_EQ(count_of(html, "<svg "), 3u);
  EXPECT_EQ(count_of(html, "<svg "), count_of(html, "</svg>"));
  EXPECT_EQ(count_of(html, "<g "), count_of(html, "</g>"));
  EXPECT_EQ(count_of(html, "<section "), count_of(html, "</section>"));
  EXPECT_EQ(count_of(html, "<table"), count_of(html, "</table>"));
  EXPECT_EQ(count_of(html, "class=\"ci-band\""), 2u);  // evaluations 1-3 as a band, evaluation 5 alone
  EXPECT_EQ(count_of(html, "class=\"point"), 4u);      // evaluations with a geomean
  EXPECT_EQ(count_of(html, "class=\"no-geomean\""), 1u);
  EXPECT_EQ(count_of(html, "class=\"cell "), 30u);  // 6 scenarios x 5 evaluations
  EXPECT_EQ(count_of(html, "class=\"cell cell-failure\""), 7u);
  EXPECT_EQ(count_of(html, "class=\"roofline-bar compute-bound\""), 4u);
  EXPECT_EQ(count_of(html, "class=\"roofline-bar bandwidth-bound\""), 2u);
  EXPECT_EQ(count_of(html, "class=\"marker "), 10u);  // every timeline entry but the two session records
  for (const auto& s : m.scenarios) {
    EXPECT_NE(html.find(">" + s.id + "  "), std::string::npos) << s.id;
    EXPECT_NE(html.find(report::escape_html(s.name)), std::string::npos) << s.name;
  }
  EXPECT_EQ(html.find("len<128"), std::string::npos);  // S04's name, only ever escaped
  EXPECT_NE(html.find("len&lt;128"), std::string::npos);
  const auto external = external_references(html);
  EXPECT_TRUE(external.empty()) << "first: " << external.front();
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST(HtmlReport, EscapesHostileTextEverywhereItAppears) {
  const std::string html = render_html_report(model_of(kseek::testing::synthetic_campaign()));
  // The steer text of the fixture tries to close the SVG and open a script.
  EXPECT_EQ(html.find("</svg><script>"), std::string::npos);
  EXPECT_EQ(html.find("<b>bold</b>"), std::string::npos);
  const std::string escaped = "&lt;/svg&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;";
  EXPECT_GE(count_of(html, escaped), 4u);  // the steer and its question: a table row and a marker tooltip each
}

TEST(HtmlReport, TheExternalReferenceCheckCatchesWhatItLooksFor) {
  EXPECT_FALSE(external_references(R"html(<p>x</p><img src="a.png">)html").empty());
  EXPECT_FALSE(external_references(R"html(<a href="https://example.org">x</a>)html").empty());
  EXPECT_FALSE(external_references(R"html(<rect fill="url(https://x/y)"/>)html").empty());
  EXPECT_FALSE(external_references(R"html(<script>1</script>)html").empty());
  EXPECT_FALSE(external_references(R"html(<style>@import "x.css";</style>)html").empty());
  EXPECT_TRUE(external_references(R"html(<rect fill="url(#hatch)"/><td>see https://example.org</td>)html").empty());
}

TEST(MarkdownReport, SummarisesAndKeepsCampaignTextInert) {
  const std::string md = render_markdown_report(model_of(kseek::testing::synthetic_campaign()));
  EXPECT_NE(md.find("## kseek campaign `synthetic`"), std::string::npos);
  EXPECT_NE(md.find("| best geomean | **1.346 [1.332, 1.359] (#5, COMPLETE)** |"), std::string::npos) << md;
  EXPECT_NE(md.find("| evaluations | 5 (3 with every scenario passing) |"), std::string::npos) << md;
  const auto slowest = md.find("### Slowest scenarios (evaluation #5)");
  ASSERT_NE(slowest, std::string::npos);
  EXPECT_LT(md.find("| S03 |", slowest), md.find("| S04 |", slowest));  // 1.21 before 1.30
  EXPECT_EQ(md.find("| S05 |", slowest), std::string::npos);            // 1.45: not among the five slowest
  EXPECT_NE(md.find("### Events and questions"), std::string::npos);
  EXPECT_EQ(md.find("<script>"), std::string::npos);
  EXPECT_NE(md.find("\\<script\\>"), std::string::npos);
  EXPECT_EQ(md.find("[a link](http"), std::string::npos);
  EXPECT_EQ(md.find(" @someone"), std::string::npos);
  // Every table row keeps its column count: a '|' from campaign text is escaped.
  std::size_t line_start = 0, columns = 0;
  while (line_start < md.size()) {
    const std::size_t end = md.find('\n', line_start);
    const std::string line = md.substr(line_start, end - line_start);
    line_start = end == std::string::npos ? md.size() : end + 1;
    if (line.empty() || line[0] != '|') {
      columns = 0;
      continue;
    }
    std::size_t pipes = 0;
    for (std::size_t i = 0; i < line.size(); ++i) pipes += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
    if (columns == 0) columns = pipes;
    EXPECT_EQ(pipes, columns) << line;
  }
}

TEST(SvgPlot, EscapesMarkupInvalidUtf8AndControlCharacters) {
  EXPECT_EQ(report::escape_html(R"(<a href="x">&'</a>)"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(report::escape_html("caf\xC3\xA9 \xE2\x80\x94 ok"), "caf\xC3\xA9 \xE2\x80\x94 ok");
  EXPECT_EQ(report::escape_html("\xFF\xFEok"), "\xEF\xBF\xBD\xEF\xBF\xBDok");
  EXPECT_EQ(report::escape_html("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong '/'
  EXPECT_EQ(report::escape_html("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(report::escape_html("\xE2\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // torn at the end
  EXPECT_EQ(report::escape_html(std::string("a\x01z\0", 4)), "a\xEF\xBF\xBDz\xEF\xBF\xBD");
  EXPECT_EQ(report::escape_html("tab\tnew\nline"), "tab\tnew\nline");
}

TEST(SvgPlot, ShortensByCodePoints) {
  EXPECT_EQ(report::shorten("abcdef", 6), "abcdef");
  EXPECT_EQ(report::shorten("abcdefg", 6), "abcde\xE2\x80\xA6");
  EXPECT_EQ(report::shorten("\xC3\xA9\xC3\xA9\xC3\xA9", 2), "\xC3\xA9\xE2\x80\xA6");
}

TEST(SvgPlot, ColoursDivergeAroundOneAndSaturate) {
  EXPECT_EQ(report::ratio_colour(1.0), "#f7f7f7");
  EXPECT_EQ(report::ratio_colour(0.5), "#b2182b");
  EXPECT_EQ(report::ratio_colour(2.0), "#2166ac");
  EXPECT_EQ(report::ratio_colour(8.0), report::ratio_colour(2.0));
  EXPECT_EQ(report::ratio_colour(0.1), report::ratio_colour(0.5));
  EXPECT_NE(report::ratio_colour(1.1), report::ratio_colour(1.0));
  EXPECT_EQ(report::ratio_colour(0.0), "#f7f7f7");  // not a ratio: neutral, never a crash
  const auto ticks = report::nice_ticks(0.95, 1.37, 6);
  ASSERT_FALSE(ticks.empty());
  EXPECT_GE(ticks.front(), 0.95);
  EXPECT_LE(ticks.back(), 1.37 + 1e-9);
  EXPECT_NE(std::find_if(ticks.begin(), ticks.end(), [](double t) { return std::abs(t - 1.0) < 1e-9; }), ticks.end());
}

TEST(ReportModel, InASignedCampaignAnUnsignedLineIsAWarningNotAnEvaluation) {
  testing::CampaignFixture f(testing::synthetic_config());
  f.evaluate({{"S01", "PASSED", 1.02}}, 1.02);
  // A line with a right checksum and no signature: an agent's forged evaluation.
  ASSERT_TRUE(append_record(f.open().log_path(), {{"type", "evaluation"},
                                                  {"time", "2026-11-30T00:00:00Z"},
                                                  {"number", 7},
                                                  {"status", "COMPLETE"},
                                                  {"all_passed", true},
                                                  {"geomean", 9.0}})
                  .ok());
  const ReportModel m = model_of(f.dir());
  EXPECT_EQ(m.evaluations.size(), 1u) << "the forged evaluation was shown";
  EXPECT_TRUE(has_warning(m, "log line 3", "not signed by kseek")) << all_warnings(m);
}

TEST(ReportModel, NamesDamagedLogLinesAndShowsThemOnThePage) {
  kseek::testing::TempFolder temp("kseek_report_damaged");
  const fs::path dir = kseek::testing::copy_of_synthetic(temp.path());
  const fs::path log = dir / ".kseek" / "log.jsonl";
  std::string text = kseek::testing::slurp(log);
  // Line 5 gets a wrong checksum (its first hex digit changed); a torn line is appended after line 20.
  std::size_t line5 = 0;
  for (int i = 0; i < 4; ++i) line5 = text.find('\n', line5) + 1;
  text[line5] = text[line5] == '0' ? '1' : '0';
  text += "{\"type\":\"evaluation\",\"torn";
  kseek::testing::spit(log, text);

  const ReportModel m = model_of(dir);
  EXPECT_TRUE(has_warning(m, "log line 5", "checksum mismatch")) << all_warnings(m);
  EXPECT_TRUE(has_warning(m, "log line 21", "torn")) << all_warnings(m);
  EXPECT_EQ(m.evaluations.size(), 4u);  // line 5 was evaluation 1: it is not trusted, and it is said so
  const std::string html = render_html_report(m);
  ASSERT_NE(html.find("<section id=\"warnings\""), std::string::npos);
  EXPECT_NE(html.find("<b>log line 5</b>"), std::string::npos);
  EXPECT_NE(html.find("<b>log line 21</b>"), std::string::npos);
  EXPECT_NE(render_markdown_report(m).find("**log line 21**"), std::string::npos);
}

TEST(ReportModel, DoesNotUseARecordThatDisagreesWithItsLogEntry) {
  kseek::testing::TempFolder temp("kseek_report_tampered");
  const fs::path dir = kseek::testing::copy_of_synthetic(temp.path());
  const fs::path record = dir / ".kseek" / "evaluations" / "0005.json";
  kseek::testing::spit(record, kseek::testing::slurp(record) + " ");
  const ReportModel m = model_of(dir);
  EXPECT_TRUE(has_warning(m, "evaluations/0005.json", "does not match its log entry")) << all_warnings(m);
  ASSERT_EQ(m.evaluations.size(), 5u);
  EXPECT_TRUE(m.evaluations[4].record.is_null());
  EXPECT_TRUE(m.evaluations[4].geomean);  // the log's summary still counts
  ASSERT_TRUE(m.roofline);
  EXPECT_EQ(m.roofline->evaluation, 4);  // the newest record that is trusted

  fs::remove(record);
  EXPECT_TRUE(has_warning(model_of(dir), "evaluations/0005.json", "cannot be read"));
}

TEST(ReportModel, WarnsWhenCampaignJsonChangedBehindTheLog) {
  kseek::testing::TempFolder temp("kseek_report_config");
  const fs::path dir = kseek::testing::copy_of_synthetic(temp.path());
  std::string config = kseek::testing::slurp(dir / "campaign.json");
  config.replace(config.find("1.40"), 4, "1.05");
  kseek::testing::spit(dir / "campaign.json", config);
  const ReportModel m = model_of(dir);
  EXPECT_TRUE(has_warning(m, "campaign.json", "changed outside kseek")) << all_warnings(m);
  EXPECT_EQ(m.goal, "all_passed and geomean_low >= 1.05");
}

TEST(ReportModel, RefusesARecordFileOutsideTheCampaign) {
  kseek::testing::TempFolder temp("kseek_report_outside");
  const fs::path dir = temp.path() / "c";
  fs::create_directories(dir / ".kseek");
  kseek::testing::spit(dir / "campaign.json", R"({"plugin": "example.softmax", "goal": "all_passed"})");
  kseek::testing::spit(temp.path() / "outside.json", R"({"schema": "kseek.eval/1"})");
  ASSERT_TRUE(append_record(dir / ".kseek" / "log.jsonl", {{"type", "evaluation"},
                                                           {"time", "2026-11-30T10:00:00Z"},
                                                           {"number", 1},
                                                           {"record_file", "../../outside.json"},
                                                           {"record_sha256", "0"},
                                                           {"status", "COMPLETE"},
                                                           {"all_passed", false},
                                                           {"geomean", nullptr},
                                                           {"scenarios", nlohmann::json::array()}})
                  .ok());
  const ReportModel m = model_of(dir);
  EXPECT_TRUE(has_warning(m, "../../outside.json", "outside")) << all_warnings(m);
  EXPECT_TRUE(has_warning(m, ".kseek/log.jsonl", "no init record")) << all_warnings(m);
  EXPECT_NE(render_html_report(m).find("no scenario results yet"), std::string::npos);
}

TEST(ReportModel, ExplainsWhatIsNotACampaign) {
  kseek::testing::TempFolder temp("kseek_report_not_campaign");
  auto missing = build_report_model(temp.path() / "nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("does not exist"), std::string::npos) << missing.error().message;
  auto empty = build_report_model(temp.path());
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("no campaign.json"), std::string::npos) << empty.error().message;
  kseek::testing::spit(temp.path() / "campaign.json", "[1, 2");
  auto broken = build_report_model(temp.path());
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().message.find("not a JSON object"), std::string::npos) << broken.error().message;
}

TEST(ReportModel, ANewCampaignWithoutALogStillRenders) {
  kseek::testing::TempFolder temp("kseek_report_new");
  kseek::testing::spit(temp.path() / "campaign.json", R"({"plugin": "example.softmax", "questions": false})");
  const ReportModel m = model_of(temp.path());
  EXPECT_TRUE(has_warning(m, ".kseek/log.jsonl", "no log yet")) << all_warnings(m);
  const std::string html = render_html_report(m);
  EXPECT_NE(html.find("no evaluations yet"), std::string::npos);
  EXPECT_NE(html.find("off (control campaign)"), std::string::npos);
  EXPECT_NE(render_markdown_report(m).find("| evaluations | 0 "), std::string::npos);
}

TEST(ReportCommand, WritesBothFilesAndSaysSoInJson) {
  kseek::testing::TempFolder temp("kseek_report_cli");
  const fs::path html = temp.path() / "out" / "report.html", md = temp.path() / "report.md";
  const auto run =
      kseek::testing::run_kseek(fmt::format("report '{}' --html '{}' --markdown '{}' --json",
                                            kseek::testing::synthetic_campaign().string(), html.string(), md.string()),
                                "report-test");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const auto out = nlohmann::json::parse(run.out);
  EXPECT_EQ(out["status"], "OK");
  EXPECT_EQ(out["evaluations"], 5);
  EXPECT_EQ(out["best"]["evaluation"], 5);
  EXPECT_TRUE(out["warnings"].empty());
  EXPECT_NE(kseek::testing::slurp(html).find("<svg "), std::string::npos);
  EXPECT_NE(kseek::testing::slurp(md).find("## kseek campaign"), std::string::npos);

  const auto plain = kseek::testing::run_kseek(
      fmt::format("report '{}'", kseek::testing::synthetic_campaign().string()), "report-test");
  EXPECT_EQ(plain.exit_code, 0);
  EXPECT_NE(plain.out.find("### Slowest scenarios"), std::string::npos) << plain.out;

  const auto bad = kseek::testing::run_kseek(fmt::format("report '{}' --json", temp.path().string()), "report-test");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_EQ(nlohmann::json::parse(bad.out)["status"], "ERROR");
}

}  // namespace
}  // namespace kseek
