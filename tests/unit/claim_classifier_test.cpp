// Unit tests of the stop hook's claim classifier: the labelled corpus of agent final messages (tuning and held-out
// parts, tests/fixtures/claims) against the rates docs/campaigns.md promises, and the hard cases one by one.
// It must never relax a rate or drop a corpus line to pass: every miss is printed with its id and text.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kseek/core/campaign/campaign.hpp"
#include "kseek/core/campaign/claim_classifier.hpp"
#include "support/run_command.hpp"
#include "support/temp_folder.hpp"

namespace kseek {

void PrintTo(ClaimKind kind, std::ostream* os) { *os << claim_kind_name(kind); }  // gtest prints the kind's name

namespace {

using nlohmann::json;

struct LabelledMessage {
  std::string id;
  ClaimKind label = ClaimKind::kNone;
  std::string text;
};

// Lines starting with '#' are the file's header; every other non-empty line is {"id", "label", "text"}.
std::vector<LabelledMessage> load_corpus(const std::string& file) {
  const std::string path = std::string(KSEEK_CLAIMS_CORPUS_DIR) + "/" + file;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::vector<LabelledMessage> out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    const json j = json::parse(line);
    const std::string label = j.at("label");
    LabelledMessage m{j.at("id"), ClaimKind::kNone, j.at("text")};
    if (label == "done") {
      m.label = ClaimKind::kDone;
    } else if (label == "limit") {
      m.label = ClaimKind::kLimit;
    } else {
      EXPECT_EQ(label, "none") << path << ":" << number << ": label must be done, limit or none";
    }
    out.push_back(std::move(m));
  }
  return out;
}

struct Rates {
  int non_claims = 0, claims = 0;
  int false_claims = 0;  // a non-claim read as a claim of either kind
  int wrong_kind = 0;    // a claim read as the other kind
  int found = 0;         // a claim read as its own kind
  double false_positive_rate() const { return non_claims ? double(false_claims) / non_claims : 0; }
  double wrong_kind_rate() const { return claims ? double(wrong_kind) / claims : 0; }
  double found_rate() const { return claims ? double(found) / claims : 1; }
  std::string line(const std::string& part) const {
    return fmt::format(
        "{:<9} {:>3} claims, {:>3} non-claims: found {:5.1f}%, false claims {:4.1f}% ({}), wrong kind "
        "{:4.1f}% ({})",
        part, claims, non_claims, 100 * found_rate(), 100 * false_positive_rate(), false_claims,
        100 * wrong_kind_rate(), wrong_kind);
  }
};

Rates measure(const std::vector<LabelledMessage>& corpus, const std::string& part) {
  Rates r;
  for (const auto& m : corpus) {
    const ClaimReading got = read_claim(m.text);
    if (m.label == ClaimKind::kNone) {
      ++r.non_claims;
      r.false_claims += got.kind != ClaimKind::kNone;
    } else {
      ++r.claims;
      r.found += got.kind == m.label;
      r.wrong_kind += got.kind != ClaimKind::kNone && got.kind != m.label;
    }
    if (got.kind != m.label) {
      std::cout << fmt::format("MISS {} {}: labelled {}, read {}{}\n    {}\n", part, m.id, claim_kind_name(m.label),
                               claim_kind_name(got.kind), got.sentence.empty() ? "" : " from \"" + got.sentence + "\"",
                               json(m.text).dump());
    }
  }
  return r;
}

Rates operator+(Rates a, const Rates& b) {
  a.non_claims += b.non_claims;
  a.claims += b.claims;
  a.false_claims += b.false_claims;
  a.wrong_kind += b.wrong_kind;
  a.found += b.found;
  return a;
}

// The promise in docs/campaigns.md: on the whole corpus at most 5% of non-claims read as claims, at most 5% of
// claims read as the other kind, at least 90% of claims found with their kind. Both parts are printed.
TEST(ClaimClassifierCorpus, MeetsTheFalseClaimAndFoundRatesOnTuningAndHeldOutParts) {
  const auto tuning = load_corpus("tuning.jsonl");
  const auto held_out = load_corpus("heldout.jsonl");
  ASSERT_GE(tuning.size() + held_out.size(), 60u);
  ASSERT_GE(held_out.size(), 30u);
  std::set<std::string> ids;
  for (const auto* part : {&tuning, &held_out}) {
    for (const auto& m : *part) EXPECT_TRUE(ids.insert(m.id).second) << "duplicate corpus id " << m.id;
  }
  const Rates t = measure(tuning, "tuning");
  const Rates h = measure(held_out, "held-out");
  const Rates whole = t + h;
  std::cout << t.line("tuning") << "\n" << h.line("held-out") << "\n" << whole.line("whole") << "\n";
  EXPECT_LE(whole.false_positive_rate(), 0.05) << whole.line("whole");
  EXPECT_LE(whole.wrong_kind_rate(), 0.05) << whole.line("whole");
  EXPECT_GE(whole.found_rate(), 0.90) << whole.line("whole");
}

ClaimKind kind_of(const std::string& message) { return read_claim(message).kind; }

TEST(ClaimClassifier, NegatedClaimsAreNotClaims) {
  EXPECT_EQ(kind_of("Not done yet... the softmax is still memory-bound."), ClaimKind::kNone);
  EXPECT_EQ(kind_of("We are not at the bandwidth limit yet."), ClaimKind::kNone);
  EXPECT_EQ(kind_of("The kernel isn't at the roofline: 48% of peak."), ClaimKind::kNone);
  EXPECT_EQ(kind_of("I haven't reached any hardware ceiling so far."), ClaimKind::kNone);
  EXPECT_EQ(kind_of("The goal is not met; min_ratio is 0.91."), ClaimKind::kNone);
  EXPECT_EQ(kind_of("I don't think the work is complete."), ClaimKind::kNone);
  EXPECT_EQ(kind_of("Nobody should read this as the task being complete; I'm not done."), ClaimKind::kNone);
}

TEST(ClaimClassifier, NegationThatIsTheClaimItselfStillCounts) {
  EXPECT_EQ(kind_of("There is no headroom left on the decode shapes."), ClaimKind::kLimit);
  EXPECT_EQ(kind_of("It can't go any faster on this GPU."), ClaimKind::kLimit);
  EXPECT_EQ(kind_of("I don't see any further speedup available."), ClaimKind::kLimit);
}

TEST(ClaimClassifier, QuestionsPlansConditionalsAndHypothesesAreNotClaims) {
  EXPECT_EQ(kind_of("Are we at the bandwidth limit?"), ClaimKind::kNone);
  EXPECT_EQ(kind_of("Is the task complete? Not until min_ratio passes."), ClaimKind::kNone);
  EXPECT_EQ(kind_of("Next I will check whether we are at the roofline for d=256."), ClaimKind::kNone);
  EXPECT_EQ(kind_of("If this is compute-bound, then we are at the hardware limit and nothing helps."),
            ClaimKind::kNone);
  EXPECT_EQ(kind_of("Once the goal is met I'll stop."), ClaimKind::kNone);
  EXPECT_EQ(kind_of("Hypothesis: we might be at the shared-memory bandwidth limit. Testing with ldmatrix.x4."),
            ClaimKind::kNone);
  EXPECT_EQ(kind_of("To hit the roofline we need fewer shared-memory round trips."), ClaimKind::kNone);
}

TEST(ClaimClassifier, QuotesReportsAndCodeAreNotTheAgentsClaims) {
  EXPECT_EQ(kind_of("The goal reads \"stop when the kernel is at the bandwidth limit\"; decode is at 60%."),
            ClaimKind::kNone);
  EXPECT_EQ(kind_of("The hook asked whether the work is complete. It is not: 1.04x."), ClaimKind::kNone);
  EXPECT_EQ(kind_of("The earlier message said we had hit the roofline; that was wrong."), ClaimKind::kNone);
  EXPECT_EQ(kind_of("Added `// at the hardware limit here` as a comment for the reviewer."), ClaimKind::kNone);
  EXPECT_EQ(
      kind_of("```\n$ kseek claim limit 'at the roofline'\n```\nI did not run that: the kernel is at 55% of peak."),
      ClaimKind::kNone);
  EXPECT_EQ(kind_of("> The task is complete when the gate passes.\n\nWe're at 1.03x."), ClaimKind::kNone);
}

TEST(ClaimClassifier, ProgressAndPartialStepsAreNotCompletion) {
  EXPECT_EQ(kind_of("The memory-bound phase is 30% faster now; prefill is next."), ClaimKind::kNone);
  EXPECT_EQ(kind_of("Done with the refactor of the loads. Now on to the pipeline."), ClaimKind::kNone);
  EXPECT_EQ(kind_of("Finished step 3. The work done so far: tiling and swizzle."), ClaimKind::kNone);
  EXPECT_EQ(kind_of("The decode kernel is bandwidth-bound, which is why split-KV helps."), ClaimKind::kNone);
}

TEST(ClaimClassifier, ResourceLimitsResultsOfOneChangeAndPartialClaimsAreNotClaims) {
  EXPECT_EQ(kind_of("We're at the register limit (255 per thread), so I reduced the tile size."), ClaimKind::kNone);
  EXPECT_EQ(kind_of("No further improvement from the swizzle; trying a deeper pipeline next."), ClaimKind::kNone);
  EXPECT_EQ(kind_of("Where we are: the goal is met for 24 of 26 scenarios."), ClaimKind::kNone);
  EXPECT_EQ(kind_of("All scenarios pass. I'm done for now; the gate still fails on min_ratio."), ClaimKind::kNone);
}

TEST(ClaimClassifier, AMessageThatAlsoDeniesTheClaimClaimsNothing) {
  EXPECT_EQ(kind_of("The task is complete for decode. The goal is not met yet: prefill is at 0.97x."),
            ClaimKind::kNone);
  EXPECT_EQ(kind_of("Prefill has hit the roofline. Decode is not at the bandwidth limit yet."), ClaimKind::kNone);
  EXPECT_EQ(kind_of("That's it: all 26 PASSED, 1.13x. Goal met."), ClaimKind::kDone);
}

TEST(ClaimClassifier, LimitWinsOverDoneAndTheSentenceIsReported) {
  const ClaimReading both = read_claim("All done. We've hit the roofline on every prefill scenario.");
  EXPECT_EQ(both.kind, ClaimKind::kLimit);
  EXPECT_NE(both.sentence.find("roofline"), std::string::npos) << both.sentence;
  EXPECT_EQ(kind_of("I believe the kernel is now optimal."), ClaimKind::kLimit);
  EXPECT_EQ(kind_of("This is as fast as it will get on H200."), ClaimKind::kLimit);
  EXPECT_EQ(kind_of("The goal has been met; stopping here."), ClaimKind::kDone);
  EXPECT_EQ(kind_of("## Result\n\n- geomean 1.12x\n- **The task is complete.**"), ClaimKind::kDone);
}

TEST(ClaimClassifier, EmptyHugeAndOddInputAnswerNone) {
  EXPECT_EQ(kind_of(""), ClaimKind::kNone);
  EXPECT_EQ(kind_of("```"), ClaimKind::kNone);
  EXPECT_EQ(kind_of("\"unterminated quote at the hardware limit"), ClaimKind::kNone);
  EXPECT_EQ(kind_of(std::string("\xff\xfe\x00 done", 8)), ClaimKind::kDone);
  // A 4 MiB message (the hook's input cap) in one sentence, and one in many: no deep recursion, same answer.
  std::string one_clause(4u << 20, 'a');
  EXPECT_EQ(kind_of(one_clause), ClaimKind::kNone);
  std::string many;
  while (many.size() < (4u << 20)) many += "Eval 3 was 1.02x, not at the limit yet, and ";
  EXPECT_EQ(kind_of(many), ClaimKind::kNone);
  EXPECT_EQ(claim_kind_name(ClaimKind::kLimit), "limit");
  EXPECT_EQ(claim_kind_name(ClaimKind::kDone), "done");
  EXPECT_EQ(claim_kind_name(ClaimKind::kNone), "none");
}

// Explicit claims never pass through the classifier: `kseek claim` and the MCP `claim` tool log the kind they are
// given, whatever the text says, while the stop hook reads the agent's message.
TEST(ClaimClassifier, ExplicitClaimsStayExactAndOnlyTheStopHookReadsMessages) {
  namespace fs = std::filesystem;
  const testing::TempFolder temp("kseek_claims");
  const fs::path dir = temp.path() / "c";
  const auto kseek = [](const std::string& args) { return testing::run_kseek(args, "claims"); };
  ASSERT_EQ(kseek("init '" + dir.string() + "' --plugin example.softmax").exit_code, 0);
  const std::string negated_limit = "We are not at the bandwidth limit yet";
  ASSERT_EQ(kseek("--json claim --campaign '" + dir.string() + "' limit '" + negated_limit + "'").exit_code, 0);
  ASSERT_EQ(kseek("--json claim --campaign '" + dir.string() + "' done 'not done yet, still memory-bound'").exit_code,
            0);
  const json call = {
      {"jsonrpc", "2.0"},
      {"id", 2},
      {"method", "tools/call"},
      {"params", {{"name", "claim"}, {"arguments", {{"kind", "limit"}, {"text", "Are we at the roofline?"}}}}}};
  const json init = {{"jsonrpc", "2.0"},
                     {"id", 1},
                     {"method", "initialize"},
                     {"params",
                      {{"protocolVersion", "2025-06-18"},
                       {"capabilities", json::object()},
                       {"clientInfo", {{"name", "test"}, {"version", "1"}}}}}};
  const fs::path requests = temp.path() / "mcp.jsonl";
  std::ofstream(requests) << init.dump() << "\n"
                          << json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}.dump() << "\n"
                          << call.dump() << "\n";
  const auto mcp = kseek("mcp --campaign '" + dir.string() + "' < '" + requests.string() + "'");
  ASSERT_NE(mcp.out.find("\"id\":2"), std::string::npos) << mcp.out;
  const auto hook = [&](const std::string& message) {
    const fs::path in = temp.path() / "stop.json";
    std::ofstream(in) << json{{"session_id", "s"}, {"last_assistant_message", message}}.dump();
    return testing::run_command("'" + std::string(KSEEK_EXE) + "' hook stop --campaign '" + dir.string() + "' < '" +
                                in.string() + "' 2>/dev/null");
  };
  EXPECT_EQ(hook("We are not at the bandwidth limit yet: decode is at 2.1 TB/s. Next: 128-bit loads.").exit_code, 0);
  EXPECT_EQ(hook("We've hit the roofline on every prefill scenario.").exit_code, 0);

  auto campaign = Campaign::open(dir);
  ASSERT_TRUE(campaign.ok()) << campaign.error().message;
  auto log = campaign->read_log();
  ASSERT_TRUE(log.ok()) << log.error().message;
  std::vector<std::string> claims;
  for (const auto& r : log->records) {
    if (r.value.value("type", "") != "claim") continue;
    claims.push_back(r.value.value("source", "") + " " + r.value.value("kind", "") + ": " + r.value.value("text", ""));
  }
  EXPECT_EQ(claims,
            (std::vector<std::string>{"cli limit: " + negated_limit, "cli done: not done yet, still memory-bound",
                                      "mcp limit: Are we at the roofline?",
                                      "hook:stop limit: We've hit the roofline on every prefill scenario."}));
}

}  // namespace
}  // namespace kseek
