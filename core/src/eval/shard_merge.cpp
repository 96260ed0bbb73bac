// `kseek merge`: one record from the shard records of one evaluation, or an error that names the files.
// It must never accept records that are not parts of one evaluation (plugin, candidate, seed, input seed, settings,
// kseek version and selection must agree) nor drop or duplicate a scenario.
#include <algorithm>
#include <map>
#include <optional>
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
  const json environment = at_path(record, "environment");
  if (!environment.is_object()) return gpus;
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

// Each shard's record, typed; an error names the file that is not a shard record.
Result<std::vector<EvaluationRecord>> read_shards(const std::vector<RecordFile>& shards) {
  std::vector<EvaluationRecord> typed;
  for (const auto& s : shards) {
    if (!s.record.is_object() || at_path(s.record, "schema") != kEvalRecordSchema) {
      return make_error(fmt::format("{}: not a {} record (schema {})", s.file, kEvalRecordSchema,
                                    brief(s.record.is_object() ? at_path(s.record, "schema") : json(nullptr))));
    }
    auto record = evaluation_record_from_json(s.record);
    if (!record) return make_error(fmt::format("{}: {}", s.file, record.error().message));
    if (!record->shard) {
      return make_error(
          fmt::format("{}: not a shard record (no \"shard\" block: it was written without --shard)", s.file));
    }
    typed.push_back(std::move(*record));
  }
  return typed;
}

// Everything that makes the shards parts of one evaluation must agree (the plugin's path may differ per node),
// compared as the records hold them: a key the type does not model must agree as well. One evaluation is one GPU
// model; a shard that found no GPU has none to compare.
Result<Ok> check_one_evaluation(const std::vector<RecordFile>& shards, const std::vector<EvaluationRecord>& typed) {
  const RecordFile& first = shards.front();
  constexpr std::string_view kMustAgree[] = {"kseek_version", "plugin.id",  "plugin.version", "candidate.sha256",
                                             "seed.sha256",   "input_seed", "settings",       "synthetic",
                                             "shard.count",   "shard.set",  "shard.selection"};
  for (const auto& s : shards) {
    for (std::string_view path : kMustAgree) {
      const json a = at_path(first.record, path), b = at_path(s.record, path);
      if (a != b) {
        return make_error(fmt::format("{} and {} are not shards of one evaluation: they differ in {} ({} vs {})",
                                      first.file, s.file, path, brief(a), brief(b)));
      }
    }
  }
  std::optional<std::size_t> measured;
  for (std::size_t i = 0; i < typed.size(); ++i) {
    const auto& environment = typed[i].environment;
    if (!environment || !environment->name) continue;
    if (!measured) {
      measured = i;
    } else if (*environment->name != *typed[*measured].environment->name) {
      return make_error(fmt::format("{} and {} ran on different GPU models ({} vs {}): one evaluation is one model",
                                    shards[*measured].file, shards[i].file, brief(*typed[*measured].environment->name),
                                    brief(*environment->name)));
    }
  }
  return Ok{};
}

// Shard index -> position in `shards`: every index of 0..count-1 exactly once.
Result<std::map<int, std::size_t>> shard_positions(const std::vector<RecordFile>& shards,
                                                   const std::vector<EvaluationRecord>& typed) {
  const int count = typed.front().shard->count;
  std::map<int, std::size_t> by_index;
  for (std::size_t i = 0; i < typed.size(); ++i) {
    const int index = typed[i].shard->index;
    if (index < 0 || index >= count) {
      return make_error(fmt::format("{}: shard index {} is not in 0..{}", shards[i].file, index, count - 1));
    }
    if (auto [it, fresh] = by_index.emplace(index, i); !fresh) {
      return make_error(
          fmt::format("{} and {} are both shard {} of {}", shards[it->second].file, shards[i].file, index, count));
    }
  }
  std::string missing;
  for (int i = 0; i < count; ++i) {
    if (!by_index.count(i)) missing += fmt::format("{}{}", missing.empty() ? "" : ", ", i);
  }
  if (!missing.empty())
    return make_error(fmt::format("shard(s) {} of {} missing: give every shard's record", missing, count));
  return by_index;
}

