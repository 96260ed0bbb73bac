// The candidate-facing description of one bf16 linear layer with a fused GELU epilogue, C = gelu(A * W^T + bias), the
// up-projection of a transformer MLP. A plain POD shared by NVRTC device code and host C++: it must never include a
// header or depend on anything else.
#pragma once

namespace kseek {
namespace ops {

// Bumped whenever the layout of GemmBiasGeluProblem or the meaning of a field changes.
inline constexpr unsigned kGemmBiasGeluProblemVersion = 1;

// Semantics (every kernel must implement exactly this), for 0 <= i < m and 0 <= j < n:
//   s[i, j] = sum over k of a[i, k] * w[j, k] + bias[j]     bf16 inputs, accumulated in fp32 (or better), any order
//   c[i, j] = round(gelu(s[i, j]))                          gelu(x) = x / 2 * (1 + erf(x / sqrt(2))), the erf form;
//                                                           one rounding to bf16, nearest even
// All tensors are row-major bf16: a is [m, k], w is [n, k] (torch.nn.Linear's weight: k is contiguous in both),
// bias is [n], c is [m, n]. Every element of c must be written (it is poisoned before each launch); nothing else may
// be, and the inputs must not be. Bases are 16-byte aligned; rows of a and w only when k is a multiple of 8, rows of c
// only when n is. m, n, k are anything from 1 up: tiles have tails.
struct GemmBiasGeluProblem {
  const void* a;     // [m, k] bf16, read-only; null in the plan kernel
  const void* w;     // [n, k] bf16, read-only; null in the plan kernel
  const void* bias;  // [n] bf16, read-only;    null in the plan kernel
  void* c;           // [m, n] bf16, written;   null in the plan kernel
  int m;
  int n;
  int k;
  int reserved;  // 0: explicit padding (problems are compared byte for byte)
};

}  // namespace ops
}  // namespace kseek
