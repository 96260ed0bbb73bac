// ptxas per kernel piece in capped processes (longest first) and nvJitLink to one cubin; for the link-time-optimised
// pipeline, nvJitLink per kernel before its ptxas, in capped processes of the same pool. The pieces live in a private
// temporary folder for the length of one build.
#include "kseek/core/build/kernel_assembly.hpp"

#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <numeric>
#include <string_view>

#include <fmt/format.h>
#include <nvJitLink.h>
#include <nvrtc.h>

#include "kseek/core/build/ptxas_report.hpp"
#include "kseek/core/util/files.hpp"

namespace kseek {
namespace fs = std::filesystem;
namespace {

bool is_executable(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

std::string first_error_line(const std::string& output) {
  std::string fallback;
  std::size_t start = 0;
  while (start < output.size()) {
    auto end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    std::string line = output.substr(start, end - start);
    if (line.find("error") != std::string::npos || line.find("fatal") != std::string::npos) return line;
    if (fallback.empty() && !line.empty()) fallback = line;
    start = end + 1;
  }
  return fallback.empty() ? "no message" : fallback;
}

bool write_piece(const fs::path& path, const std::string& ptx) {
  // A private scratch folder: no other reader, so no atomic rename or fsync is needed.
  std::ofstream file(path, std::ios::binary);
  file << ptx;
  return static_cast<bool>(file.flush());
}

std::string piece_label(const PtxPiece& piece) {
  return piece.kernel.empty() ? std::string("the module's variables") : fmt::format("kernel {}", piece.kernel);
}

// Starts ptxas on the PTX file `input`, writing the object `output`, under the limits' caps (pid -1: not started).
CappedProgram start_ptxas(const fs::path& ptxas, const std::string& arch, const fs::path& input, const fs::path& output,
                          const AssemblyLimits& limits) {
  std::vector<std::string> argv = {ptxas.string()};
  for (auto& option : ptxas_options(arch)) argv.push_back(std::move(option));
  argv.push_back(input.string());
  argv.push_back("-o");
  argv.push_back(output.string());
  return start_capped(argv, limits.memory_cap_bytes, limits.cpu_seconds);
}

// Why a ptxas process on `what` (e.g. "kernel K") did not produce its object: the cap that stopped it, the signal, or
// ptxas's first error line. For a process that did not finish with status 0.
std::string ptxas_failure(const std::string& what, const CappedRun& finished, const AssemblyLimits& limits) {
  if (finished.end == CappedRun::End::kTimedOut) {
    return fmt::format("time limit reached while ptxas assembled {} ({:.0f} CPU-seconds)", what, limits.cpu_seconds);
  }
  // Under RLIMIT_AS ptxas does not always say so: a refused allocation can end it by a signal (SIGSEGV was
  // seen with a 50 MB cap). A signal under a cap is therefore reported as the cap, naming the signal.
  const bool out_of_memory = finished.end == CappedRun::End::kOutOfMemory || finished.signaled ||
                             finished.output.find("out of memory") != std::string::npos ||
                             finished.output.find("Memory allocation failure") != std::string::npos;
  if (out_of_memory && limits.memory_cap_bytes > 0) {
    return fmt::format("ptxas exceeded the compiler memory cap of {} MiB on {}{}", limits.memory_cap_bytes >> 20, what,
                       finished.signaled ? fmt::format(" (ended by signal {})", finished.exit_code) : std::string());
  }
  if (finished.signaled) return fmt::format("ptxas died on {} (signal {})", what, finished.exit_code);
  return fmt::format("ptxas failed on {}: {}", what, first_error_line(finished.output));
}

// Ends every process still running (SIGKILL) and reaps it.
void stop_capped(std::vector<CappedProgram>& running) {
  for (auto& program : running) {
    ::kill(program.pid, SIGKILL);
    ::close(program.output_fd);
    int status = 0;
    ::waitpid(program.pid, &status, 0);
  }
  running.clear();
}

}  // namespace

std::optional<fs::path> find_ptxas() {
  if (const char* env = std::getenv("KSEEK_PTXAS"); env != nullptr && *env != '\0') {
    if (is_executable(env)) return fs::path(env);
    return std::nullopt;  // asked for one that is not there: never silently take another
  }
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) != 0 && info.dli_fname != nullptr) {
    std::error_code ec;
    const fs::path library = fs::canonical(info.dli_fname, ec);
    if (!ec) {
      // lib64/libnvrtc.so -> bin/ptxas; targets/x86_64-linux/lib/libnvrtc.so -> bin/ptxas.
      for (const auto& candidate :
           {library.parent_path().parent_path() / "bin" / "ptxas",
            library.parent_path().parent_path().parent_path().parent_path() / "bin" / "ptxas"}) {
        if (is_executable(candidate)) return candidate;
      }
    }
  }
#ifdef KSEEK_CUDA_BIN_DIR
  if (const fs::path built_against = fs::path(KSEEK_CUDA_BIN_DIR) / "ptxas"; is_executable(built_against)) {
    return built_against;
  }
#endif
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    std::string_view rest(path);
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      const fs::path candidate = fs::path(std::string(rest.substr(0, colon))) / "ptxas";
      if (is_executable(candidate)) return candidate;
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  return std::nullopt;
}

