// Strict reader of `kseek.questions/1` packs: every error names file:line:column and the problem.
// It must never throw past its boundary nor silently ignore a field it does not know.
#include "kseek/core/questions/question_pack.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace kseek {
namespace {

using nlohmann::json;

template <std::size_t N>
bool is_one_of(const std::string& value, const std::string_view (&allowed)[N]) {
  return std::find(std::begin(allowed), std::end(allowed), value) != std::end(allowed);
}

template <std::size_t N>
std::string joined(const std::string_view (&allowed)[N]) {
  std::string out;
  for (const auto& a : allowed) out += (out.empty() ? "" : ", ") + std::string(a);
  return out;
}

std::string kind_of(const json& j) { return j.type_name(); }

// Thrown only inside this file and turned into an Error by parse_question_pack.
struct SchemaError {
  std::size_t offset;
  std::string message;
};

class PackReader {
 public:
  PackReader(std::string_view text) : text_(text) {}

  QuestionPack read(const json& root) {
    if (!root.is_object()) fail(0, fmt::format("the document must be a JSON object, got {}", kind_of(root)));
    check_keys(root, {"format", "pack", "items"}, {"format", "pack", "items"}, 0, "top level");
    const auto& format = root.at("format");
    if (!format.is_string() || format.get<std::string>() != kQuestionPackFormat) {
      fail(offset_of_key("format"),
           fmt::format("\"format\" must be \"{}\", got {}", kQuestionPackFormat, format.dump()));
    }
    QuestionPack pack;
    pack_offset_ = offset_of_key("pack");
    pack.line = position_of_offset(text_, pack_offset_).line;
    const auto& p = root.at("pack");
    if (!p.is_object()) fail(pack_offset_, fmt::format("\"pack\" must be an object, got {}", kind_of(p)));
    check_keys(p, {"id", "version", "description", "license"},
               {"id", "version", "description", "architecture", "license"}, pack_offset_, "\"pack\"");
    pack.id = string_field(p, "id", pack_offset_, "pack");
    pack.version = string_field(p, "version", pack_offset_, "pack");
    pack.description = string_field(p, "description", pack_offset_, "pack");
    pack.license = string_field(p, "license", pack_offset_, "pack");
    if (p.contains("architecture") && !p.at("architecture").is_null()) {
      pack.architecture = string_field(p, "architecture", pack_offset_, "pack");
    }
    const auto& items = root.at("items");
    if (!items.is_array())
      fail(offset_of_key("items"), fmt::format("\"items\" must be an array, got {}", kind_of(items)));
    std::map<std::string, std::size_t> seen;  // id -> occurrences so far, to locate duplicates
    for (std::size_t i = 0; i < items.size(); ++i) pack.items.push_back(read_item(items[i], i, seen));
    return pack;
  }

  [[noreturn]] static void fail(std::size_t offset, std::string message) {
    throw SchemaError{offset, std::move(message)};
  }

 private:
  Question read_item(const json& item, std::size_t index, std::map<std::string, std::size_t>& seen) {
    std::size_t offset = pack_offset_;
    const std::string where = fmt::format("item {}", index);
    if (item.is_object() && item.contains("id") && item.at("id").is_string()) {
      const auto id = item.at("id").get<std::string>();
      if (auto found = find_item_id_offset(text_, id, seen[id]++)) offset = *found;
    }
    if (!item.is_object()) fail(offset, fmt::format("{} must be an object, got {}", where, kind_of(item)));
    check_keys(item, {"id", "text", "triggers", "intent", "requires_other_implementation", "provenance"},
               {"id", "text", "triggers", "intent", "requires_other_implementation", "provenance", "notes",
                "answered_by_record", "topics"},
               offset, where);
    Question q;
    q.line = position_of_offset(text_, offset).line;
    q.id = string_field(item, "id", offset, where);
    const std::string named = fmt::format("item '{}'", q.id);
    q.text = string_field(item, "text", offset, named);
    q.intent = string_field(item, "intent", offset, named);
    q.provenance = string_field(item, "provenance", offset, named);
    if (item.contains("notes")) q.notes = string_field(item, "notes", offset, named);
    const auto& roi = item.at("requires_other_implementation");
    if (!roi.is_boolean()) {
      fail(offset,
           fmt::format("{}: \"requires_other_implementation\" must be true or false, got {}", named, roi.dump()));
    }
    q.requires_other_implementation = roi.get<bool>();
    if (item.contains("answered_by_record")) {
      const auto& by_record = item.at("answered_by_record");
      if (!by_record.is_boolean()) {
        fail(offset, fmt::format("{}: \"answered_by_record\" must be true or false, got {}", named, by_record.dump()));
      }
      q.answered_by_record = by_record.get<bool>();
    }
    q.triggers = value_list(item.at("triggers"), "triggers", "trigger", kQuestionTriggers, offset, named);
    if (item.contains("topics"))
      q.topics = value_list(item.at("topics"), "topics", "topic", kQuestionTopics, offset, named);
    if (!is_one_of(q.intent, kQuestionIntents)) {
      fail(offset,
           fmt::format("{}: unknown intent \"{}\" (expected one of: {})", named, q.intent, joined(kQuestionIntents)));
    }
    if (!is_one_of(q.provenance, kQuestionProvenances)) {
      fail(offset, fmt::format("{}: unknown provenance \"{}\" (expected one of: {})", named, q.provenance,
                               joined(kQuestionProvenances)));
    }
    return q;
  }

