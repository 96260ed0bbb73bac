// The steps of one build, each in capped processes: NVRTC (the whole program, or its front end to PTX or to LTO IR),
// then for the per-kernel pipeline ptxas per kernel in parallel and nvJitLink; for the link-time-optimised one the
// kernels listed, nvJitLink and ptxas per kernel in parallel, and nvJitLink. Each process may use the compile time
// limit in CPU seconds; every step shares one wall-clock backstop (capped_process.hpp says why).
#include "kseek/core/build/isolated_compile.hpp"

#include <charconv>
#include <functional>
#include <sstream>

#include <fmt/format.h>

#include "kseek/core/build/capped_process.hpp"
#include "kseek/core/build/compile_diagnostics.hpp"
#include "kseek/core/build/compile_output_codec.hpp"
#include "kseek/core/build/kernel_assembly.hpp"
#include "kseek/core/build/nvrtc_compiler.hpp"
#include "kseek/core/build/ptx_pieces.hpp"
#include "kseek/core/build/ptxas_report.hpp"
#include "kseek/core/util/elapsed.hpp"

namespace kseek {
namespace {

CompileOutput failure(const CompileRequest& request, std::string error, BuildClock::time_point started) {
  CompileOutput out;
  out.status = Status::kCompileError;
  out.error = std::move(error);
  out.options = build_options(request);
  out.nvrtc_version = nvrtc_version();
  out.seconds = seconds_since(started);
  return out;
}

std::string time_limit_message(const CompileRequest& request) {
  return fmt::format(
      "compiling {} exceeded the {:.0f} s compile time limit (CPU time of one compiler process, or "
      "{:.0f} s of wall time in all)",
      request.source.name, request.timeout_seconds, request.timeout_seconds * kWallSecondsPerCpuSecond);
}

// The wall-clock backstop of the whole build.
BuildClock::time_point backstop(const CompileRequest& request, BuildClock::time_point started) {
  return started + std::chrono::duration_cast<BuildClock::duration>(
                       std::chrono::duration<double>(request.timeout_seconds * kWallSecondsPerCpuSecond));
}

std::string memory_cap_message(const CompileRequest& request, std::uint64_t memory_cap_bytes) {
  return fmt::format("compiling {} exceeded the compiler memory cap of {} MiB", request.source.name,
                     memory_cap_bytes >> 20);
}

// Runs one NVRTC call in a capped child. The child returns its encoded CompileOutput (its size first, in 16 hex
// digits) followed by the LTO IR of a -dlto front end (nothing for the other calls), which lands in `lto_ir`.
CompileOutput nvrtc_in_child(const CompileRequest& request, std::uint64_t memory_cap_bytes,
                             BuildClock::time_point started,
                             const std::function<CompileOutput(const CompileRequest&, std::string&)>& compile,
                             std::string& lto_ir) {
  // NVRTC's flow callback cancels the compile at the limit (nvrtc_compiler.cpp); RLIMIT_CPU, a little later, ends a
  // front end that stops polling it, and the backstop one that stops computing. The grace covers start-up and encoding.
  const auto deadline = backstop(request, started) + std::chrono::seconds(2);
  constexpr std::size_t kSizeDigits = 16;
  const CappedRun run = run_capped(
      [&] {
        std::string ir;
        const std::string encoded = encode_compile_output(compile(request, ir));
        return fmt::format("{:016x}", encoded.size()) + encoded + ir;
      },
      deadline, memory_cap_bytes, request.timeout_seconds + 2.0);
  switch (run.end) {
    case CappedRun::End::kTimedOut: return failure(request, time_limit_message(request), started);
    case CappedRun::End::kOutOfMemory: return failure(request, memory_cap_message(request, memory_cap_bytes), started);
    case CappedRun::End::kDied:
      return failure(request,
                     fmt::format("the compiler process for {} died (signal {})", request.source.name, run.exit_code),
                     started);
    case CappedRun::End::kFinished: break;
  }
  if (run.exit_code != 0) {
    return failure(request,
                   fmt::format("the compiler process for {} died (exit status {})", request.source.name, run.exit_code),
                   started);
  }
  std::size_t encoded_size = 0;
  const bool framed = run.output.size() >= kSizeDigits &&
                      std::from_chars(run.output.data(), run.output.data() + kSizeDigits, encoded_size, 16).ptr ==
                          run.output.data() + kSizeDigits &&
                      encoded_size <= run.output.size() - kSizeDigits;
  auto decoded = framed ? decode_compile_output(std::string_view(run.output).substr(kSizeDigits, encoded_size))
                        : Result<CompileOutput>(make_error("no size line"));
  if (!decoded) {
    return failure(request,
                   fmt::format("the compiler process for {} returned unreadable output: {}", request.source.name,
                               decoded.error().message),
                   started);
  }
  lto_ir = run.output.substr(kSizeDigits + encoded_size);
  decoded->diagnostics = parse_nvrtc_log(decoded->log, request.source, request.headers);
  decoded->seconds = seconds_since(started);
  decoded->stages.front_end_cpu_seconds = run.cpu_seconds;
  return std::move(*decoded);
}

CompileOutput nvrtc_in_child(const CompileRequest& request, std::uint64_t memory_cap_bytes,
                             BuildClock::time_point started, CompileOutput (*compile)(const CompileRequest&)) {
  std::string none;
  return nvrtc_in_child(
      request, memory_cap_bytes, started, [compile](const CompileRequest& r, std::string&) { return compile(r); },
      none);
}

// The last step of both parallel pipelines: the objects linked into one cubin by nvJitLink in a capped child.
CompileOutput link_in_child(const CompileRequest& request, std::uint64_t memory_cap_bytes,
                            BuildClock::time_point started, BuildClock::time_point deadline,
                            const std::vector<std::string>& objects, CompileOutput out) {
  auto fail = [&](std::string error) {
    out.status = Status::kCompileError;
    out.error = std::move(error);
    out.seconds = seconds_since(started);
    return std::move(out);
  };
  const auto link_started = BuildClock::now();
  const CappedRun linked = run_capped(
      [&]() -> std::string {
        auto cubin = link_kernels(objects, request.arch);
        if (!cubin) return "E" + cubin.error().message;
        return "C" + std::move(*cubin);
      },
      deadline, memory_cap_bytes, request.timeout_seconds);
  out.stages.link_seconds = seconds_since(link_started);
  out.stages.link_cpu_seconds = linked.cpu_seconds;
  if (linked.end == CappedRun::End::kTimedOut) return fail(time_limit_message(request) + " (linking)");
  if (linked.end == CappedRun::End::kOutOfMemory) return fail(memory_cap_message(request, memory_cap_bytes));
  if (linked.end != CappedRun::End::kFinished || linked.exit_code != 0 || linked.output.empty()) {
    return fail(fmt::format("the linker process for {} died", request.source.name));
  }
  if (linked.output.front() == 'E') {
    return fail(fmt::format("linking the kernels of {} failed: {}", request.source.name, linked.output.substr(1)));
  }
  out.cubin = linked.output.substr(1);
  if (out.cubin.size() > request.max_cubin_bytes) {
    const auto size = out.cubin.size();
    out.cubin.clear();
    return fail(fmt::format("the cubin of {} is {} bytes, over the cap of {} bytes", request.source.name, size,
                            request.max_cubin_bytes));
  }
  out.seconds = seconds_since(started);
  return out;
}

// A back end's error as the build reports it: a time limit in the words of every time limit, else the step's own.
std::string back_end_error(const CompileRequest& request, const std::string& why) {
  if (why.find("time limit") != std::string::npos) return time_limit_message(request) + " (" + why + ")";
  return fmt::format("compiling {}: {}", request.source.name, why);
}

CompileOutput compile_per_kernel(const CompileRequest& request, std::uint64_t memory_cap_bytes,
                                 BuildClock::time_point started) {
  CompileOutput out = nvrtc_in_child(request, memory_cap_bytes, started, &compile_to_ptx);
  out.options = build_options(request);
  out.stages.front_end_seconds = seconds_since(started);
  if (out.status != Status::kOk) return out;  // the PTX, when there is some, stays for the constraint checker

  auto fail = [&](std::string error) {
    out.status = Status::kCompileError;
    out.error = std::move(error);
    out.seconds = seconds_since(started);
    return std::move(out);
  };
  auto pieces = split_ptx_by_kernel(out.ptx);
  if (!pieces) {
    return fail(fmt::format("cannot cut the PTX of {} into kernels: {} (KSEEK_BUILD_PIPELINE=whole builds it whole)",
                            request.source.name, pieces.error().message));
  }
  const auto ptxas = find_ptxas();
  if (!ptxas) return fail("no ptxas found for the per-kernel build (set KSEEK_PTXAS or KSEEK_BUILD_PIPELINE=whole)");
  const auto deadline = backstop(request, started);
  const AssemblyLimits limits{build_threads(request.compile_threads), deadline, memory_cap_bytes,
                              request.timeout_seconds};
  out.stages.processes = limits.processes;
  const auto assembly_started = BuildClock::now();
  auto assembled = assemble_kernels(*ptxas, *pieces, request.arch, limits);
  out.stages.ptxas_seconds = seconds_since(assembly_started);
  if (!assembled) return fail(back_end_error(request, assembled.error().message));
  for (std::size_t i = 0; i < pieces->size(); ++i) {
    out.stages.kernels.push_back({(*pieces)[i].kernel, 0.0, assembled->cpu_seconds[i]});
  }
  out.log += assembled->log;
  auto report = parse_ptxas(assembled->log);
  out.kernels = std::move(report.kernels);
  out.ptxas_notes = std::move(report.other_notes);
  return link_in_child(request, memory_cap_bytes, started, deadline, assembled->objects, std::move(out));
}

// The kernels of a program's LTO IR, listed by nvJitLink in a capped child that answers one "SIZE NAME" line each.
// Never in this process: the listing's -O0 would change the code of each kernel generated after it (see
// list_lto_kernels).
Result<std::vector<PtxKernel>> kernels_in_child(const CompileRequest& request, std::uint64_t memory_cap_bytes,
                                                BuildClock::time_point deadline, const std::string& lto_ir,
                                                double& cpu_seconds) {
  const CappedRun listed = run_capped(
      [&]() -> std::string {
        auto kernels = list_lto_kernels(lto_ir, request.arch);
        if (!kernels) return "E" + kernels.error().message;
        std::string lines = "K";
        for (const auto& kernel : *kernels) lines += fmt::format("{} {}\n", kernel.code_bytes, kernel.name);
        return lines;
      },
      deadline, memory_cap_bytes, request.timeout_seconds);
  cpu_seconds = listed.cpu_seconds;
  if (listed.end == CappedRun::End::kTimedOut) {
    return make_error(time_limit_message(request) + " (listing the kernels)");
  }
  if (listed.end == CappedRun::End::kOutOfMemory) return make_error(memory_cap_message(request, memory_cap_bytes));
  if (listed.end != CappedRun::End::kFinished || listed.exit_code != 0 || listed.output.empty()) {
    return make_error(fmt::format("the process listing the kernels of {} died", request.source.name));
  }
  if (listed.output.front() == 'E') {
    return make_error(fmt::format("listing the kernels of {} failed: {} (KSEEK_BUILD_PIPELINE=per-kernel builds it)",
                                  request.source.name, listed.output.substr(1)));
  }
  std::vector<PtxKernel> kernels;
  std::istringstream lines(listed.output.substr(1));
  for (PtxKernel kernel; lines >> kernel.code_bytes >> kernel.name;) kernels.push_back(kernel);
  if (kernels.empty()) return make_error(fmt::format("nvJitLink listed no kernel of {}", request.source.name));
  return kernels;
}

// The link-time-optimised pipeline: NVRTC to LTO IR, the kernels listed, each kernel's nvJitLink and ptxas chained in
// capped processes, the objects linked. Each process may use the compile time limit in CPU seconds.
CompileOutput compile_link_time_optimized(const CompileRequest& request, std::uint64_t memory_cap_bytes,
                                          BuildClock::time_point started) {
  std::string lto_ir;
  CompileOutput out = nvrtc_in_child(request, memory_cap_bytes, started, &compile_to_lto_ir, lto_ir);
  out.options = build_options(request);
  auto fail = [&](std::string error) {
    out.status = Status::kCompileError;
    out.error = std::move(error);
    out.seconds = seconds_since(started);
    return std::move(out);
  };
  if (out.status != Status::kOk) {
    out.stages.front_end_seconds = seconds_since(started);
    return out;
  }
  const auto deadline = backstop(request, started);
  auto kernels = kernels_in_child(request, memory_cap_bytes, deadline, lto_ir, out.stages.listing_cpu_seconds);
  out.stages.front_end_seconds = seconds_since(started);
  if (!kernels) return fail(kernels.error().message);

  const auto ptxas = find_ptxas();
  if (!ptxas) return fail("no ptxas found for the lto build (set KSEEK_PTXAS or KSEEK_BUILD_PIPELINE=whole)");
  const AssemblyLimits limits{build_threads(request.compile_threads), deadline, memory_cap_bytes,
                              request.timeout_seconds};
  out.stages.processes = limits.processes;
  const auto kernels_started = BuildClock::now();
  LtoAssembly assembled;
  const auto made = assemble_lto_kernels(*ptxas, lto_ir, *kernels, request.arch, limits, assembled);
  out.stages.ptxas_seconds = seconds_since(kernels_started);
  out.ptx = std::move(assembled.ptx);  // also after a failure: the pieces made, for the constraint checker
  for (const auto& t : assembled.times) {
    out.stages.kernels.push_back({t.kernel, t.nvjitlink_cpu_seconds, t.ptxas_cpu_seconds});
  }
  if (!made) return fail(back_end_error(request, made.error().message));
  out.log += assembled.log;
  auto report = parse_ptxas(assembled.log);
  out.kernels = std::move(report.kernels);
  out.ptxas_notes = std::move(report.other_notes);
  return link_in_child(request, memory_cap_bytes, started, deadline, assembled.objects, std::move(out));
}

}  // namespace

CompileOutput compile_isolated(const CompileRequest& request, std::uint64_t memory_cap_bytes) {
  const auto started = BuildClock::now();
  switch (build_pipeline(request)) {
    case BuildPipeline::kLinkTimeOptimized: return compile_link_time_optimized(request, memory_cap_bytes, started);
    case BuildPipeline::kPerKernel: return compile_per_kernel(request, memory_cap_bytes, started);
    case BuildPipeline::kDefault:
    case BuildPipeline::kWholeProgram: break;
  }
  CompileOutput out = nvrtc_in_child(request, memory_cap_bytes, started, &compile_with_nvrtc);
  out.options = build_options(request);
  return out;
}

}  // namespace kseek
