// Parser of ptxas's "-v" lines, kept to the four line shapes ptxas prints per entry function, and of its coded notes
// and warnings. It must never attribute a note to a kernel it cannot name: a note goes to the entry it names, else to
// the one entry of its piece's log (the per-kernel pipelines assemble one kernel per ptxas process), else to the build.
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

struct Note {
  std::string text;      // "C7514: <text>" or "warning: <text>"
  std::string function;  // the function the line names ("" when none)
};

// A coded note (`ptxas info    : (C7514) ...`) or a warning (`ptxas warning : ...`, or with the PTX file and line
// first: `ptxas x.ptx, line 9; warning : ...`), with the function's name and PTX line numbers taken out (they differ
// from kernel to kernel, and the PTX is kseek's intermediate, not the user's) and runs of spaces made one.
std::optional<Note> ptxas_note(const std::string& line) {
  static const std::regex kCoded(R"(^ptxas info\s*: \((C\d+)\)\s*(.*)$)");
  static const std::regex kWarning(R"(^ptxas(?:\s+[^;:]*;)?\s*warning\s*: (.*)$)");
  static const std::regex kFunction(
      R"(\s*\b(?:in|for|of)\s+(?:the\s+)?(?:(?:entry\s+)?function\s+'([^']+)'|entry\s+([A-Za-z_$][\w$]*)))");
  static const std::regex kPtxLine(R"(\s+in around line \d+|\s+(?:at|on|around) line \d+)");
  static const std::regex kSpaces(R"(\s{2,})");
  std::smatch m;
  Note note;
  std::string head;
  if (std::regex_match(line, m, kCoded)) {
    head = m[1].str();
    note.text = m[2].str();
  } else if (std::regex_match(line, m, kWarning)) {
    head = "warning";
    note.text = m[1].str();
  } else {
    return std::nullopt;
  }
  if (std::regex_search(note.text, m, kFunction)) {
    note.function = m[1].matched ? m[1].str() : m[2].str();
    note.text = m.prefix().str() + m.suffix().str();
  }
  note.text = std::regex_replace(std::regex_replace(note.text, kPtxLine, ""), kSpaces, " ");
  while (!note.text.empty() && (note.text.back() == ' ' || note.text.back() == '.')) note.text.pop_back();
  note.text = fmt::format("{}: {}", head, note.text);
  return note;
}

void add_once(std::vector<std::string>& notes, std::string note) {
  if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(std::move(note));
}

}  // namespace

PtxasReport parse_ptxas(std::string_view log) {
  static const std::regex kEntry(R"(Compiling entry function '([^']+)')");
  static const std::regex kFrame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex kUsed(R"(Used (\d+) registers)");
  static const std::regex kBarriers(R"(used (\d+) barriers)");
  static const std::regex kSmem(R"((\d+) bytes smem)");
  static const std::regex kCmem(R"((\d+) bytes cmem\[0\])");
  static const std::regex kProperties(R"(Function properties for (\S+))");

  PtxasReport report;
  std::vector<KernelResources>& kernels = report.kernels;
  std::ptrdiff_t current = -1;         // index of the entry announced last
  bool in_current_properties = false;  // "Function properties" may also describe non-entry functions
  struct PendingNote {
    Note note;
    int piece;  // which piece's log the line came from
  };
  std::vector<PendingNote> notes;  // attributed once every entry is known: ptxas prints notes before the entry lines
  std::vector<std::vector<std::size_t>> piece_entries(1);  // the entries each piece's log announced
  std::istringstream lines{std::string(log)};
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (line.rfind(kPtxasPieceMarker, 0) == 0) {
      piece_entries.emplace_back();
      current = -1;
      in_current_properties = false;
    } else if (auto note = ptxas_note(line)) {
      notes.push_back({std::move(*note), static_cast<int>(piece_entries.size()) - 1});
    } else if (std::regex_search(line, m, kEntry)) {
      kernels.push_back(KernelResources{.kernel = m[1].str()});
      current = static_cast<std::ptrdiff_t>(kernels.size()) - 1;
      piece_entries.back().push_back(kernels.size() - 1);
      in_current_properties = false;
    } else if (std::regex_search(line, m, kProperties)) {
      in_current_properties = current >= 0 && m[1].str() == kernels[current].kernel;
    } else if (current >= 0 && in_current_properties && std::regex_search(line, m, kFrame)) {
      kernels[current].stack_frame_bytes = std::stoull(m[1].str());
      kernels[current].spill_store_bytes = std::stoull(m[2].str());
      kernels[current].spill_load_bytes = std::stoull(m[3].str());
    } else if (current >= 0 && std::regex_search(line, m, kUsed)) {
      kernels[current].registers = std::stoi(m[1].str());
      if (std::regex_search(line, m, kBarriers)) kernels[current].barriers = std::stoi(m[1].str());
      if (std::regex_search(line, m, kSmem)) kernels[current].static_shared_bytes = std::stoull(m[1].str());
      if (std::regex_search(line, m, kCmem)) kernels[current].constant_bytes = std::stoull(m[1].str());
    }
  }
  for (auto& [note, piece] : notes) {
    auto named = std::find_if(kernels.begin(), kernels.end(), [&](const auto& k) { return k.kernel == note.function; });
    if (named != kernels.end()) {
      add_once(named->ptxas_notes, std::move(note.text));
      continue;
    }
    // A function that is not an entry (a __noinline__ helper) keeps its name in the note.
    if (!note.function.empty()) note.text += fmt::format(" (function {})", note.function);
    const auto& entries = piece_entries[piece];
    if (entries.size() == 1) {
      add_once(kernels[entries.front()].ptxas_notes, std::move(note.text));
    } else {
      add_once(report.other_notes, std::move(note.text));  // a whole-program log: the build's, not a kernel's
    }
  }
  return report;
}

std::vector<KernelResources> parse_ptxas_report(std::string_view log) { return parse_ptxas(log).kernels; }

std::vector<PtxasNoteGroup> group_ptxas_notes(const std::vector<KernelNotes>& kernels) {
  std::vector<PtxasNoteGroup> groups;
  for (const auto& [kernel, notes] : kernels) {
    for (const auto& note : notes) {
      auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.note == note; });
      if (group == groups.end()) group = groups.insert(groups.end(), PtxasNoteGroup{note, {}});
      group->kernels.push_back(kernel);
    }
  }
  return groups;
}

std::string format_ptxas_notes(const std::vector<PtxasNoteGroup>& groups, const std::vector<std::string>& build_notes,
                               std::string_view indent) {
  constexpr std::size_t kNamed = 3;  // kernels named per note; the rest counted
  std::string out;
  for (const auto& g : groups) {
    std::string who;
    for (std::size_t i = 0; i < std::min(kNamed, g.kernels.size()); ++i) who += (i ? ", " : "") + g.kernels[i];
    if (g.kernels.size() > kNamed) who += fmt::format(" and {} more", g.kernels.size() - kNamed);
    out += fmt::format("{}ptxas {} (kernel{} {})\n", indent, g.note, g.kernels.size() == 1 ? "" : "s", who);
  }
  for (const auto& note : build_notes) out += fmt::format("{}ptxas {} (kernel not named)\n", indent, note);
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
