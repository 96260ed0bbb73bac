// The attention plugins' input generation (attention_fill) on a GPU: what the fills promise the correctness protocol,
// read back and checked on the CPU. A seed gives the same bytes every time and another seed other bytes; the chunked
// path (a thread writes kFillChunk elements at once) and the element path give the same bytes for bf16, fp16 and fp8;
// K carries its two outlier channels per kv head and its one-in-256 loud rows; the noise has unit variance per head,
// V its per-channel means, Q its outlier amplitudes; fp16 mantissas are random to their last bit. Each property is one
// a faster generator could lose; without a GPU every test skips, saying why.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "attention_gpu.hpp"
#include "kseek/attention/attention_workload.hpp"
#include "kseek/attention/scenario_config.hpp"

namespace kseek::attention {
namespace {

constexpr std::uint64_t kSeedA = 20261204;
constexpr std::uint64_t kSeedB = 20261205;

// A scenario's tensors on the GPU, filled, and their inputs read back.
class FilledScenario {
 public:
  // `misalign` bytes are added to the addresses of Q, K, V and q_v (their buffers are allocated that much larger),
  // which sends their fills down the element path when an address is no longer 16-byte aligned; the other tensors
  // (fp32 descales, int32 sequence tensors) keep their alignment.
  FilledScenario(kseek::testing::TestDeviceHost& session, const std::string& scenario, std::uint64_t seed,
                 std::uint64_t misalign = 0)
      : session_(session) {
    auto config = parse_scenario_name(scenario);
    if (!config) {
      ADD_FAILURE() << config.error().message;
      return;
    }
    auto workload = plan_workload(*config);
    if (!workload) {
      ADD_FAILURE() << workload.error().message;
      return;
    }
    problem_ = workload->problem;
    auto layout = make_workload_layout(*workload);
    if (!layout) {
      ADD_FAILURE() << layout.error().message;
      return;
    }
    layout_ = *layout;
    std::vector<DeviceBuffer> tensors;
    for (const auto& t : layout_.tensors) {
      const std::uint64_t bytes = std::max<std::uint64_t>(16, t.elements * element_bytes(t.type));
      auto buffer = session_.allocate(t.name, bytes + misalign);
      if (!buffer) {
        ADD_FAILURE() << buffer.error().message;
        return;
      }
      allocations_.push_back(*buffer);
      const bool shifted = t.name == kNameQ || t.name == kNameK || t.name == kNameV || t.name == kNameQv;
      tensors.push_back(DeviceBuffer{buffer->address + (shifted ? misalign : 0), bytes});
    }
    if (auto filled = fill_attention_inputs(session_, layout_, tensors, seed); !filled) {
      ADD_FAILURE() << filled.error().message;
      return;
    }
    host_.resize(layout_.tensors.size());
    for (std::size_t i = 0; i < layout_.tensors.size(); ++i) {
      const auto& t = layout_.tensors[i];
      host_[i].type = t.type;
      if (t.role != TensorRole::kInput || t.elements == 0) continue;
      host_[i].bytes.resize(t.elements * element_bytes(t.type));
      if (auto d = session_.download(tensors[i], host_[i].bytes, 0); !d) ADD_FAILURE() << d.error().message;
    }
    ok_ = true;
  }
  FilledScenario(const FilledScenario&) = delete;
  FilledScenario& operator=(const FilledScenario&) = delete;
  ~FilledScenario() {
    for (const auto& b : allocations_) session_.release(b);
  }

  bool ok() const { return ok_; }
  const AttentionProblem& problem() const { return problem_; }
  // An empty tensor where the scenario has none of that name (q_v without q_v): its elements() is 0.
  const HostTensor& tensor(std::string_view name) const {
    for (std::size_t i = 0; i < layout_.tensors.size(); ++i) {
      if (layout_.tensors[i].name == name) return host_[i];
    }
    static const HostTensor kNone{};
    return kNone;
  }
  std::int64_t elements(std::string_view name) const {
    const HostTensor& t = tensor(name);
    return static_cast<std::int64_t>(t.bytes.size() / std::max<std::uint64_t>(1, element_bytes(t.type)));
  }