std::string ptxas_identity(const fs::path& ptxas) {
  std::error_code ec;
  const auto path = fs::canonical(ptxas, ec);
  const auto size = ec ? 0 : fs::file_size(path, ec);
  return fmt::format("{};{}", ec ? ptxas.string() : path.string(), size);
}

std::string nvjitlink_identity() {
  unsigned major = 0;
  unsigned minor = 0;
  nvJitLinkVersion(&major, &minor);
  std::string identity = fmt::format("{}.{}", major, minor);
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&nvJitLinkVersion), &info) != 0 && info.dli_fname != nullptr) {
    identity += fmt::format(";{}", info.dli_fname);
  }
  return identity;
}

std::vector<std::string> ptxas_options(const std::string& arch) { return {"-arch=" + arch, "-ewp", "-lineinfo", "-v"}; }

Result<AssembledKernels> assemble_kernels(const fs::path& ptxas, const std::vector<PtxPiece>& pieces,
                                          const std::string& arch, const AssemblyLimits& limits) {
  ScratchFolder scratch("kseek-ptxas");
  if (scratch.path().empty()) return make_error("cannot create a temporary folder for the ptxas pieces");
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (!write_piece(scratch.path() / fmt::format("{}.ptx", i), pieces[i].ptx)) {
      return make_error(fmt::format("cannot write the PTX of {}", piece_label(pieces[i])));
    }
  }
  // Longest first: the slowest kernel starts at once instead of last, so the build ends near its time.
  std::vector<std::size_t> order(pieces.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return pieces[a].code_bytes > pieces[b].code_bytes; });

  std::vector<std::string> logs(pieces.size());
  std::vector<double> cpu_seconds(pieces.size(), 0.0);
  std::vector<CappedProgram> running;
  std::vector<std::size_t> running_piece;
  std::size_t next = 0;
  const std::size_t processes = static_cast<std::size_t>(std::max(1, limits.processes));
  while (next < order.size() || !running.empty()) {
    while (next < order.size() && running.size() < processes) {
      const std::size_t piece = order[next++];
      CappedProgram program = start_ptxas(ptxas, arch, scratch.path() / fmt::format("{}.ptx", piece),
                                          scratch.path() / fmt::format("{}.o", piece), limits);
      if (program.pid < 0) {
        stop_capped(running);
        return make_error(fmt::format("cannot start {} for {}", ptxas.string(), piece_label(pieces[piece])));
      }
      running.push_back(std::move(program));
      running_piece.push_back(piece);
    }
    CappedRun finished;
    const int index = wait_any_capped(running, limits.deadline, finished);
    if (index < 0) {
      std::string waiting;
      for (auto piece : running_piece) waiting += (waiting.empty() ? "" : ", ") + piece_label(pieces[piece]);
      return make_error(fmt::format("time limit reached while ptxas assembled {}", waiting));
    }
    const std::size_t piece = running_piece[static_cast<std::size_t>(index)];
    running.erase(running.begin() + index);
    running_piece.erase(running_piece.begin() + index);
    if (finished.end != CappedRun::End::kFinished || finished.exit_code != 0) {
      stop_capped(running);
      return make_error(ptxas_failure(piece_label(pieces[piece]), finished, limits));
    }
    logs[piece] = std::move(finished.output);
    cpu_seconds[piece] = finished.cpu_seconds;
  }

  AssembledKernels out;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    auto object = read_file(scratch.path() / fmt::format("{}.o", i));
    if (!object) return make_error(fmt::format("ptxas left no object for {}", piece_label(pieces[i])));
    out.objects.push_back(std::move(*object));
    out.log += fmt::format("{}{}\n", kPtxasPieceMarker, piece_label(pieces[i]));  // parse_ptxas's piece boundary
    out.log += logs[i];
  }
  out.cpu_seconds = std::move(cpu_seconds);
  return out;
}

