// What makes FA3 differ from the other attention families: its legality rule, its reference GPU, its set floor.
// It must never restate a rule every family shares (validate(config) in attention_common applies those first).
#include "kseek/attention_fa3/fa3_family.hpp"

#include "fa3_sets.hpp"

namespace kseek::plugins::fa3 {
namespace {

using attention::AttentionConfig;
using attention::NamedScenario;

class Fa3Family final : public attention::AttentionFamily {
 public:
  std::string_view name() const override { return "fa3"; }
  // SCENARIOS.md's sizing numbers for an H200.
  attention::DevicePeaks reference_device() const override { return {989e12, 4.8e12}; }
  // SCENARIOS.md 5b: "prefill >= 0.3 TFLOP, decode >= 0.8 GB".
  attention::SizeFloor size_floor() const override { return {0.3e12, 0.8e9}; }
  // vLLM's FA3 path computes scheduler metadata before the timed call for decode-like batches.
  bool has_ahead_of_time_metadata() const override { return true; }

 protected:
  Result<void> check_family_rules(const AttentionConfig& c) const override {
    if (c.prefix_lm != attention::PrefixLm{})
      return make_error("prefix_lm needs mask_mod, which FA3 (sm_90) does not have");
    return Ok{};
  }
  Result<std::vector<NamedScenario>> case_study_set() const override { return fa3_case_study_set(*this); }
  Result<std::vector<NamedScenario>> full_set() const override { return fa3_full_set(*this); }
};

}  // namespace

const attention::AttentionFamily& fa3_family() {
  static const Fa3Family family;
  return family;
}

}  // namespace kseek::plugins::fa3
