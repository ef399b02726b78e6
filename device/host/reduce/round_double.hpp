// Rounding a float64 straight into a narrower binary format (float32, bfloat16, float16).
// Going through float32 first would round twice, and the avg path promises one rounding.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "device/hd.hpp"

namespace weft::device::host::detail {

struct NarrowFormat {
  int frac_bits;  // stored fraction bits (the leading 1 of normal numbers is implicit)
  int exp_bits;
};
inline constexpr NarrowFormat kFloat16Format{10, 5};
inline constexpr NarrowFormat kBfloat16Format{7, 8};
inline constexpr NarrowFormat kFloat32Format{23, 8};

struct Rounded {
  uint32_t nearest_even;  // the format's bits for q rounded to nearest, ties to even
  uint32_t toward_zero;   // the bits for q truncated toward zero
  bool tie;               // q lies exactly halfway between two neighbours in the format
};

// Header-only and WEFT_HD: the CUDA operations' avg kernels (device/cuda/) round with the
// same code as the host.
namespace round_detail {
constexpr uint64_t kF64SignBit = 1ull << 63;
constexpr uint64_t kF64Inf = 0x7ff0000000000000ull;
constexpr uint64_t kF64FracMask = (1ull << 52) - 1;
constexpr int kF64FracBits = 52;
constexpr int kF64Bias = 1023;
}  // namespace round_detail

// Rounds q into `f`, with subnormals, overflow to +-inf (round-to-nearest overflows at
// max + half an ulp), and NaN kept as a quiet NaN with its top payload bits.
WEFT_HD inline Rounded RoundDouble(double q, NarrowFormat f) {
  const uint64_t bits = std::bit_cast<uint64_t>(q);
  using namespace round_detail;
  const uint64_t mag = bits & ~kF64SignBit;
  const uint32_t sign = (bits & kF64SignBit) ? 1u << (f.frac_bits + f.exp_bits) : 0u;
  const uint32_t frac_mask = (1u << f.frac_bits) - 1;
  const uint32_t inf = ((1u << f.exp_bits) - 1) << f.frac_bits;
  if (mag > kF64Inf) {
    const auto payload = static_cast<uint32_t>(mag >> (kF64FracBits - f.frac_bits)) & frac_mask;
    const uint32_t nan = sign | inf | (1u << (f.frac_bits - 1)) | payload;
    return {nan, nan, false};
  }
  const int biased = static_cast<int>(mag >> kF64FracBits);
  // Zero and float64 subnormals are far below half of every format's smallest subnormal.
  if (biased == 0) return {sign, sign, false};
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  const int e = biased - kF64Bias;  // q = 1.m * 2^e
  if (e > bias) return {sign | inf, sign | (inf - 1), false};
  const uint64_t m = (mag & kF64FracMask) | (1ull << kF64FracBits);
  int shift = kF64FracBits - f.frac_bits;
  uint32_t field = static_cast<uint32_t>(e + bias);
  if (e < 1 - bias) {  // subnormal in f: fewer fraction bits survive
    shift += 1 - bias - e;
    field = 0;
  }
  if (shift > kF64FracBits + 1) return {sign, sign, false};  // below half the least subnormal
  const auto kept = static_cast<uint32_t>(m >> shift);
  const uint64_t rem = m & ((1ull << shift) - 1);
  const uint64_t half = 1ull << (shift - 1);
  // For a normal result `kept` still holds the implicit 1, which adds one to the field.
  const uint32_t trunc = field == 0 ? kept : ((field - 1) << f.frac_bits) + kept;
  const uint32_t up = (rem > half || (rem == half && (trunc & 1u))) ? 1u : 0u;
  return {sign | (trunc + up), sign | trunc, rem == half};
}

// acc / divisor rounded once to nearest-even into `f`. The float64 quotient is itself rounded;
// when it lands exactly on a midpoint of `f`, the exact remainder fma(-q, divisor, acc) tells
// on which side the true quotient lies. `divisor` must be an integer of at most 2^53.
WEFT_HD inline uint32_t DivideAndRound(double acc, double divisor, NarrowFormat f) {
  const double q = acc / divisor;
  const Rounded r = RoundDouble(q, f);
  if (!r.tie) return r.nearest_even;
  // q is a midpoint of f (so far from float64's underflow): acc - q*divisor is exact.
  const double rem = fma(-q, divisor, acc);
  if (rem == 0) return r.nearest_even;
  const bool beyond = (rem > 0) == (q > 0);  // |acc / divisor| > |q|
  return beyond ? r.toward_zero + 1 : r.toward_zero;
}

}  // namespace weft::device::host::detail
