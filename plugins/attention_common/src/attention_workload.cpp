// The GPU side of the attention plugins, host half: layouts, structural tensors, and the launches of the device
// library's generators and references. It must never assume a tensor the layout does not declare, nor read a
// scenario's lengths from anywhere but the layout it is given.
#include "kseek/attention/attention_workload.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "attention_device_params.h"

namespace kseek::attention {
namespace {

// Between the scenario name and the reference engine in a layout's plugin_context.
constexpr std::string_view kReferenceEngineLine = "\nreference engine: ";

using device::FillParams;
using device::ReferenceParams;

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
constexpr std::uint64_t kLargeInputSetBytes = std::uint64_t{8} << 30;  // above this, two input sets instead of three
constexpr unsigned kFillThreads = 256;
constexpr std::uint64_t kMaxFillBlocks = 1u << 16;                  // grid-stride loops cover the rest
constexpr std::uint64_t kMaxPartialBytes = std::uint64_t{2} << 30;  // split-KV scratch of the references
constexpr std::int64_t kMinKeysPerSplit = 512;
constexpr int kMaxGridYZ = 65535;

std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

DType dtype_of(Precision p) {
  switch (p) {
    case Precision::bf16: return kDTypeBF16;
    case Precision::fp16: return kDTypeFP16;
    case Precision::fp8: return kDTypeFP8E4M3;
  }
  return kDTypeBF16;
}

ElementType element_of(DType t) {
  switch (t) {
    case kDTypeBF16: return ElementType::kBF16;
    case kDTypeFP16: return ElementType::kF16;
    case kDTypeFP8E4M3: return ElementType::kFP8E4M3;
    case kDTypeFP32: return ElementType::kF32;
  }
  return ElementType::kF32;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

TensorView view_of(std::initializer_list<std::uint64_t> dims, std::initializer_list<std::int64_t> strides,
                   std::size_t element) {
  TensorView view;
  for (std::uint64_t d : dims) {
    if (d == 0 || d > (std::uint64_t{1} << 32)) return {};
  }
  std::size_t i = 0;
  for (std::int64_t s : strides) {
    const std::uint64_t bytes = static_cast<std::uint64_t>(s) * element;
    if (bytes % 16 != 0 || bytes >= (std::uint64_t{1} << 40)) return {};
    view.strides_bytes[i++] = bytes;
  }
  view.rank = static_cast<std::uint32_t>(dims.size());
  i = 0;
  for (std::uint64_t d : dims) view.dims[i++] = d;
  return view;
}

TensorSpec input(std::string_view name, ElementType type, std::uint64_t elements, std::size_t offset) {
  return {.name = std::string(name),
          .role = TensorRole::kInput,
          .type = type,
          .elements = elements,
          .problem_offset = static_cast<std::uint32_t>(offset),
          .compared = false,
          .view = {}};
}

// An absent optional tensor keeps its slot so that tensor indices stay the TensorId of problem.h; the harness
// writes no pointer for it, so the problem's field stays null.
TensorSpec absent(std::string_view name) {
  return input(std::string(name) + std::string(kAbsentSuffix), ElementType::kU8, 0, kNoProblemPointer);
}

std::size_t index_of(const WorkloadLayout& layout, std::string_view name) {
  for (std::size_t i = 0; i < layout.tensors.size(); ++i) {
    if (layout.tensors[i].name == name) return i;
  }
  return layout.tensors.size();
}

std::string context(std::string_view call, const std::string& message) {
  return fmt::format("attention {}: {}", call, message);
}

Result<void> check_buffer(std::string_view name, const DeviceBuffer& buffer, std::uint64_t bytes) {
  if (bytes > 0 && (buffer.address == 0 || buffer.bytes < bytes)) {
    return make_error(fmt::format("buffer '{}' has {} bytes{}, needs {}", name, buffer.bytes,
                                  buffer.address == 0 ? " at address 0" : "", bytes));
  }
  return Ok{};
}

std::uint64_t tensor_bytes(const TensorSpec& t) { return t.elements * element_bytes(t.type); }

// The problem with every input's device address at its offset, in tensor order (as the harness writes them).
AttentionProblem problem_with_inputs(const WorkloadLayout& layout, std::span<const DeviceBuffer> tensors) {
  std::vector<std::byte> bytes = layout.problem;
  for (std::size_t i = 0; i < layout.tensors.size(); ++i) {
    if (layout.tensors[i].role != TensorRole::kInput) continue;
    const std::uint64_t address = tensors[i].address;
    if (layout.tensors[i].problem_offset == kNoProblemPointer) continue;  // an absent tensor: no pointer
    std::memcpy(bytes.data() + layout.tensors[i].problem_offset, &address, sizeof(address));
  }
  AttentionProblem problem{};
  std::memcpy(&problem, bytes.data(), sizeof(problem));
  return problem;
}

}  // namespace

float softmax_scale_of(const AttentionConfig& config) {
  const int qk_width = config.qv ? 192 : config.d;
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(qk_width)));
}

