// The parent writes the requests to a file and starts `kseek __build FILE` as every build program is started
// (start_capped: fork and exec with only system calls between, so safe from a threaded process; the child dies with
// its parent; no memory or CPU cap here, its compilers have their own). That kseek removes the file once read,
// compiles each request through a BuildService on the same cache folder and prints a JSON line per request, which the
// parent reads from the pipe at wait() and keys by cache key. It must never leave the process running past its
// BackgroundBuild.
#include "kseek/core/build/background_build.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ostream>

#include <fmt/format.h>

#include "kseek/core/build/build_cache.hpp"
#include "kseek/core/build/capped_process.hpp"
#include "kseek/core/build/compile_request_json.hpp"
#include "kseek/core/build/nvrtc_compiler.hpp"
#include "kseek/core/util/files.hpp"

namespace kseek {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// A fresh name in the temporary folder, or "" when there is none ($TMPDIR naming a folder that does not exist).
fs::path request_file_path() {
  static std::atomic<int> counter{0};
  std::error_code ec;
  const fs::path folder = fs::temp_directory_path(ec);
  if (ec) return {};
  return folder / fmt::format("kseek-build-{}-{}.json", ::getpid(), counter++);
}

std::string first_line(const std::string& text) {
  const std::string line = text.substr(0, text.find('\n'));
  return line.size() > 300 ? line.substr(0, 300) + "..." : line;
}

}  // namespace

BackgroundBuild BackgroundBuild::start(BuildService& builds, const std::vector<CompileRequest>& requests,
                                       const fs::path& kseek_executable) {
  BackgroundBuild background;
  if (!builds.has_cache()) {
    background.why_not_ = "no build cache to hand the results back through";
    return background;
  }
  json to_build = json::array();
  for (const auto& request : requests) {
    const std::string key = build_cache_key(request);
    if (builds.cached(request)) {
      background.not_asked_[key] = "not asked: it was in the build cache when the builds started";
    } else if (background.asked_.insert(key).second) {  // a request given twice is built once
      to_build.push_back(compile_request_to_json(request));
    }
  }
  if (to_build.empty()) {
    background.why_not_ = "already in the build cache";
    return background;
  }
  if (const int slots = build_threads(requests.front().compile_threads); slots < kMinBuildThreadsBeside) {
    background.why_not_ = fmt::format("{} build thread{}: two builds at once would only share {}", slots,
                                      slots == 1 ? "" : "s", slots == 1 ? "it" : "them");
    return background;
  }
  if (kseek_executable.empty()) {
    background.why_not_ = "no kseek executable to build in";
    return background;
  }
  const fs::path request_file = request_file_path();
  if (request_file.empty()) {
    background.why_not_ = "no temporary folder to hand the requests over in (is $TMPDIR a folder?)";
    return background;
  }
  std::string text;
  try {
    text = json{{"cache_folder", builds.cache_folder().string()}, {"requests", std::move(to_build)}}.dump();
  } catch (const json::exception& e) {  // a source or header that is not UTF-8 cannot be JSON text as it is
    background.why_not_ = std::string("the requests cannot be written as JSON: ") + e.what();
    return background;
  }
  if (auto written = write_file_atomically(request_file, text); !written) {
    background.why_not_ = "cannot write the requests: " + written.error().message;
    return background;
  }
  // A lower priority, for it and the compilers it starts: these builds fill the cores the candidate's build leaves
  // idle and yield where the two contend. Not the lowest: once the candidate is built the parent waits for these, and
  // at nice 19 any other work on the machine would starve them (CFS weight 15 against 1024).
  const CappedProgram started = start_capped({kseek_executable.string(), "__build", request_file.string()},
                                             /*memory_cap_bytes=*/0, /*cpu_seconds=*/0.0, kBesidePriority);
  if (started.pid < 0) {
    background.why_not_ = std::string("cannot start the build process: ") + std::strerror(errno);
    std::error_code ec;
    fs::remove(request_file, ec);
    return background;
  }
  background.pid_ = started.pid;
  background.fd_ = started.output_fd;
  background.request_file_ = request_file;
  return background;
}

BackgroundBuild::BackgroundBuild(BackgroundBuild&& other) noexcept
    : pid_(other.pid_),
      fd_(other.fd_),
      waited_(other.waited_),
      request_file_(std::move(other.request_file_)),
      asked_(std::move(other.asked_)),
      not_asked_(std::move(other.not_asked_)),
      answers_(std::move(other.answers_)),
      why_not_(std::move(other.why_not_)) {
  other.pid_ = -1;
  other.fd_ = -1;
  other.request_file_.clear();
}

