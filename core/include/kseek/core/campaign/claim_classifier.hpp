// Reads a limit or completion claim out of a coding agent's last message, for the stop hook (docs/campaigns.md).
// It must never read a claim into a message that only reports progress, plans, asks or quotes; when unsure it answers
// none.
#pragma once

#include <string>
#include <string_view>

namespace kseek {

enum class ClaimKind { kNone, kDone, kLimit };

// "none", "done" or "limit": the kinds `kseek claim` takes.
std::string_view claim_kind_name(ClaimKind kind);

struct ClaimReading {
  ClaimKind kind = ClaimKind::kNone;
  std::string sentence;  // the sentence of the message that carries the claim, as normalised; empty for none
};

// The claim a final message asserts: a limit (wins when both are asserted), done, or none. Deterministic; explicit
// claims (`kseek claim`, the MCP `claim` tool) never pass through here.
ClaimReading read_claim(std::string_view message);

}  // namespace kseek