// atol: with O alone the rule scales with the same-precision reference's own error (a bf16/fp16 rounding of values
// near 1, ~1e-3), and atol only keeps exactly-representable outputs (rows that see no key: O = 0) from failing on the
// last bit. The LSE is fp32 in both references, so its reference error is fp32 noise; an honest kernel's LSE differs
// from the gold by its fp32 score rounding, about 1e-6 of the logits' magnitude (up to a few hundred here), and
// SCENARIOS.md 4.3 accepts 1e-3. The layout has one atol, so a scenario with an LSE output loosens O by 1e-3 too.
Tolerance tolerance_of(const AttentionConfig& config) {
  Tolerance t;
  const bool fp8 = config.dtype == Precision::fp8;
  t.max_factor = fp8 ? 4.0 : (config.softcap > 0 ? 3.0 : 2.0);
  t.mean_factor = fp8 ? 3.0 : 1.5;
  t.atol = config.lse ? 1e-3 : 1e-5;
  return t;
}

std::uint64_t generator_seed(const AttentionConfig& config, std::uint64_t set_seed) {
  return splitmix64(set_seed ^ splitmix64(config.seed + 0x6A09E667F3BCC909ull));
}

Result<AttentionWorkload> plan_workload(const AttentionConfig& c) {
  const std::string name = format_scenario_name(c);
  AttentionWorkload w;
  w.config = c;
  std::int64_t total_q = 0, total_k = 0, max_q = 0, max_k = 0, own_pages = 0, max_own_pages = 0;
  for (SeqLens s : expand_seqs(c.seqs)) {
    if (c.page > 0) {
      const std::int64_t own = ceil_div(s.k, c.page);
      own_pages += own;
      max_own_pages = std::max(max_own_pages, own);
    }
    s.k += c.cascade_prefix;
    w.seqs.push_back(s);
    total_q += s.q;
    total_k += s.k;
    max_q = std::max(max_q, s.q);
    max_k = std::max(max_k, s.k);
  }
  const auto batch = static_cast<std::int64_t>(w.seqs.size());
  if (batch < 1 || batch > kInt32Max - 1) {
    return make_error(fmt::format("scenario '{}': {} sequences (supported: 1..{})", name, batch, kInt32Max - 1));
  }

  AttentionProblem& p = w.problem;
  p.batch = static_cast<int>(batch);
  p.num_heads_q = c.hq;
  p.num_heads_kv = c.hkv;
  p.head_dim = c.d;
  p.head_dim_v = c.dv;
  p.total_q = static_cast<int>(total_q);
  p.max_seqlen_q = static_cast<int>(max_q);
  p.max_seqlen_k = static_cast<int>(max_k);
  p.paged = c.page > 0 ? 1 : 0;
  p.dtype_qkv = dtype_of(c.dtype);
  p.dtype_o = c.dtype == Precision::fp16 ? kDTypeFP16 : kDTypeBF16;  // fp8 writes bf16, as vLLM's fp8 path
  p.causal = c.causal ? 1 : 0;
  p.window_left = c.window_left;
  p.window_right = c.window_right;
  p.softcap = static_cast<float>(c.softcap);
  p.softmax_scale = softmax_scale_of(c);
  p.has_q_v = c.qv ? 1 : 0;
  p.has_sinks = c.sinks ? 1 : 0;
  p.return_lse = c.lse ? 1 : 0;
  p.num_splits = c.splits;
  p.num_spans = c.prefix_lm != PrefixLm{} ? c.prefix_lm.spans : 0;
  p.span_batch_stride = 2ll * p.num_spans;

  if (p.paged) {
    w.shared_pages = c.cascade_prefix / c.page;  // validate() makes the prefix a whole number of pages
    w.needed_pages = w.shared_pages + own_pages;
    w.spare_pages = std::max<std::int64_t>(8, w.needed_pages / 16);
    const std::int64_t blocks = w.needed_pages + w.spare_pages;
    if (blocks * c.page > kInt32Max) {
      return make_error(fmt::format("scenario '{}': a cache of {} pages of {} tokens exceeds int32 token indices", name,
                                    blocks, c.page));
    }
    p.block_size = c.page;
    p.num_blocks = static_cast<int>(blocks);
    p.max_blocks_per_seq = static_cast<int>(std::max<std::int64_t>(1, w.shared_pages + max_own_pages));
    p.total_k = static_cast<int>(blocks * c.page);
  } else {
    if (total_k > kInt32Max) return make_error(fmt::format("scenario '{}': {} keys exceed int32", name, total_k));
    p.total_k = static_cast<int>(total_k);
  }

  // Contiguous tensors, as vLLM allocates them (innermost head dim, then heads, then tokens / cache slots).
  const long long hq = c.hq, hkv = c.hkv, d = c.d, dv = c.dv;
  p.q_row_stride = hq * d;
  p.q_head_stride = d;
  p.k_row_stride = hkv * d;
  p.k_head_stride = d;
  p.v_row_stride = hkv * dv;
  p.v_head_stride = dv;
  p.k_block_stride = p.paged ? c.page * hkv * d : 0;
  p.v_block_stride = p.paged ? c.page * hkv * dv : 0;
  p.o_row_stride = hq * dv;
  p.o_head_stride = dv;
  p.qv_row_stride = c.qv ? hq * dv : 0;
  p.qv_head_stride = c.qv ? dv : 0;
  p.lse_head_stride = total_q;
  p.block_table_batch_stride = p.paged ? p.max_blocks_per_seq : 0;
  // Real per-[sequence, kv head] descales (vLLM often broadcasts one value with stride 0): a kernel that indexes
  // them wrongly or ignores them is caught.
  p.descale_batch_stride = c.dtype == Precision::fp8 ? hkv : 0;
  p.descale_head_stride = c.dtype == Precision::fp8 ? 1 : 0;

  return w;
}

