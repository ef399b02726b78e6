// The avg path (SPEC §2.4): accumulator types, R -> P(avg) -> R bit-exactness, and the final
// division rounded once, checked against an exact reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "device/host/reduce/reduce.hpp"
#include "tests/device/host/reduce/reference.hpp"
#include "tests/device/host/reduce/reference_ops.hpp"

namespace weft::device::host::test {
namespace {

using Bytes = std::vector<unsigned char>;

uint64_t Count(DType t, const Bytes& b) { return b.size() / static_cast<uint64_t>(ItemSize(t)); }

// avg over k ranks that all hold x, composed the way collectives do it: widen, sum into an
// accumulator seeded with the sum identity, divide by k.
Bytes AvgOfCopies(DType t, const Bytes& x, int64_t k) {
  const uint64_t n = Count(t, x);
  const DType acc_t = AvgAccumulatorType(t);
  Bytes acc(n * static_cast<uint64_t>(ItemSize(acc_t))), widened(acc.size()), out(x.size());
  EXPECT_TRUE(FillIdentity(acc_t, ReduceOp::kSum, acc.data(), n).ok());
  EXPECT_TRUE(WidenToAccumulator(t, x.data(), widened.data(), n).ok());
  for (int64_t r = 0; r < k; ++r) {
    EXPECT_TRUE(ReduceInto(acc_t, ReduceOp::kSum, acc.data(), widened.data(), n).ok());
  }
  EXPECT_TRUE(NarrowFromAccumulatorDividing(t, acc.data(), out.data(), n, k).ok());
  return out;
}

// Checks avg(x, ..., x) == x per lane, bit for bit; a NaN lane comes back quieted.
void ExpectRoundTrip(DType t, const Bytes& x, int64_t k) {
  const Bytes got = AvgOfCopies(t, x, k);
  const int lane_bytes = t.code == kCodeComplex ? t.bits / 16 : t.bits / 8;
  const Format f = t.code == kCodeBfloat ? kBf16Fmt : lane_bytes == 2 ? kHalfFmt : kF32Fmt;
  for (uint64_t i = 0; i < x.size() / lane_bytes; ++i) {
    uint64_t want = 0, have = 0;
    std::memcpy(&want, x.data() + i * lane_bytes, lane_bytes);
    std::memcpy(&have, got.data() + i * lane_bytes, lane_bytes);
    const bool nan = lane_bytes == 8 ? std::isnan(Load<double>(x.data(), i)) : IsNaNBits(want, f);
    if (nan) want |= uint64_t{1} << (lane_bytes == 8 ? 51 : f.p - 2);
    ASSERT_EQ(have, want) << DTypeName(t) << " k=" << k << " lane " << i << std::hex << " x=0x"
                          << want << " got=0x" << have;
  }
}

TEST(Avg, AccumulatorTypes) {
  for (const DType t : {kF16, kBF16, kF32, kF64}) EXPECT_EQ(AvgAccumulatorType(t), kF64);
  for (const DType t : {kC64, kC128}) EXPECT_EQ(AvgAccumulatorType(t), kC128);
  for (const DType t : {kI8, kU64, kBool, DType{kCodeFloat, 8, 1}}) {
    EXPECT_EQ(AvgAccumulatorType(t), DType{}) << DTypeName(t);
  }
}

TEST(Avg, EverySixteenBitValueRoundTrips) {
  Bytes all(2 * 65536);
  for (uint32_t v = 0; v <= 0xffff; ++v) Store<uint16_t>(all.data(), v, static_cast<uint16_t>(v));
  for (const DType t : {kF16, kBF16}) {
    for (const int64_t k : {1, 2, 3, 7, 1000}) ExpectRoundTrip(t, all, k);
  }
}

TEST(Avg, Float32AndComplex64RoundTrip) {
  std::mt19937_64 gen(5);
  for (const DType t : {kF32, kC64}) {
    const Bytes x = RandomElements(t, 20000, gen);
    for (const int64_t k : {1, 2, 3, 5, 8, 1000}) ExpectRoundTrip(t, x, k);
    ExpectRoundTrip(t, RandomElements(t, 300, gen), 65537);
  }
}

// float64 accumulates in itself, so the running sums j*x (j < k) round unless x has at most
// 53 - log2(k) significant bits; for k <= 2 they never do (short of overflow). Otherwise
// sum/k is only correctly rounded, as reduce.hpp documents.
TEST(Avg, Float64RoundTripsWhenTheRunningSumsAreExact) {
  std::mt19937_64 gen(6);
  for (const DType t : {kF64, kC128}) {
    Bytes x = RandomElements(t, 20000, gen);
    for (uint64_t i = 0; i < Count(kF64, x); ++i) {  // keep 2*|x| finite
      if (std::fabs(Load<double>(x.data(), i)) > 0x1p1000) Store<double>(x.data(), i, 0.25);
    }
    for (const int64_t k : {1, 2}) ExpectRoundTrip(t, x, k);
    for (uint64_t i = 0; i < Count(kF64, x); ++i) {  // 40-bit integers times a power of two
      const auto m = static_cast<double>(static_cast<int64_t>(gen() >> 24) - (int64_t{1} << 39));
      Store<double>(x.data(), i, std::ldexp(m, static_cast<int>(gen() % 200) - 100));
    }
    for (const int64_t k : {3, 4, 5, 7, 8, 1000, 1024}) ExpectRoundTrip(t, x, k);
  }
}

// acc / d rounded to nearest-even into f, decided exactly: a midpoint of f has at most p+1
// significant bits, so midpoint * d is exact in long double's 64 bits while d has at most
// 63 - p bits.
// The answer must be finite (no overflow threshold here).
uint64_t RefDivide(double acc, int64_t d, Format f) {
  const uint64_t sign = std::signbit(acc) ? uint64_t{1} << (f.Width() - 1) : 0;
  const long double a = std::fabs(static_cast<long double>(acc));
  uint64_t c = Encode(RoundTo(a / d, f), f);  // an estimate, at most one step off
  const auto mid_d = [&](uint64_t lo) { return (Decode(lo, f) + Decode(lo + 1, f)) / 2 * d; };
  while (c > 0 && a < mid_d(c - 1)) --c;
  while (a > mid_d(c)) ++c;
  if (c > 0 && a == mid_d(c - 1) && (c & 1)) --c;  // tie below: even
  if (a == mid_d(c) && (c & 1)) ++c;               // tie above: even
  return sign | c;
}

uint64_t Narrow(DType t, double acc, int64_t d) {
  uint64_t out = 0;
  EXPECT_TRUE(NarrowFromAccumulatorDividing(t, &acc, &out, 1, d).ok());
  return out;
}

// A midpoint between two adjacent finite positive values of f.
long double RandomMidpoint(Format f, std::mt19937_64& gen) {
  const uint64_t max_finite = ((f.ExpAll() << (f.p - 1)) - 1);
  const uint64_t c = gen() % max_finite;
  return (Decode(c, f) + Decode(c + 1, f)) / 2;
}

TEST(Avg, DivisionRoundsOnceToNearestEven) {
  std::mt19937_64 gen(8);
  const std::pair<DType, Format> formats[] = {{kF16, kHalfFmt}, {kBF16, kBf16Fmt}, {kF32, kF32Fmt}};
  for (const auto& [t, f] : formats) {
    int traps = 0;  // float64 quotient exactly on a midpoint while the true one is not
    for (int i = 0; i < 200000; ++i) {
      const int kind = i % 3;
      // Kind 2 needs m * d inexact in float64 (more than 53 bits) but exact in long double.
      const int d_bits = f.p > 11 ? 36 : 48;
      const int64_t d = kind == 2
                            ? int64_t{1} << d_bits | static_cast<int64_t>(gen() >> (64 - d_bits))
                            : 1 + static_cast<int64_t>(gen() % 1000);
      const long double m = RandomMidpoint(f, gen);
      double acc = static_cast<double>(m * d);  // exact for kind 1, rounded for kind 2
      if (kind == 0) {                          // anything whose quotient is finite in f
        acc = static_cast<double>(Decode(gen() % ((f.ExpAll() << (f.p - 1)) - 1), f)) * d *
              std::ldexp(1.0, -static_cast<int>(gen() % 3));
        acc = std::nextafter(acc, gen() % 2 ? 0.0 : INFINITY);
      }
      if (gen() % 2) acc = -acc;
      traps += kind == 2 && acc / d == static_cast<double>(std::copysign(m, acc)) &&
               std::fabs(static_cast<long double>(acc)) != m * d;
      ASSERT_EQ(Narrow(t, acc, d), RefDivide(acc, d, f))
          << DTypeName(t) << std::hexfloat << " acc=" << acc << " d=" << d;
    }
    EXPECT_GT(traps, 0) << DTypeName(t) << ": the remainder check was never exercised";
  }
}

TEST(Avg, NarrowingSpecialValues) {
  EXPECT_EQ(Narrow(kF16, 65520.0 * 3, 3), 0x7c00u);  // ties at the threshold overflow
  EXPECT_EQ(Narrow(kF16, 65519.0 * 3, 3), 0x7bffu);
  EXPECT_EQ(Narrow(kF16, -1e300, 7), 0xfc00u);
  EXPECT_EQ(Narrow(kBF16, 1e300, 1), 0x7f80u);
  EXPECT_EQ(Narrow(kF32, INFINITY, 5), 0x7f800000u);
  EXPECT_EQ(Narrow(kF32, -0.0, 5), 0x80000000u);
  EXPECT_EQ(Narrow(kF32, 0x1p-151, 1), 0u);      // below half the least subnormal
  EXPECT_EQ(Narrow(kF32, 0x1p-149 * 3, 2), 2u);  // 1.5 ulps: tie, even is 2
  EXPECT_EQ(Narrow(kF16, std::numeric_limits<double>::quiet_NaN(), 2) & 0x7e00u, 0x7e00u);
  EXPECT_EQ(Narrow(kBF16, -std::numeric_limits<double>::quiet_NaN(), 2), 0xffc0u);
  double acc[2] = {9.0, -3.0};
  double out[2];
  ASSERT_TRUE(NarrowFromAccumulatorDividing(kC128, acc, out, 1, 3).ok());
  EXPECT_EQ(out[0], 3.0);
  EXPECT_EQ(out[1], -1.0);
}

TEST(Avg, InvalidArgumentsAreRejected) {
  double acc[4] = {};
  float f[4] = {};
  for (const DType t : {kI32, kU8, kBool, DType{kCodeFloat, 8, 1}}) {
    EXPECT_EQ(WidenToAccumulator(t, f, acc, 1).code(), Code::kInvalidArgument);
    EXPECT_EQ(NarrowFromAccumulatorDividing(t, acc, f, 1, 2).code(), Code::kInvalidArgument);
  }
  for (const int64_t d : {int64_t{0}, int64_t{-2}, (int64_t{1} << 53) + 1}) {
    EXPECT_EQ(NarrowFromAccumulatorDividing(kF32, acc, f, 1, d).code(), Code::kInvalidArgument);
  }
  EXPECT_EQ(WidenToAccumulator(kF32, acc, acc, 2).code(), Code::kInvalidArgument);  // overlap
  EXPECT_EQ(WidenToAccumulator(kF32, nullptr, acc, 1).code(), Code::kInvalidArgument);
  EXPECT_TRUE(WidenToAccumulator(kF32, nullptr, nullptr, 0).ok());
  EXPECT_TRUE(WidenToAccumulator(kF64, acc, acc, 4).ok());  // in place for float64
}

// Regression: the overlap check once used the larger buffer's size for both, so a 16-bit
// output right before its float64 accumulator was refused.
TEST(Avg, AdjacentBuffersOfDifferentSizesAreNotAnOverlap) {
  unsigned char buf[64] = {};
  Store<double>(buf + 8, 0, 2.0);
  Store<double>(buf + 8, 1, 4.0);
  EXPECT_TRUE(NarrowFromAccumulatorDividing(kF16, buf + 8, buf + 4, 2, 2).ok());
  EXPECT_EQ(Load<uint16_t>(buf + 4, 0), 0x3c00);  // 1.0
  EXPECT_EQ(Load<uint16_t>(buf + 4, 1), 0x4000);  // 2.0
  EXPECT_TRUE(WidenToAccumulator(kF16, buf + 4, buf + 8, 2).ok());
  EXPECT_EQ(NarrowFromAccumulatorDividing(kF16, buf + 8, buf + 6, 2, 2).code(),
            Code::kInvalidArgument);
}

}  // namespace
}  // namespace weft::device::host::test
