// What attention.fa3 ever puts in an AttentionProblem, as compile-time facts for candidates: a kernel may leave out
// code for a feature this plugin never sends, and keep its registers for the rest. It must agree with the plugin's
// validation, which refuses prefix_lm on sm_90 (so num_spans is always 0). Each attention plugin embeds its own.
#pragma once

namespace kseek {
namespace attention {

inline constexpr bool kProblemsHaveSpans = false;  // num_spans == 0 in every problem of this plugin

}  // namespace attention
}  // namespace kseek