Result<WorkloadLayout> make_workload_layout(const AttentionWorkload& w) {
  const AttentionConfig& c = w.config;
  const AttentionProblem& p = w.problem;
  const ElementType in = element_of(p.dtype_qkv);
  const ElementType out = element_of(p.dtype_o);
  const std::size_t ie = element_bytes(in);
  const std::uint64_t tq = static_cast<std::uint64_t>(p.total_q);
  const std::uint64_t hq = c.hq, hkv = c.hkv, d = c.d, dv = c.dv;
  const std::uint64_t batch = static_cast<std::uint64_t>(p.batch);
  const std::uint64_t cache_rows =
      p.paged ? static_cast<std::uint64_t>(p.num_blocks) * static_cast<std::uint64_t>(p.block_size)
              : static_cast<std::uint64_t>(p.total_k);

  WorkloadLayout layout;
  auto& t = layout.tensors;
  t.push_back(input(kNameQ, in, tq * hq * d, offsetof(AttentionProblem, q)));
  t.back().view = view_of({d, hq, tq}, {p.q_head_stride, p.q_row_stride}, ie);
  t.push_back(input(kNameK, in, cache_rows * hkv * d, offsetof(AttentionProblem, k)));
  t.push_back(input(kNameV, in, cache_rows * hkv * dv, offsetof(AttentionProblem, v)));
  if (p.paged) {
    const std::uint64_t bs = static_cast<std::uint64_t>(p.block_size), nb = static_cast<std::uint64_t>(p.num_blocks);
    t[kTensorK].view = view_of({d, hkv, bs, nb}, {p.k_head_stride, p.k_row_stride, p.k_block_stride}, ie);
    t[kTensorV].view = view_of({dv, hkv, bs, nb}, {p.v_head_stride, p.v_row_stride, p.v_block_stride}, ie);
  } else {
    t[kTensorK].view = view_of({d, hkv, cache_rows}, {p.k_head_stride, p.k_row_stride}, ie);
    t[kTensorV].view = view_of({dv, hkv, cache_rows}, {p.v_head_stride, p.v_row_stride}, ie);
  }
  t.push_back({.name = std::string(kNameO),
               .role = TensorRole::kOutput,
               .type = out,
               .elements = tq * hq * dv,
               .problem_offset = static_cast<std::uint32_t>(offsetof(AttentionProblem, o)),
               .compared = true,
               .view = view_of({dv, hq, tq}, {p.o_head_stride, p.o_row_stride}, element_bytes(out))});
  if (c.qv) {
    t.push_back(input(kNameQv, in, tq * hq * dv, offsetof(AttentionProblem, q_v)));
    t.back().view = view_of({dv, hq, tq}, {p.qv_head_stride, p.qv_row_stride}, ie);
  } else {
    t.push_back(absent(kNameQv));
  }
  if (c.lse) {
    t.push_back({.name = std::string(kNameLse),
                 .role = TensorRole::kOutput,
                 .type = ElementType::kF32,
                 .elements = hq * tq,
                 .problem_offset = static_cast<std::uint32_t>(offsetof(AttentionProblem, lse)),
                 .compared = true,
                 .view = view_of({tq, hq}, {p.lse_head_stride}, 4)});
  } else {
    t.push_back(absent(kNameLse));
  }
  t.push_back(
      input(std::string(kNameCuSeqlensQ), ElementType::kI32, batch + 1, offsetof(AttentionProblem, cu_seqlens_q)));
  if (p.paged) {
    t.push_back(input(kNameSequsedK, ElementType::kI32, batch, offsetof(AttentionProblem, seqused_k)));
    t.push_back(input(kNameBlockTable, ElementType::kI32, batch * static_cast<std::uint64_t>(p.max_blocks_per_seq),
                      offsetof(AttentionProblem, block_table)));
  } else {
    t.push_back(input(kNameCuSeqlensK, ElementType::kI32, batch + 1, offsetof(AttentionProblem, cu_seqlens_k)));
  }
  if (c.dtype == Precision::fp8) {
    t.push_back(input(kNameQDescale, ElementType::kF32, batch * hkv, offsetof(AttentionProblem, q_descale)));
    t.push_back(input(kNameKDescale, ElementType::kF32, batch * hkv, offsetof(AttentionProblem, k_descale)));
    t.push_back(input(kNameVDescale, ElementType::kF32, batch * hkv, offsetof(AttentionProblem, v_descale)));
  }
  if (c.sinks) t.push_back(input(kNameSinks, ElementType::kF32, hq, offsetof(AttentionProblem, sinks)));
  if (p.num_spans > 0) {
    t.push_back(input(kNameSpans, ElementType::kI32, batch * 2 * static_cast<std::uint64_t>(p.num_spans),
                      offsetof(AttentionProblem, spans)));
  }

  layout.problem.resize(sizeof(AttentionProblem));
  std::memcpy(layout.problem.data(), &p, sizeof(p));
  layout.tolerance = tolerance_of(c);
  std::uint64_t input_bytes = 0;
  for (const auto& tensor : t) {
    if (tensor.role == TensorRole::kInput) input_bytes += tensor_bytes(tensor);
  }
  layout.input_sets = input_bytes > kLargeInputSetBytes ? 2 : 3;
  // fill_inputs and compute_reference rebuild the workload from the first line; the second is there for the reference
  // cache's key, which hashes the whole context.
  layout.plugin_context = format_scenario_name(c) + std::string(kReferenceEngineLine) + reference_engine_setting();
  return layout;
}

