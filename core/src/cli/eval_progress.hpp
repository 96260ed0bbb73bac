// Progress of `kseek eval` for people: a live line (scenario k/N, phase, elapsed, estimate) redrawn on a terminal,
// one line per finished scenario otherwise. It must never write to stdout, nor anything at all in --json mode.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <thread>

#include "kseek/core/eval/evaluation_record.hpp"

namespace kseek::cli {

enum class ProgressMode {
  kSilent,  // --json: the JSON document is the only output
  kLines,   // not a terminal (CI logs, pipes): one line per finished scenario, as always
  kLive,    // a terminal: one line redrawn in place with \r, plus a line for each scenario that did not pass
};

// kSilent for --json, kLive when `fd` is a terminal, else kLines.
ProgressMode choose_progress_mode(bool json, int fd);
ProgressMode stderr_progress_mode(bool json);  // for standard error, where progress goes

struct ProgressSnapshot {
  std::size_t done = 0, total = 0;
  double elapsed_seconds = 0;
  std::optional<double> remaining_seconds;  // unknown until a scenario has finished
  std::string last_scenario, last_status;   // the most recently finished scenario
  std::optional<double> last_ratio;
};

// "1h 02m", "3m 05s", "42s".
std::string format_duration(double seconds);

// The live line, at most `width` columns (code points), without \r or a newline.
std::string format_progress_line(const ProgressSnapshot& snapshot, std::size_t width);

// The line printed for one finished scenario in kLines mode (and for a scenario that did not pass in kLive mode).
std::string format_scenario_line(const ScenarioOutcome& scenario);

class EvalProgress {
 public:
  // In kLive mode a ticker thread redraws the line once a second so that "elapsed" moves between scenarios. It starts
  // with the first finished scenario, not here: the builds before it run their compile steps in plain forks of this
  // process (capped_process.hpp), and a fork taken while another thread holds a lock can leave the child waiting on
  // it for ever; the builds beside the candidate are another kseek, exec'd at once, and need no such care.
  EvalProgress(std::ostream& out, ProgressMode mode, std::size_t total, std::size_t width = 0);
  ~EvalProgress();
  EvalProgress(const EvalProgress&) = delete;
  EvalProgress& operator=(const EvalProgress&) = delete;

  void scenario_finished(const ScenarioOutcome& scenario);
  // Stops the ticker and clears the live line, so that what follows starts on a clean line. Idempotent.
  void finish();

 private:
  void redraw_locked();
  void start_ticker_locked();
  ProgressSnapshot snapshot_locked() const;

  std::ostream& out_;
  ProgressMode mode_;
  std::size_t total_;
  std::size_t width_;
  std::chrono::steady_clock::time_point started_;
  std::size_t done_ = 0;
  double scenario_seconds_ = 0;  // sum of the finished scenarios' wall time
  std::string last_scenario_, last_status_;
  std::optional<double> last_ratio_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread ticker_;
};

}  // namespace kseek::cli
