// Test support: reads the TOML kseek writes for Codex (.codex/config.toml, `-c key=value` values) back as JSON.
// It must never be used by product code, nor accept text outside the TOML subset it knows (it fails the test instead).
#pragma once

#include <cctype>
#include <string>
#include <string_view>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kseek::testing {

class TomlReader {
 public:
  // One TOML value (a `-c` override's right-hand side, say).
  static nlohmann::json value(std::string_view text) {
    TomlReader r(text);
    nlohmann::json v = r.parse_value();
    r.skip_blanks();
    if (!r.done()) r.fail("trailing text after the value");
    return v;
  }

  // A whole document: `[a.b]` headers and `key = value` lines (keys bare or quoted; no dotted keys on the left).
  static nlohmann::json document(std::string_view text) {
    nlohmann::json root = nlohmann::json::object();
    nlohmann::json::json_pointer table("");
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      TomlReader r(text.substr(start, end - start));
      r.skip_blanks();
      if (!r.done() && r.peek() != '#') {
        if (r.peek() == '[') {
          r.pos_++;
          std::string path;
          for (;;) {
            path += "/" + r.parse_key();
            r.skip_blanks();
            if (r.peek() == '.') {
              r.pos_++;
              continue;
            }
            break;
          }
          r.expect(']');
          table = nlohmann::json::json_pointer(path);
          if (!root.contains(table)) root[table] = nlohmann::json::object();
        } else {
          const std::string key = r.parse_key();
          r.skip_blanks();
          r.expect('=');
          root[table][key] = r.parse_value();
        }
        r.skip_blanks();
        if (!r.done() && r.peek() != '#') r.fail("trailing text on the line");
      }
      if (end == text.size()) break;
      start = end + 1;
    }
    return root;
  }

 private:
  explicit TomlReader(std::string_view text) : text_(text) {}

  bool done() const { return pos_ >= text_.size(); }
  char peek() const { return done() ? '\0' : text_[pos_]; }
  void skip_blanks() {
    while (!done() && (text_[pos_] == ' ' || text_[pos_] == '\t')) pos_++;
  }
  void fail(const std::string& why) {
    ADD_FAILURE() << "not the TOML subset kseek writes: " << why << " at " << pos_ << " in: " << text_;
    pos_ = text_.size();
  }
  void expect(char c) {
    skip_blanks();
    if (peek() != c) return fail(std::string("expected '") + c + "'");
    pos_++;
  }

  std::string parse_key() {
    skip_blanks();
    if (peek() == '"') return parse_string();
    std::string key;
    while (!done() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_' || peek() == '-'))
      key += text_[pos_++];
    if (key.empty()) fail("expected a key");
    return key;
  }

  // A basic string: JSON's escapes are a subset of TOML's, so the JSON parser reads it.
  std::string parse_string() {
    const std::size_t begin = pos_++;
    while (!done() && peek() != '"') pos_ += peek() == '\\' ? 2 : 1;
    if (done()) {
      fail("unterminated string");
      return {};
    }
    pos_++;
    return nlohmann::json::parse(text_.substr(begin, pos_ - begin)).get<std::string>();
  }

  nlohmann::json parse_value() {
    skip_blanks();
    const char c = peek();
    if (c == '"') return parse_string();
    if (c == '[') {
      pos_++;
      nlohmann::json array = nlohmann::json::array();
      skip_blanks();
      if (peek() == ']') {
        pos_++;
        return array;
      }
      for (;;) {
        array.push_back(parse_value());
        skip_blanks();
        if (peek() == ',') {
          pos_++;
          continue;
        }
        expect(']');
        return array;
      }
    }
    if (c == '{') {
      pos_++;
      nlohmann::json table = nlohmann::json::object();
      skip_blanks();
      if (peek() == '}') {
        pos_++;
        return table;
      }
      for (;;) {
        const std::string key = parse_key();
        expect('=');
        table[key] = parse_value();
        skip_blanks();
        if (peek() == ',') {
          pos_++;
          continue;
        }
        expect('}');
        return table;
      }
    }
    const std::size_t begin = pos_;
    while (!done() && std::string_view(",]} \t#").find(peek()) == std::string_view::npos) pos_++;
    const std::string word(text_.substr(begin, pos_ - begin));
    if (word == "true") return true;
    if (word == "false") return false;
    try {
      return nlohmann::json::parse(word);  // integers and floats in the forms kseek writes
    } catch (const nlohmann::json::exception&) {
      fail("unknown value '" + word + "'");
      return nullptr;
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace kseek::testing