Result<WorkloadLayout> make_workload_layout(std::string_view scenario_name, const AttentionFamily& family) {
  auto config = parse_scenario_name(scenario_name);
  if (!config) return config.error();
  if (auto legal = family.validate(*config); !legal) return legal.error();
  auto workload = plan_workload(*config);
  if (!workload) return workload.error();
  return make_workload_layout(*workload);
}

Result<AttentionWorkload> workload_of_layout(const WorkloadLayout& layout) {
  if (layout.problem.size() != sizeof(AttentionProblem)) {
    return make_error(fmt::format("the layout's problem is {} bytes, expected {} (an AttentionProblem v{})",
                                  layout.problem.size(), sizeof(AttentionProblem), kAttentionProblemVersion));
  }
  if (layout.tensors.size() <= kTensorCuSeqlensQ) {
    return make_error(fmt::format("the layout has {} tensors, fewer than an attention layout's {}",
                                  layout.tensors.size(), kTensorCuSeqlensQ + 1));
  }
  const std::string_view context = layout.plugin_context;
  const std::string_view name = context.substr(0, context.find('\n'));
  if (name.empty()) return make_error("the layout carries no scenario name (plugin_context is empty)");
  auto config = parse_scenario_name(name);
  if (!config) return make_error(fmt::format("the layout's scenario '{}': {}", name, config.error().message));
  auto workload = plan_workload(*config);
  if (!workload) return workload.error();
  if (std::memcmp(layout.problem.data(), &workload->problem, sizeof(AttentionProblem)) != 0) {
    return make_error(fmt::format("the layout's problem differs from the one scenario '{}' plans", name));
  }
  return workload;
}

SequenceTensors make_sequence_tensors(const AttentionWorkload& w, std::uint64_t seed) {
  const AttentionProblem& p = w.problem;
  SequenceTensors s;
  s.cu_seqlens_q.push_back(0);
  for (const SeqLens& seq : w.seqs) s.cu_seqlens_q.push_back(static_cast<std::int32_t>(s.cu_seqlens_q.back() + seq.q));
  if (p.num_spans > 0) {
    for (const SeqLens& seq : w.seqs) {
      for (const KeyRange span : image_spans(w.config, seq.k)) {
        s.spans.push_back(static_cast<std::int32_t>(span.begin));
        s.spans.push_back(static_cast<std::int32_t>(span.end));
      }
    }
  }
  if (!p.paged) {
    s.cu_seqlens_k.push_back(0);
    for (const SeqLens& seq : w.seqs) {
      s.cu_seqlens_k.push_back(static_cast<std::int32_t>(s.cu_seqlens_k.back() + seq.k));
    }
    return s;
  }
  for (const SeqLens& seq : w.seqs) s.seqused_k.push_back(static_cast<std::int32_t>(seq.k));

  // Fisher-Yates with splitmix64, not std::shuffle (whose algorithm the standard leaves to the library).
  std::vector<std::int32_t> pages(static_cast<std::size_t>(p.num_blocks));
  std::iota(pages.begin(), pages.end(), 0);
  std::uint64_t state = splitmix64(seed ^ 0xB10C7AB1Eull);
  for (std::size_t i = pages.size(); i > 1; --i) {
    state = splitmix64(state);
    std::swap(pages[i - 1], pages[state % i]);
  }
  const auto mbps = static_cast<std::size_t>(p.max_blocks_per_seq);
  s.block_table.assign(w.seqs.size() * mbps, 0);
  const auto shared = static_cast<std::size_t>(w.shared_pages);
  const auto needed = static_cast<std::size_t>(w.needed_pages);
  const auto spare_count = static_cast<std::size_t>(w.spare_pages);
  std::size_t next = shared;     // each sequence's own pages, in order
  std::size_t spare_cursor = 0;  // padding entries cycle through the spare pages
  for (std::size_t b = 0; b < w.seqs.size(); ++b) {
    const auto used = static_cast<std::size_t>(ceil_div(w.seqs[b].k, p.block_size));
    for (std::size_t col = 0; col < mbps; ++col) {
      std::int32_t page;
      if (col < used && col < shared) {
        page = pages[col];
      } else if (col < used) {
        page = pages[next++];
      } else {
        page = pages[needed + spare_cursor++ % spare_count];
      }
      s.block_table[b * mbps + col] = page;
    }
  }
  return s;
}

