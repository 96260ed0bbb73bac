// The campaign store: strict config parsing, the directory layout, appends to the log, stored evaluation records.
// It must never overwrite an existing campaign, and never hand out a record whose bytes differ from what was logged.
#include "kseek/core/campaign/campaign.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <map>
#include <set>

#include <fmt/format.h>

#include "kseek/core/campaign/goal_expression.hpp"
#include "kseek/core/campaign/record_signature.hpp"
#include "kseek/core/eval/evaluation_record.hpp"
#include "kseek/core/questions/question_pack.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/json_binding.hpp"
#include "kseek/core/util/json_values.hpp"
#include "kseek/core/util/sha256.hpp"
#include "kseek/sdk/version.hpp"

namespace kseek {
namespace fs = std::filesystem;
using nlohmann::json;

template <class Io>
void bind_keys(Io& io, CampaignThresholds& v) {
  io("stagnation_evaluations", v.stagnation_evaluations);
  io("stagnation_minutes", v.stagnation_minutes);
  io("min_improvement", v.min_improvement);
  io("suspicious_win_ratio", v.suspicious_win_ratio);
  io("hook_block_budget", v.hook_block_budget);
  io.no_other_keys();
}

template <class Io>
void bind_keys(Io& io, CampaignEvalSettings& v) {
  io("min_rounds", v.min_rounds);
  io("settled_rounds", v.settled_rounds);
  io("max_rounds", v.max_rounds);
  io("time_budget", v.time_budget);
  io("target_ci", v.target_ci);
  io("scenario_timeout", v.scenario_timeout);
  io.no_other_keys();
}

template <class Io>
void bind_keys(Io& io, PeerFiguresCommand& v) {
  io("command", v.command);
  io("timeout_seconds", v.timeout_seconds);
  io.no_other_keys();
}

namespace {

constexpr const char* kConfigFile = "campaign.json";

// Reads config fields one by one so every problem names its key; unknown keys are refused.
class ConfigReader {
 public:
  ConfigReader(const json& root, std::string_view file) : root_(root), file_(file) {}

