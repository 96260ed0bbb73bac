// What attention.fa4 ever puts in an AttentionProblem, as compile-time facts for candidates: a kernel may leave out
// code for a feature this plugin never sends. FA4 has PrefixLM (prefix_lm=NxW), so problems may carry spans. Each
// attention plugin embeds its own.
#pragma once

namespace kseek {
namespace attention {

inline constexpr bool kProblemsHaveSpans = true;  // num_spans may be > 0 (read it; 0 still means none)

}  // namespace attention
}  // namespace kseek
