// Shared plumbing of the commands.
// It must never print to stdout in JSON mode anything but one JSON document.
#include "cli_context.hpp"

#include <algorithm>

#include "kseek/core/util/files.hpp"

namespace kseek::cli {

GlobalOptions with_campaign(const GlobalOptions& options, const CampaignConfig& config) {
  GlobalOptions out = options;
  static_cast<app::AppOptions&>(out) = app::with_campaign(options, config);
  return out;
}

int fail(const GlobalOptions& options, int code, const std::string& status, const std::string& message) {
  if (options.json) {
    print_json({{"status", status}, {"error", message}});
  } else {
    std::cerr << "kseek: " << message << "\n";
  }
  return code;
}

void print_json(const nlohmann::json& j) { std::cout << j.dump(2) << "\n"; }

std::string human_bytes(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.2f} MB", bytes / 1e6);
  if (bytes >= 1e3) return fmt::format("{:.1f} kB", bytes / 1e3);
  return fmt::format("{:.0f} B", bytes);
}

}  // namespace kseek::cli
