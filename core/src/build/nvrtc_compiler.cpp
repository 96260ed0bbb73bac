// NVRTC calls (whole program, or the front end alone to PTX or to LTO IR), option lists, and a build's pipeline and
// process count.
// It must never leak an nvrtcProgram or let a slow compile run past its deadline.
#include "kseek/core/build/nvrtc_compiler.hpp"

#include <dlfcn.h>
#include <sched.h>
#include <time.h>

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string_view>

#include <fmt/format.h>
#include <nvrtc.h>

#include "kseek/core/build/capped_process.hpp"
#include "kseek/core/build/compile_diagnostics.hpp"
#include "kseek/core/build/kernel_assembly.hpp"
#include "kseek/core/build/ptxas_report.hpp"

namespace kseek {
namespace {

using Clock = std::chrono::steady_clock;

// CPU seconds this process has used, all threads together.
double process_cpu_seconds() {
  timespec now{};
  if (::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now) != 0) return 0.0;
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// The compile time limit in CPU seconds of this process from the compile's start (capped_process.hpp says why CPU
// time), with the wall-clock backstop.
struct Deadline {
  double cpu_start = 0.0;
  double cpu_limit = 0.0;
  Clock::time_point wall_end;
  bool expired = false;
};

// NVRTC polls this during compilation; returning 1 cancels it (NVRTC_ERROR_CANCELLED).
int cancel_after_deadline(void* payload, void* /*unused*/) {
  auto* deadline = static_cast<Deadline*>(payload);
  if (process_cpu_seconds() - deadline->cpu_start >= deadline->cpu_limit || Clock::now() >= deadline->wall_end) {
    deadline->expired = true;
    return 1;
  }
  return 0;
}

struct ProgramDeleter {
  void operator()(nvrtcProgram* program) const {
    nvrtcDestroyProgram(program);
    delete program;
  }
};

std::string program_log(nvrtcProgram program) {
  std::size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  nvrtcGetProgramLog(program, log.data());
  log.resize(size - 1);  // drop the terminating NUL
  return log;
}

std::string program_ptx(nvrtcProgram program) {
  std::size_t size = 0;
  if (nvrtcGetPTXSize(program, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string ptx(size, '\0');
  if (nvrtcGetPTX(program, ptx.data()) != NVRTC_SUCCESS) return {};
  ptx.resize(size - 1);
  return ptx;
}

std::string program_cubin(nvrtcProgram program) {
  std::size_t size = 0;
  if (nvrtcGetCUBINSize(program, &size) != NVRTC_SUCCESS || size == 0) return {};
  std::string cubin(size, '\0');
  if (nvrtcGetCUBIN(program, cubin.data()) != NVRTC_SUCCESS) return {};
  return cubin;
}

}  // namespace

std::string nvrtc_version() {
  int major = 0;
  int minor = 0;
  nvrtcVersion(&major, &minor);
  return fmt::format("{}.{}", major, minor);
}

std::string nvrtc_identity() {
  std::string identity = nvrtc_version();
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) != 0 && info.dli_fname != nullptr) {
    std::error_code ec;
    const auto path = std::filesystem::canonical(info.dli_fname, ec);
    const auto size = ec ? 0 : std::filesystem::file_size(path, ec);
    identity += fmt::format(";{};{}", ec ? std::string(info.dli_fname) : path.string(), size);
  }
  return identity;
}

int build_threads(int requested) {
  if (requested > 0) return requested;
  if (const char* env = std::getenv("KSEEK_BUILD_THREADS"); env != nullptr && *env != '\0') {
    int value = 0;
    const auto [end, ec] = std::from_chars(env, env + std::char_traits<char>::length(env), value);
    if (ec == std::errc() && *end == '\0' && value > 0) return value;
  }
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0 && CPU_COUNT(&cpus) > 0) return CPU_COUNT(&cpus);
  return 1;
}

