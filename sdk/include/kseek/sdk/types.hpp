// Plain value types that cross the plugin seam (scenarios, sources, constraints, plugin info), each with
// a JSON round-trip. They must never hold pointers, handles or hidden state: a value is all there is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kseek {

// A file offered to NVRTC or read by `kseek` (a seed, a candidate-facing header, a question pack).
// `name` is the include name (e.g. "kseek/attention/problem.h") or a display name for other files.
struct SourceFile {
  std::string name;
  std::string text;
  friend bool operator==(const SourceFile&, const SourceFile&) = default;
};

// One evaluation case. The core treats `name` as opaque: only the plugin parses it.
struct Scenario {
  std::string id;             // stable short id within its set, e.g. "H01"
  std::string name;           // complete `key=value,...` spec, parseable by the plugin
  std::string description;    // one line for people
  double flops = 0;           // useful floating-point operations (plugin's accounting)
  double bytes = 0;           // minimum bytes that must move between HBM and the chip
  std::string required_arch;  // e.g. "sm_90a"; empty when any of the plugin's targets will do
  friend bool operator==(const Scenario&, const Scenario&) = default;
};

struct ScenarioSet {
  std::string name;  // e.g. "case-study"
  std::string description;
  std::size_t size = 0;
  friend bool operator==(const ScenarioSet&, const ScenarioSet&) = default;
};

// A rule over the names found in a built cubin and its PTX (symbols, inlined-function names, externs).
// A name matching any pattern (ECMAScript regex, searched in both the mangled and demangled spelling)
// violates the rule.
struct SymbolRule {
  std::string id;           // e.g. "no-cutlass"
  std::string description;  // why the rule exists, shown with a violation
  std::vector<std::string> patterns;
  friend bool operator==(const SymbolRule&, const SymbolRule&) = default;
};

// Declared once by the plugin, overridable by a campaign; enforced on the built binary, never on source.
struct Constraints {
  std::vector<SymbolRule> forbidden_symbols;
  bool forbid_device_launch = true;  // dynamic parallelism lets work escape the timed window
  std::uint64_t max_cubin_bytes = 64ull << 20;
  double compile_timeout_seconds = 300.0;
  std::uint64_t max_compile_memory_bytes = 8ull << 30;  // a template explosion hits this, not the machine
  friend bool operator==(const Constraints&, const Constraints&) = default;
};

struct PluginInfo {
  std::string id;             // "attention.fa3"
  std::string operator_name;  // "forward attention"
  std::string description;
  std::string version;
  std::vector<std::string> target_archs;  // NVRTC arch names, e.g. {"sm_90a"}
  std::vector<ScenarioSet> scenario_sets;
  std::string default_set;
  friend bool operator==(const PluginInfo&, const PluginInfo&) = default;
};

// JSON round-trips. Field names are part of the documented result schema (docs/result-schema.md).
inline void to_json(nlohmann::json& j, const SourceFile& v) { j = {{"name", v.name}, {"text", v.text}}; }
inline void from_json(const nlohmann::json& j, SourceFile& v) {
  j.at("name").get_to(v.name);
  j.at("text").get_to(v.text);
}

inline void to_json(nlohmann::json& j, const Scenario& v) {
  j = {{"id", v.id},       {"name", v.name},   {"description", v.description},
       {"flops", v.flops}, {"bytes", v.bytes}, {"required_arch", v.required_arch}};
}
inline void from_json(const nlohmann::json& j, Scenario& v) {
  j.at("id").get_to(v.id);
  j.at("name").get_to(v.name);
  v.description = j.value("description", "");
  v.flops = j.value("flops", 0.0);
  v.bytes = j.value("bytes", 0.0);
  v.required_arch = j.value("required_arch", "");
}

inline void to_json(nlohmann::json& j, const ScenarioSet& v) {
  j = {{"name", v.name}, {"description", v.description}, {"size", v.size}};
}
inline void from_json(const nlohmann::json& j, ScenarioSet& v) {
  j.at("name").get_to(v.name);
  v.description = j.value("description", "");
  v.size = j.value("size", std::size_t{0});
}

inline void to_json(nlohmann::json& j, const SymbolRule& v) {
  j = {{"id", v.id}, {"description", v.description}, {"patterns", v.patterns}};
}
inline void from_json(const nlohmann::json& j, SymbolRule& v) {
  j.at("id").get_to(v.id);
  v.description = j.value("description", "");
  j.at("patterns").get_to(v.patterns);
}

inline void to_json(nlohmann::json& j, const Constraints& v) {
  j = {{"forbidden_symbols", v.forbidden_symbols},
       {"forbid_device_launch", v.forbid_device_launch},
       {"max_cubin_bytes", v.max_cubin_bytes},
       {"compile_timeout_seconds", v.compile_timeout_seconds},
       {"max_compile_memory_bytes", v.max_compile_memory_bytes}};
}
// Missing fields keep their defaults, so a campaign can override one field of the plugin's constraints.
inline void from_json(const nlohmann::json& j, Constraints& v) {
  if (j.contains("forbidden_symbols")) j.at("forbidden_symbols").get_to(v.forbidden_symbols);
  v.forbid_device_launch = j.value("forbid_device_launch", v.forbid_device_launch);
  v.max_cubin_bytes = j.value("max_cubin_bytes", v.max_cubin_bytes);
  v.compile_timeout_seconds = j.value("compile_timeout_seconds", v.compile_timeout_seconds);
  v.max_compile_memory_bytes = j.value("max_compile_memory_bytes", v.max_compile_memory_bytes);
}

inline void to_json(nlohmann::json& j, const PluginInfo& v) {
  j = {{"id", v.id},
       {"operator", v.operator_name},
       {"description", v.description},
       {"version", v.version},
       {"target_archs", v.target_archs},
       {"scenario_sets", v.scenario_sets},
       {"default_set", v.default_set}};
}
inline void from_json(const nlohmann::json& j, PluginInfo& v) {
  j.at("id").get_to(v.id);
  j.at("operator").get_to(v.operator_name);
  v.description = j.value("description", "");
  j.at("version").get_to(v.version);
  j.at("target_archs").get_to(v.target_archs);
  j.at("scenario_sets").get_to(v.scenario_sets);
  v.default_set = j.value("default_set", "");
}

}  // namespace kseek