std::vector<SourceFile> attention_device_library(const std::vector<SourceFile>& embedded) {
  std::vector<SourceFile> library;
  for (std::string_view name : {kDeviceSourceName, kDeviceParamsName, kProblemHeaderName}) {
    const auto found =
        std::find_if(embedded.begin(), embedded.end(), [&](const SourceFile& f) { return f.name == name; });
    if (found == embedded.end()) return {};
    library.push_back(*found);
  }
  return library;
}

namespace {

// The most query vectors per CTA (rows of one sequence x heads of one kv head) whose tiles fit `engine`'s shared
// memory and registers: r's rows, heads, head tiles and engine, and the plan; false when not even one fits.
bool fit_tiles(const AttentionProblem& p, device::ReferenceEngine engine, ReferenceTiling& r, device::SmemPlan& plan) {
  const int group = p.num_heads_q / p.num_heads_kv;
  r.engine = engine;
  r.heads_per_tile = std::min(group, device::kMaxQueries);
  r.rows_per_tile = std::max(1, std::min(device::kMaxQueries / r.heads_per_tile, std::max(1, p.max_seqlen_q)));
  const int min_chunk = engine == device::kReferenceTensorCores ? device::kMmaDepth : 4;
  for (;;) {
    r.head_tiles = (group + r.heads_per_tile - 1) / r.heads_per_tile;
    const int padded = device::padded_queries(r.rows_per_tile * r.heads_per_tile, engine);
    plan = device::make_smem_plan(padded, r.qk_dim, p.head_dim_v, engine);
    if (plan.chunk >= min_chunk && device::pv_tiles_fit(padded, p.head_dim_v, engine, p.dtype_qkv == kDTypeFP16)) {
      return true;
    }
    if (r.rows_per_tile > 1) {
      --r.rows_per_tile;
    } else if (r.heads_per_tile > 1) {
      --r.heads_per_tile;
    } else {
      return false;
    }
  }
}

}  // namespace

Result<bool> tensor_core_references_by_default() {
  const char* value = std::getenv(kReferenceEngineVariable);
  const std::string_view asked = value != nullptr ? value : "";
  if (asked.empty()) return kTensorCoreReferencesByDefault;
  if (asked == "tensor-cores") return true;
  if (asked == "fma") return false;
  return make_error(fmt::format("{}={} is neither tensor-cores nor fma (unset it for the default, {})",
                                kReferenceEngineVariable, asked,
                                kTensorCoreReferencesByDefault ? "tensor-cores" : "fma"));
}

std::string reference_engine_setting() {
  const auto by_default = tensor_core_references_by_default();
  if (!by_default) return std::getenv(kReferenceEngineVariable);  // the unusable value as it is
  return *by_default ? "tensor-cores" : "fma";
}

