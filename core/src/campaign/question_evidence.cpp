// What followed each question, the `trace` promotion rule, and the harvest of people's questions into a draft pack.
// It must never call an outcome before K evaluations have been seen, unless an improvement already decided it.
#include "kseek/core/campaign/question_evidence.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/campaign/campaign_engine.hpp"

namespace kseek {
using nlohmann::json;

namespace {

struct Ask {
  std::size_t position;
  double best, best_high;
};

std::set<std::string> words_of(const std::string& text) {
  std::set<std::string> words;
  std::string word;
  for (char c : text + " ") {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!word.empty()) {
      if (word.size() > 2) words.insert(word);  // "the", "is", "a": too common to tell questions apart
      word.clear();
    }
  }
  return words;
}

double similarity(const std::set<std::string>& a, const std::set<std::string>& b) {
  if (a.empty() || b.empty()) return 0;
  std::size_t common = 0;
  for (const auto& w : a) common += b.count(w);
  return static_cast<double>(common) / static_cast<double>(a.size() + b.size() - common);
}

}  // namespace

bool eligible_for_trace(const QuestionOutcomes& o) {
  const int known = o.improvement + o.regression + o.nothing;
  std::set<std::string> campaigns(o.campaigns_improved.begin(), o.campaigns_improved.end());
  return o.asked >= 2 && known > 0 && 2 * o.improvement >= known && campaigns.size() >= 2;
}

std::vector<QuestionOutcomes> question_outcomes(const std::vector<CampaignLog>& logs, int within) {
  std::map<std::string, QuestionOutcomes> by_id;
  std::vector<std::string> order;
  for (const auto& log : logs) {
    std::vector<std::pair<std::string, Ask>> asks;
    std::vector<std::pair<std::size_t, EvaluationSummary>> evals;
    double best = 1.0, best_high = 1.0;
    for (std::size_t i = 0; i < log.records.size(); ++i) {
      const LogRecord& r = log.records[i];
      if (auto e = evaluation_of(r)) {
        if (e->status != "COMPLETE") continue;
        evals.emplace_back(i, *e);
        if (is_improvement(*e, best, best_high, log.min_improvement)) {
          best = *e->geomean;
          best_high = e->geomean_high.value_or(best);
        }
      } else if (r.type == "question") {
        const std::string& id = r.id;
        if (!by_id.contains(id)) {
          order.push_back(id);
          by_id[id] = {id, r.pack, r.text};
        }
        asks.push_back({id, {i, best, best_high}});
      }
    }
    for (const auto& [id, ask] : asks) {
      QuestionOutcomes& o = by_id[id];
      ++o.asked;
      int considered = 0;
      std::string outcome = "pending";
      const double b = ask.best, bh = ask.best_high;
      for (const auto& [position, e] : evals) {
        if (position < ask.position) continue;
        if (considered == within) break;
        ++considered;
        if (is_improvement(e, b, bh, log.min_improvement)) {
          outcome = "improvement";
          break;
        }
        if (!e.all_passed) {
          outcome = "regression";
          break;
        }
      }
      if (outcome == "pending" && considered == within) outcome = "nothing";
      if (outcome == "improvement") {
        ++o.improvement;
        o.campaigns_improved.push_back(log.name);
      } else if (outcome == "regression") {
        ++o.regression;
      } else if (outcome == "nothing") {
        ++o.nothing;
      } else {
        ++o.pending;
      }
    }
  }
  std::vector<QuestionOutcomes> out;
  for (const auto& id : order) {
    QuestionOutcomes o = by_id[id];
    o.eligible_for_trace = eligible_for_trace(o);
    out.push_back(std::move(o));
  }
  return out;
}

json harvest_human_questions(const std::vector<CampaignLog>& logs, const std::string& pack_id) {
  struct Group {
    std::vector<std::string> texts;
    std::set<std::string> words;
    std::set<std::string> campaigns;
    std::set<std::string> events;
  };
  std::vector<Group> groups;
  for (const auto& log : logs) {
    for (const auto& r : log.records) {
      if (r.type != "question" || r.source != "human") continue;
      const std::string& text = r.text;
      const auto words = words_of(text);
      auto it =
          std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return similarity(g.words, words) >= 0.6; });
      if (it == groups.end()) {
        groups.push_back({{}, words, {}, {}});
        it = groups.end() - 1;
      }
      it->texts.push_back(text);
      it->campaigns.insert(log.name);
      it->events.insert(r.event.empty() && !r.value.contains("event") ? "stagnation" : r.event);
    }
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const Group& a, const Group& b) { return a.texts.size() > b.texts.size(); });
  json items = json::array();
  int n = 0;
  for (const auto& g : groups) {
    // The phrasing people used most often stands for the group; the others go to the notes.
    std::map<std::string, int> counts;
    for (const auto& t : g.texts) ++counts[t];
    const auto top =
        std::max_element(counts.begin(), counts.end(), [](auto& a, auto& b) { return a.second < b.second; });
    std::string variants;
    for (const auto& [t, c] : counts) {
      if (t != top->first) variants += fmt::format(" | {}", t);
    }
    json triggers = json::array();
    for (const auto& e : g.events) {
      if (std::find(std::begin(kCampaignEvents), std::end(kCampaignEvents), e) != std::end(kCampaignEvents))
        triggers.push_back(e);
    }
    if (triggers.empty()) triggers.push_back("stagnation");
    items.push_back(
        {{"id", fmt::format("{}-{:03}", pack_id, ++n)},
         {"text", top->first},
         {"triggers", triggers},
         {"intent", "measure"},
         {"requires_other_implementation", false},
         {"provenance", "unverified"},
         {"notes", fmt::format("harvested: asked {} time(s) in {} campaign(s); check the intent{}", g.texts.size(),
                               g.campaigns.size(), variants.empty() ? "" : "; variants:" + variants)}});
  }
  return {{"format", "kseek.questions/1"},
          {"pack",
           {{"id", pack_id},
            {"version", "0.1.0"},
            {"description", "Draft: questions people asked during campaigns"},
            {"architecture", nullptr},
            {"license", "CC-BY-4.0"}}},
          {"items", items}};
}

}  // namespace kseek