  Result<CampaignConfig> read() {
    if (!root_.is_object()) return problem("", "the top level must be a JSON object");
    static const std::set<std::string> known = {"format",     "plugin",      "set",         "scenarios",  "candidate",
                                                "arch",       "goal",        "constraints", "packs",      "questions",
                                                "peer",       "thresholds",  "eval",        "created_at", "plugin_dirs",
                                                "pack_files", "peer_figures"};
    for (const auto& [key, value] : root_.items()) {
      if (!known.contains(key)) return problem(key, "unknown key (known: see docs/campaigns.md)");
    }
    if (!root_.contains("format") || !root_["format"].is_string() ||
        root_["format"].get<std::string>() != kCampaignFormat) {
      return problem("format", fmt::format("must be \"{}\"", kCampaignFormat));
    }
    CampaignConfig c;
    if (!string_field("plugin", c.plugin, true) || !string_field("set", c.set, true) ||
        !string_field("candidate", c.candidate, true) || !string_field("arch", c.arch, false) ||
        !string_field("goal", c.goal, true) || !string_field("peer", c.peer, false) ||
        !string_field("created_at", c.created_at, false) || !string_list("scenarios", c.scenarios) ||
        !string_list("packs", c.packs) || !string_list("plugin_dirs", c.plugin_dirs) ||
        !string_list("pack_files", c.pack_files)) {
      return error_;
    }
    // Hooks and the MCP server run from other folders than the one `init` ran in: a relative path would move.
    for (const auto& [key, list] : {std::pair{"plugin_dirs", &c.plugin_dirs}, {"pack_files", &c.pack_files}}) {
      for (const auto& path : *list) {
        if (!std::filesystem::path(path).is_absolute()) {
          return problem(key, fmt::format("'{}' must be an absolute path", path));
        }
      }
    }
    if (c.candidate.empty() || c.candidate.find('/') != std::string::npos || c.candidate.starts_with(".")) {
      return problem("candidate", "must be a plain file name in the campaign folder, e.g. candidate.cu");
    }
    if (root_.contains("questions")) {
      if (!root_["questions"].is_boolean()) return problem("questions", "must be true or false");
      c.questions = root_["questions"].get<bool>();
    }
    if (root_.contains("constraints")) {
      if (!root_["constraints"].is_null() && !root_["constraints"].is_object()) {
        return problem("constraints", "must be null (the plugin's) or an object overriding them");
      }
      c.constraints = root_["constraints"];
    }
    if (root_.contains("eval")) {
      CampaignEvalSettings eval;
      if (auto e = json_binding::Reader::read(root_["eval"], eval, "eval")) return problem_at(*e);
      for (const auto& [key, value] : root_["eval"].items()) {
        if (value.get<double>() <= 0 || value.get<double>() > 1e9) {
          return problem("eval." + key, "must be a positive number (at most 1e9)");
        }
      }
      c.eval = eval;
    }
    if (root_.contains("peer_figures")) {
      PeerFiguresCommand peers;
      if (auto e = json_binding::Reader::read(root_["peer_figures"], peers, "peer_figures")) return problem_at(*e);
      if (peers.command.empty() || peers.command.front().empty()) {
        return problem("peer_figures.command",
                       "must name a program and its arguments, e.g. [\"python3\", \"peers.py\"]");
      }
      if (peers.timeout_seconds && (*peers.timeout_seconds <= 0 || *peers.timeout_seconds > 86400)) {
        return problem("peer_figures.timeout_seconds", "must be a positive number of seconds (at most 86400)");
      }
      c.peer_figures = std::move(peers);
    }
    if (root_.contains("thresholds")) {
      if (auto e = json_binding::Reader::read(root_["thresholds"], c.thresholds, "thresholds")) return problem_at(*e);
      for (const auto& [key, value] : root_["thresholds"].items()) {
        if (value.get<double>() <= 0) return problem("thresholds." + key, "must be a positive number");
        // Counts are whole numbers a person would write; anything past a million is a typo, not a setting.
        const bool count = key == "stagnation_evaluations" || key == "hook_block_budget";
        if (count && value.get<double>() > 1e6) {
          return problem("thresholds." + key, "must be a whole number from 1 to 1000000");
        }
        if (!count && value.get<double>() > 1e9) return problem("thresholds." + key, "is out of range");
      }
      if (c.thresholds.suspicious_win_ratio <= 1.0)
        return problem("thresholds.suspicious_win_ratio", "must be above 1");
    }
    return c;
  }

 private:
  // A json_binding error ("thresholds.x: unknown key"), quoted the way problem() quotes its key.
  Error problem_at(const std::string& path_and_what) {
    const auto colon = path_and_what.find(": ");
    if (colon == std::string::npos) return problem("", path_and_what);
    return problem(path_and_what.substr(0, colon), path_and_what.substr(colon + 2));
  }
  Error problem(const std::string& key, const std::string& what) {
    error_ =
        make_error(key.empty() ? fmt::format("{}: {}", file_, what) : fmt::format("{}: '{}': {}", file_, key, what));
    return error_;
  }
  bool string_field(const char* key, std::string& out, bool required) {
    if (!root_.contains(key)) {
      if (required) problem(key, "missing (required)");
      return !required;
    }
    if (!root_[key].is_string()) {
      problem(key, "must be a string");
      return false;
    }
    out = root_[key].get<std::string>();
    if (required && out.empty()) {
      problem(key, "must not be empty");
      return false;
    }
    return true;
  }
  bool string_list(const char* key, std::vector<std::string>& out) {
    if (!root_.contains(key)) return true;
    if (!root_[key].is_array()) {
      problem(key, "must be a list of strings");
      return false;
    }
    for (const auto& v : root_[key]) {
      if (!v.is_string()) {
        problem(key, "must be a list of strings");
        return false;
      }
      out.push_back(v.get<std::string>());
    }
    return true;
  }

