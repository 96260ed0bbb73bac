// The FA3 family as the shared attention code sees it: vLLM's FlashAttention-3 backend on Hopper (sm_90).
// It must never be needed to build attention_common: only this plugin and the tests that check its sets include it.
#pragma once

#include "kseek/attention/attention_family.hpp"

namespace kseek::plugins::fa3 {

// The one instance, alive for the process (the plugin library is never unloaded).
const attention::AttentionFamily& fa3_family();

}  // namespace kseek::plugins::fa3
