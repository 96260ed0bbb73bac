// Fuzz target: campaign.json, parse_campaign_config. Input: the file's text. It must never crash or throw, every
// error must name the file, and a config that parses must serialise to text that parses to the same config.
#include <string>

#include "kseek/core/campaign/campaign.hpp"
#include "support/fuzz_target.hpp"

namespace kseek::fuzz {

int fuzz_campaign_config(const std::uint8_t* data, std::size_t size) {
  const auto config = parse_campaign_config(as_text(data, size), "campaign.json");
  if (!config) {
    if (config.error().message.rfind("campaign.json", 0) != 0)
      violated("campaign_config", "error without the file name");
    return 0;
  }
  const std::string text = to_json(*config).dump(2);
  const auto again = parse_campaign_config(text, "campaign.json");
  if (!again) violated("campaign_config", "a parsed config does not read back from its own serialisation");
  if (to_json(*again).dump() != to_json(*config).dump())
    violated("campaign_config", "the round trip changed the config");
  return 0;
}

}  // namespace kseek::fuzz

KSEEK_FUZZ_ENTRY(fuzz_campaign_config)
