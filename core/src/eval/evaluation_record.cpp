// The evaluation record's one JSON reading and one JSON writing. Each level's keys are listed once, in `bind_keys`, and
// both directions walk that list. It must never drop a key it does not model, nor accept a key of the wrong type.
#include "kseek/core/eval/evaluation_record.hpp"

#include <array>
#include <type_traits>

#include <fmt/format.h>

namespace kseek {
using nlohmann::json;

namespace {

constexpr std::array<std::pair<RecordStatus, std::string_view>, 3> kRecordStatusNames = {{
    {RecordStatus::kComplete, "COMPLETE"},
    {RecordStatus::kNeedsGpu, "NEEDS_GPU"},
    {RecordStatus::kBuildFailed, "BUILD_FAILED"},
}};

// ---- the keys of each level, listed once ---------------------------------------------------------------------------

template <class Io>
void bind_keys(Io& io, OutputCheck& v) {
  io("set", v.set);
  io("output", v.output);
  io("max_error", v.max_error);
  io("mean_error", v.mean_error);
  io("nonfinite", v.nonfinite);
  io("allowed_max_error", v.allowed_max_error);
  io("allowed_mean_error", v.allowed_mean_error);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, CorrectnessOutcome& v) {
  io("input_sets", v.input_sets);
  io("deterministic", v.deterministic);
  io("outputs", v.outputs);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, TimingOutcome& v) {
  io("rounds", v.rounds);
  io("seed_median_ms", v.seed_median_ms);
  io("candidate_median_ms", v.candidate_median_ms);
  io("ratio", v.ratio);
  io("ci_low", v.ci_low);
  io("ci_high", v.ci_high);
  io("confidence", v.confidence);
  io("meets_confidence", v.meets_confidence);
  io("relative_half_width", v.relative_half_width);
  io("ratio_of_medians", v.ratio_of_medians);
  io("outlier_rounds", v.outlier_rounds);
  io("stop_reason", v.stop_reason);
  io("timed_output_checks", v.timed_output_checks);
  io("timed_reference_launches", v.timed_reference_launches);
  io("timed_reference_checks", v.timed_reference_checks);
  io("candidate_tflops", v.candidate_tflops);
  io("seed_tflops", v.seed_tflops);
  io("candidate_gbps", v.candidate_gbps);
  io("seed_gbps", v.seed_gbps);
  io("percent_of_peak_flops", v.percent_of_peak_flops);
  io("percent_of_peak_bandwidth", v.percent_of_peak_bandwidth);
  io("physics_floor_ms", v.physics_floor_ms);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, RecordedLaunch& v) {
  io("kernel", v.kernel);
  io("grid", v.grid);
  io("block", v.block);
  io("cluster", v.cluster);
  io("dynamic_smem_bytes", v.dynamic_smem_bytes);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, RecordedPlan& v) {
  io("launches", v.launches);
  io("workspace_bytes", v.workspace_bytes);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, ScenarioPlans& v) {
  io("candidate", v.candidate);
  io("seed", v.seed);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, WorkerOutput& v) {
  io("bytes", v.bytes);
  io("text", v.text);
  io("truncated", v.truncated);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, MeasuringGpu& v) {
  io("ordinal", v.ordinal);
  io("uuid", v.uuid);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, ScenarioOutcome& v) {
  io("scenario", v.scenario);
  io("name", v.name);
  io("status", v.status);
  io("message", v.message);
  io("input_seed", v.input_seed);
  io("wall_seconds", v.wall_seconds);
  io("gpu", v.gpu);
  io("shard", v.shard);
  io("functional_arch", v.functional_arch);
  io("gpu_unusable", v.gpu_unusable);
  io("worker_job", v.worker_job);
  io("worker_ended", v.worker_ended);
  io("seconds", v.seconds);
  io("stage_seconds", v.stage_seconds);
  io("plan", v.plan);
  io("correctness", v.correctness);
  io("timing", v.timing);
  io("worker_output", v.worker_output);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, ClampedRatio& v) {
  io("scenario", v.scenario);
  io("raw", v.raw);
  io("clamped", v.clamped);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, GeomeanSummary& v) {
  io("value", v.value);
  io("ci_low", v.ci_low);
  io("ci_high", v.ci_high);
  io("scenarios", v.scenarios);
  io("clamped", v.clamped);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, RecordSummary& v) {
  io("scenarios", v.scenarios);
  io("status_counts", v.status_counts);
  io("geomean", v.geomean);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, PluginIdentity& v) {
  io("id", v.id);
  io("version", v.version);
  io("path", v.path);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, SourceIdentity& v) {
  io("file", v.file);
  io("sha256", v.sha256);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, RecordSettings& v) {
  io("measure_time", v.measure_time);
  io("functional_arch", v.functional_arch);
  io("geomean_clamp", v.geomean_clamp);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, BuiltKernel& v) {
  io("kernel", v.kernel);
  io("registers", v.registers);
  io("spill_store_bytes", v.spill_store_bytes);
  io("spill_load_bytes", v.spill_load_bytes);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, RecordedBuild& v) {
  io("role", v.role);
  io("status", v.status);
  io("message", v.message);
  io("build_seconds", v.build_seconds);
  io("cache_hit", v.cache_hit);
  io("names_inspected", v.names_inspected);
  io("kernels", v.kernels);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, RecordEnvironment& v) {
  io("nvrtc_version", v.nvrtc_version);
  io("cuda_headers_version", v.cuda_headers_version);
  io("name", v.name);
  io("uuid", v.uuid);
  io("driver_version", v.driver_version);
  io("compute_capability", v.compute_capability);
  io("copy_bandwidth_bytes_per_second", v.copy_bandwidth_bytes_per_second);
  io("gpus", v.gpus);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, RecordStages& v) {
  io("build", v.build);
  io("probe", v.probe);
  io("scenarios", v.scenarios);
  io("total", v.total);
  io("scenario_count", v.scenario_count);
  io("summed_over_scenarios", v.summed_over_scenarios);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, ShardBlock& v) {
  io("index", v.index);
  io("count", v.count);
  io("selection", v.selection);
  io("scenarios", v.scenarios);
  io("host", v.host);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, MergedShard& v) {
  io("file", v.file);
  io("shard", v.shard);
  io("status", v.status);
  io("host", v.host);
  io("created_at", v.created_at);
  io("wall_seconds", v.wall_seconds);
  io("message", v.message);
  io.unmodelled(v.unmodelled);
}

template <class Io>
void bind_keys(Io& io, EvaluationRecord& v) {
  io("schema", v.schema);
  io("kseek_version", v.kseek_version);
  io("created_at", v.created_at);
  io("status", v.status);
  io("message", v.message);
  io("plugin", v.plugin);
  io("candidate", v.candidate);
  io("seed", v.seed);
  io("input_seed", v.input_seed);
  io("synthetic", v.synthetic);
  io("settings", v.settings);
  io("builds", v.builds);
  io("environment", v.environment);
  io("timings_representative", v.timings_representative);
  io("scenarios", v.scenarios);
  io("summary", v.summary);
  io("wall_seconds", v.wall_seconds);
  io("stage_seconds", v.stage_seconds);
  io("shard", v.shard);
  io("merged_from", v.merged_from);
  io.unmodelled(v.unmodelled);
}

// ---- reading -------------------------------------------------------------------------------------------------------

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

class Reader;
// Not named `bind`: argument-dependent lookup would find std::bind for std::string and std::vector fields.
template <class T>
concept Level = requires(Reader& r, T& v) {
  bind_keys(r, v);
};

// Takes each modelled key out of a copy of the object; what is left is the level's unmodelled keys. The first wrong
// key stops the reading (the later ones are not looked at).
class Reader {
 public:
  Reader(const json& object, std::string path) : rest_(object), path_(std::move(path)) {}