  const json& root_;
  std::string_view file_;
  Error error_;
};

std::string config_text(const CampaignConfig& config) { return to_json(config).dump(2) + "\n"; }

std::string text_field(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

// The campaign id in the first init record ("" before signatures existed).
// The hash campaign.json must have: the one in the newest init/config record kseek signed (any, for a campaign
// made before signatures; none when a key is there but no record verifies).
std::optional<std::string> logged_config_hash(const std::vector<LogRecord>& records,
                                              const std::optional<std::string>& key) {
  for (auto it = records.rbegin(); it != records.rend(); ++it) {
    const std::string type = text_field(it->value, "type");
    if (type != "init" && type != "config") continue;
    if (key && !signature_verifies(*key, it->value)) continue;
    return text_field(it->value, "config_sha256");
  }
  return std::nullopt;
}

std::optional<double> optional_number(const json& j, const char* key) {
  if (j.contains(key) && j[key].is_number()) return j[key].get<double>();
  return std::nullopt;
}

std::string text_of(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

// The line's scenarios, read leniently (a log outlives the kseek that wrote it): an entry that is not an object is
// skipped, a key that is missing or of another type reads as absent.
std::vector<LoggedScenario> logged_scenarios(const json& line) {
  std::vector<LoggedScenario> out;
  const auto list = line.find("scenarios");
  if (list == line.end() || !list->is_array()) return out;
  for (const auto& entry : *list) {
    if (!entry.is_object()) continue;
    out.push_back({text_of(entry, "id"), text_of(entry, "status"), optional_number(entry, "ratio"),
                   optional_number(entry, "ci_low"), optional_number(entry, "ci_high")});
  }
  return out;
}

json logged_scenarios_json(const std::vector<LoggedScenario>& scenarios) {
  json out = json::array();
  for (const auto& s : scenarios) {
    json entry = {{"id", s.id}, {"status", s.status}};
    if (s.ratio) entry["ratio"] = *s.ratio;
    if (s.ci_low) entry["ci_low"] = *s.ci_low;
    if (s.ci_high) entry["ci_high"] = *s.ci_high;
    out.push_back(std::move(entry));
  }
  return out;
}

// The line's goal term values, read as leniently as its scenarios: an entry without a term, a positive finite
// closeness and a scenario list is skipped (it could not be compared), and one that does not say whether it reads a
// figure of the whole record is taken to read one, so its move never counts.
std::vector<LoggedTermValue> logged_term_values(const json& line) {
  std::vector<LoggedTermValue> out;
  const auto list = line.find("goal_term_values");
  if (list == line.end() || !list->is_array()) return out;
  for (const auto& entry : *list) {
    if (!entry.is_object()) continue;
    LoggedTermValue v;
    v.term = text_of(entry, "term");
    const auto closeness = optional_number(entry, "closeness");
    const auto scenarios = entry.find("scenarios");
    if (v.term.empty() || !closeness || !std::isfinite(*closeness) || *closeness <= 0 || scenarios == entry.end() ||
        !scenarios->is_array()) {
      continue;
    }
    v.closeness = *closeness;
    for (const auto& id : *scenarios) {
      if (id.is_string()) v.scenarios.push_back(id.get<std::string>());
    }
    const auto summary = entry.find("reads_summary");
    v.reads_summary = summary == entry.end() || !summary->is_boolean() || summary->get<bool>();
    out.push_back(std::move(v));
  }
  return out;
}

json logged_term_values_json(const std::vector<LoggedTermValue>& values) {
  json out = json::array();
  for (const auto& v : values) {
    out.push_back(
        {{"term", v.term}, {"closeness", v.closeness}, {"scenarios", v.scenarios}, {"reads_summary", v.reads_summary}});
  }
  return out;
}

}  // namespace

std::string campaign_id_of(const std::vector<LogRecord>& records) {
  for (const auto& r : records) {
    if (text_field(r.value, "type") == "init") return text_field(r.value, "campaign_id");
  }
  return "";
}

void set_aside_unsigned(LogContents& log, std::string_view key) {
  // An agent can compute a line's checksum but not kseek's signature: a record without it is reported like a damaged
  // line and never read as a record, so no event, question, steer or evidence can be forged with one.
  std::vector<LogRecord> kept;
  for (auto& r : log.records) {
    if (signature_verifies(key, r.value)) {
      kept.push_back(std::move(r));
    } else {
      log.damaged.push_back({r.line, std::string(kNotSignedReason), r.value.dump().substr(0, 80)});
    }
  }
  log.records = std::move(kept);
  std::sort(log.damaged.begin(), log.damaged.end(), [](const auto& a, const auto& b) { return a.line < b.line; });
}

json to_json(const CampaignConfig& c) {
  json j = {{"format", kCampaignFormat},
            {"plugin", c.plugin},
            {"set", c.set},
            {"candidate", c.candidate},
            {"arch", c.arch},
            {"goal", c.goal},
            {"constraints", c.constraints},
            {"packs", c.packs},
            {"questions", c.questions},
            {"peer", c.peer},
            {"thresholds", json_binding::write_bound(c.thresholds)},
            {"created_at", c.created_at}};
  if (!c.scenarios.empty()) j["scenarios"] = c.scenarios;
  if (c.eval) j["eval"] = json_binding::write_bound(*c.eval);
  if (c.peer_figures) j["peer_figures"] = json_binding::write_bound(*c.peer_figures);
  if (!c.plugin_dirs.empty()) j["plugin_dirs"] = c.plugin_dirs;
  if (!c.pack_files.empty()) j["pack_files"] = c.pack_files;
  return j;
}

Result<CampaignConfig> parse_campaign_config(std::string_view text, std::string_view file_name) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    const auto pos = position_of_offset(text, e.byte == 0 ? 0 : e.byte - 1);
    return make_error(fmt::format("{}:{}:{}: not valid JSON: {}", file_name, pos.line, pos.column, e.what()));
  } catch (const json::exception& e) {
    return make_error(fmt::format("{}: not valid JSON: {}", file_name, e.what()));
  }
  return ConfigReader(root, file_name).read();
}

std::optional<EvaluationSummary> evaluation_of(const LogRecord& record) {
  const json& v = record.value;
  if (record.type != "evaluation") return std::nullopt;
  EvaluationSummary s;
  s.number = record.number;
  s.time = record.time;
  s.candidate_sha256 = text_of(v, "candidate_sha256");
  s.record_file = text_of(v, "record_file");
  s.record_sha256 = text_of(v, "record_sha256");
  s.status = text_of(v, "status");
  s.all_passed = v.contains("all_passed") && v["all_passed"].is_boolean() && v["all_passed"].get<bool>();
  s.geomean = optional_number(v, "geomean");
  s.geomean_low = optional_number(v, "geomean_low");
  s.geomean_high = optional_number(v, "geomean_high");
  s.scenarios = logged_scenarios(v);
  if (v.contains("goal_terms_met") && v["goal_terms_met"].is_array()) {
    for (const auto& t : v["goal_terms_met"]) {
      if (t.is_string()) s.goal_terms_met.push_back(t.get<std::string>());
    }
  }
  s.goal_term_values = logged_term_values(v);
  return s;
}

Result<Campaign> Campaign::open(const fs::path& start, bool search_up) {
  fs::path dir = fs::absolute(start).lexically_normal();
  while (!fs::exists(dir / kConfigFile)) {
    if (!search_up || dir == dir.root_path() || !dir.has_parent_path()) {
      return make_error(fmt::format("no campaign here: {} has no {} (create one with `kseek init DIR --plugin ID`)",
                                    fs::absolute(start).string(), kConfigFile));
    }
    dir = dir.parent_path();
  }
  const fs::path file = dir / kConfigFile;
  auto text = read_file(file);
  if (!text) return text.error();
  auto config = parse_campaign_config(*text, file.string());
  if (!config) return config.error();
  Campaign campaign(dir, std::move(*config));
  auto log = read_records(campaign.log_path());
  if (!log) return log.error();
  campaign.id_ = campaign_id_of(log->records);
  if (campaign.id_.empty()) {
    campaign.signature_problem_ = "this campaign was made before kseek signed its records; none can be verified";
  } else if (auto key = load_campaign_key(campaign.id_, dir)) {
    campaign.key_ = std::move(*key);
  } else {
    campaign.signature_problem_ = key.error().message;
  }
  const auto expected =
      logged_config_hash(log->records, campaign.key_ ? std::optional<std::string>(campaign.key_->key) : std::nullopt);
  if (!expected) {
    return make_error(
        fmt::format("{}: the campaign log {} has no init record; the campaign is damaged or was not made "
                    "by `kseek init`",
                    file.string(), campaign.log_path().string()));
  }
  if (const std::string actual = sha256_hex(*text); actual != *expected) {
    return make_error(
        fmt::format("{} was changed outside kseek (sha256 {}, the log recorded {}): campaign.json is "
                    "read-only to the agent. Restore it, or have a person accept the change with "
                    "`kseek reconfigure`",
                    file.string(), actual.substr(0, 12), expected->substr(0, 12)));
  }
  return campaign;
}

Result<Campaign> Campaign::create(const fs::path& dir_in, const CampaignConfig& config_in,
                                  std::string_view candidate_text, std::string_view seed_sha256, KeyPlace key_place) {
  const fs::path dir = fs::absolute(dir_in).lexically_normal();
  if (fs::exists(dir / kConfigFile) || fs::exists(dir / ".kseek")) {
    return make_error(
        fmt::format("{} already holds a campaign; choose another folder (nothing was changed)", dir.string()));
  }
  CampaignConfig config = config_in;
  if (config.created_at.empty()) config.created_at = utc_timestamp();
  // The config must read back exactly: a campaign that its own reader refuses would be unusable.
  const std::string text = config_text(config);
  if (auto reread = parse_campaign_config(text, (dir / kConfigFile).string()); !reread) return reread.error();
  std::error_code ec;
  fs::create_directories(dir / ".kseek" / "evaluations", ec);
  if (ec) return make_error(fmt::format("cannot create {}: {}", (dir / ".kseek").string(), ec.message()));
  Campaign campaign(dir, config);
  campaign.id_ = new_campaign_id();
  auto key = create_campaign_key(campaign.id_, dir, key_place);
  if (!key) return key.error();
  campaign.key_ = std::move(*key);
  if (!fs::exists(campaign.candidate_path())) {
    if (auto w = write_file_atomically(campaign.candidate_path(), candidate_text); !w) return w.error();
  }
  if (auto w = write_file_atomically(dir / kConfigFile, text); !w) return w.error();
  auto candidate_hash = campaign.candidate_sha256();
  if (!candidate_hash) return candidate_hash.error();
  if (auto a = campaign.append("init", {{"format", kCampaignLogFormat},
                                        {"campaign_id", campaign.id_},
                                        {"config", to_json(config)},
                                        {"config_sha256", sha256_hex(text)},
                                        {"candidate_sha256", *candidate_hash},
                                        {"seed_sha256", seed_sha256},
                                        {"kseek_version", KSEEK_SDK_VERSION}});
      !a) {
    return a.error();
  }
  return campaign;
}

Result<std::string> Campaign::candidate_sha256() const {
  auto text = read_file(candidate_path());
  if (!text) return make_error(fmt::format("cannot read the candidate: {}", text.error().message));
  return sha256_hex(*text);
}

namespace {
// This thread's holds, by lock file: flock excludes other open files even in this process, so a nested take must not
// open the file again (it would wait for itself).
thread_local std::map<std::string, int> held_campaign_locks;
}  // namespace

CampaignLock::CampaignLock(CampaignLock&& other) noexcept : fd_(other.fd_), file_(std::move(other.file_)) {
  other.fd_ = -1;
  other.file_.clear();
}

CampaignLock::~CampaignLock() {
  if (file_.empty()) return;
  if (auto it = held_campaign_locks.find(file_); it != held_campaign_locks.end() && --it->second <= 0) {
    held_campaign_locks.erase(it);
  }
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

Result<CampaignLock> Campaign::lock() const {
  const std::string file = (state_dir() / "campaign.lock").string();
  if (auto it = held_campaign_locks.find(file); it != held_campaign_locks.end()) {
    ++it->second;
    return CampaignLock(-1, file);
  }
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return make_error(fmt::format("cannot open the campaign lock {}: {} (is .kseek/ there and writable?)", file,
                                  std::strerror(errno)));
  }
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    const int error = errno;
    ::close(fd);
    return make_error(fmt::format("cannot lock {}: {}", file, std::strerror(error)));
  }
  held_campaign_locks[file] = 1;
  return CampaignLock(fd, file);
}

