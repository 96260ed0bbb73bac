// What makes FA4 differ from the other attention families: its legality rules, its reference GPU, its set floor.
// It must never restate a rule every family shares (validate(config) in attention_common applies those first).
#include "kseek/attention_fa4/fa4_family.hpp"

#include <fmt/format.h>

#include "fa4_sets.hpp"

namespace kseek::plugins::fa4 {
namespace {

using attention::AttentionConfig;
using attention::NamedScenario;
using attention::Precision;

std::string_view arch_name(BlackwellArch arch) { return arch == BlackwellArch::sm100 ? "sm_100" : "sm_103"; }

class Fa4Family final : public attention::AttentionFamily {
 public:
  explicit Fa4Family(BlackwellArch arch) : arch_(arch) {}

  std::string_view name() const override { return "fa4"; }
  // SCENARIOS.md's sizing numbers for a B200 (sm_103 uses them too, for want of B300 ones).
  attention::DevicePeaks reference_device() const override { return {2250e12, 8.0e12}; }
  // SCENARIOS.md 5c: Blackwell sizes are roughly 2x the Hopper floor of 5b.
  attention::SizeFloor size_floor() const override { return {0.6e12, 1.6e9}; }
  // FA4 computes no scheduler metadata ahead of the call.
  bool has_ahead_of_time_metadata() const override { return false; }

 protected:
  Result<void> check_family_rules(const AttentionConfig& c) const override {
    if (c.aot) return make_error("aot=1 is FA3-only (FA4 computes no scheduler metadata ahead of the call)");
    if (c.d == 192 && c.dv != 128) return make_error(fmt::format("d=192 on FA4 requires dv=128 (got dv={})", c.dv));
    if (c.d == 256) {
      // Anything else sends vLLM to FA2, so it would not be an FA4 scenario.
      if (c.page != 128)
        return make_error(fmt::format("d=256 on FA4 (hd256 kernel) requires page=128 (got page={})", c.page));
      if (c.splits != 1)
        return make_error(fmt::format("d=256 on FA4 (hd256 kernel) requires splits=1 (got splits={})", c.splits));
      if (c.softcap != 0)
        return make_error(fmt::format("d=256 on FA4 (hd256 kernel) cannot be combined with softcap={}", c.softcap));
      if (c.sinks) return make_error("d=256 on FA4 (hd256 kernel) cannot be combined with sinks=1");
      if (c.dtype == Precision::fp8) return make_error("d=256 on FA4 (hd256 kernel) cannot be combined with dtype=fp8");
    }
    if (c.dtype == Precision::fp8 && arch_ != BlackwellArch::sm100)
      return make_error(fmt::format("dtype=fp8 on FA4 requires sm_100 (got {})", arch_name(arch_)));
    return Ok{};
  }
  Result<std::vector<NamedScenario>> case_study_set() const override { return fa4_case_study_set(*this); }
  Result<std::vector<NamedScenario>> full_set() const override { return fa4_full_set(*this); }

 private:
  BlackwellArch arch_;
};

}  // namespace

const attention::AttentionFamily& fa4_family(BlackwellArch arch) {
  static const Fa4Family on_sm100(BlackwellArch::sm100);
  static const Fa4Family on_sm103(BlackwellArch::sm103);
  return arch == BlackwellArch::sm100 ? on_sm100 : on_sm103;
}

}  // namespace kseek::plugins::fa4
