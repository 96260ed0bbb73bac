// The files a plugin embeds with kseek_add_plugin(EMBED name=path ...), looked up by include name. A name that is
// not there is the plugin's own defect, so the error lists what is embedded and where the names are declared.
// Header-only. It must never guess: no fuzzy matching, no fallback to another file.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kseek/sdk/result.hpp"
#include "kseek/sdk/types.hpp"

namespace kseek {

class EmbeddedFiles {
 public:
  EmbeddedFiles(std::string plugin_id, std::vector<SourceFile> files)
      : plugin_id_(std::move(plugin_id)), files_(std::move(files)) {}

  const SourceFile* find(std::string_view name) const {
    for (const auto& file : files_) {
      if (file.name == name) return &file;
    }
    return nullptr;
  }

  // `role` says what the file was wanted for ("seed for sm_90a", "candidate header").
  Result<SourceFile> require(std::string_view name, std::string_view role) const {
    if (const auto* file = find(name)) return *file;
    return make_error(plugin_id_ + ": the " + std::string(role) + " file '" + std::string(name) +
                      "' is not among the embedded files (" + names() +
                      "); check it against the EMBED names of kseek_add_plugin in the plugin's CMakeLists.txt");
  }

  // Every file whose name starts with `prefix` ("packs/"), in embedding order.
  std::vector<SourceFile> under(std::string_view prefix) const {
    std::vector<SourceFile> out;
    for (const auto& file : files_) {
      if (std::string_view(file.name).starts_with(prefix)) out.push_back(file);
    }
    return out;
  }

  std::string names() const {
    std::string list;
    for (const auto& file : files_) list += (list.empty() ? "" : ", ") + file.name;
    return list.empty() ? "none" : list;
  }

 private:
  std::string plugin_id_;
  std::vector<SourceFile> files_;
};

}  // namespace kseek
