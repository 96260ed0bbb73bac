// Parser of ptxas's "-v" lines, kept to the four line shapes ptxas prints per entry function.
// It must never attribute a line to a kernel other than the entry ptxas announced last.
#include "kseek/core/build/ptxas_report.hpp"

#include <regex>
#include <sstream>
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

void to_json(nlohmann::json& j, const KernelResources& v) {
  j = {{"kernel", v.kernel},
       {"registers", v.registers},
       {"barriers", v.barriers},
       {"stack_frame_bytes", v.stack_frame_bytes},
       {"spill_store_bytes", v.spill_store_bytes},
       {"spill_load_bytes", v.spill_load_bytes},
       {"static_shared_bytes", v.static_shared_bytes},
       {"constant_bytes", v.constant_bytes}};
}

void from_json(const nlohmann::json& j, KernelResources& v) {
  j.at("kernel").get_to(v.kernel);
  j.at("registers").get_to(v.registers);
  v.barriers = j.value("barriers", 0);
  v.stack_frame_bytes = j.value("stack_frame_bytes", std::uint64_t{0});
  v.spill_store_bytes = j.value("spill_store_bytes", std::uint64_t{0});
  v.spill_load_bytes = j.value("spill_load_bytes", std::uint64_t{0});
  v.static_shared_bytes = j.value("static_shared_bytes", std::uint64_t{0});
  v.constant_bytes = j.value("constant_bytes", std::uint64_t{0});
}

}  // namespace kseek
