// Column widths from the widest cell, two spaces between columns, a rule under the header.
// It must never pad the last column with trailing blanks.
#include "kseek/core/util/table.hpp"

#include <algorithm>

namespace kseek {

std::string Table::render(const std::vector<std::size_t>& right_aligned) const {
  std::vector<std::size_t> widths(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  };
  measure(header_);
  for (const auto& row : rows_) measure(row);
  auto is_right = [&](std::size_t i) {
    return std::find(right_aligned.begin(), right_aligned.end(), i) != right_aligned.end();
  };
  auto line = [&](const std::vector<std::string>& row) {
    std::string out;
    for (std::size_t i = 0; i < widths.size(); ++i) {
      const std::string cell = i < row.size() ? row[i] : "";
      const std::string pad(widths[i] - std::min(widths[i], cell.size()), ' ');
      const bool last = i + 1 == widths.size();
      out += is_right(i) ? pad + cell : (last ? cell : cell + pad);
      if (!last) out += "  ";
    }
    return out + "\n";
  };
  std::string out = line(header_);
  std::size_t total = 0;
  for (auto w : widths) total += w;
  out += std::string(total + 2 * (widths.empty() ? 0 : widths.size() - 1), '-') + "\n";
  for (const auto& row : rows_) out += line(row);
  return out;
}

}  // namespace kseek
