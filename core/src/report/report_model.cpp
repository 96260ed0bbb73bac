// Builds what `kseek report` shows from a campaign folder: config, log records and full evaluation records.
// It must never write into the campaign, never use a full record whose hash disagrees with its log entry, and never
// drop a damaged log line or unreadable record without a warning that names it.
#include "kseek/core/report/report_model.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/campaign/record_log.hpp"
#include "kseek/core/campaign/record_signature.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/sha256.hpp"

namespace kseek {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string text_of(const json& object, const char* key) {
  if (!object.is_object()) return {};
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return {};
  return it->is_string() ? it->get<std::string>() : it->dump();
}

std::optional<double> number_of(const json& object, const char* key) {
  if (!object.is_object()) return std::nullopt;
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

bool flag_of(const json& object, const char* key, bool fallback) {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  return it != object.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

std::string log_place(std::size_t line) { return fmt::format("log line {}", line); }

// A record file named by the log must stay inside DIR/.kseek: no absolute path, no '..'.
bool stays_inside(const fs::path& relative) {
  if (relative.empty() || relative.is_absolute() || relative.has_root_name()) return false;
  for (const auto& part : relative) {
    if (part == "..") return false;
  }
  return true;
}

ReportCell cell_from_summary(const json& s) {
  ReportCell cell;
  cell.status = text_of(s, "status");
  cell.ratio = number_of(s, "ratio");
  cell.ci_low = number_of(s, "ci_low");
  cell.ci_high = number_of(s, "ci_high");
  return cell;
}

void add_evaluation(const LogRecord& record, ReportModel& model) {
  const json& v = record.value;
  ReportEvaluation e;
  const int previous = model.evaluations.empty() ? 0 : model.evaluations.back().number;
  e.number = previous + 1;
  if (const auto logged = number_of(v, "number"); !logged || static_cast<int>(*logged) <= previous) {
    model.warnings.push_back({log_place(record.line), fmt::format("the evaluation's number is missing or not above "
                                                                  "the previous one ({}); shown as #{}",
                                                                  previous, e.number)});
  } else {
    e.number = static_cast<int>(*logged);  // the number the agent and the record file use
  }
  e.log_line = record.line;
  e.time = text_of(v, "time");
  e.candidate_sha256 = text_of(v, "candidate_sha256");
  e.status = text_of(v, "status");
  e.gpu = text_of(v, "gpu");
  e.record_file = text_of(v, "record_file");
  e.all_passed = flag_of(v, "all_passed", false);
  e.geomean = number_of(v, "geomean");
  e.geomean_low = number_of(v, "geomean_low");
  e.geomean_high = number_of(v, "geomean_high");
  if (v.contains("scenarios") && v["scenarios"].is_array()) {
    for (const auto& s : v["scenarios"]) {
      const std::string id = text_of(s, "id");
      if (!id.empty()) e.cells[id] = cell_from_summary(s);
    }
  }
  model.evaluations.push_back(std::move(e));
}

void add_timeline(const LogRecord& record, const std::string& type, ReportModel& model) {
  const json& v = record.value;
  ReportTimelineEntry t;
  t.log_line = record.line;
  t.time = text_of(v, "time");
  t.type = type;
  t.evaluations_before = model.evaluations.size();
  if (type == "event") {
    t.event = text_of(v, "event");
    t.text = text_of(v, "detail");
    if (const auto n = number_of(v, "evaluation"); n && *n > 0) t.source = fmt::format("evaluation #{}", *n);
  } else if (type == "question") {
    t.event = text_of(v, "event");
    t.text = text_of(v, "text");
    t.source = text_of(v, "source");
    const std::string id = text_of(v, "id"), pack = text_of(v, "pack"), via = text_of(v, "via");
    if (!id.empty()) t.source += fmt::format("{}{}{}", t.source.empty() ? "" : " ", pack.empty() ? "" : pack + "/", id);
    if (!via.empty()) t.source += " via " + via;
  } else if (type == "claim") {
    const std::string kind = text_of(v, "kind");
    t.event = kind == "done" ? "completion-claim" : kind.empty() ? "claim" : kind + "-claim";
    t.text = text_of(v, "text");
    t.source = text_of(v, "source");
  } else if (type == "steer") {
    t.event = "steer";
    t.text = text_of(v, "text");
    t.source = "human";
  } else if (type == "gate") {
    t.event = flag_of(v, "holds", false) ? "gate holds" : "gate does not hold";
    std::vector<std::string> unmet;
    if (v.contains("terms") && v["terms"].is_array()) {
      for (const auto& term : v["terms"]) {
        if (!flag_of(term, "holds", false)) {
          const std::string explanation = text_of(term, "explanation");
          unmet.push_back(text_of(term, "source") + (explanation.empty() ? "" : ": " + explanation));
        }
      }
    }
    t.text = unmet.empty() ? "every term holds" : "unmet: " + fmt::format("{}", fmt::join(unmet, "; "));
    if (const std::string problem = text_of(v, "evidence_problem"); !problem.empty()) t.text += " (" + problem + ")";
    t.source = text_of(v, "caller");
  } else if (type == "config") {
    t.event = "reconfigured";
    t.text = text_of(v, "reason");
    if (v.contains("config") && v["config"].is_object()) t.text += "; goal now: " + text_of(v["config"], "goal");
  } else {  // session
    t.event = "session " + text_of(v, "phase");
    t.source = text_of(v, "agent");
    const std::string status = text_of(v, "exit_status");
    if (!status.empty()) t.text = "exit status " + status;
  }
  model.timeline.push_back(std::move(t));
}

void load_full_record(const fs::path& state_dir, ReportEvaluation& e, const std::string& expected_sha256,
                      ReportModel& model) {
  const std::string where = e.record_file.empty() ? fmt::format("evaluation #{}", e.number) : e.record_file;
  if (e.record_file.empty()) {
    model.warnings.push_back({where, "the log entry names no record file; only its summary is shown"});
    return;
  }
  const fs::path relative(e.record_file);
  if (!stays_inside(relative)) {
    model.warnings.push_back({where, "the record file is outside the campaign's .kseek folder; not read"});
    return;
  }
  auto text = read_file(state_dir / relative);
  if (!text) {
    model.warnings.push_back({where, "cannot be read (" + text.error().message + "); only the log summary is shown"});
    return;
  }
  const std::string actual = sha256_hex(*text);
  if (actual != expected_sha256) {
    model.warnings.push_back({where, fmt::format("does not match its log entry (log says sha256 {}, the file hashes "
                                                 "to {}); its details are not used",
                                                 expected_sha256.empty() ? "(none)" : expected_sha256, actual)});
    return;
  }
  json record = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (record.is_discarded() || !record.is_object()) {
    model.warnings.push_back({where, "is not a JSON object; only the log summary is shown"});
    return;
  }
  if (text_of(record, "schema") != "kseek.eval/1") {
    model.warnings.push_back({where, fmt::format("has schema '{}', expected 'kseek.eval/1'; only the log summary is "
                                                 "shown",
                                                 text_of(record, "schema"))});
    return;
  }
  if (record.contains("scenarios") && record["scenarios"].is_array()) {
    for (const auto& s : record["scenarios"]) {
      const std::string id = text_of(s, "scenario");
      if (id.empty()) continue;
      auto [it, inserted] = e.cells.try_emplace(id);
      ReportCell& cell = it->second;
      if (inserted) {
        cell.status = text_of(s, "status");
        if (s.contains("timing")) {
          cell.ratio = number_of(s["timing"], "ratio");
          cell.ci_low = number_of(s["timing"], "ci_low");
          cell.ci_high = number_of(s["timing"], "ci_high");
        }
      }
      cell.message = text_of(s, "message");
    }
  }
  if (e.gpu.empty() && record.contains("environment")) e.gpu = text_of(record["environment"], "name");
  e.record = std::move(record);
}

void collect_failures(const ReportEvaluation& e, const std::map<std::string, std::string>& names, ReportModel& model) {
  const json& record = e.record;
  if (!e.status.empty() && e.status != "COMPLETE") {
    model.failures.push_back({e.number, e.time, "", "", e.status, text_of(record, "message")});
  }
  if (record.is_object() && record.contains("builds") && record["builds"].is_array()) {
    for (const auto& b : record["builds"]) {
      const std::string role = text_of(b, "role");
      if (b.contains("violations") && b["violations"].is_array()) {
        for (const auto& violation : b["violations"]) {
          model.failures.push_back({e.number, e.time, "", "", "CONSTRAINT_VIOLATION",
                                    fmt::format("{} build: {}: {} (symbol {}, {})", role, text_of(violation, "rule"),
                                                text_of(violation, "description"), text_of(violation, "symbol"),
                                                text_of(violation, "where"))});
        }
      }
      const std::string status = text_of(b, "status");
      if (status == "COMPILE_ERROR") {
        model.failures.push_back(
            {e.number, e.time, "", "", status, fmt::format("{} build: {}", role, text_of(b, "message"))});
      }
    }
  }
  // Scenarios that did not pass, one row per (status, message): a build failure fails every scenario alike.
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> groups;
  for (const auto& [id, cell] : e.cells) {
    if (cell.status != "PASSED") groups[{cell.status, cell.message}].push_back(id);
  }
  for (const auto& [key, ids] : groups) {
    ReportFailure f{e.number, e.time, fmt::format("{}", fmt::join(ids, ", ")), "", key.first, key.second};
    if (ids.size() == 1) {
      if (const auto it = names.find(ids.front()); it != names.end()) f.name = it->second;
    } else if (ids.size() == e.cells.size()) {
      f.scenario = fmt::format("all {} scenarios", ids.size());
    }
    model.failures.push_back(std::move(f));
  }
}

std::optional<ReportRoofline> roofline_of(const ReportModel& model) {
  for (auto e = model.evaluations.rbegin(); e != model.evaluations.rend(); ++e) {
    const json& record = e->record;
    if (!record.is_object() || !record.contains("environment") || !record["environment"].is_object()) continue;
    const json& env = record["environment"];
    if (!env.contains("peaks") || !env["peaks"].is_object()) continue;
    ReportRoofline r;
    r.evaluation = e->number;
    r.gpu = text_of(env, "name");
    r.peak_flops = number_of(env["peaks"], "dense_bf16_flops").value_or(0);
    r.peak_bytes_per_second = number_of(env["peaks"], "bytes_per_second").value_or(0);
    r.flops_source = text_of(env["peaks"], "flops_source");
    r.bytes_source = text_of(env["peaks"], "bytes_source");
    if (record.contains("scenarios") && record["scenarios"].is_array()) {
      for (const auto& s : record["scenarios"]) {
        ReportRooflineBar bar;
        bar.scenario = text_of(s, "scenario");
        bar.name = text_of(s, "name");
        bar.status = text_of(s, "status");
        const json timing = s.contains("timing") ? s["timing"] : json();
        const auto pf = number_of(timing, "percent_of_peak_flops");
        const auto pb = number_of(timing, "percent_of_peak_bandwidth");
        if (pf && pb) {
          bar.timed = true;
          bar.percent_flops = *pf;
          bar.percent_bandwidth = *pb;
          bar.candidate_tflops = number_of(timing, "candidate_tflops").value_or(0);
          bar.candidate_gbps = number_of(timing, "candidate_gbps").value_or(0);
          const double seed_tflops = number_of(timing, "seed_tflops").value_or(0);
          const double seed_gbps = number_of(timing, "seed_gbps").value_or(0);
          if (bar.candidate_tflops > 0) bar.seed_percent_flops = *pf * seed_tflops / bar.candidate_tflops;
          if (bar.candidate_gbps > 0) bar.seed_percent_bandwidth = *pb * seed_gbps / bar.candidate_gbps;
        }
        r.bars.push_back(std::move(bar));
      }
    }
    return r;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::size_t> ReportModel::best() const {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < evaluations.size(); ++i) {
    const auto& e = evaluations[i];
    if (!e.all_passed || !e.geomean) continue;
    if (!best || *e.geomean > *evaluations[*best].geomean) best = i;
  }
  return best;
}

std::optional<std::size_t> ReportModel::latest_with_geomean() const {
  for (std::size_t i = evaluations.size(); i-- > 0;) {
    if (evaluations[i].geomean) return i;
  }
  return std::nullopt;
}

namespace {

// The same rule as every campaign command: in a signed campaign, what kseek did not sign is not a record. Where the
// key is not on this machine, nothing can be verified, and the page says so; where it is kept in the campaign folder,
// the page says what its signatures can and cannot show. Damaged lines become warnings.
void verify_signatures(const fs::path& dir, LogContents& log, ReportModel& model) {
  if (const std::string id = campaign_id_of(log.records); !id.empty()) {
    if (auto key = load_campaign_key(id, dir)) {
      set_aside_unsigned(log, key->key);
      if (key->place == KeyPlace::kCampaignFolder) {
        model.warnings.push_back({".kseek-key/", std::string(kKeyInCampaignNote)});
      }
    } else {
      model.warnings.push_back({".kseek/log.jsonl", "the records cannot be verified on this machine (" +
                                                        key.error().message + "): the page shows them as written"});
    }
  }
  for (const auto& damaged : log.damaged) {
    model.warnings.push_back(
        {log_place(damaged.line), fmt::format("{}; the line starts '{}'", damaged.reason, damaged.excerpt)});
  }
}

// Counts, evaluations and the timeline from the log's records; warns where campaign.json is not the file the log
// recorded. Returns, per evaluation, the hash its log entry holds.
std::vector<std::string> walk_log(const LogContents& log, const std::string& config_text, ReportModel& model) {
  std::vector<std::string> record_hashes;  // per evaluation, the hash its log entry holds
  std::string logged_config_hash;
  std::size_t logged_config_line = 0;
  for (const auto& record : log.records) {
    const std::string type = text_of(record.value, "type");
    if (type.empty()) {
      model.warnings.push_back({log_place(record.line), "a record without a type; ignored"});
      continue;
    }
    ++model.record_counts[type];
    if (type == "init" || type == "config") {  // the newest of these holds the hash campaign.json must have
      if (type == "init" && model.created.empty()) model.created = text_of(record.value, "time");
      logged_config_hash = text_of(record.value, "config_sha256");
      logged_config_line = record.line;
      if (type == "config") add_timeline(record, type, model);
    } else if (type == "evaluation") {
      add_evaluation(record, model);
      record_hashes.push_back(text_of(record.value, "record_sha256"));
    } else if (type == "event" || type == "question" || type == "claim" || type == "steer" || type == "gate" ||
               type == "session") {
      add_timeline(record, type, model);
    } else if (type == "hook") {
      ++model.hook_decisions[text_of(record.value, "decision")];
    }
  }
  if (!model.record_counts.count("init") && !log.records.empty()) {
    model.warnings.push_back({".kseek/log.jsonl", "the log has no init record"});
  }
  if (logged_config_line > 0 && logged_config_hash != sha256_hex(config_text)) {
    model.warnings.push_back(
        {"campaign.json", fmt::format("was changed outside kseek: it hashes to {}, the log "
                                      "recorded {} ({}); the report shows the file as it is now",
                                      sha256_hex(config_text), logged_config_hash, log_place(logged_config_line))});
  }
  return record_hashes;
}

// Every scenario any evaluation measured, with its name, and each evaluation's failures.
void index_scenarios(ReportModel& model) {
  std::map<std::string, std::string> names;
  for (const auto& e : model.evaluations) {
    if (!e.record.is_object() || !e.record.contains("scenarios") || !e.record["scenarios"].is_array()) continue;
    for (const auto& s : e.record["scenarios"]) {
      const std::string id = text_of(s, "scenario"), name = text_of(s, "name");
      if (!id.empty() && !name.empty()) names[id] = name;
    }
  }
  std::set<std::string> ids;
  for (const auto& e : model.evaluations) {
    for (const auto& [id, cell] : e.cells) ids.insert(id);
  }
  for (const auto& id : ids) {
    const auto it = names.find(id);
    model.scenarios.push_back({id, it == names.end() ? std::string() : it->second});
  }
  for (const auto& e : model.evaluations) collect_failures(e, names, model);
}

// Each timeline entry's neighbouring evaluations and their geomeans.
void link_timeline(ReportModel& model) {
  for (auto& t : model.timeline) {
    if (t.evaluations_before > 0) {
      const auto& before = model.evaluations[t.evaluations_before - 1];
      t.after_evaluation = before.number;
      t.geomean_before = before.geomean;
    }
    if (t.evaluations_before < model.evaluations.size()) {
      const auto& next = model.evaluations[t.evaluations_before];
      t.next_evaluation = next.number;
      t.geomean_after = next.geomean;
    }
  }
}

}  // namespace

Result<ReportModel> build_report_model(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return make_error(fmt::format("campaign folder '{}' does not exist", dir.string()));
  const fs::path config_file = dir / "campaign.json";
  if (!fs::exists(config_file, ec)) {
    return make_error(fmt::format("'{}' is not a campaign folder: it has no campaign.json", dir.string()));
  }
  auto config_text = read_file(config_file);
  if (!config_text) return make_error("reading the campaign config failed: " + config_text.error().message);

  ReportModel model;
  model.config = json::parse(*config_text, nullptr, /*allow_exceptions=*/false);
  if (model.config.is_discarded() || !model.config.is_object()) {
    return make_error(
        fmt::format("'{}' is not a JSON object; the report needs the campaign's config", config_file.string()));
  }
  model.campaign = fs::absolute(dir, ec).lexically_normal().filename().string();
  if (model.campaign.empty())
    model.campaign = fs::absolute(dir, ec).lexically_normal().parent_path().filename().string();
  model.plugin = text_of(model.config, "plugin");
  model.set = text_of(model.config, "set");
  model.goal = text_of(model.config, "goal");
  model.arch = text_of(model.config, "arch");
  model.candidate = text_of(model.config, "candidate");
  model.questions = flag_of(model.config, "questions", true);
  if (model.config.contains("packs") && model.config["packs"].is_array()) {
    for (const auto& p : model.config["packs"]) {
      if (p.is_string()) model.packs.push_back(p.get<std::string>());
    }
  }

  const fs::path state_dir = dir / ".kseek";
  const fs::path log_file = state_dir / "log.jsonl";
  if (!fs::exists(log_file, ec)) {
    model.warnings.push_back({".kseek/log.jsonl", "there is no log yet: nothing has been recorded"});
  }
  auto log = read_records(log_file);
  if (!log) return make_error("reading the campaign log failed: " + log.error().message);
  verify_signatures(dir, *log, model);
  const std::vector<std::string> record_hashes = walk_log(*log, *config_text, model);
  for (std::size_t i = 0; i < model.evaluations.size(); ++i) {
    load_full_record(state_dir, model.evaluations[i], record_hashes[i], model);
  }

  index_scenarios(model);
  link_timeline(model);
  model.roofline = roofline_of(model);
  return model;
}

}  // namespace kseek
