// Parser of ptxas's "-v" lines, kept to the four line shapes ptxas prints per entry function, and of its coded notes
// and warnings. It must never attribute a line to a kernel other than the one the line names or, for a line that names
// none, the entry ptxas announced last.
#include "kseek/core/build/ptxas_report.hpp"

#include "kseek/core/util/json_binding.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>

namespace kseek {

namespace {

// A coded note (`ptxas info    : (C7514) ...`) or a warning (`ptxas warning : ...`) as (note, function it names):
// "C7514: <text>" or "warning: <text>", with the function's name and PTX line numbers taken out (they differ from
// kernel to kernel, and the PTX is kseek's intermediate, not the user's) and runs of spaces made one.
std::optional<std::pair<std::string, std::string>> ptxas_note(const std::string& line) {
  static const std::regex kCoded(R"(^ptxas info\s*: \((C\d+)\)\s*(.*)$)");
  static const std::regex kWarning(R"(^ptxas warning\s*: (.*)$)");
  static const std::regex kFunction(R"(\s*\b(?:in|for|of)\s+(?:the\s+)?(?:entry\s+)?function\s+'([^']+)')");
  static const std::regex kPtxLine(R"(\s+in around line \d+|\s+(?:at|on|around) line \d+)");
  static const std::regex kSpaces(R"(\s{2,})");
  std::smatch m;
  std::string head, text;
  if (std::regex_match(line, m, kCoded)) {
    head = m[1].str();
    text = m[2].str();
  } else if (std::regex_match(line, m, kWarning)) {
    head = "warning";
    text = m[1].str();
  } else {
    return std::nullopt;
  }
  std::string function;
  if (std::regex_search(text, m, kFunction)) {
    function = m[1].str();
    text = m.prefix().str() + m.suffix().str();
  }
  text = std::regex_replace(std::regex_replace(text, kPtxLine, ""), kSpaces, " ");
  while (!text.empty() && (text.back() == ' ' || text.back() == '.')) text.pop_back();
  return std::pair{fmt::format("{}: {}", head, text), function};
}

}  // namespace

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
  struct PendingNote {
    std::string note, function;
    std::ptrdiff_t entry;  // the entry announced last when the line came (-1: none yet)
  };
  std::vector<PendingNote> notes;  // attributed once every entry is known: a note may come before its entry's lines
  std::istringstream lines{std::string(log)};
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (auto note = ptxas_note(line)) {
      notes.push_back({std::move(note->first), std::move(note->second), current ? current - kernels.data() : -1});
    } else if (std::regex_search(line, m, kEntry)) {
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
  for (auto& note : notes) {
    auto named = std::find_if(kernels.begin(), kernels.end(), [&](const auto& k) { return k.kernel == note.function; });
    KernelResources* owner = named != kernels.end() ? &*named : note.entry >= 0 ? &kernels[note.entry] : nullptr;
    if (owner == nullptr) continue;  // a note before any entry that names no kernel: no kernel to give it to
    if (std::find(owner->ptxas_notes.begin(), owner->ptxas_notes.end(), note.note) == owner->ptxas_notes.end())
      owner->ptxas_notes.push_back(std::move(note.note));
  }
  return kernels;
}

std::vector<PtxasNoteGroup> group_ptxas_notes(const std::vector<KernelResources>& kernels) {
  std::vector<PtxasNoteGroup> groups;
  for (const auto& k : kernels) {
    for (const auto& note : k.ptxas_notes) {
      auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.note == note; });
      if (group == groups.end()) group = groups.insert(groups.end(), PtxasNoteGroup{note, {}});
      group->kernels.push_back(k.kernel);
    }
  }
  return groups;
}

std::string format_ptxas_notes(const std::vector<PtxasNoteGroup>& groups, std::string_view indent) {
  constexpr std::size_t kNamed = 3;  // kernels named per note; the rest counted
  std::string out;
  for (const auto& g : groups) {
    std::string who;
    for (std::size_t i = 0; i < std::min(kNamed, g.kernels.size()); ++i) who += (i ? ", " : "") + g.kernels[i];
    if (g.kernels.size() > kNamed) who += fmt::format(" and {} more", g.kernels.size() - kNamed);
    out += fmt::format("{}ptxas {} (kernel{} {})\n", indent, g.note, g.kernels.size() == 1 ? "" : "s", who);
  }
  return out;
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
  io("ptxas_notes", v.ptxas_notes);
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
