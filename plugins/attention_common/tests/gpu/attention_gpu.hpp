// What the attention plugins' GPU tests share: one session on GPU 0 with attention.fa3's device library (every
// attention plugin embeds the same library), and the exact host decoding of the element types they read back.
// It must never need a GPU to compile, nor open a second session: the_attention_gpu() is the one for the test binary.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kseek/sdk/workload.hpp"
#include "support/plugin_device_host.hpp"

namespace kseek::attention {

// ---- host decoding of the stored element types (exact) -------------------------------------------------------------

inline double bf16_value(std::uint16_t bits) {
  const std::uint32_t word = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &word, 4);
  return f;
}
inline double f16_value(std::uint16_t bits) {
  const int sign = bits >> 15, exponent = (bits >> 10) & 31, mantissa = bits & 1023;
  const double magnitude = exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
  return sign ? -magnitude : magnitude;
}
inline double e4m3_value(std::uint8_t bits) {  // e4m3 "fn": no infinities, 0x7f/0xff NaN (never generated)
  const int sign = bits >> 7, exponent = (bits >> 3) & 15, mantissa = bits & 7;
  const double magnitude = exponent == 0 ? std::ldexp(mantissa, -9) : std::ldexp(8 + mantissa, exponent - 10);
  return sign ? -magnitude : magnitude;
}

struct HostTensor {
  ElementType type = ElementType::kF32;
  std::vector<std::byte> bytes;
  double at(std::int64_t i) const {
    switch (type) {
      case ElementType::kBF16: {
        std::uint16_t b;
        std::memcpy(&b, bytes.data() + 2 * i, 2);
        return bf16_value(b);
      }
      case ElementType::kF16: {
        std::uint16_t b;
        std::memcpy(&b, bytes.data() + 2 * i, 2);
        return f16_value(b);
      }
      case ElementType::kFP8E4M3: return e4m3_value(static_cast<std::uint8_t>(bytes[static_cast<std::size_t>(i)]));
      case ElementType::kI32: {
        std::int32_t v;
        std::memcpy(&v, bytes.data() + 4 * i, 4);
        return v;
      }
      default: {
        float v;
        std::memcpy(&v, bytes.data() + 4 * i, 4);
        return v;
      }
    }
  }
  std::int64_t integer(std::int64_t i) const { return static_cast<std::int64_t>(at(i)); }
  bool empty() const { return bytes.empty(); }
};

// ---- the GPU side: one session and the device library, built once for the test binary ------------------------------

// attention.fa3's device library (this folder's, as every attention plugin embeds it) on GPU 0, through the DeviceHost
// a plugin is handed; test support keeps core's session and build service out of these tests.
struct AttentionGpu {
  std::unique_ptr<kseek::testing::TestDeviceHost> session;
  std::string problem;  // why there is none
};

inline AttentionGpu& the_attention_gpu() {
  static AttentionGpu gpu = [] {
    AttentionGpu g;
    auto opened = kseek::testing::open_plugin_device_host("attention.fa3", 9,
                                                          "the device library needs sm_90 or later (fp8 conversions)");
    if (!opened) {
      ADD_FAILURE() << opened.error().message;
      g.problem = "no device library on the GPU";
      return g;
    }
    g.session = std::move(opened->host);
    g.problem = opened->skip_reason;
    return g;
  }();
  return gpu;
}

}  // namespace kseek::attention
