// Append-only JSON-lines record log: flock-serialised, fsynced appends and checksum-verified reads.
// It must never report an append as done before fsync returns, nor hide a damaged line from the reader.
#include "kseek/core/campaign/record_log.hpp"

#include <cerrno>
#include <cstring>
#include <string_view>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kseek/core/util/files.hpp"
#include "kseek/core/util/sha256.hpp"

namespace kseek {
namespace {

constexpr std::size_t kDigestChars = 64;
constexpr std::size_t kExcerptChars = 80;

Error io_error(std::string_view operation, const std::filesystem::path& log) {
  return make_error(std::string(operation) + " of record log '" + log.string() + "' failed: " + std::strerror(errno));
}

// Closes the descriptor (which also releases its flock) on every path out of a function.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

bool lock(int fd, int operation) {
  while (::flock(fd, operation) != 0) {
    if (errno != EINTR) return false;
  }
  return true;
}

bool is_lower_hex(std::string_view text) {
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

void classify_line(std::string_view line, std::size_t number, bool has_newline, LogContents& out) {
  auto damaged = [&](std::string reason) {
    out.damaged.push_back(DamagedLine{number, std::move(reason), std::string(line.substr(0, kExcerptChars))});
  };
  if (!has_newline) return damaged("torn tail: last line has no terminating newline");
  if (line.empty()) return damaged("empty line");
  if (line.size() < kDigestChars + 1 || line[kDigestChars] != ' ' || !is_lower_hex(line.substr(0, kDigestChars))) {
    return damaged("malformed: expected '<64 hex sha256> <json>'");
  }
  const std::string_view digest = line.substr(0, kDigestChars);
  const std::string_view text = line.substr(kDigestChars + 1);
  const std::string actual = sha256_hex(text);
  if (actual != digest) {
    return damaged("checksum mismatch: line says " + std::string(digest) + ", text hashes to " + actual);
  }
  nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return damaged("checksum matches but the text is not valid JSON");
  out.records.push_back(log_record(number, std::move(value)));
}

}  // namespace

LogRecord log_record(std::size_t line, nlohmann::json value) {
  const auto text = [&](const char* key) {
    const auto it = value.find(key);
    return it != value.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const auto whole = [&](const char* key) {
    const auto it = value.find(key);
    return it != value.end() && it->is_number_integer() ? it->get<int>() : 0;
  };
  LogRecord r;
  r.line = line;
  if (value.is_object()) {
    r.type = text("type");
    r.time = text("time");
    r.number = whole("number");
    r.event = text("event");
    r.detail = text("detail");
    r.evaluation = whole("evaluation");
    r.id = text("id");
    r.pack = text("pack");
    r.text = text("text");
    r.source = text("source");
    r.steer_id = whole("steer_id");
    r.via = text("via");
    r.hook = text("hook");
    r.session_source = text("session_source");
  }
  r.value = std::move(value);
  return r;
}

Result<void> append_record(const std::filesystem::path& log, const nlohmann::json& record) {
  std::string text;
  try {
    text = record.dump();  // compact: JSON strings escape '\n', so the text is a single line
  } catch (const nlohmann::json::exception& e) {
    return make_error("serialising a record for log '" + log.string() + "' failed: " + e.what());
  }
  std::string line = sha256_hex(text);
  line += ' ';
  line += text;
  line += '\n';

  FileDescriptor fd(::open(log.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
  if (fd.get() < 0) return io_error("open", log);
  if (!lock(fd.get(), LOCK_EX)) return io_error("exclusive flock", log);

  // Under the lock the tail cannot move: a byte that is not '\n' is a torn line left by a crashed writer.
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return io_error("fstat", log);
  if (info.st_size > 0) {
    char last = '\n';
    ssize_t got;
    do {
      got = ::pread(fd.get(), &last, 1, info.st_size - 1);
    } while (got < 0 && errno == EINTR);
    if (got != 1) return io_error("reading the last byte", log);
    if (last != '\n') line.insert(line.begin(), '\n');
  }

  if (!write_all(fd.get(), line)) return io_error("write", log);
  if (::fsync(fd.get()) != 0) return io_error("fsync", log);
  if (info.st_size == 0) {
    // The first record also made the file: its folder entry must be durable too, or the log could vanish whole.
    const auto folder = log.has_parent_path() ? log.parent_path() : std::filesystem::path(".");
    FileDescriptor dir(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.get() < 0 || ::fsync(dir.get()) != 0) return io_error("fsync of the log's folder", log);
  }
  return Ok{};  // the descriptor's close releases the lock
}

Result<LogContents> read_records(const std::filesystem::path& log) {
  FileDescriptor fd(::open(log.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return LogContents{};
    return io_error("open", log);
  }
  if (!lock(fd.get(), LOCK_SH)) return io_error("shared flock", log);

  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      return io_error("read", log);
    }
    if (got == 0) break;
    bytes.append(buffer, static_cast<std::size_t>(got));
  }

  LogContents contents;
  std::string_view rest = bytes;
  std::size_t number = 0;
  while (!rest.empty()) {
    ++number;
    const std::size_t end = rest.find('\n');
    const bool has_newline = end != std::string_view::npos;
    const std::string_view line = has_newline ? rest.substr(0, end) : rest;
    classify_line(line, number, has_newline, contents);
    rest.remove_prefix(has_newline ? end + 1 : rest.size());
  }
  return contents;
}

}  // namespace kseek