Result<ReferenceTiling> plan_reference(const AttentionWorkload& w, int multiprocessors, ReferenceEngineChoice choice) {
  const AttentionProblem& p = w.problem;
  ReferenceTiling r;
  r.qk_dim = p.head_dim + (p.has_q_v ? p.head_dim_v : 0);
  const bool mma_exact = (p.dtype_qkv == kDTypeBF16 || p.dtype_qkv == kDTypeFP16 || p.dtype_qkv == kDTypeFP8E4M3) &&
                         p.head_dim_v % device::kMmaCols == 0;
  if (choice == ReferenceEngineChoice::kTensorCores && !mma_exact) {
    return make_error(
        fmt::format("tensor-core references need bf16, fp16 or fp8 inputs and dv a multiple of {} (dv={})",
                    device::kMmaCols, p.head_dim_v));
  }
  // Tensor cores where asked, or by default where exact and a tiling fits their registers (fp16 MLA, dv 512, does
  // not: its P.V tiles need twice the fp16 budget); FMAs otherwise.
  bool by_default = false;
  if (choice == ReferenceEngineChoice::kAuto) {
    auto setting = tensor_core_references_by_default();
    if (!setting) return setting.error();
    by_default = *setting;
  }
  const bool try_mma = choice == ReferenceEngineChoice::kTensorCores || (by_default && mma_exact);
  device::SmemPlan plan{};
  if (!try_mma || !fit_tiles(p, device::kReferenceTensorCores, r, plan)) {
    if (choice == ReferenceEngineChoice::kTensorCores) {
      return make_error(
          fmt::format("no tensor-core reference tiling fits d={} dv={} (q.k width {}): {} KiB of "
                      "shared memory and {} P.V tiles of registers per warp",
                      p.head_dim, p.head_dim_v, r.qk_dim, device::kSmemFloats * 4 / 1024,
                      device::max_pv_mma_tiles(p.dtype_qkv == kDTypeFP16)));
    }
    if (!fit_tiles(p, device::kReferenceFma, r, plan)) {
      return make_error(
          fmt::format("no reference tiling fits d={} dv={} (q.k width {}) in {} KiB of shared memory "
                      "and one P.V tile per thread",
                      p.head_dim, p.head_dim_v, r.qk_dim, device::kSmemFloats * 4 / 1024));
    }
  }
  r.chunk = plan.chunk;
  r.smem_bytes = static_cast<unsigned>(plan.floats) * 4u;
  for (std::size_t b = 0; b < w.seqs.size(); ++b) {
    for (std::int64_t row = 0; row < w.seqs[b].q; row += r.rows_per_tile) {
      r.tiles.push_back(static_cast<std::int32_t>(b));
      r.tiles.push_back(static_cast<std::int32_t>(row));
    }
  }
  const std::int64_t tiles = static_cast<std::int64_t>(r.tiles.size() / 2);
  if (tiles > kInt32Max) return make_error(fmt::format("{} reference tiles exceed the grid", tiles));
  if (static_cast<std::int64_t>(p.num_heads_kv) * r.head_tiles > kMaxGridYZ) {
    return make_error(fmt::format("{} kv heads x {} head tiles exceed the grid", p.num_heads_kv, r.head_tiles));
  }
  // Split the keys only when the tiles alone cannot fill the GPU (decode with few sequences): a split's partial
  // sums cost splits x total_q x hq x dv x 8 bytes of scratch, bounded by kMaxPartialBytes.
  const std::int64_t items = tiles * p.num_heads_kv * r.head_tiles;
  const std::int64_t target = 4 * static_cast<std::int64_t>(multiprocessors > 0 ? multiprocessors : 132);
  std::int64_t splits = 1;
  if (items > 0 && items < target) {
    splits = ceil_div(target, items);
    splits = std::min(splits, std::max<std::int64_t>(1, ceil_div(p.max_seqlen_k, kMinKeysPerSplit)));
    const std::uint64_t per_split = static_cast<std::uint64_t>(p.total_q) * static_cast<std::uint64_t>(p.num_heads_q) *
                                    static_cast<std::uint64_t>(p.head_dim_v) * 8u;
    splits = std::min<std::int64_t>(
        splits, std::max<std::uint64_t>(1, kMaxPartialBytes / std::max<std::uint64_t>(1, per_split)));
    splits = std::clamp<std::int64_t>(splits, 1, kMaxGridYZ);
  }
  r.splits = static_cast<int>(splits);
  return r;
}

