// Counter-based random numbers for plugins' input generation: every value is a pure function of (seed, stream,
// counter), so any thread can make any element, in any order, and an input set is reproducible from its seed.
// It must never keep state between calls, nor be used where unpredictability matters: it is a hash, not a cipher.
#pragma once

namespace kseek {
namespace device {

// The splitmix64 finaliser (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", 2014): a
// bijection of 64-bit words whose every output bit depends on every input bit.
__device__ __forceinline__ unsigned long long mix64(unsigned long long z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// 64 random bits for element `counter` of stream `stream` (one stream per tensor or per purpose keeps tensors that
// share a seed independent). Two rounds, so that neighbouring counters and streams share no structure.
__device__ __forceinline__ unsigned long long random_bits(unsigned long long seed, unsigned stream,
                                                          unsigned long long counter) {
  return mix64(mix64(seed ^ (0xD1B54A32D192ED03ull * (static_cast<unsigned long long>(stream) + 1))) ^ counter);
}

// Uniform in [0, 1) with 24 random bits: every value is an exact fp32.
__device__ __forceinline__ float uniform01(unsigned long long bits) {
  return static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);
}

// Roughly N(0, 1): the sum of four 16-bit uniforms (Irwin-Hall), rescaled. Bounded (|x| < 3.47), so no input is
// an accidental outlier; plugins add their outliers on purpose.
__device__ __forceinline__ float normal01(unsigned long long bits) {
  const unsigned long long sum = (bits & 0xFFFF) + ((bits >> 16) & 0xFFFF) + ((bits >> 32) & 0xFFFF) + (bits >> 48);
  return (static_cast<float>(sum) * (1.0f / 65536.0f) - 2.0f) * 1.7320508f;
}

}  // namespace device
}  // namespace kseek
