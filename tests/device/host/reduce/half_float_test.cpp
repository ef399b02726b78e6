// The float32 <-> float16/bfloat16 conversions: exhaustive over the 16-bit side, and against
// the reference rounding for every midpoint and for random float32 patterns.
#include "device/host/reduce/half_float.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

#include "tests/device/host/reduce/reference.hpp"

namespace weft::device::host::test {
namespace {

using detail::Bfloat16ToFloat;
using detail::FloatToBfloat16;
using detail::FloatToHalf;
using detail::HalfToFloat;

float FromBits(uint32_t b) { return std::bit_cast<float>(b); }
uint32_t Bits(float f) { return std::bit_cast<uint32_t>(f); }

// Checks a float -> 16-bit conversion of f against the reference rounding into fmt.
::testing::AssertionResult RoundsLikeReference(uint16_t got, float f, Format fmt) {
  const long double want = RoundTo(static_cast<long double>(f), fmt);
  const long double value = Decode(got, fmt);
  if (std::isnan(want) ? std::isnan(value)
                       : (value == want && std::signbit(value) == std::signbit(want))) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "float bits 0x" << std::hex << Bits(f) << " gave 0x"
                                       << got << ", want 0x" << Encode(want, fmt);
}

TEST(HalfFloat, EveryHalfWidensExactlyAndRoundTrips) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const auto half = static_cast<uint16_t>(h);
    const float f = HalfToFloat(half);
    const long double want = Decode(half, kHalfFmt);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << h;
      // Back to half: still NaN, same sign, quiet bit set, top payload bits kept.
      ASSERT_EQ(FloatToHalf(f), half | 0x0200) << std::hex << h;
      continue;
    }
    ASSERT_EQ(static_cast<long double>(f), want) << std::hex << h;
    ASSERT_EQ(std::signbit(f), std::signbit(want)) << std::hex << h;
    ASSERT_EQ(FloatToHalf(f), half) << std::hex << h;
  }
}

TEST(HalfFloat, MidpointsAndTheirNeighboursRoundToNearestEven) {
  // Every midpoint between adjacent finite halves (exact in float32) and one float ulp on
  // either side, both signs; the last midpoint is 65520, the overflow threshold.
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    const float lo = HalfToFloat(static_cast<uint16_t>(h));
    const float hi = h + 1 < 0x7c00 ? HalfToFloat(static_cast<uint16_t>(h + 1)) : 65536.0f;
    const float mid = (lo + hi) / 2;
    for (const float f : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)}) {
      ASSERT_TRUE(RoundsLikeReference(FloatToHalf(f), f, kHalfFmt));
      ASSERT_TRUE(RoundsLikeReference(FloatToHalf(-f), -f, kHalfFmt));
    }
  }
}

TEST(HalfFloat, NamedRoundingCases) {
  EXPECT_EQ(FloatToHalf(1.0f + 0x1p-11f), 0x3c00);      // tie, even is 1.0
  EXPECT_EQ(FloatToHalf(1.0f + 3 * 0x1p-11f), 0x3c02);  // tie, even is 1 + 2^-9
  EXPECT_EQ(FloatToHalf(65519.0f), 0x7bff);             // below the threshold
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7c00);             // tie at max rounds to inf
  EXPECT_EQ(FloatToHalf(1e10f), 0x7c00);
  EXPECT_EQ(FloatToHalf(-INFINITY), 0xfc00);
  EXPECT_EQ(FloatToHalf(0x1p-24f), 0x0001);  // least subnormal
  EXPECT_EQ(FloatToHalf(0x1p-25f), 0x0000);  // tie with 0: even is 0
  EXPECT_EQ(FloatToHalf(std::nextafter(0x1p-25f, 1.0f)), 0x0001);
  EXPECT_EQ(FloatToHalf(3 * 0x1p-25f), 0x0002);          // tie between 1 and 2 ulps
  EXPECT_EQ(FloatToHalf(1023.5f * 0x1p-24f), 0x0400);    // up into the least normal
  EXPECT_EQ(FloatToHalf(-0x1p-30f), 0x8000);             // underflow keeps the sign
  EXPECT_EQ(FloatToHalf(FromBits(0x7f800001)), 0x7e00);  // signaling NaN stays NaN
  EXPECT_EQ(FloatToHalf(FromBits(0xffc00000)), 0xfe00);
}

TEST(HalfFloat, RandomFloatsRoundLikeTheReference) {
  std::mt19937_64 gen(7);
  for (int i = 0; i < 1000000; ++i) {
    const float f = FromBits(static_cast<uint32_t>(gen()));
    ASSERT_TRUE(RoundsLikeReference(FloatToHalf(f), f, kHalfFmt));
    // Concentrate on the half range too: exponents within 2^-26 .. 2^17.
    const uint32_t near = (static_cast<uint32_t>(gen()) & 0x807fffffu) |
                          static_cast<uint32_t>(101 + gen() % 44) << 23;
    ASSERT_TRUE(RoundsLikeReference(FloatToHalf(FromBits(near)), FromBits(near), kHalfFmt));
  }
}

TEST(Bfloat16, EveryBfloat16WidensExactlyAndRoundTrips) {
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const auto bf = static_cast<uint16_t>(b);
    const float f = Bfloat16ToFloat(bf);
    const long double want = Decode(bf, kBf16Fmt);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << b;
      ASSERT_EQ(FloatToBfloat16(f), bf | 0x0040) << std::hex << b;
      continue;
    }
    ASSERT_EQ(static_cast<long double>(f), want) << std::hex << b;
    ASSERT_EQ(std::signbit(f), std::signbit(want)) << std::hex << b;
    ASSERT_EQ(FloatToBfloat16(f), bf) << std::hex << b;
  }
}

TEST(Bfloat16, TiesGoToEvenAndNaNStaysNaN) {
  EXPECT_EQ(FloatToBfloat16(FromBits(0x3f808000)), 0x3f80);  // tie, even below
  EXPECT_EQ(FloatToBfloat16(FromBits(0x3f818000)), 0x3f82);  // tie, even above
  EXPECT_EQ(FloatToBfloat16(FromBits(0x3f808001)), 0x3f81);  // just above the tie
  EXPECT_EQ(FloatToBfloat16(FromBits(0x3f807fff)), 0x3f80);  // just below the tie
  EXPECT_EQ(FloatToBfloat16(FromBits(0x00008000)), 0x0000);  // subnormal tie, even is 0
  EXPECT_EQ(FloatToBfloat16(FromBits(0x00018000)), 0x0002);
  EXPECT_EQ(FloatToBfloat16(FromBits(0x7f7fffff)), 0x7f80);  // max float rounds to inf
  EXPECT_EQ(FloatToBfloat16(FromBits(0x7f7f7fff)), 0x7f7f);
  EXPECT_EQ(FloatToBfloat16(FromBits(0x7f800001)), 0x7fc0);  // payload below 16 bits: not inf
  EXPECT_EQ(FloatToBfloat16(FromBits(0xff800001)), 0xffc0);
  EXPECT_EQ(FloatToBfloat16(FromBits(0x7fa00000)), 0x7fe0);  // quieted, payload kept
}

TEST(Bfloat16, RandomFloatsRoundLikeTheReference) {
  std::mt19937_64 gen(11);
  for (int i = 0; i < 1000000; ++i) {
    const float f = FromBits(static_cast<uint32_t>(gen()));
    ASSERT_TRUE(RoundsLikeReference(FloatToBfloat16(f), f, kBf16Fmt));
  }
}

}  // namespace
}  // namespace weft::device::host::test
