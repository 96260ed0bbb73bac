// The candidate-facing description of one fused residual-add + RMSNorm call, as LLM servers make it between layers.
// A plain POD shared by NVRTC device code and host C++: it must never include a header or depend on anything else.
#pragma once

namespace kseek {
namespace ops {

// Bumped whenever the layout of ResidualRmsNormProblem or the meaning of a field changes.
inline constexpr unsigned kResidualRmsNormProblemVersion = 1;

// Element type of every tensor (x, residual, weight, residual_out, y share it). Arithmetic is fp32.
enum ResidualRmsNormDType : int {
  kResidualRmsNormBF16 = 0,
  kResidualRmsNormFP16 = 1,
};

// Which tensor a TensorMapRequest (launch_plan.h) refers to. The [tokens, hidden] tensors are viewed as rank 2,
// innermost first: [hidden, tokens] with a row stride of hidden elements; weight as rank 1: [hidden].
enum ResidualRmsNormTensorId : unsigned {
  kResidualRmsNormTensorX = 0,
  kResidualRmsNormTensorResidual = 1,
  kResidualRmsNormTensorWeight = 2,
  kResidualRmsNormTensorResidualOut = 3,
  kResidualRmsNormTensorY = 4,
};

// Semantics (every kernel must implement exactly this), for 0 <= t < tokens and 0 <= c < hidden:
//   r[t, c]            = round(x[t, c] + residual[t, c])            the sum in fp32, rounded to nearest even in dtype
//   residual_out[t, c] = r[t, c]
//   inv_rms[t]         = 1 / sqrt(sum over j of r[t, j]^2 / hidden + eps)    over the ROUNDED r, in fp32 or better
//   y[t, c]            = round(r[t, c] * inv_rms[t] * weight[c])             one rounding, to nearest even
// Element (t, c) of a [tokens, hidden] tensor lives at element offset t * hidden + c from its base; weight[c] at c.
// Inputs are finite; some rows are so small that eps decides their scale, some so large that their sum of squares
// overflows fp16 (not fp32): accumulate in fp32. Every element of residual_out and y must be written (outputs are
// poisoned before each launch); nothing else may be, and the inputs must not be. Bases are 16-byte aligned; a row
// start is 16-byte aligned only when hidden is a multiple of 8.
struct ResidualRmsNormProblem {
  const void* x;         // [tokens, hidden] dtype, read-only; null in the plan kernel
  const void* residual;  // [tokens, hidden] dtype, read-only; null in the plan kernel
  const void* weight;    // [hidden] dtype, read-only;         null in the plan kernel
  void* residual_out;    // [tokens, hidden] dtype, written;   null in the plan kernel
  void* y;               // [tokens, hidden] dtype, written;   null in the plan kernel
  int tokens;            // >= 1
  int hidden;            // >= 1, the length of every normalised row
  int dtype;             // ResidualRmsNormDType
  float eps;             // > 0 and finite, added to the mean square
};

}  // namespace ops
}  // namespace kseek
