// Every question pack kseek can see: built in, shipped by loaded plugins, and installed in the user's pack folder.
// It must never drop a pack silently: one that does not parse is reported in `problems`.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "cli_context.hpp"
#include "kseek/core/questions/question_pack.hpp"

namespace kseek::cli {

struct NamedPack {
  std::string source;  // "builtin", "plugin:<id>" or "user"
  std::string file;
  QuestionPack pack;
};

struct PackLibrary {
  std::vector<NamedPack> packs;
  std::vector<std::string> problems;  // packs that could not be read or parsed, one message each
  std::vector<QuestionPack> all() const;
};

// $KSEEK_QUESTION_PATH, else ~/.local/share/kernelseek/questions (empty when neither is known).
std::filesystem::path user_question_dir();

PackLibrary collect_question_packs(const GlobalOptions& options);

}  // namespace kseek::cli
