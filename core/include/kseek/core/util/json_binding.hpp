// Typed JSON documents whose keys are listed once. A type opts in with one function, found by argument-dependent
// lookup (so it lives in the type's own namespace, not an unnamed one):
//
//   template <class Io> void bind_keys(Io& io, Thresholds& v) {
//     io("stagnation_minutes", v.stagnation_minutes);   // each key once, for reading and for writing
//     io.unmodelled(v.rest);                             // keys it does not model are kept here ...
//     // ... or io.no_other_keys();                       // ... or are an error ("thresholds.x: unknown key")
//   }
//
// Fields may be bool, integers, double, std::string, json, std::optional of any of them (absent stays empty), vectors,
// string-keyed maps, other bound types, and enums that provide `std::string_view to_string(E)` and
// `std::optional<std::string> read_enum(std::string_view text, E& out)` (the error text, or nothing).
// It must never accept a value of the wrong type: a reading error names the key path (`eval.min_rounds: expected an
// integer, found 10.5`), and a key that is absent keeps the field's default.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kseek/core/status.hpp"

namespace kseek::json_binding {

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

class Reader;
class Writer;

// Not named `bind`: argument-dependent lookup would find std::bind for std::string and std::vector fields.
template <class T>
concept Bound = requires(Reader& r, T& v) {
  bind_keys(r, v);
};

template <class T>
concept NamedEnum = std::is_enum_v<T> && requires(T v, std::string_view text) {
  { to_string(v) } -> std::convertible_to<std::string_view>;
  { read_enum(text, v) } -> std::same_as<std::optional<std::string>>;
};

// Takes each modelled key out of a copy of the object; what is left is the level's unmodelled keys. The first wrong
// key stops the reading (the later ones are not looked at).
class Reader {
 public:
  Reader(const nlohmann::json& object, std::string path) : rest_(object), path_(std::move(path)) {}

  template <class T>
  void operator()(const char* key, T& field) {
    if (error_) return;
    const auto it = rest_.find(key);
    if (it == rest_.end()) return;  // plain fields keep their defaults, optional ones stay empty
    error_ = read(*it, field, where(key));
    rest_.erase(it);
  }

  void unmodelled(nlohmann::json& keys) {
    if (!error_) keys = std::move(rest_);
  }

  void no_other_keys() {
    if (!error_ && !rest_.empty()) error_ = fmt::format("{}: unknown key", where(rest_.begin().key()));
  }

  std::optional<std::string> error() const { return error_; }

  static std::optional<std::string> wrong(const std::string& path, std::string_view expected,
                                          const nlohmann::json& found) {
    std::string shown = found.dump();
    if (shown.size() > 60) shown = shown.substr(0, 57) + "...";
    if (path.empty()) return fmt::format("expected {}, found {}", expected, shown);  // the document itself
    return fmt::format("{}: expected {}, found {}", path, expected, shown);
  }

  template <class T>
  static std::optional<std::string> read(const nlohmann::json& j, T& out, const std::string& path) {
    if constexpr (IsOptional<T>::value) {
      typename T::value_type value{};
      if (auto e = read(j, value, path)) return e;
      out = std::move(value);
      return std::nullopt;
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!j.is_boolean()) return wrong(path, "true or false", j);
      out = j.get<bool>();
    } else if constexpr (std::is_integral_v<T>) {
      if (!j.is_number_integer()) return wrong(path, "an integer", j);
      if (std::is_unsigned_v<T> && !j.is_number_unsigned() && j.get<std::int64_t>() < 0) {
        return wrong(path, "an integer >= 0", j);
      }
      out = j.get<T>();
    } else if constexpr (std::is_same_v<T, double>) {
      if (!j.is_number()) return wrong(path, "a number", j);
      out = j.get<double>();
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (!j.is_string()) return wrong(path, "a string", j);
      out = j.get<std::string>();
    } else if constexpr (std::is_same_v<T, nlohmann::json>) {
      out = j;
    } else if constexpr (NamedEnum<T>) {
      if (!j.is_string()) return wrong(path, "a name", j);
      if (auto e = read_enum(j.get<std::string>(), out)) return fmt::format("{}: {}", path, *e);
    } else if constexpr (Bound<T>) {
      if (!j.is_object()) return wrong(path, "an object", j);
      Reader nested(j, path);
      bind_keys(nested, out);
      return nested.error();
    } else {
      return read_container(j, out, path);
    }
    return std::nullopt;
  }

 private:
  std::string where(std::string_view key) const {
    return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
  }

  template <class T>
  static std::optional<std::string> read_container(const nlohmann::json& j, std::vector<T>& out,
                                                   const std::string& path) {
    if (!j.is_array()) return wrong(path, "an array", j);
    out.clear();
    for (std::size_t i = 0; i < j.size(); ++i) {
      T item{};
      if (auto e = read(j[i], item, fmt::format("{}[{}]", path, i))) return e;
      out.push_back(std::move(item));
    }
    return std::nullopt;
  }

  template <class V>
  static std::optional<std::string> read_container(const nlohmann::json& j, std::map<std::string, V>& out,
                                                   const std::string& path) {
    if (!j.is_object()) return wrong(path, "an object", j);
    out.clear();
    for (const auto& [key, item] : j.items()) {
      if (auto e = read(item, out[key], path + "." + key)) return e;
    }
    return std::nullopt;
  }

  nlohmann::json rest_;
  std::string path_;
  std::optional<std::string> error_;
};

class Writer {
 public:
  template <class T>
  void operator()(const char* key, const T& field) {
    if constexpr (IsOptional<T>::value) {
      if (field) out_[key] = write(*field);
    } else {
      out_[key] = write(field);
    }
  }

  void unmodelled(const nlohmann::json& keys) {
    for (const auto& [key, item] : keys.items()) out_[key] = item;
  }

  void no_other_keys() {}

  nlohmann::json take() { return std::move(out_); }

  template <class T>
  static nlohmann::json write(const T& value) {
    if constexpr (NamedEnum<T>) {
      return std::string(to_string(value));
    } else if constexpr (Bound<T>) {
      Writer nested;
      // bind_keys lists the keys for both directions; the writer only reads the fields.
      bind_keys(nested, const_cast<T&>(value));
      return nested.take();
    } else if constexpr (requires { value.begin(); } && !std::is_same_v<T, std::string> &&
                         !std::is_same_v<T, nlohmann::json>) {
      const bool is_vector = std::is_same_v<T, std::vector<typename T::value_type>>;
      nlohmann::json out = is_vector ? nlohmann::json::array() : nlohmann::json::object();
      if constexpr (std::is_same_v<T, std::vector<typename T::value_type>>) {
        for (const auto& item : value) out.push_back(write(item));
      } else {
        for (const auto& [key, item] : value) out[key] = write(item);
      }
      return out;
    } else {
      return nlohmann::json(value);
    }
  }

 private:
  nlohmann::json out_ = nlohmann::json::object();
};

// The bound value of an object, or an error that starts with `what` and names the wrong key's path.
template <class T>
Result<T> read_bound(const nlohmann::json& j, std::string_view what) {
  T value{};
  if (auto e = Reader::read(j, value, "")) return make_error(fmt::format("{}: {}", what, *e));
  return value;
}

template <class T>
nlohmann::json write_bound(const T& value) {
  return Writer::write(value);
}

}  // namespace kseek::json_binding