// Each scenario of the selection in exactly one shard, and each COMPLETE shard with a verdict for each of its own;
// the verdicts by scenario id, each with its shard's index.
Result<std::map<std::string, ScenarioOutcome>> shard_verdicts(const std::vector<RecordFile>& shards,
                                                              const std::vector<EvaluationRecord>& typed,
                                                              const std::map<int, std::size_t>& by_index) {
  std::map<std::string, std::size_t> owner;
  std::map<std::string, ScenarioOutcome> verdict;
  for (const auto& [index, i] : by_index) {
    const EvaluationRecord& r = typed[i];
    const std::string& file = shards[i].file;
    for (const auto& id : r.shard->scenarios) {
      if (auto [it, fresh] = owner.emplace(id, i); !fresh) {
        return make_error(fmt::format("scenario {} is in both {} and {}", id, shards[it->second].file, file));
      }
    }
    for (ScenarioOutcome outcome : r.scenario_list()) {
      const auto it = owner.find(outcome.scenario);
      if (it == owner.end() || it->second != i) {
        return make_error(fmt::format("{}: has a verdict for scenario {}, which is not among its shard's scenarios",
                                      file, outcome.scenario));
      }
      outcome.shard = index;
      verdict[outcome.scenario] = std::move(outcome);
    }
    if (r.status == RecordStatus::kComplete) {
      for (const auto& id : r.shard->scenarios) {
        if (!verdict.count(id))
          return make_error(fmt::format("{}: COMPLETE but without a verdict for its scenario {}", file, id));
      }
    }
  }
  const std::vector<std::string>& selection = typed.front().shard->selection;
  for (const auto& id : selection) {
    if (!owner.count(id)) return make_error(fmt::format("no shard covers scenario {}", id));
  }
  if (owner.size() != selection.size()) return make_error("the shards list scenarios that are not in their selection");
  return verdict;
}

// The merged record's provenance, status and message: where each shard came from, every GPU that measured, the
// longest shard's wall time; BUILD_FAILED or NEEDS_GPU when any shard was, with each such shard named.
void add_shard_provenance(EvaluationRecord& merged, const std::vector<RecordFile>& shards,
                          const std::vector<EvaluationRecord>& typed, const std::map<int, std::size_t>& by_index) {
  std::vector<MergedShard> merged_from;
  json gpus = json::array();
  std::string build_failed, needs_gpu;
  int needs_gpu_count = 0;
  double wall = 0;
  for (const auto& [index, i] : by_index) {
    const EvaluationRecord& r = typed[i];
    const std::string status(to_string(r.status));
    MergedShard entry;
    entry.file = shards[i].file;
    entry.shard = index;
    entry.status = status;
    entry.host = r.shard->host;
    entry.created_at = r.created_at;
    entry.wall_seconds = r.wall_seconds.value_or(0.0);
    entry.message = r.message;
    merged_from.push_back(entry);
    for (auto& gpu : shard_gpus(shards[i].record, index, r.shard->host)) gpus.push_back(gpu);
    wall = std::max(wall, entry.wall_seconds);
    const std::string line = fmt::format("{} (shard {}): {}", entry.file, index, r.message.value_or(status));
    if (r.status == RecordStatus::kBuildFailed) build_failed += (build_failed.empty() ? "" : "; ") + line;
    if (r.status == RecordStatus::kNeedsGpu) {
      needs_gpu += (needs_gpu.empty() ? "" : "; ") + line;
      ++needs_gpu_count;
    }
    // The environment with a GPU identity, when any shard had one.
    if (r.environment && r.environment->uuid && !(merged.environment && merged.environment->uuid)) {
      merged.environment = r.environment;
      merged.environment->gpus.reset();
    }
  }
  if (merged.environment && !gpus.empty()) merged.environment->gpus = gpus;
  merged.merged_from = std::move(merged_from);
  merged.wall_seconds = wall;  // the longest shard: the elapsed time when they ran at once
  if (!build_failed.empty()) {
    merged.status = RecordStatus::kBuildFailed;
    merged.message = build_failed;
  } else if (!needs_gpu.empty()) {
    merged.status = RecordStatus::kNeedsGpu;
    merged.message = fmt::format("{} of {} shards need a GPU: {}", needs_gpu_count, by_index.size(), needs_gpu);
  } else {
    merged.status = RecordStatus::kComplete;
  }
}

}  // namespace

Result<json> merge_shard_records(const std::vector<RecordFile>& shards) {
  if (shards.empty()) return make_error("merge: no records given");
  auto typed = read_shards(shards);
  if (!typed) return typed.error();
  if (auto same = check_one_evaluation(shards, *typed); !same) return same.error();
  auto by_index = shard_positions(shards, *typed);
  if (!by_index) return by_index.error();
  auto verdict = shard_verdicts(shards, *typed, *by_index);
  if (!verdict) return verdict.error();

  // The merged record: the first shard's common parts, every verdict in the selection's order, one summary.
  EvaluationRecord merged = typed->front();
  merged.shard.reset();
  merged.message.reset();
  merged.created_at = utc_timestamp();
  merged.scenarios.emplace();
  for (const auto& id : typed->front().shard->selection) {
    if (auto it = verdict->find(id); it != verdict->end()) merged.scenarios->push_back(it->second);
  }
  add_shard_provenance(merged, shards, *typed, *by_index);
  GeomeanOptions geomean;
  if (merged.settings && merged.settings->geomean_clamp && merged.settings->geomean_clamp->size() == 2) {
    geomean.clamp_low = (*merged.settings->geomean_clamp)[0];
    geomean.clamp_high = (*merged.settings->geomean_clamp)[1];
  }
  merged.summary = summarize(*merged.scenarios, geomean);
  return to_json(merged);
}

}  // namespace kseek
