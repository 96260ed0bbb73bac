// The line protocol between `kseek eval` and a serving GPU worker (`kseek __worker --serve`), on a socket the worker
// finds at file descriptor kJobChannelFd: the parent sends one job line, the worker answers one reply line when the
// job's result file is written and everything the job printed is flushed. It must never carry a result itself:
// results travel as files, written atomically, so a worker killed mid-job leaves none or a whole one.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace kseek {

inline constexpr int kJobChannelFd = 3;

struct JobFiles {
  std::filesystem::path job;     // the ScenarioJob as JSON
  std::filesystem::path result;  // where the worker writes the result
};

// "JOB\tRESULT\n". Paths with a tab or a newline cannot be sent: nullopt (the scheduler's own work folder never has).
std::optional<std::string> job_line(const JobFiles& files);
// The inverse, for one line without its newline; nullopt for anything else.
std::optional<JobFiles> parse_job_line(std::string_view line);

// Sends all of `text` on the channel socket; false when the other end is gone. Never raises SIGPIPE: a worker that
// died between jobs must not take kseek down with it.
bool send_on_channel(int fd, std::string_view text);

// The worker's replies: it can take another job, or it ends after this one (a lost context, a GPU that would not open,
// a scenario it could not clean up after), so the next job needs a fresh process.
inline constexpr std::string_view kReplyReady = "done";
inline constexpr std::string_view kReplyExiting = "done exit";

}  // namespace kseek
