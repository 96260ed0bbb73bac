// Every field of CompileRequest is listed once here for both directions (json_binding); the pipeline is written by
// name so that a reordered enum cannot change a request in flight between two builds of kseek. It must never read a
// key it does not know into a request: an unknown key is an error.
#include "kseek/core/build/compile_request_json.hpp"

#include "kseek/core/util/json_binding.hpp"

namespace kseek {

std::string_view to_string(BuildPipeline pipeline) {
  switch (pipeline) {
    case BuildPipeline::kDefault: return "default";
    case BuildPipeline::kPerKernel: return "per-kernel";
    case BuildPipeline::kWholeProgram: return "whole-program";
    case BuildPipeline::kLinkTimeOptimized: return "link-time-optimized";
  }
  return "default";
}

std::optional<std::string> read_enum(std::string_view text, BuildPipeline& out) {
  for (const BuildPipeline p : {BuildPipeline::kDefault, BuildPipeline::kPerKernel, BuildPipeline::kWholeProgram,
                                BuildPipeline::kLinkTimeOptimized}) {
    if (to_string(p) == text) {
      out = p;
      return std::nullopt;
    }
  }
  return "one of default, per-kernel, whole-program, link-time-optimized";
}

template <class Io>
void bind_keys(Io& io, SourceFile& v) {
  io("name", v.name);
  io("text", v.text);
  io.no_other_keys();
}

template <class Io>
void bind_keys(Io& io, CompileRequest& v) {
  io("source", v.source);
  io("headers", v.headers);
  io("arch", v.arch);
  io("options", v.options);
  io("timeout_seconds", v.timeout_seconds);
  io("max_cubin_bytes", v.max_cubin_bytes);
  io("max_compile_memory_bytes", v.max_compile_memory_bytes);
  io("compile_threads", v.compile_threads);
  io("toolkit_identity", v.toolkit_identity);
  io("pipeline", v.pipeline);
  io.no_other_keys();
}

nlohmann::json compile_request_to_json(const CompileRequest& request) { return json_binding::write_bound(request); }

Result<CompileRequest> compile_request_from_json(const nlohmann::json& j) {
  return json_binding::read_bound<CompileRequest>(j, "compile request");
}

}  // namespace kseek
