// Software conversions between float32 and the 16-bit floating types (IEEE binary16 and
// bfloat16), round-to-nearest-even, written without branches so that g++ vectorizes the
// kernels that use them (no _Float16: g++ 12 on x86-64 needs extra flags for it).
//
// They rely on IEEE float32 arithmetic in round-to-nearest mode with subnormals enabled (no
// -ffast-math, no flush-to-zero), which is how every Weft target is built.
#pragma once

#include "device/hd.hpp"

#include <bit>
#include <cstdint>

namespace weft::device::host::detail {

inline constexpr uint32_t kF32SignMask = 0x80000000u;
inline constexpr uint32_t kF32Inf = 0x7f800000u;

// binary16 -> float32 is exact. Subnormal halves become normal floats: the mantissa is placed
// under the exponent of 2^-14 and 2^-14 is subtracted, which is exact in float32.
WEFT_HD inline float HalfToFloat(uint16_t h) {
  constexpr uint32_t kExpMask = 0x7c00u << 13;  // half exponent field, shifted into place
  constexpr uint32_t kRebias = (127 - 15) << 23;
  const uint32_t shifted = static_cast<uint32_t>(h & 0x7fff) << 13;
  const uint32_t exp = shifted & kExpMask;
  const uint32_t normal = shifted + kRebias;
  const uint32_t inf_nan = normal + kRebias;  // exponent all ones, payload kept
  const float sub = std::bit_cast<float>(normal + (1u << 23)) - std::bit_cast<float>(113u << 23);
  const uint32_t magnitude =
      exp == kExpMask ? inf_nan : (exp == 0 ? std::bit_cast<uint32_t>(sub) : normal);
  return std::bit_cast<float>(magnitude | (static_cast<uint32_t>(h & 0x8000) << 16));
}

// float32 -> binary16, round-to-nearest-even; >= 65520 rounds to inf; NaN stays NaN, quieted,
// with the top payload bits kept.
WEFT_HD inline uint16_t FloatToHalf(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const uint32_t sign = bits & kF32SignMask;
  const uint32_t mag = bits ^ sign;
  const uint32_t inf_nan = mag > kF32Inf ? (0x7e00u | ((mag >> 13) & 0x3ffu)) : 0x7c00u;
  // Below 2^-14 the half is subnormal with quantum 2^-24: adding 0.5 (whose float ulp is
  // 2^-24) lets the FPU do the rounding, and the low bits are then the half's mantissa.
  constexpr uint32_t kMagic = 126u << 23;
  const uint32_t sub =
      std::bit_cast<uint32_t>(std::bit_cast<float>(mag) + std::bit_cast<float>(kMagic)) - kMagic;
  // Normal: rebias, add 0x0fff plus the lowest kept bit (ties to even), drop 13 bits. A carry
  // into the exponent is the correct round-up, up to inf.
  constexpr uint32_t kRebias = static_cast<uint32_t>(15 - 127) << 23;
  const uint32_t normal = (mag + kRebias + 0x0fffu + ((mag >> 13) & 1u)) >> 13;
  const uint32_t out = mag >= (143u << 23) ? inf_nan : (mag < (113u << 23) ? sub : normal);
  return static_cast<uint16_t>(out | (sign >> 16));
}

// bfloat16 is the top half of a float32: widening is a shift.
WEFT_HD inline float Bfloat16ToFloat(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

// float32 -> bfloat16, round-to-nearest-even (overflow carries into inf); NaN stays NaN with
// the quiet bit set, since truncating a signaling NaN's payload could turn it into inf.
WEFT_HD inline uint16_t FloatToBfloat16(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  const uint32_t nan = (bits >> 16) | 0x40u;
  return static_cast<uint16_t>((bits & ~kF32SignMask) > kF32Inf ? nan : rounded);
}

}  // namespace weft::device::host::detail
