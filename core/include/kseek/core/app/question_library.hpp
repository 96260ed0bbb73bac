// Every question pack kseek can see: built in, shipped by loaded plugins, and installed in the user's pack folder.
// It must never drop a pack silently: one that does not parse is reported in `problems`.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "kseek/core/app/app_options.hpp"
#include "kseek/core/questions/question_pack.hpp"

namespace kseek::app {

struct NamedPack {
  std::string source;  // "builtin", "plugin:<id>", "user" (installed) or "campaign" (a file campaign.json pinned)
  std::string file;
  QuestionPack pack;
  std::string replaces;  // the file of a pack with the same id that this one stands in for; empty when none
};

// One pack id is one pack. When two sources carry the same id, the later source in this order wins: built in,
// a plugin's, installed in the user's folder, pinned by the campaign. A person installs a pack (or a campaign pins
// it) on purpose, to ship a newer revision without rebuilding kseek or the plugin; the embedded copy is the default.
struct PackLibrary {
  std::vector<NamedPack> packs;
  std::vector<std::string> problems;  // packs that could not be read or parsed, one message each
  std::vector<QuestionPack> all() const;
};

// $KSEEK_QUESTION_PATH, else ~/.local/share/kernelseek/questions (empty when neither is known).
std::filesystem::path user_question_dir();

// Every pack, one per id (see PackLibrary), in source order; options.pack_files are read as the campaign's.
PackLibrary collect_question_packs(const AppOptions& options);

}  // namespace kseek::app
