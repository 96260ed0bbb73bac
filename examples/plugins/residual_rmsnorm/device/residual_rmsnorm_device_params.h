// The by-value parameter blocks of the residual_rmsnorm device library's kernels, shared by the plugin's host C++
// and by NVRTC. It must never hold a pointer type or anything whose layout differs between host and device.
#pragma once

namespace kseek {
namespace plugins {
namespace residual_rmsnorm {

// Device addresses travel as 64-bit integers: DeviceHost hands the plugin addresses, never pointers.
struct FillParams {
  unsigned long long x;         // [tokens, hidden] in `dtype`, written
  unsigned long long residual;  // [tokens, hidden] in `dtype`, written
  unsigned long long weight;    // [hidden] in `dtype`, written
  unsigned long long seed;      // the input set's seed: same seed, same bytes
  int tokens;
  int hidden;
  int dtype;  // kseek::ops::ResidualRmsNormDType
  int reserved;
};

// gold: residual_out and y as f32; same precision: both in `dtype`.
struct ReferenceParams {
  unsigned long long x;             // [tokens, hidden] in `dtype`, read
  unsigned long long residual;      // [tokens, hidden] in `dtype`, read
  unsigned long long weight;        // [hidden] in `dtype`, read
  unsigned long long residual_out;  // [tokens, hidden], written
  unsigned long long y;             // [tokens, hidden], written
  int tokens;
  int hidden;
  int dtype;
  float eps;
};

static_assert(sizeof(FillParams) == 48, "FillParams crosses the host/device seam by value");
static_assert(sizeof(ReferenceParams) == 56, "ReferenceParams crosses the host/device seam by value");

}  // namespace residual_rmsnorm
}  // namespace plugins
}  // namespace kseek
