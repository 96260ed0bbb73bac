// Renders an operator's contract from the plugin interface, its constraints and kseek's build options.
// It must never copy the text of kseek's documentation: the contract travels without it, so it says what holds here.
#include "kseek/core/app/operator_contract.hpp"

#include <map>
#include <sstream>

#include <fmt/format.h>

#include "kseek/core/build/build_service.hpp"
#include "kseek/core/build/nvrtc_compiler.hpp"
#include "kseek/core/build/toolkit_headers.hpp"

namespace kseek::app {
namespace {

// The comment block a header opens with (`//` lines, markers dropped): by the house style, what it is for.
std::string opening_comment(const std::string& text) {
  std::istringstream lines(text);
  std::string line, out;
  while (std::getline(lines, line)) {
    const auto start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line.compare(start, 2, "//") != 0) break;
    std::string body = line.substr(start + 2);
    if (!body.empty() && body.front() == ' ') body.erase(0, 1);
    out += body + "\n";
  }
  return out;
}

std::string tolerance_section(const Plugin& plugin, const std::vector<Scenario>& scenarios) {
  // Scenarios sharing one tolerance are listed together, so a set of 184 stays a few lines.
  std::map<std::string, std::vector<std::string>> by_rule;
  std::vector<std::string> problems;
  for (const auto& scenario : scenarios) {
    auto layout = plugin.workload_layout(scenario);
    if (!layout) {
      problems.push_back(fmt::format("{}: {}", scenario.id, layout.error().message));
      continue;
    }
    std::string outputs;
    for (const auto& t : layout->tensors) {
      if (t.role == TensorRole::kOutput && t.compared) {
        outputs += fmt::format("{}{} ({})", outputs.empty() ? "" : ", ", t.name, to_string(t.type));
      }
    }
    const auto& tol = layout->tolerance;
    by_rule[fmt::format("k = {}, m = {}, atol = {}; compared outputs: {}", tol.max_factor, tol.mean_factor, tol.atol,
                        outputs.empty() ? "none" : outputs)]
        .push_back(scenario.id);
  }
  std::string out;
  for (const auto& [rule, ids] : by_rule) {
    std::string list;
    for (const auto& id : ids) list += (list.empty() ? "" : " ") + id;
    out += fmt::format("- {} — scenarios {}\n", rule, list);
  }
  for (const auto& p : problems) out += fmt::format("- (no layout: {})\n", p);
  return out;
}

}  // namespace

std::vector<SourceFile> candidate_header_files(const Plugin& plugin) {
  std::vector<SourceFile> headers = sdk_device_headers();
  for (auto& header : plugin.candidate_headers()) headers.push_back(std::move(header));
  deduplicate_headers(headers);
  return headers;
}

std::string contract_markdown(const Plugin& plugin, const Constraints& constraints, const std::string& arch,
                              const std::vector<Scenario>& scenarios, const std::string& header_folder) {
  const PluginInfo info = plugin.info();
  const auto headers = candidate_header_files(plugin);
  std::string out =
      fmt::format("# Contract of `{}` {}: {}\n\n{}\n\n", info.id, info.version, info.operator_name, info.description);
  out += "Written by kseek from the plugin and the rules it applies; `kseek contract --plugin " + info.id +
         "` prints it again.\n\n";

  out +=
      "## Operator semantics\n\nThe candidate headers state what every kernel must compute. Their opening "
      "comments:\n\n";
  for (const auto& header : headers) {
    const std::string where = header_folder.empty() ? header.name : header_folder + "/" + header.name;
    out += fmt::format("### `{}`\n\n", where);
    const std::string comment = opening_comment(header.text);
    out += comment.empty() ? "(no opening comment; read the file)\n\n" : "```\n" + comment + "```\n\n";
  }
  out += "Read the headers whole: the semantics, layouts and value ranges are in their comments.\n\n";

  out += fmt::format(R"(## Candidate ABI

- One `.cu` file of device code, compiled by NVRTC for `{arch}`; no host code. It includes the headers above by
  their names (`#include <{first}>`){toolkit}.
- Options: `{options}`.
- `extern "C" __global__ void kseek_plan(const Problem problem, kseek::LaunchPlan* plan)` runs on one thread
  before any launch, with every device pointer of `problem` null, and fills the plan (`launch_plan.h`): the ordered
  launches (kernel name, grid, block, cluster, dynamic shared memory, and `flags`: `kLaunchWithPrevious` starts a
  launch with the one before it), the workspace size and any TMA tensor maps.
- Every planned kernel is `extern "C" __global__ void name(const __grid_constant__ kseek::KernelArgs<Problem> args)`:
  `args.problem`, `args.workspace` (zeroed before every launch sequence), `args.tensor_maps`.
- The harness owns buffers, streams and launches. Outputs are poisoned before each launch sequence: every output
  element must be written, and inputs must not be.

)",
                     fmt::arg("arch", arch),
                     fmt::arg("first", headers.empty() ? "kseek/device/launch_plan.h" : headers.front().name),
                     fmt::arg("toolkit", toolkit_headers() ? ", and the CUDA toolkit's device headers (cuda_fp16.h, "
                                                             "cuda_bf16.h, cuda_fp8.h, cooperative_groups.h, "
                                                             "cuda/barrier, cuda/pipeline, cuda/ptx, mma.h)"
                                                           : "; no CUDA toolkit headers were found on this machine"),
                     fmt::arg("options", [&] {
                       CompileRequest request;
                       request.arch = arch;
                       std::string joined;
                       for (const auto& o : nvrtc_options(request)) joined += (joined.empty() ? "" : " ") + o;
                       return joined;
                     }()));

  out += "## Constraints (checked on the built binary: cubin symbols, inlined names, PTX)\n\n";
  for (const auto& rule : constraints.forbidden_symbols) {
    std::string patterns;
    for (const auto& p : rule.patterns) patterns += (patterns.empty() ? "`" : ", `") + p + "`";
    out += fmt::format("- `{}`: {} (names matching {})\n", rule.id, rule.description, patterns);
  }
  if (constraints.forbid_device_launch) {
    out += "- `no-device-launch`: no kernel launched from the device (dynamic parallelism escapes the timed window)\n";
  }
  out +=
      fmt::format("- the cubin is at most {} MiB; the build takes at most {:.0f} s and {} MiB of compiler memory\n\n",
                  constraints.max_cubin_bytes >> 20, constraints.compile_timeout_seconds,
                  constraints.max_compile_memory_bytes >> 20);

  out += R"(## Tolerance rule

For every compared output and input set, with e = |out - gold| against an fp32 reference and e_ref the same for a
reference computed in the output's own precision: max(e) <= k * max(e_ref) + atol, mean(e) <= m * mean(e_ref) + atol,
and no element is NaN or infinite. Timed launches are re-checked on fresh inputs.

)";
  out += tolerance_section(plugin, scenarios) + "\n";

  out += fmt::format(R"(## How to evaluate

- `kseek build FILE --plugin {id}`: compile and check the constraints, with registers, spills and shared memory per
  kernel. `kseek check FILE --plugin {id}`: the constraints only.
- `kseek eval` (inside a campaign: the campaign's candidate, set and constraints, logged) or
  `kseek eval FILE --plugin {id}`: correctness on every scenario, then timing against the seed. Needs a GPU.
- Through MCP: the `eval` tool of `kseek mcp` does the same as `kseek eval` in the campaign.
)",
                     fmt::arg("id", info.id));
  return out;
}

}  // namespace kseek::app
