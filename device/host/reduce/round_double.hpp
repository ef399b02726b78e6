// Rounding a float64 straight into a narrower binary format (float32, bfloat16, float16).
// Going through float32 first would round twice, and the avg path promises one rounding.
#pragma once

#include <cstdint>

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

// Rounds q into `f`, with subnormals, overflow to +-inf (round-to-nearest overflows at
// max + half an ulp), and NaN kept as a quiet NaN with its top payload bits.
Rounded RoundDouble(double q, NarrowFormat f);

// acc / divisor rounded once to nearest-even into `f`. The float64 quotient is itself rounded;
// when it lands exactly on a midpoint of `f`, the exact remainder fma(-q, divisor, acc) tells
// on which side the true quotient lies. `divisor` must be an integer of at most 2^53.
uint32_t DivideAndRound(double acc, double divisor, NarrowFormat f);

}  // namespace weft::device::host::detail