BuildPipeline build_pipeline(const CompileRequest& request) {
  BuildPipeline chosen = request.pipeline;
  if (chosen == BuildPipeline::kDefault) {
    // Link-time optimised by default since its cubins ran on an H200 (2026-12-03: the attention seed's A/B against
    // the per-kernel build 1.0002 over 26 scenarios, all PASSED, and the GPU tests; its cold build 8.6 s against 30.3 s
    // on 16 cores; docs/benchmarks.md, "Build: the front end on every core"). KSEEK_BUILD_PIPELINE=per-kernel or
    // =whole opts out.
    const char* env = std::getenv("KSEEK_BUILD_PIPELINE");
    const std::string_view asked = env != nullptr ? env : "";
    chosen = asked == "whole"        ? BuildPipeline::kWholeProgram
             : asked == "per-kernel" ? BuildPipeline::kPerKernel
                                     : BuildPipeline::kLinkTimeOptimized;
  }
  if (chosen == BuildPipeline::kWholeProgram) return chosen;
  if (request.arch.rfind("sm_", 0) != 0) return BuildPipeline::kWholeProgram;  // ptxas needs a real architecture
  for (const auto& option : request.options) {
    bool front_end_only = false;
    for (std::string_view prefix :
         {"-D", "-U", "-I", "--define-macro=", "--undefine-macro=", "--include-path=", "--pre-include="}) {
      front_end_only = front_end_only || option.rfind(prefix, 0) == 0;
    }
    if (!front_end_only) return BuildPipeline::kWholeProgram;
  }
  return find_ptxas() ? chosen : BuildPipeline::kWholeProgram;
}

std::vector<std::string> nvrtc_options(const CompileRequest& request) {
  std::vector<std::string> options = {
      "--gpu-architecture=" + request.arch,
      "--std=c++17",
      "--device-int128",
      "-lineinfo",
      "--ptxas-options=-v",
      "-DKSEEK_CANDIDATE=1",
  };
  options.insert(options.end(), request.options.begin(), request.options.end());
  return options;
}

std::vector<std::string> front_end_options(const CompileRequest& request) {
  std::vector<std::string> options;
  for (auto& option : nvrtc_options(request)) {
    if (option == "--ptxas-options=-v") continue;
    if (option == "--gpu-architecture=" + request.arch && request.arch.rfind("sm_", 0) == 0) {
      option = "--gpu-architecture=compute_" + request.arch.substr(3);
    }
    options.push_back(std::move(option));
  }
  return options;
}

std::vector<std::string> lto_front_end_options(const CompileRequest& request) {
  std::vector<std::string> options = front_end_options(request);
  // After the fixed options, before the request's own (macros and include folders).
  options.insert(options.begin() + static_cast<std::ptrdiff_t>(options.size() - request.options.size()), "-dlto");
  return options;
}

std::vector<std::string> build_options(const CompileRequest& request) {
  const BuildPipeline pipeline = build_pipeline(request);
  if (pipeline == BuildPipeline::kWholeProgram) return nvrtc_options(request);
  std::vector<std::string> options;
  if (pipeline == BuildPipeline::kLinkTimeOptimized) {
    options = lto_front_end_options(request);
    auto line = [](std::string head, const std::vector<std::string>& words) {
      for (const auto& word : words) head += " " + word;
      return head;
    };
    options.push_back(line("kernels listed by nvJitLink:", lto_listing_options(request.arch)));
    options.push_back(line("nvJitLink per kernel:", lto_kernel_options(request.arch, "KERNEL")));
  } else {
    options = front_end_options(request);
  }
  std::string ptxas = "ptxas per kernel:";
  for (const auto& option : ptxas_options(request.arch)) ptxas += " " + option;
  options.push_back(std::move(ptxas));
  options.push_back("nvJitLink: -arch=" + request.arch);
  return options;
}

