// The parts every use case finds the same way: plugins, packs, the build cache, scenarios and constraints.
// It must never print: a problem is returned or kept in the registry for the caller to show.
#include "kseek/core/app/app_options.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kseek/core/util/files.hpp"

namespace kseek::app {

AppOptions with_campaign(const AppOptions& options, const CampaignConfig& config) {
  AppOptions out = options;
  for (const auto& dir : config.plugin_dirs) out.plugin_dirs.emplace_back(dir);
  for (const auto& file : config.pack_files) out.pack_files.emplace_back(file);
  return out;
}

void load_plugins(const AppOptions& options, PluginRegistry& registry) {
  registry.load_folders(PluginRegistry::search_path(options.plugin_dirs));
}

BuildService make_build_service(const AppOptions& options) {
  if (options.no_cache) return BuildService(std::nullopt);
  return BuildService(BuildCache(options.cache_dir.empty() ? BuildCache::default_folder() : options.cache_dir));
}

namespace {

// "32G" or "34359738368": bytes, with an optional binary K, M, G or T suffix (also KiB, MiB...).
Result<std::uint64_t> parse_byte_count(std::string_view text) {
  const auto wrong = [&] {
    return make_error(fmt::format("expected a byte count such as 32G or 34359738368, found \"{}\"", text));
  };
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return wrong();
  std::string_view suffix(end, static_cast<std::size_t>(text.data() + text.size() - end));
  if (suffix.size() == 3 && suffix.substr(1) == "iB") suffix = suffix.substr(0, 1);
  if (suffix.empty()) return value;
  static constexpr std::string_view kUnits = "KMGT";
  const auto unit = kUnits.find(suffix.front());
  if (suffix.size() != 1 || unit == std::string_view::npos) return wrong();
  const int shift = 10 * static_cast<int>(unit + 1);
  if (value > (std::numeric_limits<std::uint64_t>::max() >> shift)) return wrong();
  return value << shift;
}

}  // namespace

Result<ReferenceCacheChoice> choose_reference_cache(const AppOptions& options, bool campaign, bool refused) {
  ReferenceCacheChoice choice;
  if (campaign) {
    choice.off_because = "a campaign's evaluation";
    return choice;
  }
  if (refused) {
    choice.off_because = "--no-reference-cache";
    return choice;
  }
  choice.max_bytes = kDefaultReferenceCacheBytes;
  if (const char* bound = std::getenv("KSEEK_REFERENCE_CACHE_BYTES"); bound != nullptr && *bound != '\0') {
    auto bytes = parse_byte_count(bound);
    if (!bytes) return make_error("KSEEK_REFERENCE_CACHE_BYTES: " + bytes.error().message);
    choice.max_bytes = *bytes;
    if (*bytes == 0) {
      choice.off_because = "KSEEK_REFERENCE_CACHE_BYTES=0";
      return choice;
    }
  }
  const char* build_cache = std::getenv("KSEEK_CACHE_DIR");
  if (!options.cache_dir.empty()) {
    choice.folder = options.cache_dir / "references";
  } else if (build_cache != nullptr && *build_cache != '\0') {
    choice.folder = std::filesystem::path(build_cache) / "references";
  } else {
    choice.folder = BuildCache::default_folder().parent_path() / "references";  // .../kernelseek/nvrtc's sibling
  }
  return choice;
}

Result<Constraints> load_constraints(const Plugin& plugin, const std::filesystem::path& override_file) {
  Constraints constraints = plugin.default_constraints();
  if (override_file.empty()) return constraints;
  auto text = read_file(override_file);
  if (!text) return text.error();
  try {
    const auto j = nlohmann::json::parse(*text);
    if (!j.is_object()) {
      return make_error(fmt::format("{}: constraints must be a JSON object", override_file.string()));
    }
    from_json(j, constraints);
  } catch (const std::exception& e) {
    return make_error(fmt::format("{}: {}", override_file.string(), e.what()));
  }
  return constraints;
}

namespace {

// "H03,H13" is how people write a list; the CLI splits on ';' because key=value names hold commas. An entry with
// no '=' cannot be a key=value name, so its commas can only separate ids.
std::vector<std::string> split_id_lists(const std::vector<std::string>& entries) {
  std::vector<std::string> ids;
  for (const auto& entry : entries) {
    if (entry.find('=') != std::string::npos || entry.find(',') == std::string::npos) {
      ids.push_back(entry);
      continue;
    }
    std::string_view rest = entry;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      auto part = rest.substr(0, comma);
      while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
      while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
      if (!part.empty()) ids.emplace_back(part);
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
  }
  return ids;
}

}  // namespace

Result<std::vector<Scenario>> select_scenarios(const Plugin& plugin, const std::string& set_name,
                                               const std::vector<std::string>& ids) {
  const std::string set = set_name.empty() ? plugin.info().default_set : set_name;
  auto all = plugin.scenarios(set);
  if (!all) return all.error();
  if (ids.empty()) return all;
  std::vector<Scenario> chosen;
  for (const auto& id : split_id_lists(ids)) {
    auto it = std::find_if(all->begin(), all->end(), [&](const Scenario& s) { return s.id == id || s.name == id; });
    if (it != all->end()) {
      chosen.push_back(*it);
      continue;
    }
    auto parsed = plugin.scenario_from_name(id);  // a user-written key=value name
    if (!parsed) {
      return make_error(
          fmt::format("scenario '{}' is not in set '{}' and does not parse: {}", id, set, parsed.error().message));
    }
    parsed->id = fmt::format("U{:02}", chosen.size() + 1);
    chosen.push_back(std::move(*parsed));
  }
  return chosen;
}

}  // namespace kseek::app
