// The campaign summary as GitHub-flavoured markdown, for pasting into an issue or a pull request.
// It must never let campaign text (agent or human) become markup: links, HTML, table breaks or headings.
#pragma once

#include <string>
#include <string_view>

#include "kseek/core/report/report_model.hpp"

namespace kseek {

std::string render_markdown_report(const ReportModel& model);

// Text for one markdown table cell: markdown punctuation backslash-escaped, newlines folded, at most
// `max_chars` code points.
std::string markdown_cell(std::string_view text, std::size_t max_chars = 200);

}  // namespace kseek
