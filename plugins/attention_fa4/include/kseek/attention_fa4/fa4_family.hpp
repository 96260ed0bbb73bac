// The FA4 family as the shared attention code sees it: vLLM's FlashAttention-4 backend on Blackwell (sm_100, sm_103).
// It must never be needed to build attention_common: only this plugin and the tests that check its sets include it.
#pragma once

#include "kseek/attention/attention_family.hpp"

namespace kseek::plugins::fa4 {

// The Blackwell GPUs FA4's rules tell apart: fp8 runs on sm_100 (B200) only. The plugin's sets and its target are
// sm_100; sm_103 (B300) is here so that the rule that differs can be asked about and tested.
enum class BlackwellArch { sm100, sm103 };

// One instance per architecture, alive for the process (the plugin library is never unloaded).
const attention::AttentionFamily& fa4_family(BlackwellArch arch = BlackwellArch::sm100);

}  // namespace kseek::plugins::fa4