Result<void> Campaign::append(std::string_view type, json fields) const {
  json record = {{"type", type}, {"time", utc_timestamp()}};
  for (auto& [key, value] : fields.items()) record[key] = value;
  if (key_) {
    record["signature"] = record_signature(key_->key, record);
  } else if (!id_.empty()) {
    // Unsigned records in a signed campaign would read as forgeries: refuse rather than write one.
    return make_error(fmt::format("cannot add to {}: {}", log_path().string(), signature_problem_));
  }
  return append_record(log_path(), record);
}

bool Campaign::written_by_kseek(const LogRecord& record) const {
  return key_ && signature_verifies(key_->key, record.value);
}

Result<void> append_signed_record(const fs::path& dir, std::string_view type, json fields) {
  const fs::path log_file = dir / ".kseek" / "log.jsonl";
  auto log = read_records(log_file);
  if (!log) return log.error();
  json record = {{"type", type}, {"time", utc_timestamp()}};
  for (auto& [key, value] : fields.items()) record[key] = value;
  if (const std::string id = campaign_id_of(log->records); !id.empty()) {
    auto key = load_campaign_key(id, dir);
    if (!key) return make_error(fmt::format("cannot add to {}: {}", log_file.string(), key.error().message));
    record["signature"] = record_signature(key->key, record);
  }
  return append_record(log_file, record);
}

