// The serving worker's job lines (see the header).
#include "kseek/core/worker/job_channel.hpp"

#include <sys/socket.h>

#include <cerrno>

namespace kseek {

std::optional<std::string> job_line(const JobFiles& files) {
  const std::string job = files.job.string();
  const std::string result = files.result.string();
  for (const std::string* path : {&job, &result}) {
    if (path->empty() || path->find_first_of("\t\n") != std::string::npos) return std::nullopt;
  }
  return job + '\t' + result + '\n';
}

std::optional<JobFiles> parse_job_line(std::string_view line) {
  const auto tab = line.find('\t');
  if (tab == std::string_view::npos || line.find('\t', tab + 1) != std::string_view::npos) return std::nullopt;
  if (line.find('\n') != std::string_view::npos) return std::nullopt;
  const std::string_view job = line.substr(0, tab);
  const std::string_view result = line.substr(tab + 1);
  if (job.empty() || result.empty()) return std::nullopt;
  return JobFiles{std::filesystem::path(job), std::filesystem::path(result)};
}

bool send_on_channel(int fd, std::string_view text) {
  std::size_t sent = 0;
  while (sent < text.size()) {
    const ssize_t n = ::send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace kseek
