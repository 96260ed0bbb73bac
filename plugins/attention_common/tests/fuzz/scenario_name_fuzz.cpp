// Fuzz target: the attention plugins' scenario_from_name (key=value parser, seqs grammar, validation, accounting),
// the shared parser exercised through both families, which is how it runs in a plugin (so it links both family
// libraries). It must never crash or throw, and every accepted name must come back in one canonical spelling that
// reads the same.
#include <string>

#include "kseek/attention/attention_plugin.hpp"
#include "kseek/attention_fa3/fa3_family.hpp"
#include "kseek/attention_fa4/fa4_family.hpp"
#include "support/fuzz_target.hpp"

namespace kseek::fuzz {
namespace {

attention::AttentionPlugin make_plugin(const attention::AttentionFamily& family, std::string id, std::string arch) {
  return attention::AttentionPlugin({.family = family, .id = std::move(id), .target_arch = std::move(arch)});
}

void check(const attention::AttentionPlugin& plugin, std::string_view name) {
  const auto scenario = plugin.scenario_from_name(name);
  if (!scenario) {
    if (scenario.error().message.empty()) violated("scenario_name", "an error without a message");
    return;
  }
  const auto again = plugin.scenario_from_name(scenario->name);
  if (!again) violated("scenario_name", "the canonical name of an accepted scenario is rejected");
  if (again->name != scenario->name) violated("scenario_name", "the canonical name is not a fixed point");
  if (!(scenario->flops >= 0) || !(scenario->bytes >= 0)) violated("scenario_name", "negative or NaN accounting");
}

}  // namespace

int fuzz_scenario_name(const std::uint8_t* data, std::size_t size) {
  static const auto fa3 = make_plugin(plugins::fa3::fa3_family(), "attention.fa3", "sm_90a");
  static const auto fa4 = make_plugin(plugins::fa4::fa4_family(), "attention.fa4", "sm_100a");
  const std::string_view name = as_text(data, size);
  check(fa3, name);
  check(fa4, name);
  return 0;
}

}  // namespace kseek::fuzz

KSEEK_FUZZ_ENTRY(fuzz_scenario_name)