namespace {

// One nvJitLink run over `inputs` (in this process): the linked PTX when `options` hold -ptx, else the cubin. An error
// says what `what` names and gives nvJitLink's error log.
Result<std::string> jit_link(const std::vector<std::string>& options, nvJitLinkInputType type,
                             const std::vector<std::string_view>& inputs, bool want_ptx, const std::string& what) {
  std::vector<const char*> option_texts;
  for (const auto& option : options) option_texts.push_back(option.c_str());
  nvJitLinkHandle handle = nullptr;
  if (nvJitLinkCreate(&handle, static_cast<std::uint32_t>(option_texts.size()), option_texts.data()) !=
      NVJITLINK_SUCCESS) {
    std::string joined;
    for (const auto& option : options) joined += (joined.empty() ? "" : " ") + option;
    return make_error(fmt::format("nvJitLinkCreate({}) failed", joined));
  }
  auto error_log = [&] {
    std::size_t size = 0;
    if (nvJitLinkGetErrorLogSize(handle, &size) != NVJITLINK_SUCCESS || size <= 1) return std::string("no log");
    std::string log(size, '\0');
    nvJitLinkGetErrorLog(handle, log.data());
    log.resize(size - 1);
    return log;
  };
  Result<std::string> result = make_error("not linked");
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = fmt::format("piece{}.{}", i, type == NVJITLINK_INPUT_LTOIR ? "ltoir" : "o");
    if (nvJitLinkAddData(handle, type, inputs[i].data(), inputs[i].size(), name.c_str()) != NVJITLINK_SUCCESS) {
      result = make_error(fmt::format("nvJitLink rejected {}: {}", name, error_log()));
      nvJitLinkDestroy(&handle);
      return result;
    }
  }
  std::size_t size = 0;
  if (nvJitLinkComplete(handle) != NVJITLINK_SUCCESS) {
    result = make_error(fmt::format("nvJitLink could not link {}: {}", what, error_log()));
  } else if (want_ptx) {
    std::string ptx;
    if (nvJitLinkGetLinkedPtxSize(handle, &size) == NVJITLINK_SUCCESS && size > 1) {
      ptx.assign(size, '\0');
      if (nvJitLinkGetLinkedPtx(handle, ptx.data()) != NVJITLINK_SUCCESS) ptx.clear();
      ptx.resize(ptx.empty() ? 0 : size - 1);  // drop the terminating NUL
    }
    if (ptx.empty()) {
      result = make_error(fmt::format("nvJitLink produced no PTX for {}", what));
    } else {
      result = std::move(ptx);
    }
  } else {
    nvJitLinkGetLinkedCubinSize(handle, &size);
    std::string cubin(size, '\0');
    if (size == 0 || nvJitLinkGetLinkedCubin(handle, cubin.data()) != NVJITLINK_SUCCESS) {
      result = make_error("nvJitLink produced no cubin");
    } else {
      result = std::move(cubin);
    }
  }
  nvJitLinkDestroy(&handle);
  return result;
}

