// The campaign report as one self-contained HTML page: inline CSS and hand-written SVG, no script, nothing fetched.
// It must never reference a resource outside the file, nor put any campaign text into it unescaped.
#include "kseek/core/report/html_report.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "kseek/core/report/svg_plot.hpp"
#include "kseek/sdk/version.hpp"

namespace kseek {
namespace {

using report::escape_html;
using report::fixed;
using report::LinearScale;
using report::shorten;
using report::SvgWriter;

constexpr std::string_view kDash = "\xE2\x80\x94";

// The page may load nothing at all: no script, image, font or style from anywhere but this file.
constexpr std::string_view kContentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'";

constexpr std::string_view kStyle = R"(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d1d1d; margin: 24px auto;
       max-width: 1400px; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; }
.sub { color: #555; margin: 0 0 12px; } code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; }
table { border-collapse: collapse; margin: 6px 0; } th, td { border: 1px solid #ddd; padding: 3px 8px;
  vertical-align: top; text-align: left; } th { background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.text { max-width: 560px; white-space: pre-wrap; overflow-wrap: anywhere; }
table.facts th { width: 180px; } td.kind { white-space: nowrap; }
.warnings { border: 2px solid #b2182b; background: #fff4f2; padding: 8px 14px; }
.warnings h2 { border: none; color: #b2182b; margin-top: 4px; }
.note { color: #555; font-size: 13px; }
.swatch { display: inline-block; width: 12px; height: 12px; border: 1px solid #999; vertical-align: middle;
  margin: 0 4px 0 12px; }
svg.plot { display: block; margin: 6px 0; font-family: system-ui, sans-serif; font-size: 11px; overflow: visible; }
svg.plot .mono { font-family: ui-monospace, Menlo, monospace; }
.status-bad { color: #b2182b; font-weight: 600; } .status-ok { color: #1a7a3a; }
)";

// Marker colours of the timeline kinds (ColorBrewer Dark2).
std::string_view marker_colour(std::string_view type) {
  if (type == "event") return "#d95f02";
  if (type == "question") return "#7570b3";
  if (type == "claim") return "#e7298a";
  if (type == "steer") return "#1b9e77";
  if (type == "gate") return "#666666";
  return "#a6761d";
}

bool on_plot(const ReportTimelineEntry& t) { return t.type != "session"; }

std::string interval_text(const std::optional<double>& value, const std::optional<double>& low,
                          const std::optional<double>& high) {
  if (!value) return std::string(kDash);
  std::string text = fixed(*value, 3);
  if (low && high) text += fmt::format(" [{}, {}]", fixed(*low, 3), fixed(*high, 3));
  return text;
}

std::string short_sha(std::string_view sha) { return std::string(sha.substr(0, 12)); }

std::string status_class(std::string_view status) {
  return status == "PASSED" || status == "COMPLETE" ? "status-ok" : "status-bad";
}

std::string status_abbreviation(std::string_view status) {
  if (status == "FAILED") return "FAIL";
  if (status == "MISTRUSTED") return "MIST";
  if (status == "CRASHED") return "CRSH";
  if (status == "TIMEOUT") return "T/O";
  if (status == "LAUNCH_ERROR") return "LNCH";
  if (status == "COMPILE_ERROR") return "CE";
  if (status == "CONSTRAINT_VIOLATION") return "CV";
  if (status == "NOT_RUNNABLE") return "n/r";
  return status.empty() ? "?" : std::string(status.substr(0, 4));
}

std::string followed_text(const ReportTimelineEntry& t, const ReportModel& m) {
  if (t.next_evaluation == 0) return "no evaluation since";
  const auto& next = m.evaluations[t.evaluations_before];
  std::string text = fmt::format("#{}: ", t.next_evaluation);
  if (!t.geomean_after) {
    return text + "no geomean (" +
           (next.status == "COMPLETE" ? "no scenario passed"
            : next.status.empty()     ? "no status"
                                      : next.status) +
           ")";
  }
  if (!t.geomean_before) return text + "geomean " + fixed(*t.geomean_after, 3);
  const double change = (*t.geomean_after / *t.geomean_before - 1.0) * 100.0;
  return text +
         fmt::format("{} \xE2\x86\x92 {} ({:+.1f}%)", fixed(*t.geomean_before, 3), fixed(*t.geomean_after, 3), change);
}

// (a) + (d): geomean per evaluation with its interval band, best-so-far, the seed line and timeline markers.
std::string geomean_plot(const ReportModel& m) {
  const double width = 1100, height = 380, left = 64, right = 24, top = 24, bottom = 44;
  SvgWriter svg(width, height, "Geomean speed-up over the seed per evaluation, with its 95% interval");
  const int n = static_cast<int>(m.evaluations.size());
  if (n == 0) {
    svg.text(width / 2, height / 2, "no evaluations yet", R"(text-anchor="middle" fill="#777" font-size="14")");
    return svg.finish();
  }
  double low = 1.0, high = 1.0;
  for (const auto& e : m.evaluations) {
    for (const auto& v : {e.geomean, e.geomean_low, e.geomean_high}) {
      if (v && std::isfinite(*v)) {
        low = std::min(low, *v);
        high = std::max(high, *v);
      }
    }
  }
  const double pad = std::max((high - low) * 0.08, 0.02);
  low -= pad;
  high += pad;
  // Evaluations sit at their position in the log (1..n); labels show their numbers.
  const LinearScale x{0.5, n + 0.5, left, width - right};
  const auto at = [&](const ReportEvaluation& e) { return x(static_cast<double>(&e - m.evaluations.data()) + 1); };
  const LinearScale y{low, high, height - bottom, top};

  for (double tick : report::nice_ticks(low, high, 6)) {
    svg.line(left, y(tick), width - right, y(tick), R"(stroke="#eeeeee")");
    svg.text(left - 6, y(tick) + 4, fixed(tick, 2), R"(text-anchor="end" fill="#555")");
  }
  const int step = std::max(1, static_cast<int>(std::ceil(n / 25.0)));
  for (int i = 1; i <= n; i += step) {
    svg.line(x(i), height - bottom, x(i), height - bottom + 4, R"(stroke="#999")");
    svg.text(x(i), height - bottom + 16, fmt::format("#{}", m.evaluations[static_cast<std::size_t>(i - 1)].number),
             R"(text-anchor="middle" fill="#555")");
  }
  svg.text((left + width - right) / 2, height - 6, "evaluation", R"(text-anchor="middle" fill="#333")");
  svg.text(14, (top + height - bottom) / 2, "geomean (seed time / candidate time)",
           fmt::format(R"svg(text-anchor="middle" fill="#333" transform="rotate(-90 14 {:.1f})")svg",
                       (top + height - bottom) / 2));
  svg.rect(left, top, width - right - left, height - bottom - top, R"(fill="none" stroke="#bbb")");
  svg.line(left, y(1.0), width - right, y(1.0), R"(stroke="#444" stroke-dasharray="6 4")");
  svg.text(width - right - 4, y(1.0) - 4, "seed (1.0)", R"(text-anchor="end" fill="#444")");

  // Interval band and line, broken where an evaluation has no geomean.
  std::vector<std::vector<std::size_t>> runs(1);
  for (std::size_t i = 0; i < m.evaluations.size(); ++i) {
    if (m.evaluations[i].geomean) {
      runs.back().push_back(i);
    } else if (!runs.back().empty()) {
      runs.emplace_back();
    }
  }
  for (const auto& run : runs) {
    std::vector<std::pair<double, double>> band, line;
    for (std::size_t i : run) {
      const auto& e = m.evaluations[i];
      line.emplace_back(at(e), y(*e.geomean));
      band.emplace_back(at(e), y(e.geomean_high.value_or(*e.geomean)));
    }
    for (auto it = run.rbegin(); it != run.rend(); ++it) {
      const auto& e = m.evaluations[*it];
      band.emplace_back(at(e), y(e.geomean_low.value_or(*e.geomean)));
    }
    if (run.size() == 1) {  // a lone point: its interval as a vertical bar
      const auto& e = m.evaluations[run.front()];
      svg.rect(at(e) - 5, y(e.geomean_high.value_or(*e.geomean)), 10,
               y(e.geomean_low.value_or(*e.geomean)) - y(e.geomean_high.value_or(*e.geomean)),
               R"(class="ci-band" fill="#2166ac" fill-opacity="0.2")");
    } else if (run.size() > 1) {
      svg.polygon(band, R"(class="ci-band" fill="#2166ac" fill-opacity="0.2" stroke="none")");
      svg.polyline(line, R"(stroke="#2166ac" stroke-width="2")");
    }
  }

  // Best so far among evaluations where every scenario passed.
  std::vector<std::pair<double, double>> best_line;
  std::optional<double> best;
  for (const auto& e : m.evaluations) {
    if (e.all_passed && e.geomean && (!best || *e.geomean > *best)) best = e.geomean;
    if (best) {
      if (!best_line.empty()) best_line.emplace_back(at(e), best_line.back().second);
      best_line.emplace_back(at(e), y(*best));
    }
  }
  if (best_line.size() > 1) {
    svg.polyline(best_line, R"(class="best-so-far" stroke="#1a7a3a" stroke-width="1.5" stroke-dasharray="3 3")");
  }

  // Timeline markers: a dashed rule between evaluations, markers stacked from the top, numbered as in the table.
  std::map<std::size_t, int> stacked;
  for (std::size_t k = 0; k < m.timeline.size(); ++k) {
    const auto& t = m.timeline[k];
    if (!on_plot(t)) continue;
    const double mx = x(static_cast<double>(t.evaluations_before) + 0.5);
    int& slot = stacked[t.evaluations_before];
    if (slot == 0) svg.line(mx, top, mx, height - bottom, R"(stroke="#bbbbbb" stroke-dasharray="2 3")");
    const double my = top + 4 + slot * 16;
    ++slot;
    if (my > height - bottom - 16) continue;  // the table lists every entry; the plot shows what fits
    const std::string number = std::to_string(k + 1);
    const double w = 8 + 6.5 * static_cast<double>(number.size());
    const std::string tooltip =
        fmt::format("{} {} ({}): {}", number, t.event.empty() ? t.type : t.event, t.time, shorten(t.text, 300));
    svg.open_group(fmt::format(R"(class="marker marker-{}")", escape_html(t.type)), tooltip);
    svg.rect(mx - w / 2, my, w, 13, fmt::format(R"(rx="3" fill="{}")", marker_colour(t.type)));
    svg.text(mx, my + 10, number, R"(text-anchor="middle" fill="#fff" font-size="10")");
    svg.close_group();
  }

  for (const auto& e : m.evaluations) {
    const std::string head = fmt::format("#{} {} \xC2\xB7 candidate {} \xC2\xB7 {}", e.number, e.time,
                                         short_sha(e.candidate_sha256), e.status.empty() ? "no status" : e.status);
    if (!e.geomean) {
      const double cx = at(e), cy = height - bottom - 10;
      svg.open_group(R"(class="no-geomean")", head + " \xC2\xB7 no geomean");
      svg.line(cx - 5, cy - 5, cx + 5, cy + 5, R"(stroke="#b2182b" stroke-width="2.5")");
      svg.line(cx - 5, cy + 5, cx + 5, cy - 5, R"(stroke="#b2182b" stroke-width="2.5")");
      svg.close_group();
      continue;
    }
    std::size_t failed = 0;
    for (const auto& [id, cell] : e.cells) failed += cell.status != "PASSED";
    const std::string tooltip =
        head + " \xC2\xB7 geomean " + interval_text(e.geomean, e.geomean_low, e.geomean_high) +
        (e.all_passed ? " \xC2\xB7 every scenario passed"
                      : fmt::format(" \xC2\xB7 {} of {} scenarios did not pass (geomean over the passed ones)", failed,
                                    e.cells.size()));
    svg.circle(at(e), y(*e.geomean), 4.5,
               e.all_passed ? R"(class="point" fill="#2166ac" stroke="#fff")"
                            : R"(class="point point-failing" fill="#fff" stroke="#b2182b" stroke-width="2")",
               tooltip);
  }
  return svg.finish();
}

std::string row_label(const ReportScenario& s, std::size_t max_name) {
  return s.name.empty() ? s.id : s.id + "  " + shorten(s.name, max_name);
}

double label_width(const std::vector<std::string>& labels) {
  std::size_t longest = 4;
  for (const auto& l : labels) longest = std::max(longest, l.size());
  return 16 + 6.7 * static_cast<double>(std::min<std::size_t>(longest, 72));
}

// (b): rows scenarios, columns evaluations, colour diverging around 1.0, failures black with their status.
std::string heatmap(const ReportModel& m) {
  const std::size_t rows = m.scenarios.size(), cols = m.evaluations.size();
  if (rows == 0 || cols == 0) {
    SvgWriter svg(600, 40, "Per-scenario ratio heatmap");
    svg.text(10, 24, "no scenario results yet", R"(fill="#777")");
    return svg.finish();
  }
  std::vector<std::string> labels;
  for (const auto& s : m.scenarios) labels.push_back(row_label(s, 60));
  const double lw = label_width(labels);
  const double cw = std::clamp(960.0 / static_cast<double>(cols), 6.0, 46.0), rh = 18, top = 30;
  const double legend = 58;
  const double width = lw + cw * static_cast<double>(cols) + 20;
  const double height = top + rh * static_cast<double>(rows) + legend;
  SvgWriter svg(std::max(width, 760.0), height, "Per-scenario speed-up ratio per evaluation");
  const auto best = m.best();
  const std::size_t step = cw >= 18 ? 1 : static_cast<std::size_t>(std::ceil(18 / cw));
  for (std::size_t c = 0; c < cols; c += step) {
    const auto& e = m.evaluations[c];
    const bool is_best = best && *best == c;
    svg.text(lw + cw * (static_cast<double>(c) + 0.5), top - 8,
             fmt::format("#{}{}", e.number, is_best ? "\xE2\x98\x85" : ""),
             fmt::format(R"(text-anchor="middle" fill="{}")", e.all_passed ? "#333" : "#b2182b"),
             fmt::format("#{} {} \xC2\xB7 geomean {}{}{}", e.number, e.time,
                         interval_text(e.geomean, e.geomean_low, e.geomean_high),
                         e.all_passed ? "" : " \xC2\xB7 not every scenario passed", is_best ? " \xC2\xB7 best" : ""));
  }
  for (std::size_t r = 0; r < rows; ++r) {
    const auto& s = m.scenarios[r];
    const double ry = top + rh * static_cast<double>(r);
    svg.text(lw - 8, ry + 13, labels[r], R"(class="mono row-label" text-anchor="end" fill="#222")",
             s.name.empty() ? s.id : s.id + " " + s.name);
    for (std::size_t c = 0; c < cols; ++c) {
      const auto& e = m.evaluations[c];
      const double cx = lw + cw * static_cast<double>(c);
      const std::string where = fmt::format("{} {}\n#{} ({})", s.id, s.name, e.number, e.time);
      const auto it = e.cells.find(s.id);
      if (it == e.cells.end()) {
        svg.rect(cx + 0.5, ry + 0.5, cw - 1, rh - 1, R"(class="cell cell-missing" fill="#ffffff" stroke="#dddddd")",
                 where + ": not evaluated");
        continue;
      }
      const ReportCell& cell = it->second;
      std::string tooltip = where + ": " + cell.status;
      if (cell.ratio) tooltip += " \xC2\xB7 ratio " + interval_text(cell.ratio, cell.ci_low, cell.ci_high);
      if (!cell.message.empty()) tooltip += "\n" + shorten(cell.message, 400);
      std::string fill, text, text_colour, cls;
      if (cell.status == "PASSED" && cell.ratio) {
        fill = report::ratio_colour(*cell.ratio);
        text_colour = report::ratio_text_colour(*cell.ratio);
        text = cw >= 34 ? fixed(*cell.ratio, 2) : "";
        cls = "cell cell-ratio";
      } else if (cell.status == "PASSED") {
        fill = "#e5f5e0";
        text_colour = "#1a7a3a";
        text = cw >= 22 ? "ok" : "";
        cls = "cell cell-untimed";
      } else if (cell.status == "NOT_RUNNABLE") {
        fill = "#d9d9d9";
        text_colour = "#555555";
        text = cw >= 22 ? "n/r" : "";
        cls = "cell cell-not-runnable";
      } else {
        fill = "#1a1a1a";
        text_colour = "#ffd92f";
        text = cw >= 22 ? status_abbreviation(cell.status) : "";
        cls = "cell cell-failure";
      }
      svg.open_group(fmt::format(R"(class="{}")", cls), tooltip);
      svg.rect(cx + 0.5, ry + 0.5, cw - 1, rh - 1, fmt::format(R"(fill="{}")", fill));
      if (!text.empty()) {
        svg.text(cx + cw / 2, ry + 13, text,
                 fmt::format(R"(text-anchor="middle" fill="{}" font-size="10")", text_colour));
      }
      svg.close_group();
    }
  }
  // Legend: the colour scale's steps, then the marks that are not ratios.
  double lx = lw, ly = top + rh * static_cast<double>(rows) + 16;
  svg.text(lx, ly + 12, "ratio:", R"(text-anchor="end" fill="#333" dx="-6")");
  for (double ratio : {0.5, 0.63, 0.79, 0.9, 1.0, 1.1, 1.26, 1.59, 2.0}) {
    svg.rect(lx, ly, 36, 16, fmt::format(R"(fill="{}" stroke="#ccc")", report::ratio_colour(ratio)));
    svg.text(lx + 18, ly + 12, fixed(ratio, 2),
             fmt::format(R"(text-anchor="middle" font-size="10" fill="{}")", report::ratio_text_colour(ratio)));
    lx += 36;
  }
  svg.text(lx + 4, ly + 12, "(slower \xE2\x86\x90 seed \xE2\x86\x92 faster; 0.5 and 2 and beyond saturate)",
           R"(fill="#555")");
  ly += 22;
  lx = lw;
  const std::pair<const char*, const char*> marks[] = {{"#1a1a1a", "failed (status shown)"},
                                                       {"#d9d9d9", "not runnable"},
                                                       {"#e5f5e0", "passed, untimed"},
                                                       {"#ffffff", "not evaluated"}};
  for (const auto& [colour, what] : marks) {
    svg.rect(lx, ly, 16, 14, fmt::format(R"(fill="{}" stroke="#999")", colour));
    svg.text(lx + 22, ly + 11, what, R"(fill="#333")");
    lx += 40 + 6.5 * static_cast<double>(std::string_view(what).size());
  }
  return svg.finish();
}

std::string rate_text(const ReportRooflineBar& b) {
  if (b.compute_bound()) return fmt::format("{} TFLOP/s", fixed(b.candidate_tflops, 1));
  return b.candidate_gbps >= 1000 ? fmt::format("{} TB/s", fixed(b.candidate_gbps / 1000, 2))
                                  : fmt::format("{} GB/s", fixed(b.candidate_gbps, 0));
}

// (c): per scenario the achieved rate as a share of the GPU's peak, of whichever resource it uses more.
std::string roofline_plot(const ReportRoofline& r) {
  std::vector<std::string> labels;
  for (const auto& b : r.bars) labels.push_back(row_label({b.scenario, b.name}, 60));
  const double lw = label_width(labels);
  double axis_max = 100;
  for (const auto& b : r.bars) axis_max = std::max({axis_max, b.percent_flops, b.percent_bandwidth});
  const double bar_width = 560, rh = 24, top = 26;
  const double width = lw + bar_width + 330;
  const double height = top + rh * static_cast<double>(r.bars.size()) + 30;
  SvgWriter svg(width, height, "Achieved share of the GPU's peak per scenario");
  const LinearScale x{0, axis_max, lw, lw + bar_width};
  for (double tick : report::nice_ticks(0, axis_max, 5)) {
    svg.line(x(tick), top - 4, x(tick), height - 26, R"(stroke="#eeeeee")");
    svg.text(x(tick), top - 8, fmt::format("{:.0f}%", tick), R"(text-anchor="middle" fill="#555")");
  }
  svg.line(x(100), top - 4, x(100), height - 26, R"(stroke="#888" stroke-dasharray="4 3")");
  for (std::size_t i = 0; i < r.bars.size(); ++i) {
    const auto& b = r.bars[i];
    const double ry = top + rh * static_cast<double>(i);
    svg.text(lw - 8, ry + 13, labels[i], R"(class="mono row-label" text-anchor="end" fill="#222")",
             b.scenario + " " + b.name);
    if (!b.timed) {
      svg.text(lw + 4, ry + 13, "no timing (" + (b.status.empty() ? std::string("no status") : b.status) + ")",
               R"(fill="#999")");
      continue;
    }
    const bool compute = b.compute_bound();
    const double primary = compute ? b.percent_flops : b.percent_bandwidth;
    const double secondary = compute ? b.percent_bandwidth : b.percent_flops;
    const double seed = compute ? b.seed_percent_flops : b.seed_percent_bandwidth;
    const std::string colour = compute ? "#762a83" : "#1b7837";
    const std::string tooltip = fmt::format(
        "{} {}\n{} \xC2\xB7 {} of peak compute, {} of peak bandwidth; the seed: {}% of the {} peak\n{} bound",
        b.scenario, b.name, rate_text(b), fixed(b.percent_flops, 1) + "%", fixed(b.percent_bandwidth, 1) + "%",
        fixed(seed, 1), compute ? "compute" : "bandwidth", compute ? "compute" : "bandwidth");
    svg.open_group(fmt::format(R"(class="roofline-bar {}")", compute ? "compute-bound" : "bandwidth-bound"), tooltip);
    svg.rect(lw, ry + 2, x(primary) - lw, 12, fmt::format(R"(fill="{}")", colour));
    svg.rect(lw, ry + 16, x(secondary) - lw, 4,
             fmt::format(R"(fill="{}" fill-opacity="0.45")", compute ? "#1b7837" : "#762a83"));
    if (seed > 0) svg.line(x(seed), ry, x(seed), ry + 16, R"(stroke="#111" stroke-width="2")");
    svg.text(
        lw + bar_width + 10, ry + 13,
        fmt::format("{} \xC2\xB7 {}% of peak {}", rate_text(b), fixed(primary, 1), compute ? "compute" : "bandwidth"),
        R"(fill="#222")");
    svg.close_group();
  }
  const double ly = height - 14;
  svg.rect(lw, ly - 9, 14, 10, R"(fill="#762a83")");
  svg.text(lw + 20, ly, "compute-bound (% of dense bf16 peak)", R"(fill="#333")");
  svg.rect(lw + 250, ly - 9, 14, 10, R"(fill="#1b7837")");
  svg.text(lw + 270, ly, "bandwidth-bound (% of memory bandwidth)", R"(fill="#333")");
  svg.line(lw + 520, ly - 10, lw + 520, ly + 2, R"(stroke="#111" stroke-width="2")");
  svg.text(lw + 526, ly, "the seed", R"(fill="#333")");
  svg.text(lw + 590, ly, "thin bar: the other resource", R"(fill="#333")");
  return svg.finish();
}

void fact(std::string& h, std::string_view name, std::string_view value_html) {
  h += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", escape_html(name), value_html);
}

std::string summary_section(const ReportModel& m) {
  std::string h = "<section id=\"summary\">\n<table class=\"facts\">\n";
  fact(h, "plugin",
       "<code>" + escape_html(m.plugin) + "</code>" +
           (m.set.empty() ? "" : ", set <code>" + escape_html(m.set) + "</code>") +
           (m.arch.empty() ? "" : ", arch <code>" + escape_html(m.arch) + "</code>"));
  fact(h, "goal", "<code>" + escape_html(m.goal.empty() ? "(none)" : m.goal) + "</code>");
  std::string packs;
  for (const auto& p : m.packs) packs += (packs.empty() ? "" : ", ") + escape_html(p);
  fact(h, "questions",
       m.questions ? "on" + (packs.empty() ? "" : " (packs: " + packs + ")") : std::string("off (control campaign)"));
  if (!m.created.empty()) fact(h, "started", escape_html(m.created));
  std::size_t all_passed = 0;
  for (const auto& e : m.evaluations) all_passed += e.all_passed;
  fact(h, "evaluations", fmt::format("{} ({} with every scenario passing)", m.evaluations.size(), all_passed));
  if (const auto best = m.best()) {
    const auto& e = m.evaluations[*best];
    fact(h, "best geomean",
         fmt::format("<b>{}</b> at #{} (candidate <code>{}</code>)",
                     interval_text(e.geomean, e.geomean_low, e.geomean_high), e.number,
                     escape_html(short_sha(e.candidate_sha256))));
  } else {
    fact(h, "best geomean", std::string(kDash) + " (no evaluation where every scenario passed)");
  }
  if (!m.evaluations.empty()) {
    const auto& e = m.evaluations.back();
    fact(h, "latest evaluation",
         fmt::format("#{} at {}: {} \xC2\xB7 geomean {}{}", e.number, escape_html(e.time),
                     fmt::format("<span class=\"{}\">{}</span>", status_class(e.status), escape_html(e.status)),
                     interval_text(e.geomean, e.geomean_low, e.geomean_high),
                     e.all_passed ? "" : " <span class=\"status-bad\">(not every scenario passed)</span>"));
    if (!e.gpu.empty()) fact(h, "GPU", escape_html(e.gpu));
  }
  const auto count = [&](const char* type) {
    const auto it = m.record_counts.find(type);
    return it == m.record_counts.end() ? 0 : it->second;
  };
  fact(h, "log",
       fmt::format("{} events, {} questions, {} claims, {} steers, {} gate checks, {} sessions", count("event"),
                   count("question"), count("claim"), count("steer"), count("gate"), count("session")));
  if (!m.hook_decisions.empty()) {
    std::string hooks;
    for (const auto& [decision, n] : m.hook_decisions) {
      hooks += fmt::format("{}{} {}", hooks.empty() ? "" : ", ", n, escape_html(decision.empty() ? "?" : decision));
    }
    fact(h, "hook decisions", hooks);
  }
  h += "</table>\n</section>\n";
  return h;
}

std::string warnings_section(const ReportModel& m) {
  if (m.warnings.empty()) return {};
  std::string h =
      "<section id=\"warnings\" class=\"warnings\">\n<h2>Warnings: parts of the campaign that could not "
      "be used</h2>\n<ul>\n";
  for (const auto& w : m.warnings) {
    h += fmt::format("<li><b>{}</b>: <span class=\"mono\">{}</span></li>\n", escape_html(w.where),
                     escape_html(w.message));
  }
  h += "</ul>\n</section>\n";
  return h;
}

std::string timeline_section(const ReportModel& m) {
  std::string h = "<section id=\"timeline\">\n<h2>Events, questions and decisions</h2>\n";
  if (m.timeline.empty()) return h + "<p class=\"note\">Nothing recorded yet.</p>\n</section>\n";
  h += "<p class=\"note\">Numbers match the markers on the geomean plot. <i>What followed</i>: the next evaluation "
       "and its geomean against the one before.</p>\n";
  h += "<table>\n<tr><th>#</th><th>when</th><th>after</th><th>kind</th><th>event</th><th>text</th><th>source</th>"
       "<th>what followed</th></tr>\n";
  for (std::size_t k = 0; k < m.timeline.size(); ++k) {
    const auto& t = m.timeline[k];
    h += fmt::format(
        "<tr class=\"timeline-{}\"><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"kind\"><span class=\"swatch\" style=\"background:{};margin-left:0\"></span>{}</td><td>{}</td>"
        "<td class=\"text\">{}</td><td>{}</td><td class=\"num\">{}</td></tr>\n",
        escape_html(t.type), k + 1, escape_html(t.time),
        t.after_evaluation == 0 ? std::string(kDash) : fmt::format("#{}", t.after_evaluation), marker_colour(t.type),
        escape_html(t.type), escape_html(t.event), escape_html(shorten(t.text, 2000)), escape_html(t.source),
        escape_html(followed_text(t, m)));
  }
  h += "</table>\n</section>\n";
  return h;
}

std::string failures_section(const ReportModel& m) {
  std::string h = "<section id=\"failures\">\n<h2>Failures, constraint violations and scenarios not run</h2>\n";
  if (m.failures.empty())
    return h + "<p class=\"note\">None: every scenario of every evaluation passed.</p>\n</section>\n";
  h += "<table>\n<tr><th>evaluation</th><th>when</th><th>scenario</th><th>name</th><th>status</th><th>why</th></tr>\n";
  for (const auto& f : m.failures) {
    h += fmt::format(
        "<tr><td class=\"num\">#{}</td><td class=\"num\">{}</td><td class=\"mono\">{}</td>"
        "<td class=\"mono text\">{}</td><td class=\"{}\">{}</td><td class=\"text\">{}</td></tr>\n",
        f.evaluation, escape_html(f.time),
        escape_html(f.scenario.empty() ? std::string("(whole evaluation)") : f.scenario), escape_html(f.name),
        status_class(f.status), escape_html(f.status), escape_html(shorten(f.message, 2000)));
  }
  h += "</table>\n</section>\n";
  return h;
}

std::string human_rate(double value, std::string_view unit) {
  return fmt::format("{} {}", fixed(value / 1e12, value >= 1e14 ? 0 : 2), unit);
}

}  // namespace

std::string render_html_report(const ReportModel& m) {
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += fmt::format("<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n",
                   escape_html(kContentSecurityPolicy));
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  h += "<meta name=\"generator\" content=\"kseek " KSEEK_SDK_VERSION "\">\n";
  h += "<title>kseek campaign report: " + escape_html(m.campaign) + "</title>\n";
  h += "<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
  h += "<header>\n<h1>Campaign <code>" + escape_html(m.campaign) + "</code></h1>\n";
  h += "<p class=\"sub\">kseek campaign report \xC2\xB7 " + escape_html(m.plugin) +
       (m.goal.empty() ? "" : " \xC2\xB7 goal <code>" + escape_html(m.goal) + "</code>") + "</p>\n</header>\n";
  h += warnings_section(m);
  h += summary_section(m);

  h += "<section id=\"geomean\">\n<h2>Geomean over evaluations</h2>\n";
  h += "<p class=\"note\">Geomean of the per-scenario ratios (seed time / candidate time; above 1 is faster) with its "
       "95% interval (band). Filled points: every scenario passed; hollow red: some failed (geomean over the passed "
       "ones); red \xC3\x97: no geomean. Dashed green: best so far. Numbered markers: events and questions "
       "(table below); hover for details.</p>\n";
  h += geomean_plot(m);
  h += "<p class=\"note\">";
  for (const char* type : {"event", "question", "claim", "steer", "gate"}) {
    h += fmt::format("<span class=\"swatch\" style=\"background:{}\"></span>{}", marker_colour(type), type);
  }
  h += "</p>\n</section>\n";

  h += "<section id=\"heatmap\">\n<h2>Per-scenario ratio across evaluations</h2>\n";
  h += "<p class=\"note\">Rows: scenarios; columns: evaluations (\xE2\x98\x85 best; red number: not every scenario "
       "passed). Hover a cell for the ratio's interval or the failure message.</p>\n";
  h += heatmap(m);
  h += "</section>\n";

  h += "<section id=\"roofline\">\n<h2>Achieved rate against the GPU's peaks</h2>\n";
  if (m.roofline) {
    const auto& r = *m.roofline;
    h += fmt::format(
        "<p class=\"note\">Evaluation #{} on {}: peaks {} dense bf16 ({}) and {} memory bandwidth ({}). "
        "Each scenario's bar is its share of whichever peak it uses more.</p>\n",
        r.evaluation, escape_html(r.gpu.empty() ? "an unnamed GPU" : r.gpu), human_rate(r.peak_flops, "TFLOP/s"),
        escape_html(r.flops_source), human_rate(r.peak_bytes_per_second, "TB/s"), escape_html(r.bytes_source));
    h += roofline_plot(r);
  } else {
    h += "<p class=\"note\">No trusted full evaluation record with the GPU's peaks yet.</p>\n";
  }
  h += "</section>\n";

  h += timeline_section(m);
  h += failures_section(m);
  h += "<footer><p class=\"note\">Generated by kseek " KSEEK_SDK_VERSION
       " from the campaign's log and evaluation "
       "records; a self-contained file (no scripts, nothing loaded from elsewhere).</p></footer>\n";
  h += "</body>\n</html>\n";
  return h;
}

}  // namespace kseek
