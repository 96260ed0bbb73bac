// Events, question selection, the gate and the status, all computed from the campaign log.
// It must never raise an event twice for the same evidence, and never let stale or altered evidence meet the goal.
#include "kseek/core/campaign/campaign_engine.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <map>
#include <set>

#include <fmt/format.h>

#include "kseek/core/campaign/claim_topics.hpp"
#include "kseek/core/campaign/record_signature.hpp"
#include "kseek/core/campaign/term_progress.hpp"
#include "kseek/core/eval/evaluation_record.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/core/util/utc_time.hpp"

namespace kseek {
namespace fs = std::filesystem;
using nlohmann::json;
using SystemClock = std::chrono::system_clock;

namespace {

bool has_timing(const EvaluationSummary& e) { return e.geomean.has_value(); }

// Where the campaign stands before evaluation `upto` (exclusive): the best timed, fully passing geomean (the
// seed, 1.0, until one exists), the evaluation that set it and how many timed evaluations came since; and the last
// progress, which the stagnation events count from: a new best; or, from a timed evaluation that passes everywhere
// without losing more than `min_improvement` on the best geomean, a goal term met for the first time or an unmet term
// moved toward its target beyond the noise (term_move). A change that meets two targets while the geomean moves
// 0.9 % is progress the campaign's person would count (fa3-h200, evaluation 11), and so is one that lifts two unmet
// terms by 13 % and 9 % while the 26-row geomean stands still (fa3-h200, evaluation 17).
struct Progress {
  double best = 1.0;
  double best_high = 1.0;
  int best_number = 0;
  std::string best_time;
  int timed_since_best = 0;
  int progress_number = 0;
  std::string progress_time;
  int timed_since_progress = 0;
  std::string progress_what;                  // the last progress in words; empty: none since the start
  std::set<std::string> terms_met;            // by any timed evaluation that passed everywhere
  std::map<std::string, TermBest> term_best;  // by term text, over the same evaluations
};

bool improves(const EvaluationSummary& e, const Progress& p, const CampaignThresholds& t) {
  return is_improvement(e, p.best, p.best_high, t.min_improvement);
}

Progress progress_before(const std::vector<EvaluationSummary>& evals, std::size_t upto, const CampaignThresholds& t,
                         const std::string& init_time) {
  Progress p;
  p.best_time = init_time;
  p.progress_time = init_time;
  for (std::size_t i = 0; i < upto && i < evals.size(); ++i) {
    const auto& e = evals[i];
    const bool counts = e.all_passed && has_timing(e);
    const auto new_term = counts ? std::find_if(e.goal_terms_met.begin(), e.goal_terms_met.end(),
                                                [&](const std::string& term) { return !p.terms_met.count(term); })
                                 : e.goal_terms_met.end();
    if (improves(e, p, t)) {
      p.best = *e.geomean;
      p.best_high = e.geomean_high.value_or(*e.geomean);
      p.best_number = e.number;
      p.best_time = e.time;
      p.timed_since_best = 0;
      p.progress_number = e.number;
      p.progress_time = e.time;
      p.timed_since_progress = 0;
      p.progress_what = fmt::format("evaluation {} set the best geomean {:.4f}", e.number, p.best);
    } else if (has_timing(e)) {
      ++p.timed_since_best;
      const bool geomean_kept = *e.geomean >= p.best * (1.0 - t.min_improvement);
      const auto move =
          counts && geomean_kept ? term_move(e, p.terms_met, p.term_best, t.min_improvement) : std::nullopt;
      if (geomean_kept && (new_term != e.goal_terms_met.end() || move)) {
        p.progress_number = e.number;
        p.progress_time = e.time;
        p.timed_since_progress = 0;
        p.progress_what = new_term != e.goal_terms_met.end()
                              ? fmt::format("evaluation {} met {} for the first time", e.number, *new_term)
                              : describe_move(e.number, *move);
      } else {
        ++p.timed_since_progress;
      }
    }
    if (counts) {
      p.terms_met.insert(e.goal_terms_met.begin(), e.goal_terms_met.end());
      for (const auto& v : e.goal_term_values) {
        auto [it, first] = p.term_best.try_emplace(v.term);
        if (first || v.closeness > it->second.closeness) it->second = {v.closeness, term_noise(e, v)};
      }
    }
  }
  return p;
}

// The stagnation events name the best geomean; where the last progress was something else (a term met or moved),
// they name it too, so the agent and its person see what the count restarted from.
std::string last_progress_note(const Progress& p) {
  if (p.progress_what.empty() || p.progress_number == p.best_number) return "";
  return "; last progress: " + p.progress_what;
}

std::vector<EvaluationSummary> evaluations(const std::vector<LogRecord>& log) {
  std::vector<EvaluationSummary> out;
  for (const auto& r : log) {
    if (auto e = evaluation_of(r)) out.push_back(std::move(*e));
  }
  return out;
}

bool event_logged(const std::vector<LogRecord>& log, std::string_view name, int evaluation) {
  return std::any_of(log.begin(), log.end(), [&](const LogRecord& r) {
    return r.type == "event" && r.event == name && r.evaluation == evaluation;
  });
}

std::string init_time(const std::vector<LogRecord>& log) {
  for (const auto& r : log) {
    if (r.type == "init") return r.time;
  }
  return "";
}

std::string failing_list(const EvaluationSummary& e, std::size_t limit = 4) {
  std::string list;
  std::size_t shown = 0, failing = 0;
  for (const auto& s : e.scenarios) {
    if (s.status == "PASSED") continue;
    ++failing;
    if (shown < limit) {
      list += fmt::format("{}{} {}", list.empty() ? "" : ", ", s.id.empty() ? "?" : s.id,
                          s.status.empty() ? "?" : s.status);
      ++shown;
    }
  }
  if (failing > shown) list += fmt::format(" and {} more", failing - shown);
  return list;
}

std::string normalized_arch(std::string arch) {
  // sm_90a and sm_90 name the same generation for pack selection.
  while (!arch.empty() && std::isalpha(static_cast<unsigned char>(arch.back())) && arch.size() > 3) arch.pop_back();
  return arch;
}

// The scenarios of the latest evaluation whose ratio exceeds `factor` x their best ratio in earlier completed
// evaluations that passed (1.0, the seed's, when none timed them), as "H01 1.53x the seed (best before 1.00), ...".
std::string scenario_jumps(const std::vector<EvaluationSummary>& evals, double factor) {
  std::map<std::string, double> best_before;
  for (std::size_t i = 0; i + 1 < evals.size(); ++i) {
    if (evals[i].status != "COMPLETE") continue;
    for (const auto& s : evals[i].scenarios) {
      if (s.status != "PASSED" || !s.ratio) continue;
      best_before[s.id] = std::max(best_before.count(s.id) ? best_before[s.id] : 1.0, *s.ratio);
    }
  }
  std::string out;
  for (const auto& s : evals.back().scenarios) {
    if (s.status != "PASSED" || !s.ratio) continue;
    const std::string& id = s.id;
    const double best = best_before.count(id) ? best_before[id] : 1.0;
    const double ratio = *s.ratio;
    if (ratio > best * factor) {
      out += fmt::format("{}{} {:.2f}x the seed (best before {:.2f})", out.empty() ? "" : ", ", id, ratio, best);
    }
  }
  return out;
}

}  // namespace

WorkingTime working_time(const std::vector<LogRecord>& log, SystemClock::time_point since,
                         SystemClock::time_point now) {
  using Minutes = std::chrono::duration<double, std::ratio<60>>;
  std::vector<std::pair<SystemClock::time_point, bool>> marks;  // (time, a session starts or resumes there)
  for (const auto& r : log) {
    const auto at = parse_utc_timestamp(r.time);
    if (!at || *at <= since || *at > now) continue;
    const bool starts = r.type == "hook" && r.hook == "session-start" &&
                        (r.session_source == "startup" || r.session_source == "resume");
    marks.emplace_back(*at, starts);
  }
  std::stable_sort(marks.begin(), marks.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  WorkingTime t;
  SystemClock::time_point previous = since;
  for (const auto& [at, session_starts] : marks) {
    // The gap before a session starts is the time between sessions (the last session's tail past its last record is
    // left out with it: a session that ends records nothing).
    (session_starts ? t.between_sessions_minutes : t.counted_minutes) += Minutes(at - previous).count();
    previous = at;
  }
  t.counted_minutes += Minutes(now - previous).count();
  return t;
}

bool is_improvement(const EvaluationSummary& e, double best, double best_high, double min_improvement) {
  if (!e.all_passed || !e.geomean) return false;
  return *e.geomean >= best * (1.0 + min_improvement) && e.geomean_low.value_or(*e.geomean) > best_high;
}

std::vector<CampaignEvent> pending_events(const CampaignConfig& config, const std::vector<LogRecord>& log,
                                          SystemClock::time_point now) {
  std::vector<CampaignEvent> events;
  if (!event_logged(log, "start", 0)) events.push_back({"start", "the campaign has begun", 0});
  const auto evals = evaluations(log);
  const std::string started = init_time(log);
  const Progress after = progress_before(evals, evals.size(), config.thresholds, started);  // all evaluations so far
  if (!evals.empty()) {
    const EvaluationSummary& latest = evals.back();
    const Progress before = progress_before(evals, evals.size() - 1, config.thresholds, started);
    const bool ran = latest.status == "COMPLETE";
    bool mistrusted = false;
    for (const auto& s : latest.scenarios) mistrusted = mistrusted || s.status == "MISTRUSTED";
    // The previous completed evaluation, for the regression's transition.
    const EvaluationSummary* previous = nullptr;
    for (std::size_t i = evals.size() - 1; i-- > 0;) {
      if (evals[i].status == "COMPLETE") {
        previous = &evals[i];
        break;
      }
    }
    if (ran && mistrusted && !event_logged(log, "suspicious-win", latest.number)) {
      events.push_back({"suspicious-win",
                        fmt::format("evaluation {}: a scenario ran faster than this GPU's physics allows ({})",
                                    latest.number, failing_list(latest)),
                        latest.number});
    } else if (ran && latest.all_passed && has_timing(latest) &&
               *latest.geomean > before.best * config.thresholds.suspicious_win_ratio &&
               !event_logged(log, "suspicious-win", latest.number)) {
      events.push_back({"suspicious-win",
                        fmt::format("evaluation {}: geomean {:.4f} is {:.2f}x the best so far ({:.4f})", latest.number,
                                    *latest.geomean, *latest.geomean / before.best, before.best),
                        latest.number});
    } else if (ran && latest.all_passed && has_timing(latest) && !event_logged(log, "suspicious-win", latest.number)) {
      // A new code path that takes a few scenarios moves the geomean little and those scenarios a lot: the jump is
      // judged per scenario too, against that scenario's best earlier ratio (the seed's 1.0 before any).
      if (const std::string jumps = scenario_jumps(evals, config.thresholds.suspicious_win_ratio); !jumps.empty()) {
        events.push_back({"suspicious-win", fmt::format("evaluation {}: {}", latest.number, jumps), latest.number});
      }
    }
    if (ran && !latest.all_passed && !mistrusted && previous != nullptr && previous->all_passed &&
        !event_logged(log, "correctness-regression", latest.number)) {
      events.push_back({"correctness-regression",
                        fmt::format("evaluation {}: {} (evaluation {} passed everywhere)", latest.number,
                                    failing_list(latest), previous->number),
                        latest.number});
    }
    // Stagnation by count: every N timed evaluations without progress (a real improvement, or a goal term newly met
    // or moved toward its target).
    const int n = config.thresholds.stagnation_evaluations;
    if (has_timing(latest) && after.progress_number != latest.number && after.timed_since_progress > 0 &&
        after.timed_since_progress % n == 0 && !event_logged(log, "stagnation", latest.number)) {
      events.push_back(
          {"stagnation",
           fmt::format("{} timed evaluations without a gain beyond the noise or a goal term newly met or moved toward "
                       "its target (best geomean {:.4f}{}{})",
                       after.timed_since_progress, after.best,
                       after.best_number ? fmt::format(", evaluation {}", after.best_number) : " = the seed",
                       last_progress_note(after)),
           latest.number});
    }
  }
  // Stagnation by time: the k-th such event once k x T minutes have passed since the last progress (or the start).
  // Counting earlier events, not reading their clock, keeps this independent of when they were written.
  const Progress& p = after;
  if (auto since = parse_utc_timestamp(p.progress_time); since && !evals.empty()) {
    int already_logged = 0;
    for (const auto& r : log) {
      if (r.type == "event" && r.event == "stagnation" && r.evaluation == 0 && r.value.contains("evaluation") &&
          r.time >= p.progress_time) {
        ++already_logged;
      }
    }
    const bool raised_now =
        std::any_of(events.begin(), events.end(), [](const auto& e) { return e.name == "stagnation"; });
    // Counted in working time: on the wall clock, the first evaluation after a break between sessions raised the event
    // for hours nobody worked (fa3-h200, evaluation 17: 584 minutes, about seven hours of them between two sessions).
    const WorkingTime worked = working_time(log, *since, now);
    if (!raised_now && worked.counted_minutes >= (already_logged + 1) * config.thresholds.stagnation_minutes) {
      const std::string left_out =
          worked.between_sessions_minutes >= 1.0
              ? fmt::format("; {:.0f} minutes between agent sessions not counted", worked.between_sessions_minutes)
              : "";
      events.push_back({"stagnation",
                        fmt::format("{:.0f} minutes without a gain beyond the noise or a goal term newly met or moved "
                                    "toward its target (best geomean {:.4f}{}{})",
                                    worked.counted_minutes, p.best, left_out, last_progress_note(p)),
                        0});
    }
  }
  return events;
}

std::optional<CampaignEvent> unanswered_event(const std::vector<LogRecord>& log) {
  for (auto it = log.rbegin(); it != log.rend(); ++it) {
    if (it->type == "question") return std::nullopt;
    if (it->type == "event") return CampaignEvent{it->event, it->detail, it->evaluation};
  }
  return std::nullopt;
}

std::map<int, std::string> pending_steers(const std::vector<LogRecord>& log) {
  std::map<int, std::string> steers;
  for (const auto& r : log) {
    if (r.type == "steer") steers[r.steer_id] = r.text;
    if (r.type == "question" && r.source == "human") steers.erase(r.steer_id);
  }
  return steers;
}

namespace {

// The text of the claim the pending claim event is about: the latest claim record with no question after it (each
// claim gets its question right away, so an older claim has been answered). Empty where there is none, e.g. a stop
// the hook read no claim from: an earlier claim's words must not choose that question.
std::string pending_claim_text(const std::vector<LogRecord>& log) {
  for (auto it = log.rbegin(); it != log.rend(); ++it) {
    if (it->type == "question") return "";
    if (it->type != "claim" || !it->value.is_object()) continue;
    const auto text = it->value.find("text");
    return text != it->value.end() && text->is_string() ? text->get<std::string>() : std::string();
  }
  return "";
}

}  // namespace

std::optional<SelectedQuestion> select_question(const std::vector<QuestionPack>& packs, const CampaignConfig& config,
                                                std::string_view event, const std::vector<LogRecord>& log) {
  if (!config.questions) return std::nullopt;
  // A person's question waits for the agent's next hook; it goes first, whatever the event.
  std::map<std::string, std::size_t> last_asked;  // question id -> position in the log
  std::string last_id;
  for (std::size_t i = 0; i < log.size(); ++i) {
    if (log[i].type == "question") {
      last_asked[log[i].id] = i + 1;
      last_id = log[i].id;
    }
  }
  if (const auto steers = pending_steers(log); !steers.empty()) {
    const auto& [id, text] = *steers.begin();
    return SelectedQuestion{fmt::format("steer-{}", id), "human", text, std::string(event), "human"};
  }
  // A claim is questioned on what it says: the topics its words name (claim_topics) rank the questions tagged with
  // one of them first, then those for any claim, then those about other topics. Found in campaign fa3-h200 (session
  // 15): a claim about fp8 accumulation's rounding got a question about instruction counts.
  const std::vector<std::string> topics = event == "limit-claim" || event == "completion-claim"
                                              ? claim_topics(pending_claim_text(log))
                                              : std::vector<std::string>{};
  // Rank of a question for the claim: the position in `topics` of the first topic it shares (the claim's main topic
  // first), then untagged questions, then those about topics the claim does not name.
  const auto fit = [&](const Question& q) -> std::size_t {
    if (topics.empty() || q.topics.empty()) return topics.size();
    for (std::size_t i = 0; i < topics.size(); ++i) {
      if (std::find(q.topics.begin(), q.topics.end(), topics[i]) != q.topics.end()) return i;
    }
    return topics.size() + 1;
  };
  struct Candidate {
    bool by_record;     // answered by the evaluation record: after every question it cannot answer
    std::size_t fit;    // the claim's topics it shares, main topic first; then any claim; then other topics
    std::size_t asked;  // 0: never
    std::size_t order;
    SelectedQuestion question;
  };
  std::vector<Candidate> candidates;
  std::size_t order = 0;
  const std::string arch = normalized_arch(config.arch);
  for (const auto& pack : packs) {
    if (pack.architecture && normalized_arch(*pack.architecture) != arch) continue;
    for (const auto& q : pack.items) {
      ++order;
      if (std::find(q.triggers.begin(), q.triggers.end(), event) == q.triggers.end()) continue;
      if (q.requires_other_implementation && config.peer.empty()) continue;
      if (q.id == last_id) continue;
      const auto it = last_asked.find(q.id);
      candidates.push_back({q.answered_by_record,
                            fit(q),
                            it == last_asked.end() ? 0 : it->second,
                            order,
                            {q.id, pack.id, q.text, std::string(event), "bank"}});
    }
  }
  if (candidates.empty()) return std::nullopt;
  std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.by_record != b.by_record) return !a.by_record;
    if (a.fit != b.fit) return a.fit < b.fit;
    return a.asked != b.asked ? a.asked < b.asked : a.order < b.order;
  });
  return candidates.front().question;
}

