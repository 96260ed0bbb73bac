// Progress on a campaign's unmet goal terms, for the stagnation events (campaign_engine.cpp, progress_before): a
// term's closeness to its target moved beyond the noise of the scenarios it reads. Pure: log summaries in, numbers
// and words out.
// It must never count a move whose noise it cannot compute (an old log line, a term that reads the whole record).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "kseek/core/campaign/campaign.hpp"

namespace kseek {

// A goal term's highest closeness on a timed evaluation that passed everywhere, and its noise there.
struct TermBest {
  double closeness = 0;
  std::optional<double> noise;
};

// An unmet goal term an evaluation moved toward its target beyond the noise: from its best earlier closeness to this.
struct TermMove {
  std::string term;
  double from = 0;
  double to = 0;
  int others = 0;  // further terms the same evaluation moved
};

// The noise on a term's closeness on one evaluation: the sum of the relative half-widths of every scenario it reads.
// A closeness is a product and quotient of those figures, so to first order its relative error is at most the sum of
// theirs; the ratio's interval is used for each, and it is wider than that of a rate such as tflops (it holds the
// reference's timing noise too), which keeps the sum conservative. A peer's figure counts as exact (measured once per
// evaluation, with no interval). Nothing, so the move never counts, where the term reads a figure of the whole record
// (the geomean has its own rule), reads no scenario at all (nothing the candidate does moves it), or a scenario's
// interval is missing (a line written before kseek logged it).
std::optional<double> term_noise(const EvaluationSummary& e, const LoggedTermValue& v);

// The largest move an evaluation made on a goal term no earlier counting evaluation met (`terms_met`), measured
// against the term's best earlier closeness (`term_best`): it counts when it is at least `min_improvement` relative
// and larger than the noise of both evaluations together (term_noise on each), so the two intervals cannot overlap.
// A term with no earlier value has nothing to move from.
std::optional<TermMove> term_move(const EvaluationSummary& e, const std::set<std::string>& terms_met,
                                  const std::map<std::string, TermBest>& term_best, double min_improvement);

// "evaluation 21 moved <term> from 0.78 to 0.86 of its target", with "(and N more terms)" where it moved several.
std::string describe_move(int evaluation, const TermMove& move);

}  // namespace kseek
