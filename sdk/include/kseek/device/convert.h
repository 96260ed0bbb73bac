// 16-bit and fp8 conversions for device code compiled by kseek's NVRTC: seeds, candidates and plugins' device
// libraries (which get no toolkit header, so no cuda_bf16.h). Bit patterns travel as unsigned integers.
// It must never include a header or round in any mode but to nearest even: references and kernels must agree.
#pragma once

namespace kseek {
namespace device {

// Every wrapper below is PTX ISA "Data Movement and Conversion Instructions: cvt"
// (docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cvt).

// bf16 is the upper half of an fp32: widening is a shift, and exact.
__device__ __forceinline__ float bf16_to_float(unsigned short bits) { return __uint_as_float(unsigned(bits) << 16); }

__device__ __forceinline__ unsigned short float_to_bf16(float value) {  // .rn: nearest even; NaN stays NaN
  unsigned short bits;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(value));
  return bits;
}

__device__ __forceinline__ float fp16_to_float(unsigned short bits) {  // exact
  float value;
  asm("cvt.f32.f16 %0, %1;" : "=f"(value) : "h"(bits));
  return value;
}

__device__ __forceinline__ unsigned short float_to_fp16(float value) {  // overflow gives +-inf, as IEEE says
  unsigned short bits;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(value));
  return bits;
}

// Two values in one 32-bit register, `lo` in bits 0..15 (the element at the lower address once stored): the
// packed cvt puts its first source operand in the upper half.
__device__ __forceinline__ unsigned pack_bf16x2(float lo, float hi) {
  unsigned bits;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(bits) : "f"(hi), "f"(lo));
  return bits;
}

__device__ __forceinline__ unsigned pack_fp16x2(float lo, float hi) {
  unsigned bits;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(bits) : "f"(hi), "f"(lo));
  return bits;
}

// The value a 16-bit store keeps of `value`: what a same-precision reference compares against.
__device__ __forceinline__ float round_to_bf16(float value) { return bf16_to_float(float_to_bf16(value)); }
__device__ __forceinline__ float round_to_fp16(float value) { return fp16_to_float(float_to_fp16(value)); }

// fp8 (sm_89 and later). PTX converts fp8 only in pairs; the single-value forms use the low byte. .satfinite clamps
// to the largest finite value (448 for e4m3, 57344 for e5m2) instead of producing NaN, as fp8 training recipes do.
__device__ __forceinline__ unsigned char float_to_e4m3(float value) {
  unsigned short pair;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(pair) : "f"(0.0f), "f"(value));
  return static_cast<unsigned char>(pair & 0xFF);
}

__device__ __forceinline__ unsigned char float_to_e5m2(float value) {
  unsigned short pair;
  asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(pair) : "f"(0.0f), "f"(value));
  return static_cast<unsigned char>(pair & 0xFF);
}

// Every fp8 value is an fp16 value, so widening through fp16 is exact.
__device__ __forceinline__ float e4m3_to_float(unsigned char bits) {
  unsigned halves;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(halves) : "h"(static_cast<unsigned short>(bits)));
  return fp16_to_float(static_cast<unsigned short>(halves & 0xFFFF));
}

__device__ __forceinline__ float e5m2_to_float(unsigned char bits) {
  unsigned halves;
  asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(halves) : "h"(static_cast<unsigned short>(bits)));
  return fp16_to_float(static_cast<unsigned short>(halves & 0xFFFF));
}

}  // namespace device
}  // namespace kseek
