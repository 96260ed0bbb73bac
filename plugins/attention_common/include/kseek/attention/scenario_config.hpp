// Attention scenarios as vLLM calls them, for every attention plugin: config, canonical name, shared legality,
// accounting, set names.
// Host-only: it must never include CUDA headers or decide how a kernel lays out buffers (problem.h does that).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kseek/sdk/result.hpp"

namespace kseek::attention {

// =====================================================================================================================
// Scenario names
// =====================================================================================================================
// A name is a complete spec: `key=value` pairs joined by ',' (commas inside (...) or [...] belong to the value).
// Keys in canonical order; * = required. The others default as shown and are left out of a canonical name when
// they hold their default.
//
//   hq*             query heads, 1..256
//   hkv*            key/value heads; hq must be a multiple of hkv
//   d*              Q/K head size: 40, 64, 72, 80, 96, 128, 192, 256
//   dv              V/O head size (default d): d; 128 with d=192 (MLA prefill); 512 with d=64 and qv=1 (MLA decode)
//   qv              0|1  MLA-absorbed decode: a second query q_v (dv wide) whose dot product with v joins every logit
//   dtype*          bf16 | fp16 | fp8  (fp8 = e4m3 Q/K/V with fp32 descales per [sequence, kv head]; output bf16)
//   causal*         0|1  bottom-right aligned (query row i of a (q_len, k_len) sequence sits at key k_len - q_len + i)
//   window          (left,right) keys allowed left/right of the diagonal, -1 = unbounded; default (-1,-1) = none.
//                   With causal=1 only (left,0) is accepted; causal=0 with right=0 is rejected as a second spelling
//                   of the causal window, so every mask has exactly one name.
//   softcap         tanh soft-capping of the scaled logits, 0 = off
//   sinks           0|1  one learnable logit per query head in the softmax denominator (GPT-OSS)
//   prefix_lm       NxW  multimodal PrefixLM (a backend's mask_mod): N bidirectional spans of W tokens per sequence,
//   the
//                   rest causal; see image_spans() for where the spans sit. Requires causal=1.
//   page*           KV cache page size in tokens: 0 = non-paged (fresh K/V by cu_seqlens_k), else 16, 32, ..., 256
//   splits          0 = heuristic, 1 = forced single split (batch-invariant), N >= 2 = at most N splits (<= 256)
//   aot             0|1  scheduler metadata computed ahead of the timed call (where the backend has it)
//   lse             0|1  the log-sum-exp is an output
//   cascade_prefix  vLLM cascade attention: tokens of KV prefix shared by every sequence (0 = no cascade). The
//                   scenario is then two calls and a merge; `seqs` describes the suffix call. See kernel_calls().
//   seqs*           the (q_len, k_len) of every sequence, grammar below
//   seed            input seed, default 0
//
// seqs grammar:
//   seqs   := group { '+' group }
//   group  := [ N 'x' ] item               N sequences, N >= 1
//   item   := lens                          q_len = k_len
//           | '(' lens ',' lens ')'         (q_len, k_len)
//   lens   := INT                           the same length for all N sequences
//           | 'GEO(' a ',' b ')'            sequence i of N: round(a * (b/a)^(i/(N-1)))   (a, b >= 1; N = 1 gives a)
//           | 'LIN(' a ',' b ')'            sequence i of N: a + round((b-a) * i/(N-1))    (N = 1 gives a)
//           | 'RP' [ '*' s ]                SCENARIOS.md's 24 ragged prompt lengths (39,040 tokens), each times s
//           | '[' INT { ',' INT } ']'       an explicit list
//   RP and explicit lists have a fixed length m: sequence i takes element i mod m, so N must be a multiple of m,
//   and N may be left out (then N = m). GEO and LIN need an explicit N. Lengths are >= 0.
// Examples: `8x4096`, `256x(1,4096)`, `RP`, `RP*2`, `256x(1,GEO(256,32768))`, `[1024,2048,4096]`,
//           `2048+(2048,8192)+(1024,31744)+250x(1,GEO(2048,16384))`.
//
// Canonical form (what format_scenario_name writes, so format(parse(s)) is one spelling per config and
// parse(format(c)) == c): keys in the order above, defaults left out, integers in plain decimal, softcap in shortest
// round-trip form; N written unless implied (N = 1 with constant lengths, or N = m with a fixed list); an item with
// equal q and k written once; RP*1 written RP. Canonical is per structure: `2x4096` and `4096+4096` are different
// names for the same lengths, and the sets only use the shorter one.
// =====================================================================================================================

// Input precision of Q/K/V (fp8: e4m3 with descales, output bf16). Named apart from problem.h's device-side DType.
enum class Precision : std::uint8_t { bf16, fp16, fp8 };

inline constexpr int kUnbounded = -1;  // a window bound that does not limit

// One `lens` term of the seqs grammar: how the i-th of N sequences gets a length.
struct Lengths {
  enum class Kind : std::uint8_t { constant, geometric, linear, ragged_prompts, list };
  Kind kind = Kind::constant;
  std::int64_t a = 0;                // constant: the value; GEO/LIN: first; RP: scale
  std::int64_t b = 0;                // GEO/LIN: last
  std::vector<std::int64_t> values;  // list only