// Not waited for (the evaluation was left by an exception): nothing will read the results, so the builds end now.
// The cache's writes are atomic; a build cut short leaves nothing there. The pipe is closed unread: the killed
// process's compiler children hold its write end until their own caps end them, and reading to its end would wait
// for them.
BackgroundBuild::~BackgroundBuild() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  ::close(fd_);
  while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  std::error_code ec;
  fs::remove(request_file_, ec);
}

void BackgroundBuild::wait() {
  if (pid_ <= 0) return;
  std::string output;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd_, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    output.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd_);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  fd_ = -1;
  waited_ = true;
  std::error_code ec;
  fs::remove(request_file_, ec);

  // Lines that are not an answer (a message of the program itself) are kept for why_not.
  std::string other;
  std::size_t from = 0;
  while (from < output.size()) {
    const std::size_t end = std::min(output.find('\n', from), output.size());
    const std::string line = output.substr(from, end - from);
    from = end + 1;
    const json answer = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (answer.is_object() && answer.contains("cache_key") && answer.at("cache_key").is_string()) {
      Answer& a = answers_[answer.at("cache_key").get<std::string>()];
      if (a.built) continue;  // the first build of a key is the one that filled the cache
      a.built = answer.value("built", false);
      a.seconds = answer.value("seconds", 0.0);
      a.why_not = answer.value("why_not", "");
    } else if (!line.empty() && other.empty()) {
      other = line;
    }
  }
  const bool clean_exit = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!clean_exit) {
    why_not_ = WIFEXITED(status) ? fmt::format("the build process exited with {}", WEXITSTATUS(status))
                                 : fmt::format("the build process was killed by signal {}", WTERMSIG(status));
    if (!other.empty()) why_not_ += ": " + first_line(other);
  }
}

std::optional<double> BackgroundBuild::built_seconds(const CompileRequest& request) const {
  const auto it = answers_.find(build_cache_key(request));
  if (it == answers_.end() || !it->second.built) return std::nullopt;
  return it->second.seconds;
}

std::string BackgroundBuild::why_not_built(const CompileRequest& request) const {
  const std::string key = build_cache_key(request);
  if (const auto not_asked = not_asked_.find(key); not_asked != not_asked_.end()) return not_asked->second;
  if (!started()) return why_not_;
  if (asked_.count(key) == 0) return "not asked: not among the requests it was given";
  const auto it = answers_.find(key);
  if (it != answers_.end()) return it->second.built ? "" : it->second.why_not;
  if (!waited_) return "not waited for";
  return why_not_.empty() ? "the build process said nothing of it" : why_not_;
}

int serve_background_builds(const fs::path& request_file, std::ostream& out) {
  const auto text = read_file(request_file);
  if (!text) {
    out << "kseek __build: " << text.error().message << "\n";
    return 2;
  }
  std::error_code ec;
  fs::remove(request_file, ec);  // read: nothing is left behind should the starting process be killed
  const json document = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!document.is_object() || !document.contains("cache_folder") || !document.at("cache_folder").is_string() ||
      !document.contains("requests") || !document.at("requests").is_array()) {
    out << "kseek __build: " << request_file.string()
        << " is not a build request file ({\"cache_folder\": ..., \"requests\": [...]})\n";
    return 2;
  }
  BuildService builds{BuildCache(document.at("cache_folder").get<std::string>())};
  for (const json& item : document.at("requests")) {
    auto request = compile_request_from_json(item);
    if (!request) {
      out << "kseek __build: " << request.error().message << "\n";
      return 2;
    }
    json answer = {{"cache_key", build_cache_key(*request)}, {"built", false}, {"seconds", 0.0}};
    const auto started = std::chrono::steady_clock::now();
    try {
      const CompileOutput built = builds.compile(*request);
      answer["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (built.status != Status::kOk) {
        answer["why_not"] = "it did not build here (" + first_line(built.error) + ")";
      } else if (built.cache_hit) {
        answer["why_not"] = "another process cached it first";  // not a build of this process
      } else {
        answer["built"] = true;
      }
    } catch (const std::exception& e) {
      answer["why_not"] = std::string("the build threw: ") + e.what();
    }
    out << answer.dump(-1, ' ', false, json::error_handler_t::replace) << "\n" << std::flush;
  }
  return 0;
}

}  // namespace kseek
