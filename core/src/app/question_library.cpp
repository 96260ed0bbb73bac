// Collects the question packs from their three sources, in a stable order (built-in, plugins, user folder).
// It must never stop at the first bad pack: the others are still usable.
#include "kseek/core/app/question_library.hpp"

#include <algorithm>
#include <cstdlib>

#include "kseek/core/util/files.hpp"

namespace kseek {
// Generated at build time from questionbank/*.json (kseek_embed_files in core/CMakeLists.txt).
std::vector<SourceFile> builtin_question_packs();
}  // namespace kseek

namespace kseek::app {

std::vector<QuestionPack> PackLibrary::all() const {
  std::vector<QuestionPack> out;
  for (const auto& named : packs) out.push_back(named.pack);
  return out;
}

std::filesystem::path user_question_dir() {
  if (const char* env = std::getenv("KSEEK_QUESTION_PATH"); env != nullptr && *env != '\0') return env;
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::filesystem::path(home) / ".local/share/kernelseek/questions";
  }
  return {};
}

PackLibrary collect_question_packs(const AppOptions& options) {
  PackLibrary library;
  auto take = [&](const std::string& source, const std::string& file, const std::string& text) {
    auto pack = parse_question_pack(text, file);
    if (!pack) {
      library.problems.push_back(pack.error().message);
      return;
    }
    // Sources arrive in rising precedence: a later pack of the same id takes the earlier one's place.
    auto same = std::find_if(library.packs.begin(), library.packs.end(),
                             [&](const NamedPack& named) { return named.pack.id == pack->id; });
    if (same == library.packs.end()) {
      library.packs.push_back({source, file, std::move(*pack), ""});
    } else {
      *same = NamedPack{source, file, std::move(*pack), same->file};
    }
  };
  auto take_file = [&](const std::string& source, const std::filesystem::path& path) {
    auto text = read_file(path);
    if (text) {
      take(source, path.string(), *text);
    } else {
      library.problems.push_back(text.error().message);
    }
  };
  for (const auto& f : builtin_question_packs()) take("builtin", "builtin:" + f.name, f.text);
  PluginRegistry registry;
  load_plugins(options, registry);
  for (const auto& loaded : registry.plugins()) {
    for (const auto& f : loaded->plugin->question_packs())
      take("plugin:" + loaded->id, loaded->id + ":" + f.name, f.text);
  }
  if (const auto dir = user_question_dir(); !dir.empty() && std::filesystem::is_directory(dir)) {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& path : files) take_file("user", path);
  }
  for (const auto& path : options.pack_files) take_file("campaign", path);
  return library;
}

}  // namespace kseek::app
