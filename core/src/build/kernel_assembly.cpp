// ptxas per kernel piece in capped processes (longest first) and nvJitLink to one cubin. The pieces live in a
// private temporary folder for the length of one build.
#include "kseek/core/build/kernel_assembly.hpp"

#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <numeric>

#include <fmt/format.h>
#include <nvJitLink.h>
#include <nvrtc.h>

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

std::string piece_label(const PtxPiece& piece) {
  return piece.kernel.empty() ? std::string("the module's variables") : fmt::format("kernel {}", piece.kernel);
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
    // A private scratch folder: no other reader, so no atomic rename or fsync is needed.
    std::ofstream file(scratch.path() / fmt::format("{}.ptx", i), std::ios::binary);
    file << pieces[i].ptx;
    if (!file.flush()) return make_error(fmt::format("cannot write the PTX of {}", piece_label(pieces[i])));
  }
  // Longest first: the slowest kernel starts at once instead of last, so the build ends near its time.
  std::vector<std::size_t> order(pieces.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return pieces[a].code_bytes > pieces[b].code_bytes; });

  std::vector<std::string> logs(pieces.size());
  std::vector<CappedProgram> running;
  std::vector<std::size_t> running_piece;
  auto stop_all = [&] {
    for (auto& program : running) {
      ::kill(program.pid, SIGKILL);
      ::close(program.output_fd);
      int status = 0;
      ::waitpid(program.pid, &status, 0);
    }
    running.clear();
  };
  std::size_t next = 0;
  const std::size_t processes = static_cast<std::size_t>(std::max(1, limits.processes));
  while (next < order.size() || !running.empty()) {
    while (next < order.size() && running.size() < processes) {
      const std::size_t piece = order[next++];
      std::vector<std::string> argv = {ptxas.string()};
      for (auto& option : ptxas_options(arch)) argv.push_back(std::move(option));
      argv.push_back((scratch.path() / fmt::format("{}.ptx", piece)).string());
      argv.push_back("-o");
      argv.push_back((scratch.path() / fmt::format("{}.o", piece)).string());
      CappedProgram program = start_capped(argv, limits.memory_cap_bytes, limits.cpu_seconds);
      if (program.pid < 0) {
        stop_all();
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
    if (finished.end == CappedRun::End::kTimedOut) {
      stop_all();
      return make_error(fmt::format("time limit reached while ptxas assembled {} ({:.0f} CPU-seconds)",
                                    piece_label(pieces[piece]), limits.cpu_seconds));
    }
    if (finished.end != CappedRun::End::kFinished || finished.exit_code != 0) {
      stop_all();
      // Under RLIMIT_AS ptxas does not always say so: a refused allocation can end it by a signal (SIGSEGV was
      // seen with a 50 MB cap). A signal under a cap is therefore reported as the cap, naming the signal.
      const bool out_of_memory = finished.end == CappedRun::End::kOutOfMemory || finished.signaled ||
                                 finished.output.find("out of memory") != std::string::npos ||
                                 finished.output.find("Memory allocation failure") != std::string::npos;
      if (out_of_memory && limits.memory_cap_bytes > 0) {
        return make_error(
            fmt::format("ptxas exceeded the compiler memory cap of {} MiB on {}{}", limits.memory_cap_bytes >> 20,
                        piece_label(pieces[piece]),
                        finished.signaled ? fmt::format(" (ended by signal {})", finished.exit_code) : std::string()));
      }
      if (finished.signaled) {
        return make_error(fmt::format("ptxas died on {} (signal {})", piece_label(pieces[piece]), finished.exit_code));
      }
      return make_error(
          fmt::format("ptxas failed on {}: {}", piece_label(pieces[piece]), first_error_line(finished.output)));
    }
    logs[piece] = std::move(finished.output);
  }

  AssembledKernels out;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    auto object = read_file(scratch.path() / fmt::format("{}.o", i));
    if (!object) return make_error(fmt::format("ptxas left no object for {}", piece_label(pieces[i])));
    out.objects.push_back(std::move(*object));
    out.log += logs[i];
  }
  return out;
}

Result<std::string> link_kernels(const std::vector<std::string>& objects, const std::string& arch) {
  const std::string arch_option = "-arch=" + arch;
  const char* options[] = {arch_option.c_str()};
  nvJitLinkHandle handle = nullptr;
  if (nvJitLinkCreate(&handle, 1, options) != NVJITLINK_SUCCESS) {
    return make_error(fmt::format("nvJitLinkCreate({}) failed", arch_option));
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
  for (std::size_t i = 0; i < objects.size(); ++i) {
    const std::string name = fmt::format("piece{}.o", i);
    if (nvJitLinkAddData(handle, NVJITLINK_INPUT_CUBIN, objects[i].data(), objects[i].size(), name.c_str()) !=
        NVJITLINK_SUCCESS) {
      result = make_error(fmt::format("nvJitLink rejected {}: {}", name, error_log()));
      nvJitLinkDestroy(&handle);
      return result;
    }
  }
  if (nvJitLinkComplete(handle) != NVJITLINK_SUCCESS) {
    result = make_error(fmt::format("nvJitLink could not link the kernels: {}", error_log()));
  } else {
    std::size_t size = 0;
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

}  // namespace kseek
