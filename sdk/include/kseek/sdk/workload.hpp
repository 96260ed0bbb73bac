// What a plugin tells the GPU worker about one scenario: its tensors, where their pointers sit in the
// candidate's Problem struct, and the acceptance rule; plus DeviceHost, the only door a plugin has to a GPU.
// It must never expose a CUDA type: plugins are built and loaded where no CUDA driver exists.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kseek/sdk/result.hpp"

namespace kseek {

enum class ElementType : std::uint8_t { kF32, kF16, kBF16, kFP8E4M3, kI32, kI64, kU8 };
enum class TensorRole : std::uint8_t {
  kInput,   // filled by the plugin, fresh for every input set, read-only to candidates by contract
  kOutput,  // written by the candidate; poisoned before every launch, guarded, compared with the reference
};

inline std::size_t element_bytes(ElementType type) {
  switch (type) {
    case ElementType::kF32:
    case ElementType::kI32: return 4;
    case ElementType::kF16:
    case ElementType::kBF16: return 2;
    case ElementType::kFP8E4M3:
    case ElementType::kU8: return 1;
    case ElementType::kI64: return 8;
  }
  return 0;
}

inline std::string_view to_string(ElementType type) {
  switch (type) {
    case ElementType::kF32: return "f32";
    case ElementType::kF16: return "f16";
    case ElementType::kBF16: return "bf16";
    case ElementType::kFP8E4M3: return "fp8e4m3";
    case ElementType::kI32: return "i32";
    case ElementType::kI64: return "i64";
    case ElementType::kU8: return "u8";
  }
  return "?";
}

// How a TMA descriptor may view a tensor (cuTensorMapEncodeTiled): a candidate's TensorMapRequest names the
// tensor by its index in WorkloadLayout::tensors and chooses only box, swizzle and L2 promotion.
struct TensorView {
  std::uint32_t rank = 0;                        // 0: the tensor cannot be mapped (e.g. strides not 16-byte multiples)
  std::array<std::uint64_t, 5> dims{};           // elements, innermost first
  std::array<std::uint64_t, 4> strides_bytes{};  // of dimensions 1..rank-1; multiples of 16
};

// A TensorSpec::problem_offset meaning "the harness writes no pointer for this tensor" (e.g. an absent optional
// tensor kept in the list so that tensor indices match the plugin's tensor ids).
inline constexpr std::uint32_t kNoProblemPointer = 0xffffffffu;

// One tensor of a workload. The harness allocates it (with guard regions), so a candidate never does.
struct TensorSpec {
  std::string name;  // "q", "out", "lse"...
  TensorRole role = TensorRole::kInput;
  ElementType type = ElementType::kF32;
  std::uint64_t elements = 0;
  std::uint32_t problem_offset = 0;  // byte offset of this tensor's device pointer inside the Problem struct,
                                     // or kNoProblemPointer for a placeholder that keeps tensor ids stable
  bool compared = true;              // outputs only: checked against the reference (false: auxiliary scratch)
  TensorView view;                   // for TMA tensor maps; rank 0 when not mappable
};

// The acceptance rule of an output, in the form of the FlashAttention tests: with e = |out - gold| and
// e_ref = |same_precision_reference - gold| over all elements,
//   max(e) <= max_factor * max(e_ref) + atol   and   mean(e) <= mean_factor * mean(e_ref) + atol.
// Non-finite output always fails.
struct Tolerance {
  double max_factor = 2.0;
  double mean_factor = 1.5;
  double atol = 1e-5;
};

struct WorkloadLayout {
  std::vector<TensorSpec> tensors;
  std::vector<std::byte> problem;  // the candidate's Problem struct, device pointers left null
  Tolerance tolerance;
  std::uint32_t input_sets = 3;  // distinct input sets rotated during timing (fresh data, fresh addresses)
  std::string plugin_context;    // opaque to the harness; the plugin reads it back in fill_inputs and
                                 // compute_reference (e.g. the canonical scenario name)
};

struct DeviceBuffer {
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
};

struct HostLaunch {
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  unsigned dynamic_smem_bytes =
      0;  // above 48 KiB the worker raises the kernel's limit, up to the device's opt-in maximum
};

struct DeviceProperties {
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessors = 0;
};

// Implemented by the GPU worker. Kernels named here come from the plugin's device library
// (Plugin::device_library()), compiled by kseek's NVRTC service; each takes one struct by value.
class DeviceHost {
 public:
  virtual ~DeviceHost() = default;
  virtual Result<void> launch(std::string_view kernel, const HostLaunch& dims, const void* params,
                              std::size_t params_bytes) = 0;
  virtual Result<void> upload(const DeviceBuffer& buffer, std::span<const std::byte> data, std::uint64_t offset) = 0;
  virtual Result<void> download(const DeviceBuffer& buffer, std::span<std::byte> data, std::uint64_t offset) = 0;
  // Device memory that lives until the plugin call that asked for it returns.
  virtual Result<DeviceBuffer> scratch(std::string_view name, std::uint64_t bytes) = 0;
  virtual Result<void> synchronize() = 0;
  virtual DeviceProperties properties() const = 0;
};

}  // namespace kseek
