// The by-value parameter blocks of the example_softmax device library's kernels, shared by the plugin's host C++
// and by NVRTC. It must never hold a pointer type or anything whose layout differs between host and device.
#pragma once

namespace kseek {
namespace plugins {
namespace example_softmax {

// Device addresses travel as 64-bit integers: DeviceHost hands the plugin addresses, never pointers.
struct FillParams {
  unsigned long long x;     // [rows, row_stride] in `dtype`, written
  unsigned long long seed;  // the input set's seed: same seed, same bytes
  int rows;
  int cols;
  int row_stride;
  int dtype;    // kseek::example::SoftmaxDType
  float scale;  // the scenario's scale: logits are drawn in scaled units, then divided by it
  int reserved;
};

struct ReferenceParams {
  unsigned long long x;    // [rows, row_stride] in `dtype`, read
  unsigned long long out;  // gold: [rows, row_stride] f32; same precision: [rows, row_stride] in `dtype`
  int rows;
  int cols;
  int row_stride;
  int dtype;
  float scale;
  int reserved;
};

static_assert(sizeof(FillParams) == 40, "FillParams crosses the host/device seam by value");
static_assert(sizeof(ReferenceParams) == 40, "ReferenceParams crosses the host/device seam by value");

}  // namespace example_softmax
}  // namespace plugins
}  // namespace kseek
