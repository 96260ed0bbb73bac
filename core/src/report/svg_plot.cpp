// Small helpers for the report's hand-written SVG and HTML: escaping, scales, ticks, colours, an SVG writer.
// It must never emit text that was not escaped, nor any reference to a resource outside the document.
#include "kseek/core/report/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

namespace kseek::report {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence starting at text[i], or 0 when it is not one (overlong, surrogate, torn).
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  std::uint32_t code = 0;
  if ((lead & 0xE0) == 0xC0) {
    length = 2;
    code = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3;
    code = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4;
    code = lead & 0x07;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  static constexpr std::uint32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < kMinimum[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return length;
}

std::string hex_colour(double r, double g, double b) {
  const auto channel = [](double v) { return static_cast<int>(std::lround(std::clamp(v, 0.0, 255.0))); };
  return fmt::format("#{:02x}{:02x}{:02x}", channel(r), channel(g), channel(b));
}

// Position on the diverging scale: -1 at 0.5x or slower, 0 at 1.0, +1 at 2x or faster.
double ratio_position(double ratio) {
  if (!(ratio > 0) || !std::isfinite(ratio)) return 0;
  return std::clamp(std::log2(ratio), -1.0, 1.0);
}

}  // namespace

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        case '\t':
        case '\n': out += static_cast<char>(c); break;
        default:
          if (c < 0x20 || c == 0x7F) {
            out += kReplacement;
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      out += kReplacement;
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

std::string shorten(std::string_view text, std::size_t max_chars) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (chars == max_chars) {
      // Cut so that the ellipsis fits within max_chars: drop the last kept code point.
      std::size_t cut = i;
      do {
        --cut;
      } while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80);
      return std::string(text.substr(0, cut)) + "\xE2\x80\xA6";
    }
    const std::size_t length = std::max<std::size_t>(1, utf8_sequence_length(text, i));
    i += length;
    ++chars;
  }
  return std::string(text);
}

double LinearScale::operator()(double value) const {
  const double span = domain_high - domain_low;
  if (span == 0) return (range_low + range_high) / 2;
  return range_low + (value - domain_low) / span * (range_high - range_low);
}

std::vector<double> nice_ticks(double low, double high, int count) {
  std::vector<double> ticks;
  if (!std::isfinite(low) || !std::isfinite(high) || count < 1) return ticks;
  if (high < low) std::swap(low, high);
  if (high == low) return {low};
  const double raw = (high - low) / count;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double normalised = raw / magnitude;
  const double step = magnitude * (normalised <= 1 ? 1 : normalised <= 2 ? 2 : normalised <= 5 ? 5 : 10);
  for (double v = std::ceil(low / step - 1e-9) * step; v <= high + step * 1e-9; v += step) {
    ticks.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
    if (ticks.size() > 100) break;
  }
  return ticks;
}

std::string ratio_colour(double ratio) {
  // Neutral #f7f7f7; slower towards #d6604d/#b2182b, faster towards #4393c3/#2166ac (ColorBrewer RdBu ends).
  const double t = ratio_position(ratio);
  const double neutral[3] = {247, 247, 247};
  const double slow[3] = {178, 24, 43};
  const double fast[3] = {33, 102, 172};
  const double* end = t < 0 ? slow : fast;
  const double a = std::abs(t);
  return hex_colour(neutral[0] + (end[0] - neutral[0]) * a, neutral[1] + (end[1] - neutral[1]) * a,
                    neutral[2] + (end[2] - neutral[2]) * a);
}

std::string ratio_text_colour(double ratio) { return std::abs(ratio_position(ratio)) > 0.6 ? "#ffffff" : "#111111"; }

std::string fixed(double value, int digits) {
  if (!std::isfinite(value)) return "\xE2\x80\x94";
  return fmt::format("{:.{}f}", value, digits);
}

SvgWriter::SvgWriter(double width, double height, std::string_view label) {
  out_ = fmt::format(R"(<svg class="plot" width="{0:.0f}" height="{1:.0f}" viewBox="0 0 {0:.0f} {1:.0f}" role="img" )"
                     R"(aria-label="{2}">)",
                     width, height, escape_html(label));
  out_ += "\n";
}

namespace {
std::string tooltip_element(std::string_view tooltip) {
  return tooltip.empty() ? std::string() : "<title>" + escape_html(tooltip) + "</title>";
}
std::string points_text(const std::vector<std::pair<double, double>>& points) {
  std::string text;
  for (const auto& [x, y] : points) text += fmt::format("{}{:.1f},{:.1f}", text.empty() ? "" : " ", x, y);
  return text;
}
}  // namespace

void SvgWriter::rect(double x, double y, double w, double h, std::string_view attributes, std::string_view tooltip) {
  const std::string title = tooltip_element(tooltip);
  out_ += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" {})", x, y, std::max(0.0, w),
                      std::max(0.0, h), attributes);
  out_ += title.empty() ? "/>\n" : ">" + title + "</rect>\n";
}

void SvgWriter::line(double x1, double y1, double x2, double y2, std::string_view attributes) {
  out_ += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" {}/>)", x1, y1, x2, y2, attributes);
  out_ += "\n";
}

void SvgWriter::polyline(const std::vector<std::pair<double, double>>& points, std::string_view attributes) {
  out_ += fmt::format(R"(<polyline points="{}" fill="none" {}/>)", points_text(points), attributes) + "\n";
}

void SvgWriter::polygon(const std::vector<std::pair<double, double>>& points, std::string_view attributes) {
  out_ += fmt::format(R"(<polygon points="{}" {}/>)", points_text(points), attributes) + "\n";
}

void SvgWriter::circle(double cx, double cy, double r, std::string_view attributes, std::string_view tooltip) {
  const std::string title = tooltip_element(tooltip);
  out_ += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="{:.1f}" {})", cx, cy, r, attributes);
  out_ += title.empty() ? "/>\n" : ">" + title + "</circle>\n";
}

void SvgWriter::text(double x, double y, std::string_view content, std::string_view attributes,
                     std::string_view tooltip) {
  out_ += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" {}>{}{}</text>)", x, y, attributes, tooltip_element(tooltip),
                      escape_html(content));
  out_ += "\n";
}

void SvgWriter::open_group(std::string_view attributes, std::string_view tooltip) {
  out_ += fmt::format("<g {}>{}\n", attributes, tooltip_element(tooltip));
}

void SvgWriter::close_group() { out_ += "</g>\n"; }

std::string SvgWriter::finish() {
  out_ += "</svg>\n";
  return std::move(out_);
}

}  // namespace kseek::report
