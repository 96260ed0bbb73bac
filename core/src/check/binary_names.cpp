// ELF64 section and symbol walking over <elf.h> types, and a line scanner for PTX directives.
// It must never read outside the buffer it was given.
#include "kseek/core/check/binary_names.hpp"

#include <cxxabi.h>
#include <elf.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <regex>

#include <fmt/format.h>

namespace kseek {
namespace {

template <class T>
bool read_at(std::string_view bytes, std::uint64_t offset, T& out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, bytes.data() + offset, sizeof(T));
  return true;
}

std::string string_at(std::string_view table, std::uint64_t offset) {
  if (offset >= table.size()) return {};
  const auto end = table.find('\0', offset);
  return std::string(table.substr(offset, end == std::string_view::npos ? std::string_view::npos : end - offset));
}

}  // namespace

std::string demangle(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

Result<std::vector<BinaryName>> cubin_names(std::string_view cubin) {
  Elf64_Ehdr header{};
  if (!read_at(cubin, 0, header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) {
    return make_error("cubin is not an ELF file");
  }
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB) {
    return make_error("cubin is not a little-endian ELF64 file");
  }
  if (header.e_shentsize != sizeof(Elf64_Shdr)) {
    return make_error(fmt::format("cubin section header size {}, expected {}", header.e_shentsize, sizeof(Elf64_Shdr)));
  }
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  for (std::size_t i = 0; i < sections.size(); ++i) {
    if (!read_at(cubin, header.e_shoff + i * sizeof(Elf64_Shdr), sections[i])) {
      return make_error(fmt::format("cubin section header {} lies outside the file", i));
    }
  }
  auto section_bytes = [&](const Elf64_Shdr& s) -> Result<std::string_view> {
    if (s.sh_type == SHT_NOBITS) return std::string_view{};
    if (s.sh_offset > cubin.size() || cubin.size() - s.sh_offset < s.sh_size) {
      return make_error("cubin section lies outside the file");
    }
    return cubin.substr(s.sh_offset, s.sh_size);
  };
  if (header.e_shstrndx >= sections.size()) return make_error("cubin has no section name table");
  auto section_names = section_bytes(sections[header.e_shstrndx]);
  if (!section_names) return section_names.error();

  std::vector<BinaryName> names;
  for (const auto& section : sections) {
    const std::string section_name = string_at(*section_names, section.sh_name);
    if (section.sh_type == SHT_SYMTAB) {
      if (section.sh_link >= sections.size() || section.sh_entsize != sizeof(Elf64_Sym)) {
        return make_error("cubin symbol table is malformed");
      }
      auto symbols = section_bytes(section);
      auto strings = section_bytes(sections[section.sh_link]);
      if (!symbols) return symbols.error();
      if (!strings) return strings.error();
      for (std::size_t offset = 0; offset + sizeof(Elf64_Sym) <= symbols->size(); offset += sizeof(Elf64_Sym)) {
        Elf64_Sym symbol{};
        std::memcpy(&symbol, symbols->data() + offset, sizeof(symbol));
        std::string name = string_at(*strings, symbol.st_name);
        if (name.empty() || ELF64_ST_TYPE(symbol.st_info) == STT_SECTION) continue;
        names.push_back({std::move(name), symbol.st_shndx == SHN_UNDEF ? "cubin undefined symbol" : "cubin symbol"});
      }
    } else if (section_name == ".debug_str" || section_name == ".nv_debug.strtab") {
      auto strings = section_bytes(section);
      if (!strings) return strings.error();
      std::size_t start = 0;
      while (start < strings->size()) {
        auto end = strings->find('\0', start);
        if (end == std::string_view::npos) end = strings->size();
        if (end > start) names.push_back({std::string(strings->substr(start, end - start)), "cubin inlined function"});
        start = end + 1;
      }
    }
  }
  return names;
}

std::vector<BinaryName> ptx_names(std::string_view ptx) {
  // Declarations: `.visible .entry name(`, `.extern .func (...) name(`, `.global .align 4 .b8 name[..]`.
  static const std::regex kDeclaration(
      R"(^\s*((?:\.(?:visible|extern|weak|common)\s+)*)\.(entry|func|global|const|shared)\b([^;{]*))");
  static const std::regex kIdentifier(R"([A-Za-z_$%][A-Za-z0-9_$]*)");
  // Calls: `call.uni (retval0), name, (param0);` or `call name, ...`.
  static const std::regex kCall(R"(\bcall(?:\.uni)?\s+(?:\([^)]*\)\s*,\s*)?([A-Za-z_$][A-Za-z0-9_$]*))");
  std::vector<BinaryName> names;
  std::string line;
  std::smatch m;
  std::string_view view;
  auto has = [&](const char* token) { return view.find(token) != std::string_view::npos; };
  // Lines as std::getline gives them (split at '\n', none after a final '\n'), viewed in place: the PTX of a seed is
  // ~13 MB, and only the few lines that pass the cheap tests are copied for the regexes.
  for (std::size_t start = 0; start < ptx.size();) {
    std::size_t line_end = ptx.find('\n', start);
    if (line_end == std::string_view::npos) line_end = ptx.size();
    view = ptx.substr(start, line_end - start);
    start = line_end + 1;
    // Cheap tests first: the regexes only see the few lines that can match (PTX of a seed has ~10^5 lines). A
    // declaration starts with a directive ('.' after the blanks \s takes), so `ld.global` and `st.shared`
    // instructions, a seed's ~36,000 lines naming a state space, never reach the declaration regex.
    const auto first = view.find_first_not_of(" \t\n\v\f\r");
    const bool maybe_declaration = first != std::string_view::npos && view[first] == '.' &&
                                   (has(".entry") || has(".func") || has(".global") || has(".const") || has(".shared"));
    const bool maybe_call = has("call");
    if (!maybe_declaration && !maybe_call) continue;
    line.assign(view);
    if (maybe_declaration && std::regex_search(line, m, kDeclaration)) {
      const bool external = m[1].str().find(".extern") != std::string::npos;
      const std::string kind = m[2].str();
      // The declared name is the last identifier before '(' or '[' outside the return-value list.
      std::string rest = m[3].str();
      if (kind == "func" && !rest.empty()) {
        // Skip a leading return-value list `(.param .b32 retval0)`.
        auto first = rest.find_first_not_of(" \t");
        if (first != std::string::npos && rest[first] == '(') {
          auto close = rest.find(')', first);
          rest = close == std::string::npos ? "" : rest.substr(close + 1);
        }
      }
      auto cut = rest.find_first_of("([=");
      std::string head = rest.substr(0, cut);
      std::string declared;
      for (std::sregex_iterator it(head.begin(), head.end(), kIdentifier), end; it != end; ++it) {
        if ((*it)[0].str()[0] != '.') declared = (*it)[0].str();
      }
      if (!declared.empty() && declared[0] != '%') {
        names.push_back({declared, fmt::format("ptx {}{} declaration", external ? "extern " : "", kind)});
      }
    }
    if (!maybe_call) continue;
    for (std::sregex_iterator it(line.begin(), line.end(), kCall), end; it != end; ++it) {
      names.push_back({(*it)[1].str(), "ptx call target"});
    }
  }
  return names;
}

}  // namespace kseek
