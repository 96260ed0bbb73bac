// Parser of ptxas's "-v" lines, kept to the four line shapes ptxas prints per entry function.
// It must never attribute a line to a kernel other than the entry ptxas announced last.
#include "kseek/core/build/ptxas_report.hpp"

#include "kseek/core/util/json_binding.hpp"

#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>

namespace kseek {

std::vector<KernelResources> parse_ptxas_report(std::string_view log) {
  static const std::regex kEntry(R"(Compiling entry function '([^']+)')");
  static const std::regex kFrame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex kUsed(R"(Used (\d+) registers)");
  static const std::regex kBarriers(R"(used (\d+) barriers)");
  static const std::regex kSmem(R"((\d+) bytes smem)");
  static const std::regex kCmem(R"((\d+) bytes cmem\[0\])");
  static const std::regex kProperties(R"(Function properties for (\S+))");

  std::vector<KernelResources> kernels;
  KernelResources* current = nullptr;
  bool in_current_properties = false;  // "Function properties" may also describe non-entry functions
  std::istringstream lines{std::string(log)};
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_search(line, m, kEntry)) {
      kernels.push_back(KernelResources{.kernel = m[1].str()});
      current = &kernels.back();
      in_current_properties = false;
    } else if (std::regex_search(line, m, kProperties)) {
      in_current_properties = current != nullptr && m[1].str() == current->kernel;
    } else if (current != nullptr && in_current_properties && std::regex_search(line, m, kFrame)) {
      current->stack_frame_bytes = std::stoull(m[1].str());
      current->spill_store_bytes = std::stoull(m[2].str());
      current->spill_load_bytes = std::stoull(m[3].str());
    } else if (current != nullptr && std::regex_search(line, m, kUsed)) {
      current->registers = std::stoi(m[1].str());
      if (std::regex_search(line, m, kBarriers)) current->barriers = std::stoi(m[1].str());
      if (std::regex_search(line, m, kSmem)) current->static_shared_bytes = std::stoull(m[1].str());
      if (std::regex_search(line, m, kCmem)) current->constant_bytes = std::stoull(m[1].str());
    }
  }
  return kernels;
}

template <class Io>
void bind_keys(Io& io, KernelResources& v) {
  io("kernel", v.kernel);
  io("registers", v.registers);
  io("barriers", v.barriers);
  io("stack_frame_bytes", v.stack_frame_bytes);
  io("spill_store_bytes", v.spill_store_bytes);
  io("spill_load_bytes", v.spill_load_bytes);
  io("static_shared_bytes", v.static_shared_bytes);
  io("constant_bytes", v.constant_bytes);
  io.no_other_keys();
}

void to_json(nlohmann::json& j, const KernelResources& v) { j = json_binding::write_bound(v); }

// nlohmann's hook throws; a cached compile output whose kernel list does not read is then rebuilt by its caller.
void from_json(const nlohmann::json& j, KernelResources& v) {
  if (!j.is_object() || !j.contains("kernel") || !j.contains("registers")) {
    throw std::runtime_error("kernel resources: needs at least \"kernel\" and \"registers\", found " + j.dump());
  }
  auto read = json_binding::read_bound<KernelResources>(j, "kernel resources");
  if (!read) throw std::runtime_error(read.error().message);
  v = std::move(*read);
}

}  // namespace kseek
