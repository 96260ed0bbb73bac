// `kseek merge`: one record from the shard records of one evaluation, or an error that names the files.
// It must never accept records that are not parts of one evaluation (plugin, candidate, seed, input seed, settings,
// kseek version and selection must agree) nor drop or duplicate a scenario.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "kseek/core/eval/evaluator.hpp"
#include "kseek/core/util/utc_time.hpp"

namespace kseek {
using nlohmann::json;

namespace {

// `a.b.c` of a record, or null.
json at_path(const json& record, std::string_view path) {
  const json* node = &record;
  std::size_t begin = 0;
  while (begin <= path.size()) {
    const std::size_t dot = std::min(path.find('.', begin), path.size());
    const std::string key(path.substr(begin, dot - begin));
    if (!node->is_object() || !node->contains(key)) return nullptr;
    node = &(*node)[key];
    begin = dot + 1;
  }
  return *node;
}

std::string brief(const json& value) {
  std::string text = value.is_null() ? "(absent)" : value.dump();
  if (text.size() > 120) text = text.substr(0, 117) + "...";
  return text;
}

// The GPUs a shard used: its environment.gpus (with --gpus), else its single GPU's identity.
json shard_gpus(const json& record, int shard, const std::string& host) {
  json gpus = json::array();
  const json environment = record.value("environment", json::object());
  if (environment.contains("gpus")) {
    gpus = environment["gpus"];
  } else if (environment.contains("uuid")) {
    json gpu = environment;
    gpu.erase("nvrtc_version");
    gpu.erase("cuda_headers_version");
    gpus.push_back(gpu);
  }
  for (auto& gpu : gpus) {
    gpu["shard"] = shard;
    gpu["host"] = host;
  }
  return gpus;
}

}  // namespace

Result<json> merge_shard_records(const std::vector<RecordFile>& shards) {
  if (shards.empty()) return make_error("merge: no records given");
  for (const auto& s : shards) {
    if (!s.record.is_object() || s.record.value("schema", "") != kEvalRecordSchema) {
      return make_error(fmt::format("{}: not a {} record (schema {})", s.file, kEvalRecordSchema,
                                    brief(s.record.is_object() ? at_path(s.record, "schema") : json(nullptr))));
    }
    if (!s.record.contains("shard") || !s.record["shard"].is_object()) {
      return make_error(fmt::format("{}: not a shard record (no \"shard\" block: it was written without --shard)", s.file));
    }
  }
  // Everything that makes the shards parts of one evaluation must agree (the plugin's path may differ per node).
  const RecordFile& first = shards.front();
  constexpr std::string_view kMustAgree[] = {"kseek_version", "plugin.id", "plugin.version", "candidate.sha256",
                                             "seed.sha256", "input_seed", "settings", "synthetic", "shard.count",
                                             "shard.set", "shard.selection"};
  for (const auto& s : shards) {
    for (std::string_view path : kMustAgree) {
      const json a = at_path(first.record, path), b = at_path(s.record, path);
      if (a != b) {
        return make_error(fmt::format("{} and {} are not shards of one evaluation: they differ in {} ({} vs {})",
                                      first.file, s.file, path, brief(a), brief(b)));
      }
    }
  }  // One evaluation is one GPU model; a shard that found no GPU has none to compare.
  const RecordFile* measured = nullptr;
  for (const auto& s : shards) {
    const json name = at_path(s.record, "environment.name");
    if (name.is_null()) continue;
    if (measured == nullptr) {
      measured = &s;
    } else if (name != at_path(measured->record, "environment.name")) {
      return make_error(fmt::format("{} and {} ran on different GPU models ({} vs {}): one evaluation is one model",
                                    measured->file, s.file, brief(at_path(measured->record, "environment.name")),
                                    brief(name)));
    }
  }

  const int count = first.record["shard"].value("count", 0);
  const json selection = first.record["shard"].value("selection", json::array());
  std::map<int, const RecordFile*> by_index;
  for (const auto& s : shards) {
    const int index = s.record["shard"].value("index", -1);
    if (index < 0 || index >= count) {
      return make_error(fmt::format("{}: shard index {} is not in 0..{}", s.file, index, count - 1));
    }
    if (auto [it, fresh] = by_index.emplace(index, &s); !fresh) {
      return make_error(fmt::format("{} and {} are both shard {} of {}", it->second->file, s.file, index, count));
    }
  }
  std::string missing;
  for (int i = 0; i < count; ++i) {
    if (!by_index.count(i)) missing += fmt::format("{}{}", missing.empty() ? "" : ", ", i);
  }
  if (!missing.empty()) return make_error(fmt::format("shard(s) {} of {} missing: give every shard's record", missing, count));

  // Each scenario of the selection in exactly one shard, and each COMPLETE shard with a verdict for each of its own.
  std::map<std::string, const RecordFile*> owner;
  std::map<std::string, json> verdict;
  for (const auto& [index, s] : by_index) {
    for (const auto& id : s->record["shard"].value("scenarios", json::array())) {
      if (auto [it, fresh] = owner.emplace(id.get<std::string>(), s); !fresh) {
        return make_error(fmt::format("scenario {} is in both {} and {}", id.get<std::string>(), it->second->file, s->file));
      }
    }
    for (json r : s->record.value("scenarios", json::array())) {
      const std::string id = r.value("scenario", "");
      const auto it = owner.find(id);
      if (it == owner.end() || it->second != s) {
        return make_error(fmt::format("{}: has a verdict for scenario {}, which is not among its shard's scenarios", s->file, id));
      }
      r["shard"] = index;
      verdict[id] = std::move(r);
    }
    if (s->record.value("status", "") == "COMPLETE") {
      for (const auto& id : s->record["shard"].value("scenarios", json::array())) {
        if (!verdict.count(id.get<std::string>())) {
          return make_error(fmt::format("{}: COMPLETE but without a verdict for its scenario {}", s->file, id.get<std::string>()));
        }
      }
    }
  }
  for (const auto& id : selection) {
    if (!owner.count(id.get<std::string>())) return make_error(fmt::format("no shard covers scenario {}", id.get<std::string>()));
  }
  if (owner.size() != selection.size()) return make_error("the shards list scenarios that are not in their selection");

  // The merged record: the first shard's common parts, every verdict in the selection's order, one summary.
  json merged = first.record;
  merged.erase("shard");
  merged.erase("message");
  merged["created_at"] = utc_timestamp();
  json scenarios = json::array(), merged_from = json::array(), gpus = json::array();
  for (const auto& id : selection) {
    if (auto it = verdict.find(id.get<std::string>()); it != verdict.end()) scenarios.push_back(it->second);
  }
  merged["scenarios"] = scenarios;
  std::string build_failed, needs_gpu;
  int needs_gpu_count = 0;
  double wall = 0;
  for (const auto& [index, s] : by_index) {
    const json& r = s->record;
    const std::string status = r.value("status", "");
    const std::string host = r["shard"].value("host", "");
    json entry = {{"file", s->file}, {"shard", index}, {"status", status}, {"host", host},
                  {"created_at", r.value("created_at", "")}, {"wall_seconds", r.value("wall_seconds", 0.0)}};
    if (r.contains("message")) entry["message"] = r["message"];
    merged_from.push_back(entry);
    for (auto& gpu : shard_gpus(r, index, host)) gpus.push_back(gpu);
    wall = std::max(wall, r.value("wall_seconds", 0.0));
    const std::string line = fmt::format("{} (shard {}): {}", s->file, index, r.value("message", status));
    if (status == "BUILD_FAILED") build_failed += (build_failed.empty() ? "" : "; ") + line;
    if (status == "NEEDS_GPU") {
      needs_gpu += (needs_gpu.empty() ? "" : "; ") + line;
      ++needs_gpu_count;
    }
    if (status != "BUILD_FAILED" && status != "NEEDS_GPU" && status != "COMPLETE") {
      return make_error(fmt::format("{}: unknown record status '{}'", s->file, status));
    }
    // The environment with a GPU identity, when any shard had one.
    if (r.contains("environment") && r["environment"].contains("uuid") && !merged["environment"].contains("uuid")) {
      merged["environment"] = r["environment"];
      merged["environment"].erase("gpus");
    }
  }
  if (merged.contains("environment") && !gpus.empty()) merged["environment"]["gpus"] = gpus;
  merged["merged_from"] = merged_from;
  GeomeanOptions geomean;
  if (const json clamp = at_path(merged, "settings.geomean_clamp"); clamp.is_array() && clamp.size() == 2) {
    geomean.clamp_low = clamp[0].get<double>();
    geomean.clamp_high = clamp[1].get<double>();
  }
  summarize(merged, geomean);
  merged["wall_seconds"] = wall;  // the longest shard: the elapsed time when they ran at once
  if (!build_failed.empty()) {
    merged["status"] = "BUILD_FAILED";
    merged["message"] = build_failed;
  } else if (!needs_gpu.empty()) {
    merged["status"] = "NEEDS_GPU";
    merged["message"] = fmt::format("{} of {} shards need a GPU: {}", needs_gpu_count, count, needs_gpu);
  } else {
    merged["status"] = "COMPLETE";
  }
  return merged;
}

}  // namespace kseek