 private:
  kseek::testing::TestDeviceHost& session_;
  AttentionProblem problem_{};
  WorkloadLayout layout_;
  std::vector<DeviceBuffer> allocations_;
  std::vector<HostTensor> host_;
  bool ok_ = false;
};

// A channel's mean and variance over the rows.
struct Moments {
  double mean = 0, variance = 0;
};

TEST(AttentionFillGpu, ASeedGivesTheSameBytesEveryTimeAndAnotherSeedOtherBytes) {
  AttentionGpu& gpu = the_attention_gpu();
  if (!gpu.session) GTEST_SKIP() << "SKIPPED: " << gpu.problem;
  kseek::testing::TestDeviceHost& session = *gpu.session;
  const std::string scenario = "hq=8,hkv=2,d=128,dtype=bf16,causal=1,page=16,seqs=[300,1000]";
  const FilledScenario a(session, scenario, kSeedA), again(session, scenario, kSeedA), b(session, scenario, kSeedB);
  ASSERT_TRUE(a.ok() && again.ok() && b.ok());
  for (std::string_view name : {kNameQ, kNameK, kNameV}) {
    SCOPED_TRACE(std::string(name));
    EXPECT_EQ(a.tensor(name).bytes, again.tensor(name).bytes);
    const std::int64_t n = a.elements(name);
    ASSERT_GT(n, 1000);
    std::int64_t same = 0;
    for (std::int64_t i = 0; i < n; ++i) same += a.tensor(name).at(i) == b.tensor(name).at(i) ? 1 : 0;
    // Independent draws of a bf16 noise coincide in well under 1 % of elements (ties of the rounding).
    EXPECT_LT(static_cast<double>(same) / static_cast<double>(n), 0.02) << same << " of " << n << " equal";
  }
}

TEST(AttentionFillGpu, ChunkedAndElementPathsWriteTheSameBytes) {
  AttentionGpu& gpu = the_attention_gpu();
  if (!gpu.session) GTEST_SKIP() << "SKIPPED: " << gpu.problem;
  kseek::testing::TestDeviceHost& session = *gpu.session;
  struct Case {
    const char* scenario;
    std::uint64_t misalign;  // bytes: keeps whole elements, breaks the 16-byte alignment chunks need
  };
  for (const Case& c : {Case{"hq=4,hkv=2,d=128,dtype=bf16,causal=1,page=16,seqs=[77,130]", 2},
                        Case{"hq=4,hkv=4,d=96,dtype=fp16,causal=0,page=0,seqs=[65,33]", 6},
                        Case{"hq=8,hkv=4,d=128,dtype=fp8,causal=1,page=16,seqs=[93,200]", 8},
                        Case{"hq=16,hkv=1,d=64,dv=512,qv=1,dtype=bf16,causal=1,page=64,seqs=3x(1,300)", 4}}) {
    SCOPED_TRACE(c.scenario);
    const FilledScenario chunked(session, c.scenario, kSeedA);
    const FilledScenario elementwise(session, c.scenario, kSeedA, c.misalign);
    ASSERT_TRUE(chunked.ok() && elementwise.ok());
    for (std::string_view name : {kNameQ, kNameK, kNameV, kNameQv}) {
      if (chunked.elements(name) == 0) continue;
      SCOPED_TRACE(std::string(name));
      const auto& x = chunked.tensor(name).bytes;
      const auto& y = elementwise.tensor(name).bytes;
      ASSERT_EQ(x.size(), y.size());
      const auto first = std::mismatch(x.begin(), x.end(), y.begin());
      EXPECT_TRUE(first.first == x.end()) << "first difference at byte " << (first.first - x.begin());
    }
  }
}

TEST(AttentionFillGpu, KeysCarryTwoOutlierChannelsPerKvHeadAndOneLoudRowIn256) {
  AttentionGpu& gpu = the_attention_gpu();
  if (!gpu.session) GTEST_SKIP() << "SKIPPED: " << gpu.problem;
  kseek::testing::TestDeviceHost& session = *gpu.session;
  const FilledScenario s(session, "hq=4,hkv=2,d=64,dtype=bf16,causal=0,page=0,seqs=[16384]", kSeedA);
  ASSERT_TRUE(s.ok());
  const AttentionProblem& p = s.problem();
  const HostTensor& k = s.tensor(kNameK);
  const std::int64_t rows = s.elements(kNameK) / (p.num_heads_kv * p.head_dim);
  ASSERT_EQ(rows, 16384);
  const double amplitude = std::sqrt(100.0 / p.softmax_scale);  // B: the outlier channels' mean is 0.8..1 x B
  std::int64_t loud_rows = 0;
  for (int g = 0; g < p.num_heads_kv; ++g) {
    SCOPED_TRACE("kv head " + std::to_string(g));
    std::vector<double> mean(p.head_dim, 0.0);
    for (std::int64_t r = 0; r < rows; ++r) {
      for (int c = 0; c < p.head_dim; ++c) mean[c] += k.at((r * p.num_heads_kv + g) * p.head_dim + c) / rows;
    }
    std::vector<int> order(p.head_dim);
    for (int c = 0; c < p.head_dim; ++c) order[c] = c;
    std::sort(order.begin(), order.end(), [&](int x, int y) { return std::fabs(mean[x]) > std::fabs(mean[y]); });
    for (int i = 0; i < 2; ++i) {
      EXPECT_GE(mean[order[i]], 0.78 * amplitude) << "channel " << order[i];
      EXPECT_LE(mean[order[i]], 1.02 * amplitude) << "channel " << order[i];
    }
    // The other channels are zero-mean noise of scale 0.5..2 (6x in loud rows): their means over 16384 rows stay
    // within a few hundredths of zero.
    EXPECT_LT(std::fabs(mean[order[2]]), 0.15) << "channel " << order[2];
    // Loud rows: the noise (outlier channels left out) far above the head's typical row.
    std::vector<double> rms(rows);
    for (std::int64_t r = 0; r < rows; ++r) {
      double sum = 0;
      for (int c = 0; c < p.head_dim; ++c) {
        if (c == order[0] || c == order[1]) continue;
        const double x = k.at((r * p.num_heads_kv + g) * p.head_dim + c);
        sum += x * x;
      }
      rms[r] = std::sqrt(sum / (p.head_dim - 2));
    }
    std::vector<double> sorted = rms;
    std::nth_element(sorted.begin(), sorted.begin() + rows / 2, sorted.end());
    const double median = sorted[rows / 2];
    for (double x : rms) loud_rows += x > 3.0 * median ? 1 : 0;
  }
  // Loud rows are chosen per token row (shared by the kv heads): 16384 / 256 = 64 expected per head.
  const double per_head = static_cast<double>(loud_rows) / p.num_heads_kv;
  EXPECT_GT(per_head, 32.0);
  EXPECT_LT(per_head, 110.0);
}

TEST(AttentionFillGpu, NoiseHasUnitVarianceAndVItsChannelMeansAndFp16MantissasAreRandom) {
  AttentionGpu& gpu = the_attention_gpu();
  if (!gpu.session) GTEST_SKIP() << "SKIPPED: " << gpu.problem;
  kseek::testing::TestDeviceHost& session = *gpu.session;
  const FilledScenario s(session, "hq=4,hkv=4,d=128,dtype=fp16,causal=0,page=0,seqs=[8192]", kSeedA);
  ASSERT_TRUE(s.ok());
  const AttentionProblem& p = s.problem();
  const HostTensor& v = s.tensor(kNameV);
  const std::int64_t rows = s.elements(kNameV) / (p.num_heads_kv * p.head_dim_v);
  double spread_low = 1, spread_high = -1;
  std::int64_t odd = 0, counted = 0;
  for (int g = 0; g < p.num_heads_kv; ++g) {
    SCOPED_TRACE("head " + std::to_string(g));
    std::vector<Moments> m(p.head_dim_v);
    for (std::int64_t r = 0; r < rows; ++r) {
      for (int c = 0; c < p.head_dim_v; ++c) {
        const std::int64_t i = (r * p.num_heads_kv + g) * p.head_dim_v + c;
        const double x = v.at(i);
        m[c].mean += x;
        m[c].variance += x * x;
        std::uint16_t bits;
        std::memcpy(&bits, v.bytes.data() + 2 * i, 2);
        if (std::fabs(x) > 0.5) {  // fp16 steps there (2^-11 and up) are far above the noise's 2.6e-5
          odd += bits & 1;
          ++counted;
        }
      }
    }
    double variance = 0;
    for (auto& mc : m) {
      mc.mean /= rows;
      mc.variance = mc.variance / rows - mc.mean * mc.mean;
      variance += mc.variance / p.head_dim_v;
      spread_low = std::min(spread_low, mc.mean);
      spread_high = std::max(spread_high, mc.mean);
      EXPECT_GT(mc.mean, -1.05);
      EXPECT_LT(mc.mean, 1.05);
    }
    // The head's scale is 0.5..2, so its noise variance 0.25..4; every channel of one head shares it.
    EXPECT_GT(variance, 0.23);
    EXPECT_LT(variance, 4.3);
    for (const auto& mc : m) EXPECT_NEAR(mc.variance / variance, 1.0, 0.1);
  }
  // Per-channel means are uniform in [-1, 1): over 512 channels they reach both ends.
  EXPECT_LT(spread_low, -0.9);
  EXPECT_GT(spread_high, 0.9);
  ASSERT_GT(counted, 100000);
  EXPECT_NEAR(static_cast<double>(odd) / static_cast<double>(counted), 0.5, 0.01);

  // Q: the two outlier channels of a kv head carry B x a, a uniform in [-1, 1) per (token, head).
  const HostTensor& q = s.tensor(kNameQ);
  const double amplitude = std::sqrt(100.0 / p.softmax_scale);
  double largest = 0;
  for (std::int64_t i = 0; i < s.elements(kNameQ); ++i) largest = std::max(largest, std::fabs(q.at(i)));
  EXPECT_GT(largest, 0.95 * amplitude);
  EXPECT_LT(largest, 1.05 * amplitude + 8.0);  // the outlier plus a noise of at most 3.47 x 2
}

}  // namespace
}  // namespace kseek::attention