Result<std::vector<QuestionPack>> load_campaign_packs(const CampaignConfig& config,
                                                      const std::vector<QuestionPack>& available) {
  if (config.packs.empty()) return available;
  std::vector<QuestionPack> chosen;
  for (const auto& id : config.packs) {
    auto it = std::find_if(available.begin(), available.end(), [&](const QuestionPack& p) { return p.id == id; });
    if (it == available.end()) {
      std::string known;
      for (const auto& p : available) known += (known.empty() ? "" : ", ") + p.id;
      return make_error(
          fmt::format("campaign.json names question pack '{}', which is not installed (installed: {}); "
                      "install it with `kseek questions install FILE`",
                      id, known));
    }
    chosen.push_back(*it);
  }
  return chosen;
}

std::vector<std::string> GateResult::unmet() const {
  std::vector<std::string> out;
  if (!evidence_problem.empty()) out.push_back(evidence_problem);
  for (const auto& t : terms) {
    if (!t.holds) out.push_back(fmt::format("{}: {}", t.source, t.explanation));
  }
  return out;
}

GateResult compute_gate(const Campaign& campaign, const LogContents& log) {
  GateResult gate;
  auto goal = parse_goal(campaign.config().goal);
  if (!goal) {
    gate.evidence_problem = "the campaign's goal does not parse: " + goal.error().message;
    return gate;
  }
  auto hash = campaign.candidate_sha256();
  if (!hash) {
    gate.evidence_problem = hash.error().message;
    gate.terms = evaluate_goal(*goal, json()).terms;
    return gate;
  }
  gate.candidate_sha256 = *hash;
  // Evidence is an evaluation kseek signed: a line with a right checksum is not enough (anyone can compute one), and
  // Campaign::read_log has already moved unsigned lines to `damaged`.
  std::optional<EvaluationSummary> evidence;
  for (const auto& r : log.records) {
    auto e = evaluation_of(r);
    if (e && e->candidate_sha256 == *hash && e->status == "COMPLETE" && campaign.written_by_kseek(r)) {
      evidence = std::move(e);
    }
  }
  std::size_t unsigned_line = 0;
  for (const auto& d : log.damaged) {
    if (d.reason == kNotSignedReason) unsigned_line = d.line;
  }
  json record;  // null: no evidence
  if (!evidence && !campaign.signature_problem().empty()) {
    gate.evidence_problem = "no verifiable evidence: " + campaign.signature_problem();
  } else if (!evidence && unsigned_line != 0) {
    gate.evidence_problem = fmt::format(
        "no evaluation of the current candidate that kseek signed; log line {} is a "
        "record kseek did not sign and is not evidence; run `kseek eval`",
        unsigned_line);
  } else if (!evidence) {
    gate.evidence_problem = fmt::format(
        "no completed evaluation of the current candidate (sha256 {}): run `kseek eval`", hash->substr(0, 12));
  } else {
    gate.evaluation = evidence->number;
    // The candidate's identity is its bytes, never its file time: a campaign kept in git, copied to the GPU machine or
    // checked out afresh has new file times and the same kernel, and its evaluations stay evidence.
    auto loaded = campaign.load_evaluation(*evidence);
    const auto typed = loaded ? evaluation_record_from_json(*loaded) : Result<EvaluationRecord>(loaded.error());
    if (!typed) {
      gate.evidence_problem = typed.error().message;
    } else if (typed->synthetic.value_or(false) &&
               !(std::getenv("KSEEK_TESTING") && std::string_view(std::getenv("KSEEK_TESTING")) == "1")) {
      // A test worker's canned results (docs/campaigns-runner.md) are evidence only inside kseek's own tests.
      gate.evidence_problem = fmt::format(
          "evaluation {} is synthetic (canned results from a test worker, KSEEK_TESTING=1): "
          "it is not evidence; run `kseek eval` without the test override",
          evidence->number);
    } else if (typed->shard || (typed->settings && typed->settings->functional_arch)) {
      // `kseek eval` refuses both inside a campaign; a record that has them was not made by the campaign's own eval.
      gate.evidence_problem = fmt::format(
          "evaluation {} is one shard or a functional run on another arch: it does not "
          "cover the campaign's selection; run `kseek eval`",
          evidence->number);
    } else if (typed->candidate.sha256 != *hash) {
      gate.evidence_problem =
          fmt::format("evaluation {}'s record names another candidate than its log entry", evidence->number);
    } else {
      record = std::move(*loaded);
    }
  }
  const GoalVerdict verdict = evaluate_goal(*goal, gate.evidence_problem.empty() ? record : json());
  gate.terms = verdict.terms;
  gate.holds = gate.evidence_problem.empty() && verdict.holds;
  if (!gate.evidence_problem.empty()) gate.evaluation = 0;
  return gate;
}