Result<void> fill_attention_inputs(DeviceHost& host, const WorkloadLayout& layout,
                                   std::span<const DeviceBuffer> tensors, std::uint64_t seed) {
  auto planned = workload_of_layout(layout);
  if (!planned) return make_error(context("fill_inputs", planned.error().message));
  const AttentionWorkload& w = *planned;
  const AttentionProblem& p = w.problem;
  if (tensors.size() != layout.tensors.size()) {
    return make_error(
        context("fill_inputs", fmt::format("got {} buffers for {} tensors", tensors.size(), layout.tensors.size())));
  }
  for (std::size_t i = 0; i < layout.tensors.size(); ++i) {
    const auto& t = layout.tensors[i];
    if (t.role != TensorRole::kInput) continue;
    if (auto ok = check_buffer(t.name, tensors[i], tensor_bytes(t)); !ok) {
      return make_error(context("fill_inputs", ok.error().message));
    }
  }
  const std::uint64_t gen_seed = generator_seed(w.config, seed);
  const int group = p.num_heads_q / p.num_heads_kv;
  const auto fill = [&](std::string_view name, int kind, int dtype, int dim, int heads, int tensor) -> Result<void> {
    const std::size_t i = index_of(layout, name);
    if (i == layout.tensors.size() || layout.tensors[i].elements == 0) return Ok{};
    FillParams params{};
    params.out = tensors[i].address;
    params.count = layout.tensors[i].elements;
    params.seed = gen_seed;
    params.kind = kind;
    params.dtype = dtype;
    params.dim = dim;
    params.heads = heads;
    params.group = group;
    params.head_dim = p.head_dim;
    params.tensor = tensor;
    params.logit_scale = p.softmax_scale;
    HostLaunch launch;
    // One thread per chunk of kFillChunk elements where the kernel writes chunks (fill_chunked), else per element.
    const bool chunked = kind != device::kFillDescale && kind != device::kFillSinks &&
                         device::fill_chunked(dim, static_cast<unsigned long long>(params.out));
    const std::uint64_t units = chunked ? params.count / device::kFillChunk : params.count;
    launch.grid = {
        static_cast<unsigned>(std::min<std::uint64_t>((units + kFillThreads - 1) / kFillThreads, kMaxFillBlocks)), 1,
        1};
    launch.block = {kFillThreads, 1, 1};
    launch.dynamic_smem_bytes = device::kFillHeadTableBytes;
    if (auto ok = host.launch(kFillKernel, launch, &params, sizeof(params)); !ok) {
      return make_error(fmt::format("filling '{}': {}", name, ok.error().message));
    }
    return Ok{};
  };
  const int in = p.dtype_qkv;
  for (auto ok : {fill(kNameQ, device::kFillQ, in, p.head_dim, p.num_heads_q, 0),
                  fill(kNameK, device::kFillK, in, p.head_dim, p.num_heads_kv, 0),
                  fill(kNameV, device::kFillV, in, p.head_dim_v, p.num_heads_kv, 0),
                  fill(kNameQv, device::kFillQv, in, p.head_dim_v, p.num_heads_q, 0),
                  fill(kNameQDescale, device::kFillDescale, kDTypeFP32, 1, 1, 0),
                  fill(kNameKDescale, device::kFillDescale, kDTypeFP32, 1, 1, 1),
                  fill(kNameVDescale, device::kFillDescale, kDTypeFP32, 1, 1, 2),
                  fill(kNameSinks, device::kFillSinks, kDTypeFP32, 1, 1, 0)}) {
    if (!ok) return make_error(context("fill_inputs", ok.error().message));
  }
  const SequenceTensors s = make_sequence_tensors(w, gen_seed);
  const auto upload = [&](std::size_t i, const std::vector<std::int32_t>& values) -> Result<void> {
    if (i == layout.tensors.size() || values.empty()) return Ok{};
    if (values.size() != layout.tensors[i].elements) {
      return make_error(fmt::format("'{}' has {} elements, the scenario gives {}", layout.tensors[i].name,
                                    layout.tensors[i].elements, values.size()));
    }
    return host.upload(tensors[i], std::as_bytes(std::span(values)), 0);
  };
  for (auto ok :
       {upload(kTensorCuSeqlensQ, s.cu_seqlens_q), upload(index_of(layout, kNameCuSeqlensK), s.cu_seqlens_k),
        upload(index_of(layout, kNameSequsedK), s.seqused_k), upload(index_of(layout, kNameBlockTable), s.block_table),
        upload(index_of(layout, kNameSpans), s.spans)}) {
    if (!ok) return make_error(context("fill_inputs", ok.error().message));
  }
  if (auto ok = host.synchronize(); !ok) return make_error(context("fill_inputs", ok.error().message));
  return Ok{};
}