  template <class T>
  void operator()(const char* key, T& field) {
    if (error_) return;
    const auto it = rest_.find(key);
    if (it == rest_.end()) return;  // plain fields keep their defaults, optional ones stay empty
    error_ = read(*it, field, path_.empty() ? std::string(key) : path_ + "." + key);
    rest_.erase(it);
  }

  void unmodelled(json& keys) {
    if (!error_) keys = std::move(rest_);
  }

  std::optional<std::string> error() const { return error_; }

  static std::optional<std::string> wrong(const std::string& path, std::string_view expected, const json& found) {
    std::string shown = found.dump();
    if (shown.size() > 60) shown = shown.substr(0, 57) + "...";
    return fmt::format("{}: expected {}, found {}", path, expected, shown);
  }

  template <class T>
  static std::optional<std::string> read(const json& j, T& out, const std::string& path) {
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
    } else if constexpr (std::is_same_v<T, json>) {
      out = j;
    } else if constexpr (std::is_same_v<T, Status>) {
      if (!j.is_string()) return wrong(path, "a status string (PASSED, FAILED, ...)", j);
      auto status = parse_status(j.get<std::string>());
      if (!status) return fmt::format("{}: {}", path, status.error().message);
      out = *status;
    } else if constexpr (std::is_same_v<T, RecordStatus>) {
      const auto status = j.is_string() ? record_status_from_string(j.get<std::string>()) : std::nullopt;
      if (!status) return wrong(path, "COMPLETE, NEEDS_GPU or BUILD_FAILED", j);
      out = *status;
    } else if constexpr (Level<T>) {
      if (!j.is_object()) return wrong(path, "an object", j);
      Reader nested(j, path);
      bind_keys(nested, out);
      return nested.error();
    } else {
      return read_container(j, out, path);
    }
    return std::nullopt;
  }

