// `kseek new-plugin NAME DIR`: writes a plugin project (CMake against the installed SDK, plugin source, problem
// header, device library, seed, question pack, README) that builds and loads as generated. It must never write into
// a folder that already holds files, nor leave a template placeholder unreplaced in what it writes.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <regex>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "kseek/core/util/files.hpp"
#include "kseek/sdk/version.hpp"

namespace kseek::cli {

std::vector<SourceFile> plugin_templates();  // generated from core/templates/plugin (core/CMakeLists.txt)

namespace {

namespace fs = std::filesystem;

// Room for "<ident>_scale" in the candidate ABI's 64-byte kernel name field, with a margin.
constexpr std::size_t kMaxIdLength = 48;

struct NewPluginArgs {
  std::string name;
  fs::path dir;
  std::string arch = "sm_90a";
};

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

Result<void> check_name(const std::string& name) {
  static const std::regex kId(R"([a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*)");
  if (!std::regex_match(name, kId) || name.size() > kMaxIdLength) {
    return make_error("plugin name '" + name +
                      "' is not a valid id: use lower-case letters, digits and '_' in "
                      "dot-separated parts, each starting with a letter, at most " +
                      std::to_string(kMaxIdLength) + " characters (e.g. myorg.layernorm)");
  }
  return Ok{};
}

Result<void> check_arch(const std::string& arch) {
  static const std::regex kArch(R"(sm_[0-9]{2,3}[a-z]?)");
  if (!std::regex_match(arch, kArch)) {
    return make_error("--arch '" + arch + "' is not an NVRTC architecture name (e.g. sm_90a, sm_100a)");
  }
  return Ok{};
}

// A missing folder is created; an existing one must be an empty folder, so nothing of the user's is overwritten.
Result<void> check_destination(const fs::path& dir) {
  std::error_code ec;
  const auto status = fs::status(dir, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return make_error("cannot inspect '" + dir.string() + "': " + ec.message());
  }
  if (!fs::exists(status)) return Ok{};
  if (!fs::is_directory(status)) {
    return make_error("'" + dir.string() + "' exists and is not a folder; choose a new folder for the plugin");
  }
  if (!fs::is_empty(dir, ec) || ec) {
    return make_error("'" + dir.string() +
                      "' is not empty; choose a new or empty folder for the plugin "
                      "(nothing was written)");
  }
  return Ok{};
}

struct GeneratedFile {
  fs::path relative;
  std::string text;
};

Result<std::vector<GeneratedFile>> render(const NewPluginArgs& args) {
  const std::string ident = replace_all(args.name, ".", "_");
  const std::string pack_id = replace_all(ident, "_", "-");
  const std::string sdk_version =
      std::to_string(KSEEK_SDK_VERSION_MAJOR) + "." + std::to_string(KSEEK_SDK_VERSION_MINOR);
  const std::pair<std::string_view, std::string_view> substitutions[] = {{"@PLUGIN_ID@", args.name},
                                                                         {"@IDENT@", ident},
                                                                         {"@PACK_ID@", pack_id},
                                                                         {"@ARCH@", args.arch},
                                                                         {"@SDK_VERSION@", sdk_version}};
  static const std::regex kLeftOver(R"(@[A-Z_]+@)");
  std::vector<GeneratedFile> files;
  for (const auto& file : plugin_templates()) {
    std::string path = file.name;
    std::string text = file.text;
    for (const auto& [from, to] : substitutions) {
      path = replace_all(std::move(path), from, to);
      text = replace_all(std::move(text), from, to);
    }
    if (std::smatch m; std::regex_search(text, m, kLeftOver) || std::regex_search(path, m, kLeftOver)) {
      return make_error("template " + file.name + " has an unknown placeholder " + m.str() + " (a kseek bug)");
    }
    files.push_back({fs::path(path), std::move(text)});
  }
  if (files.empty()) return make_error("this kseek was built without plugin templates (a kseek bug)");
  return files;
}

int run_new_plugin(const GlobalOptions& options, const NewPluginArgs& args) {
  for (auto ok : {check_name(args.name), check_arch(args.arch), check_destination(args.dir)}) {
    if (!ok) return fail(options, kExitUsage, "ERROR", "new-plugin: " + ok.error().message);
  }
  auto files = render(args);
  if (!files) return fail(options, kExitUsage, "ERROR", "new-plugin: " + files.error().message);
  std::vector<std::string> written;
  for (const auto& file : *files) {
    const fs::path target = args.dir / file.relative;
    if (auto ok = write_file_atomically(target, file.text); !ok) {
      return fail(options, kExitUsage, "ERROR", "new-plugin: writing " + target.string() + ": " + ok.error().message);
    }
    written.push_back(file.relative.generic_string());
  }
  std::sort(written.begin(), written.end());
  if (options.json) {
    print_json({{"status", "OK"},
                {"plugin", args.name},
                {"arch", args.arch},
                {"directory", args.dir.string()},
                {"files", written}});
    return kExitOk;
  }
  std::cout << fmt::format("new plugin {} for {} in {}:\n", args.name, args.arch, args.dir.string());
  for (const auto& file : written) std::cout << "  " << file << "\n";
  std::cout << fmt::format(
      "next:\n"
      "  cmake -S {0} -B {0}/build -DCMAKE_PREFIX_PATH=<kernelseek install prefix>\n"
      "  cmake --build {0}/build\n"
      "  kseek --plugin-dir {0}/build plugins\n",
      args.dir.string());
  return kExitOk;
}

}  // namespace

void register_new_plugin_command(CLI::App& app, GlobalOptions& options, int& exit_code) {
  auto args = std::make_shared<NewPluginArgs>();
  auto* command = app.add_subcommand("new-plugin", "Write a plugin project that builds against the installed SDK");
  command->add_option("NAME", args->name, "Plugin id, e.g. myorg.layernorm")->required();
  command->add_option("DIR", args->dir, "New or empty folder for the project")->required();
  command->add_option("--arch", args->arch, "Target architecture of the seed")->capture_default_str();
  command->callback([&options, &exit_code, args] { exit_code = run_new_plugin(options, *args); });
}

}  // namespace kseek::cli