Result<void> compute_attention_reference(DeviceHost& host, const WorkloadLayout& layout,
                                         std::span<const DeviceBuffer> tensors, std::span<const DeviceBuffer> gold,
                                         std::span<const DeviceBuffer> same_precision, ReferenceEngineChoice choice) {
  auto planned = workload_of_layout(layout);
  if (!planned) return make_error(context("compute_reference", planned.error().message));
  const AttentionWorkload& w = *planned;
  const AttentionProblem& p = w.problem;
  const std::size_t outputs = p.return_lse ? 2 : 1;
  if (tensors.size() != layout.tensors.size() || gold.size() != outputs || same_precision.size() != outputs) {
    return make_error(context("compute_reference",
                              fmt::format("got {} tensors, {} gold and {} same-precision buffers, expected {}, {} "
                                          "and {} (outputs: o{})",
                                          tensors.size(), gold.size(), same_precision.size(), layout.tensors.size(),
                                          outputs, outputs, p.return_lse ? ", lse" : "")));
  }
  for (std::size_t i = 0; i < layout.tensors.size(); ++i) {
    const auto& t = layout.tensors[i];
    if (t.role != TensorRole::kInput) continue;
    if (auto ok = check_buffer(t.name, tensors[i], tensor_bytes(t)); !ok) {
      return make_error(context("compute_reference", ok.error().message));
    }
  }
  const TensorSpec& o = layout.tensors[kTensorO];
  for (auto ok : {check_buffer("gold o", gold[0], o.elements * 4),
                  check_buffer("same-precision o", same_precision[0], tensor_bytes(o))}) {
    if (!ok) return make_error(context("compute_reference", ok.error().message));
  }
  if (p.return_lse) {
    const std::uint64_t lse_bytes = tensor_bytes(layout.tensors[kTensorLse]);
    for (auto ok : {check_buffer("gold lse", gold[1], lse_bytes),
                    check_buffer("same-precision lse", same_precision[1], lse_bytes)}) {
      if (!ok) return make_error(context("compute_reference", ok.error().message));
    }
  }

  auto tiling = plan_reference(w, host.properties().multiprocessors, choice);
  if (!tiling) return make_error(context("compute_reference", tiling.error().message));
  const ReferenceTiling& r = *tiling;
  const std::uint64_t vectors = static_cast<std::uint64_t>(p.total_q) * static_cast<std::uint64_t>(p.num_heads_q);
  const auto scratch = [&](std::string_view what, std::uint64_t bytes) {
    return host.scratch(what, std::max<std::uint64_t>(bytes, 16));
  };
  auto tiles = scratch("attention reference tiles", r.tiles.size() * sizeof(std::int32_t));
  auto split_stats =
      scratch("attention reference split statistics", static_cast<std::uint64_t>(r.splits) * vectors * 16);
  auto final_stats = scratch("attention reference row statistics", vectors * 8);
  auto partial = r.splits > 1 ? scratch("attention reference partial outputs",
                                        static_cast<std::uint64_t>(r.splits) * vectors * p.head_dim_v * 8)
                              : Result<DeviceBuffer>(DeviceBuffer{});
  for (const auto* b : {&tiles, &split_stats, &final_stats, &partial}) {
    if (!*b) return make_error(context("compute_reference", b->error().message));
  }
  if (!r.tiles.empty()) {
    if (auto ok = host.upload(*tiles, std::as_bytes(std::span(r.tiles)), 0); !ok) {
      return make_error(context("compute_reference", ok.error().message));
    }
  }

  ReferenceParams params{};
  params.problem = problem_with_inputs(layout, tensors);
  params.problem.o = nullptr;
  params.problem.lse = nullptr;
  params.tiles = tiles->address;
  params.split_stats = split_stats->address;
  params.final_stats = final_stats->address;
  params.partial_o = partial->address;
  params.gold_o = gold[0].address;
  params.same_o = same_precision[0].address;
  params.gold_lse = p.return_lse ? gold[1].address : 0;
  params.same_lse = p.return_lse ? same_precision[1].address : 0;
  params.num_tiles = static_cast<int>(r.tiles.size() / 2);
  params.rows_per_tile = r.rows_per_tile;
  params.heads_per_tile = r.heads_per_tile;
  params.head_tiles = r.head_tiles;
  params.splits = r.splits;
  // P is rounded to the precision a kernel feeds its P.V MMA: the input type, bf16 for fp8 inputs.
  params.p_dtype = p.dtype_qkv == kDTypeFP16 ? kDTypeFP16 : kDTypeBF16;
  params.qk_dim = r.qk_dim;
  const bool mma = r.engine == device::kReferenceTensorCores;
  const std::string_view output_kernel =
      !mma ? kOutputKernel : (p.dtype_qkv == kDTypeFP16 ? kOutputMmaF16Kernel : kOutputMmaKernel);

  HostLaunch tiled;
  tiled.grid = {static_cast<unsigned>(params.num_tiles), static_cast<unsigned>(p.num_heads_kv * r.head_tiles),
                static_cast<unsigned>(r.splits)};
  tiled.block = {static_cast<unsigned>(device::kReferenceThreads), 1, 1};
  tiled.dynamic_smem_bytes = r.smem_bytes;
  const auto stride_launch = [](std::uint64_t work) {
    HostLaunch l;
    l.grid = {
        static_cast<unsigned>(std::clamp<std::uint64_t>((work + kFillThreads - 1) / kFillThreads, 1, kMaxFillBlocks)),
        1, 1};
    l.block = {kFillThreads, 1, 1};
    return l;
  };
  const auto run = [&](std::string_view kernel, const HostLaunch& l) -> Result<void> {
    if (auto ok = host.launch(kernel, l, &params, sizeof(params)); !ok) {
      return make_error(fmt::format("{}: {}", kernel, ok.error().message));
    }
    return Ok{};
  };
  if (params.num_tiles > 0) {
    if (auto ok = run(mma ? kStatsMmaKernel : kStatsKernel, tiled); !ok) {
      return make_error(context("compute_reference", ok.error().message));
    }
  }
  if (auto ok = run(kFinishStatsKernel, stride_launch(vectors)); !ok) {
    return make_error(context("compute_reference", ok.error().message));
  }
  if (params.num_tiles > 0) {
    if (auto ok = run(output_kernel, tiled); !ok) {
      return make_error(context("compute_reference", ok.error().message));
    }
  }
  if (r.splits > 1) {
    if (auto ok = run(kCombineKernel, stride_launch(vectors * static_cast<std::uint64_t>(p.head_dim_v))); !ok) {
      return make_error(context("compute_reference", ok.error().message));
    }
  }
  if (auto ok = host.synchronize(); !ok) return make_error(context("compute_reference", ok.error().message));
  return Ok{};
}

}  // namespace kseek::attention
