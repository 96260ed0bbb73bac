// Structural checks of a `seqs` spec, shared by the seqs parser and by validate() (code-built configs skip the parser).
// Internal to the library: it must never be installed or included from outside src/.
#pragma once

#include "kseek/attention/scenario_config.hpp"

namespace kseek::attention::detail {

inline constexpr std::int64_t kMaxGroupCount = std::int64_t{1} << 20;
inline constexpr std::int64_t kMaxLength = 2147483647;  // a single length must fit the int32 seqused_k / cu_seqlens

// The length of the fixed lists (RP, [..]) in a group's item: their lcm, or 0 when there is none.
std::int64_t fixed_list_period(const SeqGroup& group);
// Counts, length ranges, GEO/LIN operands and list periods; names the group (1-based) that is wrong.
Result<void> check_seq_spec(const SeqSpec& seqs);

}  // namespace kseek::attention::detail