std::optional<CampaignConfig> last_accepted_config(const fs::path& dir) {
  auto log = read_records(dir / ".kseek" / "log.jsonl");
  if (!log) return std::nullopt;
  std::optional<std::string> key;
  if (const std::string id = campaign_id_of(log->records); !id.empty()) {
    auto loaded = load_campaign_key(id, dir);
    if (!loaded) return std::nullopt;
    key = loaded->key;
  }
  for (auto it = log->records.rbegin(); it != log->records.rend(); ++it) {
    const std::string type = text_field(it->value, "type");
    if (type != "init" && type != "config") continue;
    if (key && !signature_verifies(*key, it->value)) continue;
    if (!it->value.contains("config")) return std::nullopt;
    auto config = parse_campaign_config(it->value["config"].dump(), "the accepted config in the campaign log");
    if (!config) return std::nullopt;
    return *config;
  }
  return std::nullopt;
}

Result<LogContents> Campaign::read_log() const {
  auto log = read_records(log_path());
  if (log && key_) set_aside_unsigned(*log, key_->key);
  return log;
}

Result<EvaluationSummary> Campaign::record_evaluation(const json& eval) const {
  const auto typed = evaluation_record_from_json(eval);
  if (!typed) return make_error("the evaluation is not logged: " + typed.error().message);
  const EvaluationRecord& record = *typed;
  auto log = read_log();
  if (!log) return log.error();
  int number = 1;
  for (const auto& r : log->records) {
    if (auto e = evaluation_of(r)) number = std::max(number, e->number + 1);
  }
  EvaluationSummary s;
  const std::string text = eval.dump(1) + "\n";
  s.record_sha256 = sha256_hex(text);
  // The number is claimed by creating its record file exclusively: two evaluations finishing at once (an MCP eval and
  // a shell eval) must never write one file. A file a crashed attempt left is skipped, never replaced.
  for (;; ++number) {
    s.record_file = fmt::format("evaluations/{:04}.json", number);
    auto created = write_new_file_atomically(state_dir() / s.record_file, text);
    if (!created) return created.error();
    if (*created) break;
  }
  s.number = number;
  s.candidate_sha256 = record.candidate.sha256;
  s.status = std::string(to_string(record.status));
  for (const auto& r : record.scenario_list()) {
    LoggedScenario& entry = s.scenarios.emplace_back();
    entry.id = r.scenario;
    entry.status = std::string(to_string(r.status));
    if (r.timing) {
      entry.ratio = r.timing->ratio;
      entry.ci_low = r.timing->ci_low;
      entry.ci_high = r.timing->ci_high;
    }
  }
  s.all_passed = record.status == RecordStatus::kComplete && record.all_passed();
  if (record.summary && record.summary->geomean) {
    s.geomean = record.summary->geomean->value;
    s.geomean_low = record.summary->geomean->ci_low;
    s.geomean_high = record.summary->geomean->ci_high;
  }
  // The goal as configured now (a goal that does not parse meets nothing; the gate says why elsewhere).
  if (auto goal = parse_goal(config_.goal)) {
    for (const auto& t : evaluate_goal(*goal, eval).terms) {
      if (t.holds) s.goal_terms_met.push_back(t.source);
      const auto closeness = t.sides ? goal_closeness(*t.sides) : std::nullopt;
      if (closeness) s.goal_term_values.push_back({t.source, *closeness, t.scenarios_read, t.reads_summary});
    }
  }
  json fields = {{"number", s.number},
                 {"candidate_sha256", s.candidate_sha256},
                 {"record_file", s.record_file},
                 {"record_sha256", s.record_sha256},
                 {"status", s.status},
                 {"all_passed", s.all_passed},
                 {"geomean", number_or_null(s.geomean)},
                 {"geomean_low", number_or_null(s.geomean_low)},
                 {"geomean_high", number_or_null(s.geomean_high)},
                 {"scenarios", logged_scenarios_json(s.scenarios)},
                 {"goal_terms_met", s.goal_terms_met},
                 {"goal_term_values", logged_term_values_json(s.goal_term_values)},
                 {"gpu", record.environment ? record.environment->name.value_or("") : ""},
                 {"measure_time", record.settings ? record.settings->measure_time : true}};
  if (auto a = append("evaluation", fields); !a) return a.error();
  return s;
}

Result<json> Campaign::load_evaluation(const EvaluationSummary& summary) const {
  const fs::path file = state_dir() / summary.record_file;
  auto text = read_file(file);
  if (!text) return text.error();
  if (sha256_hex(*text) != summary.record_sha256) {
    return make_error(
        fmt::format("{} does not match the sha256 its log entry holds (evaluation {}): the record was "
                    "changed after kseek wrote it, so it is not evidence",
                    file.string(), summary.number));
  }
  try {
    return json::parse(*text);
  } catch (const json::exception& e) {
    return make_error(fmt::format("{}: not valid JSON: {}", file.string(), e.what()));
  }
}

}  // namespace kseek
