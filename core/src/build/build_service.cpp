// Cache-aware compilation and the verdict of a build. A failed build is re-examined with relocatable device
// code, so that a forbidden symbol that only links that way (device launches, library entry points) is
// named as a CONSTRAINT_VIOLATION instead of hiding behind a COMPILE_ERROR.
#include "kseek/core/build/build_service.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include <fmt/format.h>

#include "kseek/core/build/compile_diagnostics.hpp"
#include "kseek/core/build/isolated_compile.hpp"
#include "kseek/core/build/nvrtc_compiler.hpp"
#include "kseek/core/build/toolkit_headers.hpp"
#include "kseek/core/util/sha256.hpp"

namespace kseek {

void deduplicate_headers(std::vector<SourceFile>& headers) {
  std::vector<SourceFile> unique;
  for (auto& header : headers) {
    const bool seen =
        std::any_of(unique.begin(), unique.end(), [&](const SourceFile& u) { return u.name == header.name; });
    if (!seen) unique.push_back(std::move(header));
  }
  headers = std::move(unique);
}

CompileRequest make_compile_request(const Plugin& plugin, SourceFile source, std::string arch,
                                    const Constraints& constraints) {
  CompileRequest request;
  request.source = std::move(source);
  request.headers = sdk_device_headers();
  for (auto& header : plugin.candidate_headers()) request.headers.push_back(std::move(header));
  deduplicate_headers(request.headers);
  request.arch = std::move(arch);
  request.timeout_seconds = constraints.compile_timeout_seconds;
  request.max_cubin_bytes = constraints.max_cubin_bytes;
  request.max_compile_memory_bytes = constraints.max_compile_memory_bytes;
  offer_toolkit_headers(request, toolkit_headers());  // candidates and seeds only: never the harness or a library
  return request;
}

namespace {

// NVRTC's "could not open source file" names neither what may be included nor where the toolkit is: the one message
// says both, and its diagnostic moves to the front so that it is the one a person reads (and sees once).
void explain_unopened_include(const CompileRequest& request, CandidateBuild& build) {
  auto& diagnostics = build.compile.diagnostics;
  for (auto it = diagnostics.begin(); it != diagnostics.end(); ++it) {
    const auto header = unopened_include(*it);
    if (!header) continue;
    const std::optional<ToolkitHeaders> none;
    build.message =
        unopened_include_message(*it, *header, request, request.toolkit_identity.empty() ? none : toolkit_headers());
    std::rotate(diagnostics.begin(), it, it + 1);
    return;
  }
}

}  // namespace

CompileOutput BuildService::compile(const CompileRequest& request) {
  const std::string key = build_cache_key(request);
  if (cache_) {
    const auto started = std::chrono::steady_clock::now();
    if (auto hit = cache_->load(key)) {
      hit->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      return std::move(*hit);
    }
    if (!cache_->last_discard_reason().empty()) notes_.push_back(cache_->last_discard_reason());
  }
  CompileOutput out = compile_isolated(request, request.max_compile_memory_bytes);
  out.cache_key = key;
  if (cache_ && out.status == Status::kOk) {
    if (auto stored = cache_->store(key, out); !stored) {
      notes_.push_back(fmt::format("build cache not updated: {}", stored.error().message));
    }
  }
  return out;
}

bool BuildService::cached(const CompileRequest& request) const {
  std::error_code ec;
  return cache_ && std::filesystem::exists(cache_->entry_path(build_cache_key(request)), ec);
}

CandidateBuild BuildService::build_and_check(const CompileRequest& request, const Constraints& constraints) {
  CandidateBuild build;
  build.arch = request.arch;
  build.source_sha256 = sha256_hex(request.source.text);
  build.compile = compile(request);

  auto violation_message = [](const ConstraintReport& report) {
    const auto& v = report.violations.front();
    std::string message = fmt::format("constraint '{}' violated by {} ({})", v.rule, v.symbol, v.where);
    if (report.violations.size() > 1) message += fmt::format(" and {} more", report.violations.size() - 1);
    return message;
  };

  if (build.compile.status == Status::kOk) {
    auto report = check_constraints(constraints, build.compile.cubin, build.compile.ptx);
    if (!report) {
      build.status = Status::kConstraintViolation;
      build.message = report.error().message;
      return build;
    }
    build.constraints = std::move(*report);
    build.status = build.constraints.ok() ? Status::kOk : Status::kConstraintViolation;
    if (!build.constraints.ok()) build.message = violation_message(build.constraints);
    return build;
  }

  // The build failed. A timeout or size cap is final; otherwise look for forbidden names first.
  build.status = Status::kCompileError;
  build.message = build.compile.error;
  explain_unopened_include(request, build);
  const bool capped = build.compile.error.find("time limit") != std::string::npos ||
                      build.compile.error.find("memory cap") != std::string::npos ||
                      build.compile.error.find("over the cap") != std::string::npos;
  if (capped) return build;
  if (!build.compile.ptx.empty()) {
    if (auto report = check_constraints(constraints, "", build.compile.ptx); report && !report->ok()) {
      build.constraints = std::move(*report);
      build.status = Status::kConstraintViolation;
      build.message = violation_message(build.constraints);
      return build;
    }
  }
  CompileRequest relocatable = request;
  relocatable.options.push_back("--relocatable-device-code=true");
  const CompileOutput second = compile_isolated(relocatable, relocatable.max_compile_memory_bytes);
  if (second.status == Status::kOk || !second.ptx.empty()) {
    if (auto report = check_constraints(constraints, second.cubin, second.ptx); report && !report->ok()) {
      build.constraints = std::move(*report);
      build.status = Status::kConstraintViolation;
      build.message = violation_message(build.constraints);
    }
  }
  return build;
}

nlohmann::json to_json(const CandidateBuild& build) {
  nlohmann::json diagnostics = nlohmann::json::array();
  for (const auto& d : build.compile.diagnostics) diagnostics.push_back(d);
  nlohmann::json j = {
      {"status", to_string(build.status)},
      {"message", build.message},
      {"arch", build.arch},
      {"source_sha256", build.source_sha256},
      {"nvrtc_version", build.compile.nvrtc_version},
      {"options", build.compile.options},
      {"cache_key", build.compile.cache_key},
      {"cache_hit", build.compile.cache_hit},
      {"build_seconds", build.compile.seconds},
      {"cubin_bytes", build.compile.cubin.size()},
      {"kernels", build.compile.kernels},
      {"ptxas_notes", build.compile.ptxas_notes},
      {"diagnostics", diagnostics},
      {"violations", build.constraints.violations},
      {"names_inspected", build.constraints.names_inspected},
  };
  if (build.compile.stages.processes > 0) {
    j["stage_seconds"] = {{"front_end", build.compile.stages.front_end_seconds},
                          {"ptxas", build.compile.stages.ptxas_seconds},
                          {"link", build.compile.stages.link_seconds},
                          {"ptxas_processes", build.compile.stages.processes}};
  }
  if (build.status == Status::kCompileError) j["log"] = build.compile.log;
  return j;
}

}  // namespace kseek