  template <class T>
  static std::optional<std::string> read_container(const json& j, std::vector<T>& out, const std::string& path) {
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
  static std::optional<std::string> read_container(const json& j, std::map<std::string, V>& out,
                                                   const std::string& path) {
    if (!j.is_object()) return wrong(path, "an object", j);
    out.clear();
    for (const auto& [key, item] : j.items()) {
      if (auto e = read(item, out[key], path + "." + key)) return e;
    }
    return std::nullopt;
  }

 private:
  json rest_;
  std::string path_;
  std::optional<std::string> error_;
};

// ---- writing -------------------------------------------------------------------------------------------------------

class Writer;
template <class T>
concept WritableLevel = requires(Writer& w, T& v) {
  bind_keys(w, v);
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

  void unmodelled(const json& keys) {
    for (const auto& [key, item] : keys.items()) out_[key] = item;
  }

  json take() { return std::move(out_); }

  template <class T>
  static json write(const T& value) {
    if constexpr (std::is_same_v<T, Status> || std::is_same_v<T, RecordStatus>) {
      return std::string(to_string(value));
    } else if constexpr (WritableLevel<T>) {
      Writer nested;
      // bind_keys lists the keys for both directions; the writer only reads the fields.
      bind_keys(nested, const_cast<T&>(value));
      return nested.take();
    } else if constexpr (requires { value.begin(); } && !std::is_same_v<T, std::string> && !std::is_same_v<T, json>) {
      json out = std::is_same_v<T, std::vector<typename T::value_type>> ? json::array() : json::object();
      if constexpr (std::is_same_v<T, std::vector<typename T::value_type>>) {
        for (const auto& item : value) out.push_back(write(item));
      } else {
        for (const auto& [key, item] : value) out[key] = write(item);
      }
      return out;
    } else {
      return json(value);
    }
  }

 private:
  json out_ = json::object();
};

template <class T>
Result<T> read_level(const json& j, std::string_view what) {
  T value{};
  if (auto e = Reader::read(j, value, "")) return make_error(fmt::format("{}: {}", what, *e));
  return value;
}

}  // namespace

std::string_view to_string(RecordStatus status) {
  for (const auto& [s, name] : kRecordStatusNames) {
    if (s == status) return name;
  }
  return "COMPLETE";
}

std::optional<RecordStatus> record_status_from_string(std::string_view text) {
  for (const auto& [s, name] : kRecordStatusNames) {
    if (name == text) return s;
  }
  return std::nullopt;
}

const std::vector<ScenarioOutcome>& EvaluationRecord::scenario_list() const {
  static const std::vector<ScenarioOutcome> kNone;
  return scenarios ? *scenarios : kNone;
}

bool EvaluationRecord::all_passed() const {
  const auto& list = scenario_list();
  if (list.empty()) return false;
  for (const auto& s : list) {
    if (!s.passed()) return false;
  }
  return true;
}

Result<EvaluationRecord> evaluation_record_from_json(const json& record) {
  if (!record.is_object()) return make_error("evaluation record: expected a JSON object");
  if (!record.contains("schema") || record["schema"] != kEvalRecordSchema) {
    return make_error(fmt::format("evaluation record: schema is {}, expected {}",
                                  record.contains("schema") ? record["schema"].dump() : "missing", kEvalRecordSchema));
  }
  if (!record.contains("status")) return make_error("evaluation record: status is missing");
  return read_level<EvaluationRecord>(record, "evaluation record");
}

json to_json(const EvaluationRecord& record) { return Writer::write(record); }

Result<ScenarioOutcome> scenario_outcome_from_json(const json& outcome) {
  if (!outcome.is_object() || !outcome.contains("status")) {
    return make_error("scenario outcome: expected an object with a status");
  }
  return read_level<ScenarioOutcome>(outcome, "scenario outcome");
}

json to_json(const ScenarioOutcome& outcome) { return Writer::write(outcome); }

Result<RecordedBuild> recorded_build_from_json(const json& build) { return read_level<RecordedBuild>(build, "build"); }

Result<RecordEnvironment> record_environment_from_json(const json& environment) {
  return read_level<RecordEnvironment>(environment, "environment");
}

json to_json(const RecordSummary& summary) { return Writer::write(summary); }

json to_json(const RecordStages& stages) { return Writer::write(stages); }

}  // namespace kseek