// Why an nvJitLink process on `what` ended without its PTX: the cap that stopped it, or how it died.
std::string generation_failure(const std::string& what, const CappedRun& finished, const AssemblyLimits& limits) {
  if (finished.end == CappedRun::End::kTimedOut) {
    return fmt::format("time limit reached while nvJitLink generated the PTX of {} ({:.0f} CPU-seconds)", what,
                       limits.cpu_seconds);
  }
  // As for ptxas (ptxas_failure): a refused allocation may end the process by a signal, so a signal under a cap is
  // reported as the cap, naming the signal.
  const bool out_of_memory = finished.end == CappedRun::End::kOutOfMemory || finished.signaled ||
                             (finished.end == CappedRun::End::kFinished && finished.exit_code == 3);
  if (out_of_memory && limits.memory_cap_bytes > 0) {
    return fmt::format("nvJitLink exceeded the compiler memory cap of {} MiB on {}{}", limits.memory_cap_bytes >> 20,
                       what,
                       finished.signaled ? fmt::format(" (ended by signal {})", finished.exit_code) : std::string());
  }
  if (finished.signaled) return fmt::format("nvJitLink died on {} (signal {})", what, finished.exit_code);
  return fmt::format("nvJitLink died on {} (exit status {})", what, finished.exit_code);
}

}  // namespace

Result<std::string> link_kernels(const std::vector<std::string>& objects, const std::string& arch) {
  const std::vector<std::string_view> inputs(objects.begin(), objects.end());
  return jit_link({"-arch=" + arch}, NVJITLINK_INPUT_CUBIN, inputs, false, "the kernels");
}

std::vector<std::string> lto_kernel_options(const std::string& arch, const std::string& kernel) {
  return {"-arch=" + arch, "-lto", "-ptx", "-kernels-used=" + kernel};
}

std::vector<std::string> lto_listing_options(const std::string& arch) {
  return {"-arch=" + arch, "-lto", "-ptx", "-O0"};
}

Result<std::vector<PtxKernel>> list_lto_kernels(const std::string& lto_ir, const std::string& arch) {
  auto ptx = jit_link(lto_listing_options(arch), NVJITLINK_INPUT_LTOIR, {lto_ir}, true, "the program unoptimised");
  if (!ptx) return ptx.error();
  auto kernels = ptx_kernels(*ptx);
  if (!kernels) return make_error(fmt::format("cannot read the unoptimised PTX: {}", kernels.error().message));
  return kernels;
}

Result<std::string> lto_kernel_ptx(const std::string& lto_ir, const std::string& arch, const std::string& kernel) {
  return jit_link(lto_kernel_options(arch, kernel), NVJITLINK_INPUT_LTOIR, {lto_ir}, true,
                  fmt::format("kernel {}", kernel));
}

namespace {

// The work of assemble_lto_kernels: per kernel a chain of two processes (nvJitLink, then ptxas), then the variables'
// piece, from one pool of limits.processes; the pieces in a scratch folder.
class LtoChains {
 public:
  LtoChains(const fs::path& ptxas, const std::string& lto_ir, const std::vector<PtxKernel>& kernels,
            const std::string& arch, const AssemblyLimits& limits, const fs::path& folder)
      : ptxas_(ptxas),
        lto_ir_(lto_ir),
        kernels_(kernels),
        arch_(arch),
        limits_(limits),
        folder_(folder),
        modules_(kernels.size()),
        pieces_(kernels.size() + 1),
        logs_(kernels.size() + 1),
        times_(kernels.size() + 1) {
    for (std::size_t i = 0; i < kernels.size(); ++i) times_[i].kernel = kernels[i].name;
    // Longest first, as for ptxas alone.
    order_.resize(kernels.size());
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(),
                     [&](std::size_t a, std::size_t b) { return kernels[a].code_bytes > kernels[b].code_bytes; });
  }
  ~LtoChains() { stop_capped(running_); }
  LtoChains(const LtoChains&) = delete;
  LtoChains& operator=(const LtoChains&) = delete;

