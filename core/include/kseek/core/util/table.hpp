// Aligned plain-text tables for people (the JSON output is for programs).
// It must never truncate a cell: a long cell widens its column.
#pragma once

#include <string>
#include <vector>

namespace kseek {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void add_row(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  // Columns whose index is listed are right-aligned (numbers).
  std::string render(const std::vector<std::size_t>& right_aligned = {}) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace kseek
