// The campaign report as one self-contained HTML page: inline CSS and SVG, no script, nothing fetched.
// It must never reference a resource outside the file, nor put any campaign text into it unescaped.
#pragma once

#include <string>

#include "kseek/core/report/report_model.hpp"

namespace kseek {

std::string render_html_report(const ReportModel& model);

}  // namespace kseek
