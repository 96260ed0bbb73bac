// The by-value parameters of a plugin's fill kernel: the candidate's own Problem struct, with the input set's device
// pointers written in, plus the input set's seed. Reference kernels take the Problem alone (outputs pointing at the
// reference buffers). Shared by the plugin's host C++ (kseek/sdk/operator_plugin.hpp) and NVRTC device code.
// It must never hold anything whose layout differs between host and device: it crosses the seam as bytes.
#pragma once

namespace kseek {

template <class Problem>
struct FillArgs {
  Problem problem;          // inputs point at this input set's tensors; outputs point at the candidate's (unwritten)
  unsigned long long seed;  // the input set's seed: same seed, same bytes
};

}  // namespace kseek
