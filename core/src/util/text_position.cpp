// Line and column of a byte offset (see the header).
#include "kseek/core/util/text_position.hpp"

#include <algorithm>

namespace kseek {

TextPosition position_of_offset(std::string_view text, std::size_t offset) {
  TextPosition pos;
  offset = std::min(offset, text.size());
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else if (!is_continuation_byte(text[i])) {
      ++pos.column;
    }
  }
  return pos;
}

}  // namespace kseek
