// The host operations' Reduce for every (dtype, op) on random strided regions — including an
// inout that repeats cells, whose contributions must arrive in row-major order — against the
// independent per-element reference; and Widen/Narrow round trips of every avg dtype, special
// values included (-0.0, NaN, infinities, subnormals), against an independent decoding.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <random>
#include <vector>

#include "device/element.hpp"
#include "device/host/host_ops.hpp"
#include "tests/device/host/reduce/reference.hpp"
#include "tests/device/host/reduce/reference_ops.hpp"
#include "tests/device/host/reduce_operands.hpp"

namespace weft::device::host::test {
namespace {

const Target kHost{};

class HostReduce : public testing::TestWithParam<OpCase> {};

TEST_P(HostReduce, RandomRegionsMatchSequentialReference) {
  const OpCase c = GetParam();
  std::mt19937_64 g(static_cast<uint64_t>(c.t.code) * 131 + c.t.bits * 7 +
                    static_cast<uint64_t>(c.op));
  for (int n = 0; n < 60; ++n) {
    const TestShape s = RandomShape(g, 4, 5);
    const bool compact = n % 4 == 0;
    Operand io = PlaceElements(s, c.t, /*repeat=*/!compact && n % 2 == 1, compact, g);
    Operand in = PlaceElements(s, c.t, /*repeat=*/!compact, compact, g);
    const std::vector<char> want = ReferenceReduce(c, io, in, s);
    ASSERT_TRUE(HostOps::Get().Reduce(kHost, c.t, c.op, RegionOf(io), RegionOf(in), s.view()).ok());
    ASSERT_TRUE(SameElements(c.t, io.mem, want)) << CaseName(c) << " case " << n;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryDtypeAndOp, HostReduce, testing::ValuesIn(AllElementCases()),
                         [](const auto& info) { return CaseName(info.param); });

TEST(HostReduceErrors, AvgAndUnknownTypesAreRejected) {
  double a = 1, b = 2;
  Region r{reinterpret_cast<char*>(&a), {}};
  ConstRegion q{reinterpret_cast<const char*>(&b), {}};
  EXPECT_EQ(HostOps::Get().Reduce(kHost, kF64, ReduceOp::kAvg, r, q, Shape{}).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(
      HostOps::Get().Reduce(kHost, DType{kCodeOpaque, 64, 1}, ReduceOp::kSum, r, q, Shape{}).code(),
      Code::kInvalidArgument);
  EXPECT_EQ(a, 1);
}

// The value of one lane of an avg dtype, decoded from its IEEE fields (reference.hpp).
long double LaneValue(DType t, const unsigned char* p) {
  if (t.code == kCodeBfloat || (t.code == kCodeFloat && t.bits == 16)) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return Decode(v, t.code == kCodeBfloat ? kBf16Fmt : kHalfFmt);
  }
  if ((t.code == kCodeFloat && t.bits == 32) || (t.code == kCodeComplex && t.bits == 64)) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return Decode(v, kF32Fmt);
  }
  double d;
  std::memcpy(&d, p, 8);
  return d;
}

// Values that break conversions: signed zeros, extremes of the subnormals, NaN, infinities.
std::vector<uint64_t> SpecialBits(DType t) {
  if (t.code == kCodeBfloat) return {0x8000, 0x0000, 0x0001, 0x807f, 0x7fc0, 0xff80, 0x7f7f};
  if (t.bits == 16) return {0x8000, 0x0000, 0x0001, 0x83ff, 0x7e00, 0xfc00, 0x7bff};
  if (t.bits == 32 || (t.code == kCodeComplex && t.bits == 64))
    return {0x80000000, 0, 1, 0x807fffff, 0x7fc00000, 0xff800000, 0x7f7fffff};
  return {0x8000000000000000, 0, 1, 0x800fffffffffffff, 0x7ff8000000000000, 0xfff0000000000000,
          0x7fefffffffffffff};
}

std::vector<unsigned char> AvgInputs(DType t, std::mt19937_64& g) {
  const int64_t item = ItemSize(t), lane = t.code == kCodeComplex ? item / 2 : item;
  const std::vector<uint64_t> special = SpecialBits(t);
  std::vector<unsigned char> v = RandomElements(t, 997, g);
  const size_t lanes = v.size() / static_cast<size_t>(lane);
  for (size_t i = 0; i < special.size() && i < lanes; ++i)
    std::memcpy(v.data() + i * static_cast<size_t>(lane), &special[i], static_cast<size_t>(lane));
  return v;
}

class HostAvg : public testing::TestWithParam<DType> {};

TEST_P(HostAvg, WidenIsExactAndNarrowRoundTrips) {
  const DType t = GetParam(), acc_t = AccumulatorType(t);
  ASSERT_EQ(acc_t.code, t.code == kCodeComplex ? kCodeComplex : kCodeFloat);
  std::mt19937_64 g(t.bits + t.code);
  const std::vector<unsigned char> x = AvgInputs(t, g);
  const int64_t item = ItemSize(t), lanes_per = t.code == kCodeComplex ? 2 : 1;
  const uint64_t count = x.size() / static_cast<size_t>(item);
  std::vector<double> acc(count * static_cast<size_t>(lanes_per));
  ASSERT_TRUE(HostOps::Get().Widen(kHost, t, x.data(), acc.data(), count).ok());
  const int64_t lane = item / lanes_per;
  for (size_t i = 0; i < acc.size(); ++i) {
    const long double want = LaneValue(t, x.data() + i * static_cast<size_t>(lane));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(acc[i])) << "lane " << i;
      continue;
    }
    ASSERT_EQ(static_cast<long double>(acc[i]), want) << "lane " << i;
    ASSERT_EQ(std::signbit(acc[i]), std::signbit(want)) << "lane " << i;  // -0.0 stays -0.0
  }
  std::vector<unsigned char> back(x.size());
  ASSERT_TRUE(HostOps::Get().Narrow(kHost, t, acc.data(), back.data(), count, 1).ok());
  for (uint64_t i = 0; i < count; ++i)
    ASSERT_TRUE(SameElement(t, back.data() + i * item, x.data() + i * item))
        << "element " << i << ": " << ElementHex(t, back.data() + i * item) << " from "
        << ElementHex(t, x.data() + i * item);
  if (acc_t.bits / lanes_per == t.bits / lanes_per) return;  // float64: k*x may round
  // R -> P(avg) -> R on three ranks: x + x + x in the accumulator, narrowed by 3, is x.
  std::vector<double> sum = acc;
  const int64_t n = static_cast<int64_t>(count), one = 1;
  const Shape all{1, &n};
  const Region s{reinterpret_cast<char*>(sum.data()), &one};
  const ConstRegion a{reinterpret_cast<const char*>(acc.data()), &one};
  for (int k = 0; k < 2; ++k)
    ASSERT_TRUE(HostOps::Get().Reduce(kHost, acc_t, ReduceOp::kSum, s, a, all).ok());
  ASSERT_TRUE(HostOps::Get().Narrow(kHost, t, sum.data(), back.data(), count, 3).ok());
  for (uint64_t i = 0; i < count; ++i)
    ASSERT_TRUE(SameElement(t, back.data() + i * item, x.data() + i * item))
        << "element " << i << ": " << ElementHex(t, back.data() + i * item) << " from "
        << ElementHex(t, x.data() + i * item);
}

INSTANTIATE_TEST_SUITE_P(EveryAvgDtype, HostAvg,
                         testing::Values(kF16, kBF16, kF32, kF64, kC64, kC128),
                         [](const auto& info) { return DTypeName(info.param); });

TEST(HostAvgErrors, IntegersHaveNoAvg) {
  int32_t v = 3;
  double acc = 0;
  const Status s = HostOps::Get().Widen(kHost, kI32, &v, &acc, 1);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("int32"), std::string::npos) << s.message();
  EXPECT_EQ(HostOps::Get().Narrow(kHost, kF32, &acc, &v, 1, 0).code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace weft::device::host::test
