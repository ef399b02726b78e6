// Named edge cases of SPEC §2.4 with their expected values written out, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "device/host/reduce/reduce.hpp"
#include "tests/device/host/reduce/reference_ops.hpp"

namespace weft::device::host::test {
namespace {

// op(a, b) through ReduceInto, for one element of type T.
template <class T>
T Apply(DType t, ReduceOp op, T a, T b) {
  EXPECT_TRUE(ReduceInto(t, op, &a, &b, 1).ok());
  return a;
}

TEST(ReduceEdgeCases, IntegerSumAndProdWrapModulo2ToTheBits) {
  EXPECT_EQ(Apply<int8_t>(kI8, ReduceOp::kSum, 127, 1), -128);
  EXPECT_EQ(Apply<int8_t>(kI8, ReduceOp::kProd, -128, -1), -128);
  EXPECT_EQ(Apply<uint8_t>(kU8, ReduceOp::kSum, 255, 1), 0);
  EXPECT_EQ(Apply<int16_t>(kI16, ReduceOp::kProd, 300, 300), 24464);   // 90000 - 65536
  EXPECT_EQ(Apply<uint16_t>(kU16, ReduceOp::kProd, 65535, 65535), 1);  // no int promotion UB
  EXPECT_EQ(Apply<int32_t>(kI32, ReduceOp::kSum, std::numeric_limits<int32_t>::max(), 1),
            std::numeric_limits<int32_t>::min());
  EXPECT_EQ(Apply<uint32_t>(kU32, ReduceOp::kSum, 0xffffffffu, 2), 1u);
  EXPECT_EQ(Apply<int64_t>(kI64, ReduceOp::kProd, std::numeric_limits<int64_t>::min(), -1),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Apply<uint64_t>(kU64, ReduceOp::kProd, ~uint64_t{0}, ~uint64_t{0}), 1u);
}

TEST(ReduceEdgeCases, IntegerMaxMinRespectSignedness) {
  EXPECT_EQ(Apply<int8_t>(kI8, ReduceOp::kMax, -1, 1), 1);
  EXPECT_EQ(Apply<uint8_t>(kU8, ReduceOp::kMax, 0xff, 1), 0xff);
  EXPECT_EQ(Apply<int64_t>(kI64, ReduceOp::kMin, std::numeric_limits<int64_t>::min(), 0),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Apply<uint64_t>(kU64, ReduceOp::kMin, ~uint64_t{0}, 3), 3u);
}

TEST(ReduceEdgeCases, FloatNaNPropagatesThroughEveryOp) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const ReduceOp op : kElementOps) {
    EXPECT_TRUE(std::isnan(Apply<float>(kF32, op, nan, 1.0f))) << ReduceOpName(op);
    EXPECT_TRUE(std::isnan(Apply<float>(kF32, op, 1.0f, nan))) << ReduceOpName(op);
    EXPECT_TRUE(std::isnan(Apply<double>(kF64, op, -INFINITY, NAN))) << ReduceOpName(op);
    EXPECT_TRUE(std::isnan(Apply<double>(kF64, op, NAN, INFINITY))) << ReduceOpName(op);
    // float16 0x7e00 and bfloat16 0x7fc0 are NaN; 0x3c00 and 0x3f80 are 1.0.
    const uint16_t h = Apply<uint16_t>(kF16, op, 0x3c00, 0x7e00);
    EXPECT_TRUE((h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0) << ReduceOpName(op);
    const uint16_t b = Apply<uint16_t>(kBF16, op, 0xffc0, 0x3f80);
    EXPECT_TRUE((b & 0x7f80) == 0x7f80 && (b & 0x7f) != 0) << ReduceOpName(op);
  }
}

TEST(ReduceEdgeCases, MaxPrefersPositiveZeroAndMinNegativeZeroInEitherOrder) {
  for (const auto& [a, b] : {std::pair{-0.0f, 0.0f}, std::pair{0.0f, -0.0f}}) {
    EXPECT_FALSE(std::signbit(Apply<float>(kF32, ReduceOp::kMax, a, b)));
    EXPECT_TRUE(std::signbit(Apply<float>(kF32, ReduceOp::kMin, a, b)));
    EXPECT_FALSE(std::signbit(Apply<double>(kF64, ReduceOp::kMax, a, b)));
    EXPECT_TRUE(std::signbit(Apply<double>(kF64, ReduceOp::kMin, a, b)));
  }
  for (const DType t : {kF16, kBF16}) {
    EXPECT_EQ(Apply<uint16_t>(t, ReduceOp::kMax, 0x8000, 0x0000), 0x0000);
    EXPECT_EQ(Apply<uint16_t>(t, ReduceOp::kMax, 0x0000, 0x8000), 0x0000);
    EXPECT_EQ(Apply<uint16_t>(t, ReduceOp::kMin, 0x8000, 0x0000), 0x8000);
    EXPECT_EQ(Apply<uint16_t>(t, ReduceOp::kMin, 0x0000, 0x8000), 0x8000);
    EXPECT_EQ(Apply<uint16_t>(t, ReduceOp::kMax, 0x8000, 0x8000), 0x8000);
  }
}

TEST(ReduceEdgeCases, SixteenBitSumsRoundOnceToNearestEven) {
  // float16 spacing at 2048 is 2: 2048 + 1 is a tie kept at 2048 (even), 2050 + 1 goes to 2052.
  EXPECT_EQ(Apply<uint16_t>(kF16, ReduceOp::kSum, 0x6800, 0x3c00), 0x6800);
  EXPECT_EQ(Apply<uint16_t>(kF16, ReduceOp::kSum, 0x6801, 0x3c00), 0x6802);
  // 65504 + 16 = 65520 rounds to inf; the least subnormal plus itself is 2^-23.
  EXPECT_EQ(Apply<uint16_t>(kF16, ReduceOp::kSum, 0x7bff, 0x4c00), 0x7c00);
  EXPECT_EQ(Apply<uint16_t>(kF16, ReduceOp::kSum, 0x0001, 0x0001), 0x0002);
  // bfloat16 spacing at 256 is 2: 256 + 1 stays 256, 258 + 1 goes to 260.
  EXPECT_EQ(Apply<uint16_t>(kBF16, ReduceOp::kSum, 0x4380, 0x3f80), 0x4380);
  EXPECT_EQ(Apply<uint16_t>(kBF16, ReduceOp::kSum, 0x4381, 0x3f80), 0x4382);
  // (1 + 2^-7)^2 = 1 + 2^-6 + 2^-14 rounds to 1 + 2^-6 in bfloat16.
  EXPECT_EQ(Apply<uint16_t>(kBF16, ReduceOp::kProd, 0x3f81, 0x3f81), 0x3f82);
}

TEST(ReduceEdgeCases, ComplexProdIsTheTextbookFormula) {
  // (1+2i)(3+4i) = -5+10i; sum is per component.
  float a[2] = {1, 2};
  const float b[2] = {3, 4};
  ASSERT_TRUE(ReduceInto(kC64, ReduceOp::kProd, a, b, 1).ok());
  EXPECT_EQ(a[0], -5.0f);
  EXPECT_EQ(a[1], 10.0f);
  double c[4] = {0.5, -1.5, 2, 0};
  const double d[4] = {-2, 4, 1, -1};
  ASSERT_TRUE(ReduceInto(kC128, ReduceOp::kProd, c, d, 2).ok());
  EXPECT_EQ(c[0], 0.5 * -2 - (-1.5 * 4));
  EXPECT_EQ(c[1], 0.5 * 4 + -1.5 * -2);
  EXPECT_EQ(c[2], 2.0);
  EXPECT_EQ(c[3], -2.0);
  ASSERT_TRUE(ReduceInto(kC128, ReduceOp::kSum, c, d, 2).ok());
  EXPECT_EQ(c[0], 3.0);
  EXPECT_EQ(c[1], 9.0);
}

TEST(ReduceEdgeCases, BoolTreatsAnyNonZeroByteAsTrueAndWritesZeroOrOne) {
  const std::vector<uint8_t> a = {0x00, 0x02, 0x80, 0xff, 0x00, 0x01};
  const std::vector<uint8_t> b = {0x00, 0x00, 0xff, 0x40, 0x10, 0x00};
  const std::vector<uint8_t> want_or = {0, 1, 1, 1, 1, 1}, want_and = {0, 0, 1, 1, 0, 0};
  for (const ReduceOp op : kElementOps) {
    std::vector<uint8_t> out(a.size());
    ASSERT_TRUE(Reduce3(kBool, op, out.data(), a.data(), b.data(), a.size()).ok());
    const bool is_or = op == ReduceOp::kSum || op == ReduceOp::kMax;
    EXPECT_EQ(out, is_or ? want_or : want_and) << ReduceOpName(op);
  }
}

TEST(ReduceEdgeCases, InvalidCombinationsAreRejectedWithANamedMessage) {
  float x[2] = {1, 2}, y[2] = {3, 4};
  Status s = ReduceInto(kF32, ReduceOp::kAvg, x, y, 1);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("avg"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("float32"), std::string::npos) << s.message();
  s = ReduceInto(kC64, ReduceOp::kMax, x, y, 1);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("complex64"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("max"), std::string::npos) << s.message();
  EXPECT_EQ(Reduce3(kC128, ReduceOp::kMin, x, y, y, 0).code(), Code::kInvalidArgument);
  EXPECT_EQ(ReduceInto(kI32, ReduceOp::kAvg, x, y, 1).code(), Code::kInvalidArgument);
  EXPECT_EQ(x[0], 1.0f);  // nothing written on error
}

TEST(ReduceEdgeCases, UnsupportedDtypesAndOpsAreRejected) {
  unsigned char buf[64] = {};
  const DType unsupported[] = {{kCodeFloat, 8, 1},    {kCodeFloat, 32, 2}, {kCodeOpaque, 8, 1},
                               {kCodeInt, 24, 1},     {kCodeBool, 16, 1},  {kCodeBfloat, 32, 1},
                               {kCodeComplex, 32, 1}, {9, 32, 1}};
  for (const DType t : unsupported) {
    const Status s = ReduceInto(t, ReduceOp::kSum, buf, buf + 32, 1);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << DTypeName(t);
    EXPECT_NE(s.message().find(DTypeName(t)), std::string::npos) << s.message();
    EXPECT_EQ(FillIdentity(t, ReduceOp::kSum, buf, 1).code(), Code::kInvalidArgument);
  }
  const auto bad_op = static_cast<ReduceOp>(7);
  EXPECT_EQ(ReduceInto(kF32, bad_op, buf, buf + 32, 1).code(), Code::kInvalidArgument);
  EXPECT_EQ(Reduce3(kF32, bad_op, buf, buf + 16, buf + 32, 1).code(), Code::kInvalidArgument);
}

TEST(ReduceEdgeCases, NullPointersAreAcceptedOnlyForZeroCount) {
  float x = 1;
  EXPECT_TRUE(ReduceInto(kF32, ReduceOp::kSum, nullptr, nullptr, 0).ok());
  EXPECT_TRUE(Reduce3(kF32, ReduceOp::kSum, nullptr, nullptr, nullptr, 0).ok());
  EXPECT_TRUE(FillIdentity(kF32, ReduceOp::kSum, nullptr, 0).ok());
  EXPECT_EQ(ReduceInto(kF32, ReduceOp::kSum, &x, nullptr, 1).code(), Code::kInvalidArgument);
  EXPECT_EQ(ReduceInto(kF32, ReduceOp::kSum, nullptr, &x, 1).code(), Code::kInvalidArgument);
  EXPECT_EQ(Reduce3(kF32, ReduceOp::kSum, &x, &x, nullptr, 1).code(), Code::kInvalidArgument);
  EXPECT_EQ(FillIdentity(kF32, ReduceOp::kSum, nullptr, 1).code(), Code::kInvalidArgument);
  EXPECT_EQ(ReduceInto(kF64, ReduceOp::kSum, &x, &x, uint64_t{1} << 62).code(),
            Code::kInvalidArgument);  // 2^62 * 8 bytes overflows
}

}  // namespace
}  // namespace weft::device::host::test