  static Lengths fixed(std::int64_t value) { return {Kind::constant, value, 0, {}}; }
  static Lengths geo(std::int64_t first, std::int64_t last) { return {Kind::geometric, first, last, {}}; }
  static Lengths lin(std::int64_t first, std::int64_t last) { return {Kind::linear, first, last, {}}; }
  static Lengths rp(std::int64_t scale = 1) { return {Kind::ragged_prompts, scale, 0, {}}; }
  static Lengths list(std::vector<std::int64_t> v) { return {Kind::list, 0, 0, std::move(v)}; }
  friend bool operator==(const Lengths&, const Lengths&) = default;
};

struct SeqGroup {
  std::int64_t count = 1;
  Lengths q;
  Lengths k;
  friend bool operator==(const SeqGroup&, const SeqGroup&) = default;
};

struct SeqSpec {
  std::vector<SeqGroup> groups;
  friend bool operator==(const SeqSpec&, const SeqSpec&) = default;
};

struct SeqLens {
  std::int64_t q = 0;
  std::int64_t k = 0;
  friend bool operator==(const SeqLens&, const SeqLens&) = default;
};

// prefix_lm=NxW; {0, 0} = off.
struct PrefixLm {
  int spans = 0;
  int width = 0;
  friend bool operator==(const PrefixLm&, const PrefixLm&) = default;
};

// One attention scenario: a single varlen call, or (cascade_prefix > 0) vLLM's two cascade calls and their merge.
struct AttentionConfig {
  int hq = 0;
  int hkv = 0;
  int d = 0;
  int dv = 0;  // set it equal to d unless MLA; the parser does that when `dv` is absent
  bool qv = false;
  Precision dtype = Precision::bf16;
  bool causal = false;
  int window_left = kUnbounded;
  int window_right = kUnbounded;
  double softcap = 0.0;
  bool sinks = false;
  PrefixLm prefix_lm;
  int page = 0;
  int splits = 0;
  bool aot = false;
  bool lse = false;
  std::int64_t cascade_prefix = 0;
  SeqSpec seqs;
  std::uint64_t seed = 0;
  friend bool operator==(const AttentionConfig&, const AttentionConfig&) = default;
};

// ---- names ----------------------------------------------------------------------------------------------------------
// Parses a complete name and checks the architecture-independent rules (validate(config); a family's own rules are not
// applied). Errors name the key and what is allowed, e.g. "unknown key 'hd' (known: hq, hkv, ...)", "hq=30 is not a
// multiple of hkv=8".
Result<AttentionConfig> parse_scenario_name(std::string_view name);
std::string format_scenario_name(const AttentionConfig& config);

Result<SeqSpec> parse_seqs(std::string_view text);
std::string format_seqs(const SeqSpec& seqs);
// Every sequence in order; assumes a structurally valid spec (parse_seqs or validate accepted it).
std::vector<SeqLens> expand_seqs(const SeqSpec& seqs);
// SCENARIOS.md's RP list, in its order.
const std::vector<std::int64_t>& ragged_prompt_lengths();

std::string_view to_string(Precision dtype);

// ---- legality -------------------------------------------------------------------------------------------------------
// Rules every backend shares (shapes, combinations, sizes that keep 32-bit offsets and 64-bit accounting exact). Each
// family adds its own (AttentionFamily::validate, attention_family.hpp).
Result<void> validate(const AttentionConfig& config);

// ---- mask semantics and accounting ----------------------------------------------------------------------------------
// Every supported mask gives a query row one contiguous range of visible keys [begin, end) (empty: begin == end).
struct KeyRange {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  std::int64_t size() const { return end - begin; }
  friend bool operator==(const KeyRange&, const KeyRange&) = default;
};

// Keys visible to query row `row` of one sequence of one kernel call (for a cascade config, ask each kernel_calls()).
KeyRange visible_keys(const AttentionConfig& config, SeqLens seq, std::int64_t row);
// The bidirectional spans of prefix_lm in a sequence of k_len keys: the sequence is cut into N equal segments
// (floor(k_len/N) keys each, the remainder at the end) and span s is centred in segment s.
std::vector<KeyRange> image_spans(const AttentionConfig& config, std::int64_t k_len);

// The kernel calls a scenario makes. Plain scenarios: {config}. Cascade: {prefix, suffix}, as vLLM's
// cascade_attention issues them, then merged by LSE:
//   prefix: all sum(q_len) query tokens as one sequence against the cascade_prefix shared keys, causal=0, lse=1,
//           with the sinks (so the sink enters the merged softmax once);
//   suffix: `seqs` with the config's mask, lse=1, no sinks; its keys follow the shared prefix in every sequence.
std::vector<AttentionConfig> kernel_calls(const AttentionConfig& config);

// Summed over kernel_calls(config). Bytes are the minimum HBM traffic of the calls: Q (+ q_v) and O once, K and V for
// the keys some row sees (window-limited; paged-cache page granularity, the block table, descales and sinks are not
// counted: all are below 0.5% in every set and the physics floor wants a lower bound), LSE when written. The cascade
// merge's re-read of partial outputs is not counted (a fused kernel need not do it).
struct Accounting {
  std::int64_t visible_pairs = 0;  // sum over sequences and rows of visible keys (per query head)
  std::int64_t flops = 0;          // 2 * hq * visible_pairs * (d + dv), + dv more per pair with qv (q_v . v)
  std::int64_t q_bytes = 0;        // Q and q_v
  std::int64_t k_bytes = 0;
  std::int64_t v_bytes = 0;
  std::int64_t o_bytes = 0;
  std::int64_t lse_bytes = 0;
  std::int64_t total_bytes() const { return q_bytes + k_bytes + v_bytes + o_bytes + lse_bytes; }
  friend bool operator==(const Accounting&, const Accounting&) = default;
};
Accounting account(const AttentionConfig& config);
std::int64_t flops(const AttentionConfig& config);
std::int64_t bytes(const AttentionConfig& config);
// A GPU as SCENARIOS.md's sizing estimate sees it.
struct DevicePeaks {
  double dense_16bit_flops = 0;  // the fp8 dense peak is twice this
  double hbm_bytes_per_s = 0;
};
// SCENARIOS.md's sizing estimate, summed over kernel calls: max(flops / 60% of dense peak, bytes / 75% of HBM
// bandwidth) on `device` (fp8 peak = 2x the 16-bit one).
double estimated_time_us(const AttentionConfig& config, const DevicePeaks& device);

// ---- sets -----------------------------------------------------------------------------------------------------------
inline constexpr std::string_view kCaseStudySet = "case-study";  // the 26 rows of SCENARIOS.md 5a / 5c
inline constexpr std::string_view kFullSet = "full";             // the construction blocks of 5b / 5d

struct NamedScenario {
  std::string id;       // chosen by the owning family, unique in its set; full sets <prefix><block>-<nn>
  std::string purpose;  // one line for people
  AttentionConfig config;
};
// The members of a set come from the family that owns it: AttentionFamily::scenario_set (attention_family.hpp).

}  // namespace kseek::attention
