// Progress on unmet goal terms (term_progress.hpp).
#include "kseek/core/campaign/term_progress.hpp"

#include <cmath>

#include <fmt/format.h>

namespace kseek {
namespace {

// The relative half-width of a scenario's ratio interval on an evaluation's log line; nothing where the line lacks the
// scenario, its interval or a positive ratio.
std::optional<double> relative_half_width(const EvaluationSummary& e, const std::string& id) {
  for (const auto& s : e.scenarios) {
    if (s.id != id) continue;
    if (!s.ratio || !s.ci_low || !s.ci_high || !(*s.ratio > 0) || !(*s.ci_high >= *s.ci_low)) return std::nullopt;
    const double half_width = (*s.ci_high - *s.ci_low) / (2.0 * *s.ratio);
    return std::isfinite(half_width) ? std::optional<double>(half_width) : std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> term_noise(const EvaluationSummary& e, const LoggedTermValue& v) {
  if (v.reads_summary || v.scenarios.empty()) return std::nullopt;
  double noise = 0;
  for (const auto& id : v.scenarios) {
    const auto half_width = relative_half_width(e, id);
    if (!half_width) return std::nullopt;
    noise += *half_width;
  }
  return noise;
}

std::optional<TermMove> term_move(const EvaluationSummary& e, const std::set<std::string>& terms_met,
                                  const std::map<std::string, TermBest>& term_best, double min_improvement) {
  std::optional<TermMove> largest;
  int moved = 0;
  for (const auto& v : e.goal_term_values) {
    if (terms_met.count(v.term)) continue;
    const auto before = term_best.find(v.term);
    if (before == term_best.end() || !before->second.noise) continue;
    const auto noise = term_noise(e, v);
    if (!noise) continue;
    const double gain = v.closeness / before->second.closeness - 1.0;
    if (!(gain >= min_improvement) || !(gain > *noise + *before->second.noise)) continue;
    ++moved;
    if (!largest || v.closeness / before->second.closeness > largest->to / largest->from) {
      largest = TermMove{v.term, before->second.closeness, v.closeness, 0};
    }
  }
  if (largest) largest->others = moved - 1;
  return largest;
}

std::string describe_move(int evaluation, const TermMove& move) {
  return fmt::format(
      "evaluation {} moved {} from {:.2f} to {:.2f} of its target{}", evaluation, move.term, move.from, move.to,
      move.others == 0 ? "" : fmt::format(" (and {} more term{})", move.others, move.others == 1 ? "" : "s"));
}

}  // namespace kseek