CampaignStatus campaign_status(const Campaign& campaign, const LogContents& log) {
  const auto& config = campaign.config();
  const auto evals = evaluations(log.records);
  CampaignStatus status;
  status.campaign = campaign.dir().string();
  status.plugin = config.plugin;
  status.set = config.set;
  status.goal = config.goal;
  status.questions = config.questions;
  status.evaluations = static_cast<int>(evals.size());
  const Progress p = progress_before(evals, evals.size(), config.thresholds, init_time(log.records));
  if (p.best_number != 0) status.best = {p.best_number, p.best};
  if (!evals.empty()) {
    const auto& e = evals.back();
    status.latest = CampaignStatus::Latest{e.number,  e.time,        e.status,       e.all_passed,
                                           e.geomean, e.geomean_low, e.geomean_high, failing_list(e, 8)};
  }
  for (std::size_t i = evals.size() > 8 ? evals.size() - 8 : 0; i < evals.size(); ++i) {
    status.trend.push_back({evals[i].number, evals[i].geomean, evals[i].all_passed});
  }
  status.timed_evaluations_since_best = p.timed_since_best;
  status.last_progress = {p.progress_number, p.progress_what.empty() ? "none since the start" : p.progress_what,
                          p.timed_since_progress};
  const GateResult gate = compute_gate(campaign, log);
  status.gate = {gate.holds, gate.evaluation, gate.unmet(), gate.candidate_sha256};
  for (const auto& e : pending_events(config, log.records, SystemClock::now())) {
    status.open_events.push_back({e.name, e.detail, false});
  }
  if (auto e = unanswered_event(log.records)) status.open_events.push_back({e->name, e->detail, true});
  for (const auto& r : log.records) status.record_counts[r.type.empty() ? "?" : r.type] += 1;
  for (const auto& d : log.damaged) status.damaged_lines.push_back({static_cast<int>(d.line), d.reason});
  // Whether the records could be verified here, with which key, and what that key's place means for them.
  const auto place = campaign.key_place();
  status.signatures.verified = place.has_value();
  if (place) status.signatures.key = std::string(key_place_name(*place));
  status.signatures.note =
      campaign.key_kept_in_campaign() ? std::string(kKeyInCampaignNote) : campaign.signature_problem();
  return status;
}

}  // namespace kseek
