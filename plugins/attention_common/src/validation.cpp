// Legality of an attention scenario: the rules every backend shares (each family adds its own in its plugin).
// It must never accept silently or reject vaguely: each message names the key, the offending value and what is allowed.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "kseek/attention/scenario_config.hpp"
#include "seq_spec_checks.hpp"

namespace kseek::attention {
namespace {

constexpr int kMaxHeads = 256;
constexpr int kMaxSplits = 256;
constexpr int kMaxPage = 256;
constexpr std::int64_t kMaxTokens = 2147483647;  // cu_seqlens are int32
// Bounds sum(q_len * k_len) so that 2 * hq * pairs * (d + 2 dv) stays far inside int64 (256 * 2^40 * 1280 * 2 < 2^63).
constexpr std::int64_t kMaxScorePairs = std::int64_t{1} << 40;
constexpr int kSupportedD[] = {40, 64, 72, 80, 96, 128, 192, 256};

Error fail(std::string message) { return make_error(std::move(message)); }

std::string window_text(const AttentionConfig& c) { return fmt::format("({},{})", c.window_left, c.window_right); }

bool has_window(const AttentionConfig& c) { return c.window_left != kUnbounded || c.window_right != kUnbounded; }

Result<void> check_heads_and_dims(const AttentionConfig& c) {
  if (c.hq < 1 || c.hq > kMaxHeads)
    return fail(fmt::format("hq={} is not supported (supported: 1..{})", c.hq, kMaxHeads));
  if (c.hkv < 1 || c.hkv > c.hq) return fail(fmt::format("hkv={} is not supported (supported: 1..hq={})", c.hkv, c.hq));
  if (c.hq % c.hkv != 0) return fail(fmt::format("hq={} is not a multiple of hkv={}", c.hq, c.hkv));
  if (std::find(std::begin(kSupportedD), std::end(kSupportedD), c.d) == std::end(kSupportedD)) {
    return fail(fmt::format("d={} is not supported (supported: 40, 64, 72, 80, 96, 128, 192, 256)", c.d));
  }
  if (c.dv == 512 && (c.d != 64 || !c.qv)) {
    return fail(fmt::format("dv=512 requires d=64 and qv=1 (got d={}, qv={})", c.d, c.qv ? 1 : 0));
  }
  const bool mla_prefill = c.d == 192 && c.dv == 128;
  const bool mla_decode = c.d == 64 && c.dv == 512;
  if (c.dv != c.d && !mla_prefill && !mla_decode) {
    return fail(
        fmt::format("dv={} is not supported with d={} (supported: dv=d; dv=128 with d=192; dv=512 with d=64 "
                    "and qv=1)",
                    c.dv, c.d));
  }
  if (c.qv && !mla_decode) return fail(fmt::format("qv=1 requires d=64 and dv=512 (got d={}, dv={})", c.d, c.dv));
  if (c.qv && c.dtype == Precision::fp8) return fail("dtype=fp8 cannot be combined with qv=1");
  return Ok{};
}

Result<void> check_mask(const AttentionConfig& c) {
  if (c.window_left < kUnbounded || c.window_right < kUnbounded) {
    return fail(fmt::format("window={} is not supported (bounds are >= 0, or -1 = unbounded)", window_text(c)));
  }
  // causal fixes the right edge at the diagonal; accepting (L,-1) or (-1,0) too would give one mask several names.
  if (c.causal && has_window(c) && (c.window_left < 0 || c.window_right != 0)) {
    return fail(
        fmt::format("causal=1 takes window=(left,0) with left >= 0, or no window (got window={})", window_text(c)));
  }
  if (!c.causal && c.window_right == 0) {
    return fail(fmt::format("window={} with causal=0 is a causal mask; write causal=1{}", window_text(c),
                            c.window_left >= 0 ? fmt::format(",window=({},0)", c.window_left) : std::string()));
  }
  if (!std::isfinite(c.softcap) || c.softcap < 0) {
    return fail(fmt::format("softcap={} is not supported (a finite value >= 0; 0 = off)", c.softcap));
  }
  if (c.sinks && c.dv != c.d) return fail(fmt::format("sinks=1 requires dv=d (got d={}, dv={})", c.d, c.dv));
  if (c.sinks && c.hq > 64) return fail(fmt::format("sinks=1 requires hq <= 64 (got hq={})", c.hq));
  if (c.prefix_lm != PrefixLm{}) {
    const auto& p = c.prefix_lm;
    if (p.spans < 1 || p.width < 1) {
      return fail(fmt::format("prefix_lm={}x{} is not supported (N >= 1 spans of W >= 1 tokens)", p.spans, p.width));
    }
    if (!c.causal)
      return fail(
          fmt::format("prefix_lm={}x{} requires causal=1 (the mask is causal outside the spans)", p.spans, p.width));
    if (has_window(c)) return fail(fmt::format("prefix_lm cannot be combined with window={}", window_text(c)));
  }
  return Ok{};
}

Result<void> check_schedule(const AttentionConfig& c) {
  if (c.page != 0 && (c.page < 16 || c.page > kMaxPage || c.page % 16 != 0)) {
    return fail(fmt::format("page={} is not supported (supported: 0 = non-paged, or a multiple of 16 in 16..{})",
                            c.page, kMaxPage));
  }
  if (c.splits < 0 || c.splits > kMaxSplits) {
    return fail(fmt::format("splits={} is not supported (supported: 0 = heuristic, 1 = forced single, 2..{} = cap)",
                            c.splits, kMaxSplits));
  }
  return Ok{};
}

Result<void> check_lengths(const AttentionConfig& c) {
  if (auto ok = detail::check_seq_spec(c.seqs); !ok) return ok;
  const std::vector<SeqLens> seqs = expand_seqs(c.seqs);
  std::int64_t total_q = 0;
  std::int64_t total_k = 0;
  std::int64_t pairs = 0;
  for (std::size_t i = 0; i < seqs.size(); ++i) {
    const SeqLens s = seqs[i];
    total_q += s.q;
    total_k += s.k + c.cascade_prefix;
    // Both factors are < 2^31, so the product cannot overflow before the bound catches it.
    pairs += s.q * (s.k + c.cascade_prefix);
    if (total_q > kMaxTokens || total_k > kMaxTokens) {
      return fail(fmt::format("seqs={}: more than {} query or key tokens in total (int32 cu_seqlens)",
                              format_seqs(c.seqs), kMaxTokens));
    }
    if (pairs > kMaxScorePairs) {
      return fail(fmt::format("seqs={}: sum of q_len*k_len exceeds 2^40 score elements per head", format_seqs(c.seqs)));
    }
    if (c.prefix_lm != PrefixLm{} && s.k < std::int64_t{c.prefix_lm.spans} * c.prefix_lm.width) {
      return fail(fmt::format("prefix_lm={}x{} needs every k_len >= {} (sequence {} has k_len={})", c.prefix_lm.spans,
                              c.prefix_lm.width, std::int64_t{c.prefix_lm.spans} * c.prefix_lm.width, i, s.k));
    }
    if (c.cascade_prefix > 0 && s.q > s.k) {
      return fail(
          fmt::format("cascade_prefix={} needs every query inside its suffix, q_len <= k_len (sequence {} has "
                      "q_len={}, k_len={})",
                      c.cascade_prefix, i, s.q, s.k));
    }
  }
  if (total_q < 1) return fail(fmt::format("seqs={}: no query token at all", format_seqs(c.seqs)));
  return Ok{};
}

Result<void> check_cascade(const AttentionConfig& c) {
  if (c.cascade_prefix == 0) return Ok{};
  if (c.cascade_prefix < 0 || c.cascade_prefix > detail::kMaxLength) {
    return fail(fmt::format("cascade_prefix={} is not supported (0 = no cascade, or 1..{})", c.cascade_prefix,
                            detail::kMaxLength));
  }
  // vLLM shares the prefix through block_table[:1] and offsets the suffix's table by whole blocks.
  if (c.page == 0)
    return fail(fmt::format("cascade_prefix={} requires a paged KV cache (got page=0)", c.cascade_prefix));
  if (c.cascade_prefix % c.page != 0) {
    return fail(fmt::format("cascade_prefix={} is not a multiple of page={}", c.cascade_prefix, c.page));
  }
  if (!c.causal)
    return fail(fmt::format("cascade_prefix={} requires causal=1 (the suffix call is causal)", c.cascade_prefix));
  // vLLM does not use cascade attention with sliding windows (use_cascade_attention returns false).
  if (has_window(c)) return fail(fmt::format("cascade_prefix cannot be combined with window={}", window_text(c)));
  if (c.prefix_lm != PrefixLm{}) return fail("cascade_prefix cannot be combined with prefix_lm");
  return Ok{};
}

}  // namespace

Result<void> validate(const AttentionConfig& config) {
  for (auto check : {check_heads_and_dims, check_mask, check_schedule, check_cascade, check_lengths}) {
    if (auto ok = check(config); !ok) return ok;
  }
  return Ok{};
}

}  // namespace kseek::attention
