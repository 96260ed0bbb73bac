// The GPU side of both attention plugins: a scenario's tensors and AttentionProblem (the WorkloadLayout), the
// structural int32 tensors (sequence offsets, block tables), and the host half of input generation and references.
// It must never include a CUDA header: the device half is attention_device.cu, launched through DeviceHost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kseek/attention/attention_family.hpp"
#include "kseek/attention/problem.h"
#include "kseek/attention/scenario_config.hpp"
#include "kseek/sdk/plugin.hpp"

namespace kseek::attention {

// =====================================================================================================================
// Layout of WorkloadLayout::tensors. A TensorMapRequest names a tensor by its index there, and problem.h's TensorId
// numbers Q, K, V, O, q_v and LSE 0..5, so those six always sit at those indices. When a scenario has no q_v or no LSE
// output, its index holds a placeholder: an input of 0 elements named "<name> (absent)", with no tensor view (a map
// over it is refused as "does not exist"), whose pointer is written into the cu_seqlens_q slot of the problem and then
// overwritten by the real cu_seqlens_q (index 6, written later: the harness writes pointers in tensor order), so the
// absent pointer stays null. The structural tensors follow, each only when the scenario has it, in this order:
// cu_seqlens_k (non-paged), seqused_k and block_table (paged), q/k/v_descale (fp8), sinks.
// =====================================================================================================================
inline constexpr std::size_t kTensorCuSeqlensQ = kTensorCount;  // 6

inline constexpr std::string_view kNameQ = "q";
inline constexpr std::string_view kNameK = "k";
inline constexpr std::string_view kNameV = "v";
inline constexpr std::string_view kNameO = "o";
inline constexpr std::string_view kNameQv = "q_v";
inline constexpr std::string_view kNameLse = "lse";
inline constexpr std::string_view kNameCuSeqlensQ = "cu_seqlens_q";
inline constexpr std::string_view kNameCuSeqlensK = "cu_seqlens_k";
inline constexpr std::string_view kNameSequsedK = "seqused_k";
inline constexpr std::string_view kNameBlockTable = "block_table";
inline constexpr std::string_view kNameQDescale = "q_descale";
inline constexpr std::string_view kNameKDescale = "k_descale";
inline constexpr std::string_view kNameVDescale = "v_descale";
inline constexpr std::string_view kNameSinks = "sinks";
inline constexpr std::string_view kNameSpans = "spans";
inline constexpr std::string_view kAbsentSuffix = " (absent)";

// One scenario as the single AttentionProblem that evaluates it.
//
// Cascade scenarios (cascade_prefix > 0) are evaluated as the one call vLLM's two calls and their LSE merge compute:
// sequence b sees sk = cascade_prefix + k_len keys, the first cascade_prefix / page entries of every block-table row
// name the same shared pages, and the mask is the scenario's (bottom-right causal; cascade needs q_len <= k_len, so
// every row sees the whole prefix). The output equals the merged output exactly in real arithmetic; the sinks enter
// once, as in the prefix call. kernel_calls() accounting stays valid: prefix pairs + suffix pairs are the fused call's
// pairs, and its bytes (the prefix read once) are a lower bound a kernel that notices the shared pages can reach.
//
// prefix_lm (a backend's mask_mod) is the problem's span list (v2): image_spans() of every sequence's k_len, in the
// `spans` tensor; the mask is causal outside the spans.
struct AttentionWorkload {
  AttentionConfig config;         // as named: cascade_prefix kept
  std::vector<SeqLens> seqs;      // of the evaluated call: k includes the cascade prefix
  std::int64_t shared_pages = 0;  // cascade: leading block-table entries every sequence shares
  std::int64_t needed_pages = 0;  // distinct cache pages the sequences use (paged)
  std::int64_t spare_pages = 0;   // further pages no sequence uses, filled like the others (paged)
  AttentionProblem problem{};     // every size, stride and flag set; pointers null
};

// The softmax scale of a scenario: 1/sqrt(d), except MLA-absorbed decode (qv=1, d=64), whose logits belong to the
// unabsorbed model's 192-wide q.k (128 nope + 64 rope): 1/sqrt(192).
float softmax_scale_of(const AttentionConfig& config);

// Tolerance per SCENARIOS.md 4.3: max_factor 2 (3 with softcap, 4 for fp8), mean_factor 1.5 (3 for fp8); atol 1e-5
// for O alone, 1e-3 when the LSE is an output (see the definition for why).
Tolerance tolerance_of(const AttentionConfig& config);

Result<AttentionWorkload> plan_workload(const AttentionConfig& config);

// The layout of a planned workload; input_sets 3, or 2 when one set's inputs exceed 8 GiB.
Result<WorkloadLayout> make_workload_layout(const AttentionWorkload& workload);

// Parses, validates for `family` and lays out a scenario name in one step.
Result<WorkloadLayout> make_workload_layout(std::string_view scenario_name, const AttentionFamily& family);

// A layout is a complete value: the cu_seqlens_q tensor is named "cu_seqlens_q [<canonical scenario name>]", from
// which fill_inputs and compute_reference rebuild the workload (the per-sequence lengths are nowhere else).
Result<AttentionWorkload> workload_of_layout(const WorkloadLayout& layout);

// The int32 structural tensors of one input set, deterministic in `seed`. Pages are a seeded permutation of
// [0, num_blocks): the shared cascade pages first, then each sequence's own pages, the rest spare; block-table entries
// past a sequence's pages name spare pages (safe to read, never part of any sequence).
struct SequenceTensors {
  std::vector<std::int32_t> cu_seqlens_q;  // [batch + 1]
  std::vector<std::int32_t> cu_seqlens_k;  // [batch + 1], non-paged only
  std::vector<std::int32_t> seqused_k;     // [batch], paged only
  std::vector<std::int32_t> block_table;   // [batch, max_blocks_per_seq], paged only
  std::vector<std::int32_t> spans;         // [batch, num_spans, 2] (begin, end), prefix_lm only
};
SequenceTensors make_sequence_tensors(const AttentionWorkload& workload, std::uint64_t seed);

// The seed the generators use for an input set: the harness's set seed mixed with the scenario's `seed` key.
std::uint64_t generator_seed(const AttentionConfig& config, std::uint64_t set_seed);

// ---- the GPU half ---------------------------------------------------------------------------------------------------

// Include names of the embedded device library (the plugins' CMakeLists EMBED them under these names).
inline constexpr std::string_view kDeviceSourceName = "device/attention_device.cu";
inline constexpr std::string_view kDeviceParamsName = "attention_device_params.h";
inline constexpr std::string_view kProblemHeaderName = "kseek/attention/problem.h";

// Kernels of the device library.
inline constexpr std::string_view kFillKernel = "attention_fill";
inline constexpr std::string_view kStatsKernel = "attention_reference_stats";         // FMA engine
inline constexpr std::string_view kStatsMmaKernel = "attention_reference_stats_mma";  // tensor cores
inline constexpr std::string_view kFinishStatsKernel = "attention_reference_finish_stats";
inline constexpr std::string_view kOutputKernel = "attention_reference_output";
inline constexpr std::string_view kOutputMmaKernel = "attention_reference_output_mma";  // bf16 operands (bf16, fp8)
inline constexpr std::string_view kOutputMmaF16Kernel = "attention_reference_output_mma_f16";  // fp16 operands
inline constexpr std::string_view kCombineKernel = "attention_reference_combine";

// The main source first, then the headers it includes (what Plugin::device_library returns); empty when missing.
std::vector<SourceFile> attention_device_library(const std::vector<SourceFile>& embedded);

// Which engine the references use (attention_device_params.h, ReferenceEngine). kAuto, what evaluations use, takes
// tensor cores wherever they compute the references exactly (16-bit or fp8 inputs, dv a multiple of 8) and FMAs
// elsewhere, once kTensorCoreReferencesByDefault says so; the others force one, for tests and measurements
// (kTensorCores is an error where it cannot run).
enum class ReferenceEngineChoice { kAuto, kFma, kTensorCores };
// Whether kAuto takes tensor cores at all. Not yet: the engine was built and compile-checked on 2026-12-04 in a session
// that was lent no GPU, and it becomes the default only once its GPU tests (both engines against fp64; both at
// evaluation sizes, timed) have passed on one (docs/benchmarks.md, "References on tensor cores").
inline constexpr bool kTensorCoreReferencesByDefault = false;

// $KSEEK_REFERENCE_ENGINE overrides that default for kAuto, without a rebuild: "tensor-cores" (wherever they are
// exact, FMAs elsewhere) or "fma" (everywhere); unset or empty keeps the default. For measuring one engine against
// the other on the same build, and for stepping back to FMAs should the tensor-core references ever be doubted.
inline constexpr const char* kReferenceEngineVariable = "KSEEK_REFERENCE_ENGINE";
// What kAuto takes now: true for tensor cores where exact, or an error naming the variable's value that is neither.
Result<bool> tensor_core_references_by_default();
// The setting as the reference cache must key it ("tensor-cores" or "fma", or the variable's unusable value as it
// is): a reference computed by one engine is never read back as the other's.
std::string reference_engine_setting();

// How the references cut the problem into CTAs (see attention_device.cu).
struct ReferenceTiling {
  int engine = 0;  // device::ReferenceEngine (attention_device_params.h stays private to the plugins' code)
  int rows_per_tile = 1;
  int heads_per_tile = 1;
  int head_tiles = 1;
  int splits = 1;
  int qk_dim = 0;
  int chunk = 0;
  unsigned smem_bytes = 0;
  std::vector<std::int32_t> tiles;  // (sequence, first row) pairs, flattened
};
Result<ReferenceTiling> plan_reference(const AttentionWorkload& workload, int multiprocessors,
                                       ReferenceEngineChoice choice = ReferenceEngineChoice::kAuto);

Result<void> fill_attention_inputs(DeviceHost& host, const WorkloadLayout& layout,
                                   std::span<const DeviceBuffer> tensors, std::uint64_t seed);
Result<void> compute_attention_reference(DeviceHost& host, const WorkloadLayout& layout,
                                         std::span<const DeviceBuffer> tensors, std::span<const DeviceBuffer> gold,
                                         std::span<const DeviceBuffer> same_precision,
                                         ReferenceEngineChoice choice = ReferenceEngineChoice::kAuto);

}  // namespace kseek::attention