  // Until every piece is assembled, or a step fails (every process still running then killed).
  Result<void> run() {
    while (next_ < order_.size() || !to_assemble_.empty() || !running_.empty()) {
      if (auto started = fill(); !started) return started;
      CappedRun finished;
      const int index = wait_any_capped(running_, limits_.deadline, finished);
      if (index < 0) {
        std::string waiting;
        for (const auto& job : jobs_) {
          waiting +=
              fmt::format("{}{} {}", waiting.empty() ? "" : ", ",
                          job.step == Step::kAssemble ? "ptxas assembled" : "nvJitLink generated", label(job.piece));
        }
        running_.clear();  // wait_any_capped has killed and reaped them
        return make_error(fmt::format("time limit reached while {}", waiting));
      }
      const Job job = jobs_[static_cast<std::size_t>(index)];
      running_.erase(running_.begin() + index);
      jobs_.erase(jobs_.begin() + index);
      auto handled = job.step == Step::kAssemble ? assembled(job.piece, finished) : generated(job.piece, finished);
      if (!handled) return handled;
    }
    return Ok{};
  }

  // What was made, in the objects' order (the variables' piece first when there is one, then the kernels in their
  // order); the objects only after run() succeeded.
  Result<void> collect(LtoAssembly& out, bool with_objects) const {
    std::vector<std::size_t> order;
    if (!pieces_[variables()].empty()) order.push_back(variables());
    for (std::size_t i = 0; i < kernels_.size(); ++i) order.push_back(i);
    for (const auto piece : order) {
      out.ptx += pieces_[piece];
      if (!with_objects) continue;
      auto object = read_file(path(piece, "o"));
      if (!object) return make_error(fmt::format("ptxas left no object for {}", label(piece)));
      out.objects.push_back(std::move(*object));
      out.log += fmt::format("{}{}\n", kPtxasPieceMarker, label(piece));  // parse_ptxas's piece boundary
      out.log += logs_[piece];
      out.times.push_back(times_[piece]);
    }
    return Ok{};
  }

 private:
  enum class Step { kGenerate, kAssemble };
  struct Job {
    Step step = Step::kGenerate;
    std::size_t piece = 0;
  };

  std::size_t variables() const { return kernels_.size(); }  // the index of the piece that defines the variables
  std::string label(std::size_t piece) const {
    return piece == variables() ? std::string("the kernels' variables")
                                : fmt::format("kernel {}", kernels_[piece].name);
  }
  fs::path path(std::size_t piece, std::string_view extension) const {
    return folder_ / fmt::format("{}.{}", piece, extension);
  }

  // Starts processes while the pool has room: a kernel whose PTX is there is assembled before another kernel's is
  // generated, so that the longest chains, started first, end first.
  Result<void> fill() {
    const std::size_t processes = static_cast<std::size_t>(std::max(1, limits_.processes));
    while (running_.size() < processes && (next_ < order_.size() || !to_assemble_.empty())) {
      Job job;
      CappedProgram program;
      if (!to_assemble_.empty()) {
        job = {Step::kAssemble, to_assemble_.front()};
        to_assemble_.pop_front();
        program = start_ptxas(ptxas_, arch_, path(job.piece, "ptx"), path(job.piece, "o"), limits_);
      } else {
        job = {Step::kGenerate, order_[next_++]};
        const std::string& kernel = kernels_[job.piece].name;
        program = start_capped_work(
            [&]() -> std::string {
              auto ptx = lto_kernel_ptx(lto_ir_, arch_, kernel);
              std::string reply(1, ptx ? 'P' : 'E');
              reply += ptx ? *ptx : ptx.error().message;
              return reply;
            },
            limits_.memory_cap_bytes, limits_.cpu_seconds);
      }
      if (program.pid < 0) {
        return make_error(fmt::format("cannot start {} for {}",
                                      job.step == Step::kAssemble ? ptxas_.string() : "nvJitLink", label(job.piece)));
      }
      running_.push_back(std::move(program));
      jobs_.push_back(job);
    }
    return Ok{};
  }

