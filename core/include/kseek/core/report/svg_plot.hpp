// Small helpers for the report's hand-written SVG and HTML: escaping, scales, ticks, colours, an SVG writer.
// It must never emit text that was not escaped, nor any reference to a resource outside the document.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kseek::report {

// Escapes & < > " ' for HTML/XML text and attributes; invalid UTF-8 and control characters (other than tab and
// newline) become U+FFFD, so hostile or torn text can neither break out of an element nor make the file invalid.
std::string escape_html(std::string_view text);

// Shortens to at most `max_chars` code points, ending in an ellipsis when something was cut (UTF-8 aware).
std::string shorten(std::string_view text, std::size_t max_chars);

struct LinearScale {
  double domain_low = 0, domain_high = 1, range_low = 0, range_high = 1;
  double operator()(double value) const;
};

// About `count` round tick values covering [low, high] (steps of 1, 2 or 5 times a power of ten).
std::vector<double> nice_ticks(double low, double high, int count);

// Diverging colour around 1.0 on a log2 scale: below 1 (slower than the seed) orange-red, above 1 blue,
// saturating at 0.5x and 2x. `#rrggbb`.
std::string ratio_colour(double ratio);
// Black or white, whichever reads better on `ratio_colour(ratio)`.
std::string ratio_text_colour(double ratio);

// Fixed-point with `digits` decimals; "—" for a non-finite value.
std::string fixed(double value, int digits);

// An SVG document (inline in HTML) built element by element. `attributes` arguments are trusted attribute text
// written by the report code (classes, colours); every piece of content text goes through escape_html.
class SvgWriter {
 public:
  SvgWriter(double width, double height, std::string_view label);
  void rect(double x, double y, double w, double h, std::string_view attributes, std::string_view tooltip = {});
  void line(double x1, double y1, double x2, double y2, std::string_view attributes);
  void polyline(const std::vector<std::pair<double, double>>& points, std::string_view attributes);
  void polygon(const std::vector<std::pair<double, double>>& points, std::string_view attributes);
  void circle(double cx, double cy, double r, std::string_view attributes, std::string_view tooltip = {});
  void text(double x, double y, std::string_view content, std::string_view attributes = {},
            std::string_view tooltip = {});
  void open_group(std::string_view attributes, std::string_view tooltip = {});
  void close_group();
  std::string finish();

 private:
  std::string out_;
};

}  // namespace kseek::report
