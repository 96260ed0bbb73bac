// Progress of `kseek eval` for people: a live line (scenario k/N, phase, elapsed, estimate) redrawn on a terminal,
// one line per finished scenario otherwise. It must never write to stdout, nor anything at all in --json mode.
#include "eval_progress.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kseek/core/report/svg_plot.hpp"

namespace kseek::cli {
namespace {

constexpr std::string_view kClearToEnd = "\x1b[K";
constexpr std::size_t kDefaultWidth = 100;

std::size_t terminal_width(int fd) {
  winsize size{};
  if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return kDefaultWidth;
}

}  // namespace

ProgressMode choose_progress_mode(bool json, int fd) {
  if (json) return ProgressMode::kSilent;
  return ::isatty(fd) ? ProgressMode::kLive : ProgressMode::kLines;
}

ProgressMode stderr_progress_mode(bool json) { return choose_progress_mode(json, STDERR_FILENO); }

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) seconds = 0;
  const auto total = static_cast<long long>(std::llround(seconds));
  if (total >= 3600) return fmt::format("{}h {:02}m", total / 3600, (total % 3600) / 60);
  if (total >= 60) return fmt::format("{}m {:02}s", total / 60, total % 60);
  return fmt::format("{}s", total);
}

std::string format_progress_line(const ProgressSnapshot& s, std::size_t width) {
  std::string phase;
  if (s.done == 0) {
    phase = "building, checking, then scenario 1";
  } else if (s.done < s.total) {
    phase = fmt::format("running scenario {}", s.done + 1);
  } else {
    phase = "finishing";
  }
  std::string line =
      fmt::format("[{}/{}] {} \xC2\xB7 elapsed {}", s.done, s.total, phase, format_duration(s.elapsed_seconds));
  if (s.remaining_seconds) {
    line += fmt::format(" \xC2\xB7 about {} left", format_duration(*s.remaining_seconds));
  } else if (s.done < s.total) {
    line += " \xC2\xB7 estimate after the first scenario";
  }
  if (!s.last_scenario.empty()) {
    line += fmt::format(" \xC2\xB7 last: {} {}", s.last_scenario, s.last_status);
    if (s.last_ratio) line += fmt::format(" {:.3f}x", *s.last_ratio);
  }
  // One column short of the width: writing into the last column makes some terminals wrap, breaking the redraw.
  return report::shorten(line, width > 1 ? width - 1 : 1);
}

std::string format_scenario_line(const ScenarioOutcome& r) {
  const std::string gpu = r.gpu ? fmt::format(" [GPU {}]", r.gpu->ordinal) : "";  // multi-GPU runs name the ordinal
  return fmt::format("  {} {} ({:.1f} s){} {}", r.scenario, to_string(r.status), r.wall_seconds.value_or(0.0), gpu,
                     r.message.value_or(""));
}

EvalProgress::EvalProgress(std::ostream& out, ProgressMode mode, std::size_t total, std::size_t width)
    : out_(out),
      mode_(mode),
      total_(total),
      width_(width == 0 ? terminal_width(STDERR_FILENO) : width),
      started_(std::chrono::steady_clock::now()) {
  if (mode_ != ProgressMode::kLive) return;
  std::lock_guard lock(mutex_);
  redraw_locked();
}

void EvalProgress::start_ticker_locked() {
  if (ticker_.joinable() || stopping_) return;
  ticker_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::seconds(1), [this] { return stopping_; })) redraw_locked();
  });
}

EvalProgress::~EvalProgress() { finish(); }

void EvalProgress::scenario_finished(const ScenarioOutcome& r) {
  if (mode_ == ProgressMode::kSilent) return;
  std::lock_guard lock(mutex_);
  if (mode_ == ProgressMode::kLines) {
    out_ << format_scenario_line(r) << "\n" << std::flush;
    return;
  }
  start_ticker_locked();
  ++done_;
  scenario_seconds_ += r.wall_seconds.value_or(0.0);
  last_scenario_ = r.scenario;
  last_status_ = std::string(to_string(r.status));
  last_ratio_.reset();
  if (r.timing) last_ratio_ = r.timing->ratio;
  if (last_status_ != "PASSED") out_ << "\r" << kClearToEnd << format_scenario_line(r) << "\n";
  redraw_locked();
}

void EvalProgress::finish() {
  if (mode_ != ProgressMode::kLive) return;
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  out_ << "\r" << kClearToEnd << std::flush;
}

ProgressSnapshot EvalProgress::snapshot_locked() const {
  ProgressSnapshot s;
  s.done = done_;
  s.total = total_;
  s.elapsed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  if (done_ > 0) {
    const double mean = scenario_seconds_ / static_cast<double>(done_);
    s.remaining_seconds = mean * static_cast<double>(total_ - std::min(done_, total_));
  }
  s.last_scenario = last_scenario_;
  s.last_status = last_status_;
  s.last_ratio = last_ratio_;
  return s;
}

void EvalProgress::redraw_locked() {
  out_ << "\r" << format_progress_line(snapshot_locked(), width_) << kClearToEnd << std::flush;
}

}  // namespace kseek::cli
