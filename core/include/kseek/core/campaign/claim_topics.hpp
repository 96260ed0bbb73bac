// What a limit or completion claim is about, read from its words, so that the question it gets challenges what it
// says: a claim that fp8 accumulation is too inexact for the rule gets a numerics question, not one about bandwidth.
// It must never guess beyond its cues: a text that names no topic has none, and the question is then chosen as for any
// other event. The topics are those a question pack may tag its items with (kQuestionTopics).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kseek {

// The topics `text` names, each once: the one named by the most cue words first (a claim about an accumulator's
// rounding error that mentions wgmma once is about numerics first), ties in kQuestionTopics order.
std::vector<std::string> claim_topics(std::string_view text);

}  // namespace kseek