  // An array of strings, each one of `allowed` (the documented value set of `field`).
  template <std::size_t N>
  static std::vector<std::string> value_list(const json& list, std::string_view field, std::string_view value,
                                             const std::string_view (&allowed)[N], std::size_t offset,
                                             const std::string& named) {
    if (!list.is_array()) fail(offset, fmt::format("{}: \"{}\" must be an array, got {}", named, field, kind_of(list)));
    std::vector<std::string> out;
    for (const auto& v : list) {
      if (!v.is_string() || !is_one_of(v.get<std::string>(), allowed)) {
        fail(offset, fmt::format("{}: unknown {} {} (expected one of: {})", named, value, v.dump(), joined(allowed)));
      }
      out.push_back(v.get<std::string>());
    }
    return out;
  }

  static void check_keys(const json& object, std::initializer_list<std::string_view> required,
                         std::initializer_list<std::string_view> known, std::size_t offset, const std::string& where) {
    for (const auto& [key, value] : object.items()) {
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        std::string list;
        for (const auto& k : known) list += (list.empty() ? "" : ", ") + std::string(k);
        fail(offset, fmt::format("{}: unknown field \"{}\" (known: {})", where, key, list));
      }
    }
    for (const auto& key : required) {
      if (!object.contains(std::string(key)))
        fail(offset, fmt::format("{}: missing required field \"{}\"", where, key));
    }
  }

  static std::string string_field(const json& object, const char* key, std::size_t offset, const std::string& where) {
    const auto& v = object.at(key);
    if (!v.is_string()) fail(offset, fmt::format("{}: \"{}\" must be a string, got {}", where, key, kind_of(v)));
    return v.get<std::string>();
  }

  // Offset of the first `"key"` followed by ':' (good enough for the top-level keys of a pack).
  std::size_t offset_of_key(std::string_view key) const {
    const std::string quoted = fmt::format("\"{}\"", key);
    for (std::size_t at = text_.find(quoted); at != std::string_view::npos; at = text_.find(quoted, at + 1)) {
      std::size_t after = at + quoted.size();
      while (after < text_.size() && std::isspace(static_cast<unsigned char>(text_[after]))) ++after;
      if (after < text_.size() && text_[after] == ':') return at;
    }
    return 0;
  }

  std::string_view text_;
  std::size_t pack_offset_ = 0;
};

// nlohmann's what() is "[json.exception.parse_error.101] parse error at line L, column C: <problem>".
std::string syntax_problem(const std::string& what) {
  const auto column = what.find("column ");
  const auto colon = what.find(": ", column == std::string::npos ? 0 : column);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

}  // namespace

std::optional<std::size_t> find_item_id_offset(std::string_view text, std::string_view item_id,
                                               std::size_t occurrence) {
  const std::string quoted = nlohmann::json(std::string(item_id)).dump();
  for (std::size_t at = text.find(quoted); at != std::string_view::npos; at = text.find(quoted, at + 1)) {
    // Walk back over whitespace, ':', whitespace and expect the key "id".
    std::size_t i = at;
    while (i > 0 && std::isspace(static_cast<unsigned char>(text[i - 1]))) --i;
    if (i == 0 || text[i - 1] != ':') continue;
    --i;
    while (i > 0 && std::isspace(static_cast<unsigned char>(text[i - 1]))) --i;
    if (i < 4 || text.substr(i - 4, 4) != "\"id\"") continue;
    if (occurrence-- == 0) return i - 4;
  }
  return std::nullopt;
}

Result<QuestionPack> parse_question_pack(std::string_view text, std::string_view file_name) {
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based: the position of the last character read.
    const auto pos = position_of_offset(text, e.byte == 0 ? 0 : e.byte - 1);
    return make_error(
        fmt::format("{}:{}:{}: JSON syntax error: {}", file_name, pos.line, pos.column, syntax_problem(e.what())));
  } catch (const nlohmann::json::exception& e) {
    // Not a syntax error but still thrown while parsing: a number too large for a double (out_of_range 406).
    return make_error(fmt::format("{}:1:1: JSON value error: {}", file_name, e.what()));
  }
  try {
    return PackReader(text).read(root);
  } catch (const SchemaError& e) {
    const auto pos = position_of_offset(text, e.offset);
    return make_error(fmt::format("{}:{}:{}: {}", file_name, pos.line, pos.column, e.message));
  } catch (const nlohmann::json::exception& e) {
    return make_error(fmt::format("{}:1:1: {}", file_name, e.what()));
  }
}

bool is_pack_architecture(std::string_view architecture) {
  if (!architecture.starts_with("sm_")) return false;
  std::string_view rest = architecture.substr(3);
  if (!rest.empty() && rest.back() >= 'a' && rest.back() <= 'z') rest.remove_suffix(1);
  return (rest.size() == 2 || rest.size() == 3) &&
         std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace kseek