  Result<void> assembled(std::size_t piece, CappedRun& finished) {
    times_[piece].ptxas_cpu_seconds = finished.cpu_seconds;
    if (finished.end != CappedRun::End::kFinished || finished.exit_code != 0) {
      return make_error(ptxas_failure(label(piece), finished, limits_));
    }
    logs_[piece] = std::move(finished.output);
    return Ok{};
  }

  // A kernel's PTX is there: its piece is queued for ptxas; after the last kernel's, the variables' piece too.
  Result<void> generated(std::size_t kernel, CappedRun& finished) {
    times_[kernel].nvjitlink_cpu_seconds = finished.cpu_seconds;
    if (finished.end != CappedRun::End::kFinished || finished.exit_code != 0 || finished.output.empty()) {
      return make_error(generation_failure(label(kernel), finished, limits_));
    }
    if (finished.output.front() == 'E') return make_error(finished.output.substr(1));
    modules_[kernel] = finished.output.substr(1);
    auto piece = kernel_piece(modules_[kernel], kernels_[kernel].name);
    if (!piece) {
      pieces_[kernel] = modules_[kernel];  // unreadable as pieces: the checker reads the module as it came
      return piece.error();
    }
    if (auto queued = queue(kernel, std::move(piece->ptx)); !queued) return queued;
    if (++generated_ < kernels_.size()) return Ok{};
    std::vector<KernelModule> all;
    for (std::size_t i = 0; i < kernels_.size(); ++i) all.push_back({kernels_[i].name, modules_[i]});
    auto shared = shared_variables_piece(all);
    if (!shared) return shared.error();
    if (!*shared) return Ok{};
    return queue(variables(), std::move((*shared)->ptx));
  }

  Result<void> queue(std::size_t piece, std::string ptx) {
    pieces_[piece] = std::move(ptx);
    if (!write_piece(path(piece, "ptx"), pieces_[piece])) {
      return make_error(fmt::format("cannot write the PTX of {}", label(piece)));
    }
    to_assemble_.push_back(piece);
    return Ok{};
  }

  const fs::path& ptxas_;
  const std::string& lto_ir_;
  const std::vector<PtxKernel>& kernels_;
  const std::string& arch_;
  const AssemblyLimits& limits_;
  const fs::path folder_;
  std::vector<std::size_t> order_;
  std::vector<std::string> modules_;  // nvJitLink's PTX per kernel
  std::vector<std::string> pieces_;   // what ptxas assembles: each kernel's piece, then the variables'
  std::vector<std::string> logs_;
  std::vector<LtoAssembly::Times> times_;
  std::deque<std::size_t> to_assemble_;
  std::vector<CappedProgram> running_;
  std::vector<Job> jobs_;  // what each running process does
  std::size_t next_ = 0;   // in order_: the next kernel to generate
  std::size_t generated_ = 0;
};

}  // namespace

Result<void> assemble_lto_kernels(const fs::path& ptxas, const std::string& lto_ir,
                                  const std::vector<PtxKernel>& kernels, const std::string& arch,
                                  const AssemblyLimits& limits, LtoAssembly& out) {
  out = LtoAssembly{};
  ScratchFolder scratch("kseek-lto");
  if (scratch.path().empty()) return make_error("cannot create a temporary folder for the kernels' pieces");
  LtoChains chains(ptxas, lto_ir, kernels, arch, limits, scratch.path());
  if (auto made = chains.run(); !made) {
    (void)chains.collect(out, /*with_objects=*/false);  // the pieces made so far, for the constraint checker
    return made;
  }
  return chains.collect(out, /*with_objects=*/true);
}

}  // namespace kseek
