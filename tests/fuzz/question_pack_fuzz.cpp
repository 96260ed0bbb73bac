// Fuzz target: parse_question_pack on arbitrary bytes. It must never let a crash, a leak or an exception escape,
// and every error must keep the documented `file:line:column: problem` shape.
#include <string>

#include "kseek/core/questions/question_pack.hpp"
#include "support/fuzz_target.hpp"

namespace kseek::fuzz {

int fuzz_question_pack(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  const auto pack = parse_question_pack(text, "fuzz.json");
  if (!pack) {
    if (pack.error().message.rfind("fuzz.json:", 0) != 0) violated("question_pack", "error without file:line:column");
    return 0;
  }
  for (const Question& q : pack->items) {
    if (q.id.empty() || q.line == 0) violated("question_pack", "accepted an item without id or line");
    if (auto at = find_item_id_offset(text, q.id); at && *at > text.size()) {
      violated("question_pack", "item id offset past the end of the text");
    }
  }
  const TextPosition end = position_of_offset(text, text.size());
  if (end.line == 0) violated("question_pack", "line numbers are 1-based");
  return 0;
}

}  // namespace kseek::fuzz

KSEEK_FUZZ_ENTRY(fuzz_question_pack)
