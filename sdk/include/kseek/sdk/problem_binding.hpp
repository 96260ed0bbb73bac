// Writes device addresses into a copy of a layout's Problem struct, so that a plugin's fill and reference kernels
// receive the candidate's own Problem instead of parameter blocks that restate it. Every buffer is checked against
// the tensor it stands for first. Header-only.
// It must never write outside the struct or accept a buffer smaller than its tensor.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>

#include "kseek/sdk/result.hpp"
#include "kseek/sdk/workload.hpp"

namespace kseek {

// What the compared outputs of a layout point at in a bound Problem.
enum class BoundOutputs {
  kCandidate,      // the tensors themselves (fill_inputs)
  kGold,           // the fp32 gold buffers of compute_reference: the pointer is a float*, whatever the tensor's type
  kSamePrecision,  // the same-precision buffers of compute_reference: the tensor's own type
};

// `tensors` is parallel to layout.tensors; `outputs` (gold or same-precision) to its compared outputs, in order.
template <class Problem>
Result<Problem> bind_problem(const WorkloadLayout& layout, std::span<const DeviceBuffer> tensors,
                             BoundOutputs bound = BoundOutputs::kCandidate,
                             std::span<const DeviceBuffer> outputs = {}) {
  static_assert(std::is_trivially_copyable_v<Problem>, "a Problem crosses to the device as bytes");
  static_assert(sizeof(void*) == sizeof(std::uint64_t), "device pointers are 64-bit on both sides");
  if (layout.problem.size() != sizeof(Problem)) {
    return make_error("the layout's problem is " + std::to_string(layout.problem.size()) + " bytes, the plugin's " +
                      "Problem " + std::to_string(sizeof(Problem)));
  }
  if (tensors.size() != layout.tensors.size()) {
    return make_error("got " + std::to_string(tensors.size()) + " buffers for " +
                      std::to_string(layout.tensors.size()) + " tensors");
  }
  std::size_t compared = 0;
  for (const auto& spec : layout.tensors) compared += spec.role == TensorRole::kOutput && spec.compared ? 1 : 0;
  if (bound != BoundOutputs::kCandidate && outputs.size() != compared) {
    return make_error("got " + std::to_string(outputs.size()) + " reference buffers for " + std::to_string(compared) +
                      " compared outputs");
  }
  Problem problem{};
  std::memcpy(&problem, layout.problem.data(), sizeof(Problem));
  std::size_t output = 0;
  for (std::size_t i = 0; i < layout.tensors.size(); ++i) {
    const TensorSpec& spec = layout.tensors[i];
    const bool replaced = bound != BoundOutputs::kCandidate && spec.role == TensorRole::kOutput && spec.compared;
    const DeviceBuffer& buffer = replaced ? outputs[output++] : tensors[i];
    const std::uint64_t bytes =
        spec.elements * (bound == BoundOutputs::kGold && replaced ? sizeof(float) : element_bytes(spec.type));
    const std::string what = std::string(replaced ? (bound == BoundOutputs::kGold ? "gold " : "same-precision ") : "") +
                             "tensor '" + spec.name + "'";
    // The harness hands fill_inputs and compute_reference the input set only: an output that is not replaced by a
    // reference buffer is absent there (address 0, 0 bytes) and stays a null pointer in the Problem, which those
    // kernels must not touch. A buffer that is given is checked like any other.
    if (spec.role != TensorRole::kInput && !replaced && buffer.address == 0 && buffer.bytes == 0) continue;
    if (buffer.address == 0 || buffer.bytes < bytes) {
      return make_error(what + ": buffer of " + std::to_string(buffer.bytes) + " bytes" +
                        (buffer.address == 0 ? " at address 0" : "") + ", needs " + std::to_string(bytes));
    }
    if (spec.problem_offset == kNoProblemPointer) continue;
    if (spec.problem_offset > sizeof(Problem) - sizeof(std::uint64_t)) {
      return make_error(what + ": pointer offset " + std::to_string(spec.problem_offset) + " is outside the " +
                        std::to_string(sizeof(Problem)) + "-byte Problem");
    }
    std::memcpy(reinterpret_cast<unsigned char*>(&problem) + spec.problem_offset, &buffer.address,
                sizeof(buffer.address));
  }
  return problem;
}

}  // namespace kseek
