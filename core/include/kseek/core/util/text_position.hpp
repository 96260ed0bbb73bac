// Line and column of a byte offset in a text, for error messages of the form `file:line:column: problem`.
// Columns count characters (UTF-8 lead bytes), so a caret lines up under non-ASCII text too.
#pragma once

#include <cstddef>
#include <string_view>

namespace kseek {

struct TextPosition {
  std::size_t line = 1;
  std::size_t column = 1;
};

TextPosition position_of_offset(std::string_view text, std::size_t offset);

// A UTF-8 continuation byte (10xxxxxx): not the start of a character.
inline bool is_continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace kseek