namespace {

// What an NVRTC call is asked for: the cubin (whole program), PTX (the per-kernel front end) or LTO IR (-dlto).
enum class Product { kCubin, kPtx, kLtoIr };

CompileOutput run_nvrtc(const CompileRequest& request, std::vector<std::string> options, Product product,
                        std::string* lto_ir = nullptr) {
  const auto started = Clock::now();
  CompileOutput out;
  out.options = std::move(options);
  out.nvrtc_version = nvrtc_version();
  auto finish = [&](Status status, std::string error) -> CompileOutput {
    out.status = status;
    out.error = std::move(error);
    out.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    return std::move(out);
  };

  std::vector<const char*> header_texts;
  std::vector<const char*> header_names;
  for (const auto& header : request.headers) {
    header_texts.push_back(header.text.c_str());
    header_names.push_back(header.name.c_str());
  }
  std::unique_ptr<nvrtcProgram, ProgramDeleter> program(new nvrtcProgram{});
  nvrtcResult rc = nvrtcCreateProgram(program.get(), request.source.text.c_str(), request.source.name.c_str(),
                                      static_cast<int>(header_texts.size()), header_texts.data(), header_names.data());
  if (rc != NVRTC_SUCCESS) {
    program.reset();
    return finish(Status::kCompileError,
                  fmt::format("nvrtcCreateProgram({}) failed: {}", request.source.name, nvrtcGetErrorString(rc)));
  }

  Deadline deadline{process_cpu_seconds(), request.timeout_seconds,
                    started + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(request.timeout_seconds * kWallSecondsPerCpuSecond))};
  nvrtcSetFlowCallback(*program, &cancel_after_deadline, &deadline);

  std::vector<const char*> option_texts;
  for (const auto& option : out.options) option_texts.push_back(option.c_str());
  rc = nvrtcCompileProgram(*program, static_cast<int>(option_texts.size()), option_texts.data());
  out.log = program_log(*program);
  out.diagnostics = parse_nvrtc_log(out.log, request.source, request.headers);
  out.ptx = program_ptx(*program);  // kept on failure too: the constraint checker reads it

  if (deadline.expired || rc == NVRTC_ERROR_CANCELLED) {
    return finish(
        Status::kCompileError,
        fmt::format("compiling {} exceeded the {:.0f} s compile time limit (CPU time, or {:.0f} s of wall time)",
                    request.source.name, request.timeout_seconds, request.timeout_seconds * kWallSecondsPerCpuSecond));
  }
  if (rc != NVRTC_SUCCESS) {
    std::string first =
        out.diagnostics.empty() ? std::string(nvrtcGetErrorString(rc)) : format_diagnostic(out.diagnostics.front());
    if (auto newline = first.find('\n'); newline != std::string::npos) first.resize(newline);
    return finish(Status::kCompileError, fmt::format("NVRTC rejected {}: {}", request.source.name, first));
  }
  if (product == Product::kLtoIr) {
    std::size_t size = 0;
    if (nvrtcGetLTOIRSize(*program, &size) != NVRTC_SUCCESS || size == 0 || lto_ir == nullptr) {
      return finish(Status::kCompileError, fmt::format("NVRTC produced no LTO IR for {}", request.source.name));
    }
    lto_ir->assign(size, '\0');
    if (nvrtcGetLTOIR(*program, lto_ir->data()) != NVRTC_SUCCESS) {
      lto_ir->clear();
      return finish(Status::kCompileError, fmt::format("NVRTC produced no LTO IR for {}", request.source.name));
    }
    return finish(Status::kOk, "");
  }
  if (product == Product::kPtx) {
    if (out.ptx.empty())
      return finish(Status::kCompileError, fmt::format("NVRTC produced no PTX for {}", request.source.name));
    return finish(Status::kOk, "");
  }
  out.cubin = program_cubin(*program);
  if (out.cubin.empty()) {
    return finish(Status::kCompileError,
                  fmt::format("NVRTC produced no cubin for {} ({})", request.source.name, request.arch));
  }
  if (out.cubin.size() > request.max_cubin_bytes) {
    const auto size = out.cubin.size();
    out.cubin.clear();
    return finish(Status::kCompileError, fmt::format("the cubin of {} is {} bytes, over the cap of {} bytes",
                                                     request.source.name, size, request.max_cubin_bytes));
  }
  auto report = parse_ptxas(out.log);
  out.kernels = std::move(report.kernels);
  out.ptxas_notes = std::move(report.other_notes);
  return finish(Status::kOk, "");
}

}  // namespace

CompileOutput compile_with_nvrtc(const CompileRequest& request) {
  return run_nvrtc(request, nvrtc_options(request), Product::kCubin);
}

CompileOutput compile_to_ptx(const CompileRequest& request) {
  return run_nvrtc(request, front_end_options(request), Product::kPtx);
}

CompileOutput compile_to_lto_ir(const CompileRequest& request, std::string& lto_ir) {
  lto_ir.clear();
  return run_nvrtc(request, lto_front_end_options(request), Product::kLtoIr, &lto_ir);
}

}  // namespace kseek
