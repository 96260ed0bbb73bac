// The pack selection of `kseek init`: built-in and plugin packs by default, installed ones when they fit.
// It must never pin a pack file by a relative path: hooks and the MCP server run from other folders.
#include "kseek/core/app/campaign_pack_choice.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <fmt/format.h>

namespace kseek::app {
namespace {

// sm_90a and sm_90 name one generation for pack selection (as question selection reads them).
std::string generation(std::string arch) {
  while (arch.size() > 3 && std::isalpha(static_cast<unsigned char>(arch.back()))) arch.pop_back();
  return arch;
}

// Why `pack` cannot serve a campaign on `arch`; empty when it can.
std::string misfit(const QuestionPack& pack, const std::string& arch) {
  if (!pack.architecture) return {};
  if (!is_pack_architecture(*pack.architecture)) {
    return fmt::format("its architecture \"{}\" is not sm_NN or sm_NNa, so no campaign would ask it",
                       *pack.architecture);
  }
  if (generation(*pack.architecture) != generation(arch)) {
    return fmt::format("it is for {} and this campaign targets {}", *pack.architecture, arch);
  }
  return {};
}

bool installed(const NamedPack& named) { return named.source == "user" || named.source == "campaign"; }

std::string absolute_file(const std::string& file) {
  std::error_code ec;
  const auto path = std::filesystem::absolute(file, ec);
  return (ec ? std::filesystem::path(file) : path).lexically_normal().string();
}

}  // namespace

Result<PackChoice> choose_campaign_packs(const PackLibrary& library, const std::string& plugin_id,
                                         const std::string& arch, const std::vector<std::string>& named) {
  PackChoice choice;
  auto take = [&](const NamedPack& pack) {
    choice.ids.push_back(pack.pack.id);
    if (installed(pack)) {
      choice.pinned_files.push_back(absolute_file(pack.file));
      choice.taken.push_back({pack.pack.id, choice.pinned_files.back(), ""});
    }
  };
  if (!named.empty()) {
    for (const auto& id : named) {
      auto it =
          std::find_if(library.packs.begin(), library.packs.end(), [&](const NamedPack& p) { return p.pack.id == id; });
      if (it == library.packs.end()) {
        std::string known;
        for (const auto& p : library.packs) known += (known.empty() ? "" : ", ") + p.pack.id;
        return make_error(
            fmt::format("--packs: no question pack '{}' is installed (installed: {}); install it with "
                        "`kseek questions install FILE`",
                        id, known));
      }
      if (const auto why = misfit(it->pack, arch); !why.empty()) {
        return make_error(fmt::format("--packs: pack '{}' ({}) cannot serve this campaign: {}", id, it->file, why));
      }
      take(*it);
    }
    return choice;
  }
  for (const auto& pack : library.packs) {
    if (pack.source == "builtin" || pack.source == "plugin:" + plugin_id) {
      take(pack);
    } else if (installed(pack)) {
      if (const auto why = misfit(pack.pack, arch); !why.empty()) {
        choice.left_out.push_back({pack.pack.id, pack.file, why});
      } else {
        take(pack);
      }
    }
  }
  return choice;
}

}  // namespace kseek::app
