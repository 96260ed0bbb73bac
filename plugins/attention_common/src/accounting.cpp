// Mask semantics (visible keys per query row), the kernel calls a scenario makes, and its FLOP/byte accounting.
// It must never estimate what it can count: visible keys are counted row by row, exactly, in 64-bit integers.
#include <algorithm>
#include <map>
#include <utility>

#include "kseek/attention/scenario_config.hpp"

namespace kseek::attention {
namespace {

std::int64_t element_bytes(Precision p) { return p == Precision::fp8 ? 1 : 2; }
// vLLM's fp8 path writes a bf16 output.
constexpr std::int64_t kOutputBytes = 2;
constexpr std::int64_t kLseBytes = 4;

Accounting account_call(const AttentionConfig& c) {
  Accounting a;
  std::int64_t total_q = 0;
  std::int64_t keys_read = 0;
  // A sequence's counts depend only on its (q, k): each distinct pair is walked once and counted as often as it occurs
  // (a uniform batch of 64 prompts is one walk, not 64), which keeps set sizing's many accounts cheap and exact.
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> occurrences;
  for (const SeqLens seq : expand_seqs(c.seqs)) ++occurrences[{seq.q, seq.k}];
  for (const auto& [lengths, times] : occurrences) {
    const SeqLens seq{lengths.first, lengths.second};
    // Rows' ranges move monotonically right by at most one key per row, so the keys some row sees form one range.
    std::int64_t pairs = 0;
    std::int64_t first = seq.k;
    std::int64_t last = 0;
    for (std::int64_t row = 0; row < seq.q; ++row) {
      const KeyRange r = visible_keys(c, seq, row);
      if (r.size() <= 0) continue;
      pairs += r.size();
      first = std::min(first, r.begin);
      last = std::max(last, r.end);
    }
    total_q += times * seq.q;
    a.visible_pairs += times * pairs;
    keys_read += times * std::max<std::int64_t>(0, last - first);
  }
  const std::int64_t esize = element_bytes(c.dtype);
  // q_v . v adds dv multiply-adds per visible pair to the d of q . k; P . V costs dv as always.
  a.flops = 2 * std::int64_t{c.hq} * a.visible_pairs * (c.d + c.dv + (c.qv ? c.dv : 0));
  a.q_bytes = total_q * c.hq * (c.d + (c.qv ? c.dv : 0)) * esize;
  a.k_bytes = keys_read * c.hkv * c.d * esize;
  a.v_bytes = keys_read * c.hkv * c.dv * esize;
  a.o_bytes = total_q * c.hq * c.dv * kOutputBytes;
  a.lse_bytes = c.lse ? total_q * c.hq * kLseBytes : 0;
  return a;
}

}  // namespace

KeyRange visible_keys(const AttentionConfig& c, SeqLens seq, std::int64_t row) {
  const std::int64_t diagonal = seq.k - seq.q + row;  // bottom-right alignment
  std::int64_t begin = 0;
  std::int64_t end = seq.k;
  if (c.causal) end = std::min(end, diagonal + 1);
  if (c.window_right >= 0) end = std::min(end, diagonal + c.window_right + 1);
  if (c.window_left >= 0) begin = std::max(begin, diagonal - c.window_left);
  if (c.prefix_lm != PrefixLm{} && diagonal >= 0) {
    // Inside an image span the row also sees the span's later keys (causal ∪ bidirectional span).
    for (const KeyRange span : image_spans(c, seq.k)) {
      if (diagonal >= span.begin && diagonal < span.end) end = std::max(end, span.end);
    }
  }
  begin = std::clamp<std::int64_t>(begin, 0, seq.k);
  end = std::clamp<std::int64_t>(end, begin, seq.k);
  return {begin, end};
}

std::vector<KeyRange> image_spans(const AttentionConfig& c, std::int64_t k_len) {
  std::vector<KeyRange> spans;
  if (c.prefix_lm.spans < 1 || c.prefix_lm.width < 1) return spans;
  const std::int64_t segment = k_len / c.prefix_lm.spans;
  const std::int64_t width = std::min<std::int64_t>(c.prefix_lm.width, segment);
  for (std::int64_t s = 0; s < c.prefix_lm.spans; ++s) {
    const std::int64_t begin = s * segment + (segment - width) / 2;
    spans.push_back({begin, begin + width});
  }
  return spans;
}

std::vector<AttentionConfig> kernel_calls(const AttentionConfig& config) {
  if (config.cascade_prefix <= 0) return {config};
  std::int64_t total_q = 0;
  for (const SeqLens seq : expand_seqs(config.seqs)) total_q += seq.q;

  AttentionConfig prefix = config;
  prefix.cascade_prefix = 0;
  prefix.causal = false;
  prefix.lse = true;
  prefix.seqs = SeqSpec{{SeqGroup{1, Lengths::fixed(total_q), Lengths::fixed(config.cascade_prefix)}}};

  AttentionConfig suffix = config;
  suffix.cascade_prefix = 0;
  suffix.lse = true;
  suffix.sinks = false;
  return {prefix, suffix};
}

Accounting account(const AttentionConfig& config) {
  Accounting total;
  for (const AttentionConfig& call : kernel_calls(config)) {
    const Accounting a = account_call(call);
    total.visible_pairs += a.visible_pairs;
    total.flops += a.flops;
    total.q_bytes += a.q_bytes;
    total.k_bytes += a.k_bytes;
    total.v_bytes += a.v_bytes;
    total.o_bytes += a.o_bytes;
    total.lse_bytes += a.lse_bytes;
  }
  return total;
}

std::int64_t flops(const AttentionConfig& config) { return account(config).flops; }

std::int64_t bytes(const AttentionConfig& config) { return account(config).total_bytes(); }

double estimated_time_us(const AttentionConfig& config, const DevicePeaks& p) {
  const double flop_rate = 0.6 * p.dense_16bit_flops * (config.dtype == Precision::fp8 ? 2.0 : 1.0);
  const double byte_rate = 0.75 * p.hbm_bytes_per_s;
  double seconds = 0;
  for (const AttentionConfig& call : kernel_calls(config)) {
    const Accounting a = account_call(call);
    seconds += std::max(static_cast<double>(a.flops) / flop_rate, static_cast<double>(a.total_bytes()) / byte_rate);
  }
  return seconds * 1e6;
}

}  // namespace kseek::attention
