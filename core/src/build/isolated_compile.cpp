// The steps of one build, each in capped processes: NVRTC (the whole program, or its front end to PTX), then for
// the per-kernel pipeline ptxas per kernel in parallel and nvJitLink. Each process may use the compile time limit in
// CPU seconds; every step shares one wall-clock backstop (capped_process.hpp says why).
#include "kseek/core/build/isolated_compile.hpp"

#include <fmt/format.h>

#include "kseek/core/build/capped_process.hpp"
#include "kseek/core/build/compile_diagnostics.hpp"
#include "kseek/core/build/compile_output_codec.hpp"
#include "kseek/core/build/kernel_assembly.hpp"
#include "kseek/core/build/nvrtc_compiler.hpp"
#include "kseek/core/build/ptx_pieces.hpp"
#include "kseek/core/build/ptxas_report.hpp"

namespace kseek {
namespace {

double seconds_since(BuildClock::time_point started) {
  return std::chrono::duration<double>(BuildClock::now() - started).count();
}

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

// Runs one NVRTC call in a capped child; what it returns is an encoded CompileOutput.
CompileOutput nvrtc_in_child(const CompileRequest& request, std::uint64_t memory_cap_bytes,
                             BuildClock::time_point started, CompileOutput (*compile)(const CompileRequest&)) {
  // NVRTC's flow callback cancels the compile at the limit (nvrtc_compiler.cpp); RLIMIT_CPU, a little later, ends a
  // front end that stops polling it, and the backstop one that stops computing. The grace covers start-up and encoding.
  const auto deadline = backstop(request, started) + std::chrono::seconds(2);
  const CappedRun run = run_capped([&] { return encode_compile_output(compile(request)); }, deadline, memory_cap_bytes,
                                   request.timeout_seconds + 2.0);
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
  auto decoded = decode_compile_output(run.output);
  if (!decoded) {
    return failure(request,
                   fmt::format("the compiler process for {} returned unreadable output: {}", request.source.name,
                               decoded.error().message),
                   started);
  }
  decoded->diagnostics = parse_nvrtc_log(decoded->log, request.source, request.headers);
  decoded->seconds = seconds_since(started);
  return std::move(*decoded);
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
  if (!assembled) {
    const std::string& why = assembled.error().message;
    if (why.find("time limit") != std::string::npos) return fail(time_limit_message(request) + " (" + why + ")");
    return fail(fmt::format("compiling {}: {}", request.source.name, why));
  }
  out.log += assembled->log;
  out.kernels = parse_ptxas_report(assembled->log);

  const auto link_started = BuildClock::now();
  const CappedRun linked = run_capped(
      [&]() -> std::string {
        auto cubin = link_kernels(assembled->objects, request.arch);
        if (!cubin) return "E" + cubin.error().message;
        return "C" + std::move(*cubin);
      },
      deadline, memory_cap_bytes, request.timeout_seconds);
  out.stages.link_seconds = seconds_since(link_started);
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

}  // namespace

CompileOutput compile_isolated(const CompileRequest& request, std::uint64_t memory_cap_bytes) {
  const auto started = BuildClock::now();
  if (build_pipeline(request) == BuildPipeline::kWholeProgram) {
    CompileOutput out = nvrtc_in_child(request, memory_cap_bytes, started, &compile_with_nvrtc);
    out.options = build_options(request);
    return out;
  }
  return compile_per_kernel(request, memory_cap_bytes, started);
}

}  // namespace kseek
