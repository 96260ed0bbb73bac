// Fuzz target: the parts of the plugin descriptor check that run without loading a library: the SDK version
// handshake (sdk_versions_compatible) and the build fingerprint's `key=value;...` reader (fingerprint_field).
// Input: three fields separated by newlines (our version, their version, fingerprint; the key is the first line).
// It must never crash, and compatibility must stay reflexive and symmetric.
#include <string>

#include "kseek/core/plugin/plugin_registry.hpp"
#include "support/fuzz_target.hpp"

namespace kseek::fuzz {

int fuzz_plugin_descriptor(const std::uint8_t* data, std::size_t size) {
  std::string_view rest = as_text(data, size);
  std::string_view fields[3];
  for (auto& field : fields) {
    const std::size_t end = rest.find('\n');
    field = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  const std::string_view ours = fields[0];
  const std::string_view theirs = fields[1];
  if (!sdk_versions_compatible(ours, ours)) violated("plugin_descriptor", "a version incompatible with itself");
  if (sdk_versions_compatible(ours, theirs) != sdk_versions_compatible(theirs, ours)) {
    violated("plugin_descriptor", "compatibility is not symmetric");
  }
  const std::string value = fingerprint_field(fields[2], ours);
  if (!value.empty() && fields[2].find(value) == std::string_view::npos) {
    violated("plugin_descriptor", "a fingerprint field that is not in the fingerprint");
  }
  return 0;
}

}  // namespace kseek::fuzz

KSEEK_FUZZ_ENTRY(fuzz_plugin_descriptor)
