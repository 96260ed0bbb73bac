// The candidate-facing description of one row-softmax call: y[r, :] = softmax(scale * x[r, :]).
// A plain POD shared by NVRTC device code and host C++: it must never include a header or depend on anything else.
#pragma once

namespace kseek {
namespace example {

// Bumped whenever the layout of SoftmaxProblem or the meaning of a field changes.
inline constexpr unsigned kSoftmaxProblemVersion = 1;

// Element type of x and y (both tensors always share it). Arithmetic is fp32 whatever the storage type.
enum SoftmaxDType : int {
  kSoftmaxBF16 = 0,
  kSoftmaxFP16 = 1,
  kSoftmaxFP32 = 2,
};

// Which tensor a TensorMapRequest (launch_plan.h) refers to; both views are rank 2, innermost first:
// [cols, rows] with a row stride of row_stride elements, element type as `dtype`.
enum SoftmaxTensorId : unsigned {
  kSoftmaxTensorX = 0,
  kSoftmaxTensorY = 1,
};

// Semantics (every kernel must implement exactly this), for 0 <= r < rows and 0 <= c < cols:
//   m_r      = max over j of scale * x[r, j]                       (scale > 0, so m_r = scale * max_j x[r, j])
//   y[r, c]  = exp(scale * x[r, c] - m_r) / sum over j of exp(scale * x[r, j] - m_r)
// computed in fp32 (or better) and rounded to nearest-even into `dtype`. Element (r, c) of x and y lives at
// element offset r * row_stride + c from the tensor's base. Inputs are finite, but rows are shifted far enough
// that exp(scale * x) without subtracting the maximum overflows or underflows fp32: the maximum is not optional.
// Every y[r, c] must be written (outputs are poisoned before each launch); nothing else may be, and x must not be.
// Only element alignment is promised for a row start (an odd cols puts every other row on a 2-byte boundary),
// so a kernel that wants 16-byte accesses checks the address of each row it vectorises, for x and y separately.
struct SoftmaxProblem {
  const void* x;   // [rows, row_stride] dtype, read-only; null in the plan kernel
  void* y;         // [rows, row_stride] dtype, written;   null in the plan kernel
  int rows;        // >= 1
  int cols;        // >= 1, the length of every softmax
  int row_stride;  // >= cols, elements between consecutive rows of x and of y (equal to cols in shipped scenarios)
  int dtype;       // SoftmaxDType
  float scale;     // > 0 and finite: the logits are scale * x (e.g. 1 / temperature)
};

}  // namespace example
}  // namespace kseek
