// The host-computed elements: identities (SPEC §2.4), constants converted to a dtype, and the
// avg accumulator types, against values written out by hand.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <cstring>

#include "device/element.hpp"

namespace weft::device {
namespace {

template <class T>
T As(const Element& e) {
  T v;
  std::memcpy(&v, e.data(), sizeof(T));
  return v;
}

constexpr DType kF16{kCodeFloat, 16, 1}, kBF16{kCodeBfloat, 16, 1}, kF32{kCodeFloat, 32, 1},
    kF64{kCodeFloat, 64, 1}, kC64{kCodeComplex, 64, 1}, kC128{kCodeComplex, 128, 1},
    kI8{kCodeInt, 8, 1}, kI16{kCodeInt, 16, 1}, kI32{kCodeInt, 32, 1}, kU8{kCodeUInt, 8, 1},
    kBool{kCodeBool, 8, 1};

TEST(IdentityElement, MatchesSpecTwoFour) {
  EXPECT_EQ(As<uint32_t>(*IdentityElement(kF32, ReduceOp::kSum)), 0x80000000u);  // -0.0
  EXPECT_EQ(As<uint16_t>(*IdentityElement(kF16, ReduceOp::kProd)), 0x3c00u);     // 1.0
  EXPECT_EQ(As<uint16_t>(*IdentityElement(kBF16, ReduceOp::kMax)), 0xff80u);     // -inf
  EXPECT_EQ(As<int32_t>(*IdentityElement(kI32, ReduceOp::kMax)), INT32_MIN);
  EXPECT_EQ(As<uint8_t>(*IdentityElement(kU8, ReduceOp::kMin)), 255u);
  EXPECT_EQ(As<uint8_t>(*IdentityElement(kBool, ReduceOp::kMin)), 1u);
  const auto c = As<std::complex<double>>(*IdentityElement(kC128, ReduceOp::kProd));
  EXPECT_EQ(c, std::complex<double>(1, 0));
  auto avg = IdentityElement(kF32, ReduceOp::kAvg);
  ASSERT_FALSE(avg.ok());
  EXPECT_EQ(avg.status().code(), Code::kInvalidArgument);
}

TEST(ElementOf, ConvertsAConstantToEachDtype) {
  EXPECT_EQ(As<uint16_t>(ElementOf(kF16, 1.5)), 0x3e00u);
  EXPECT_EQ(As<uint16_t>(ElementOf(kBF16, -2.0)), 0xc000u);
  EXPECT_EQ(As<float>(ElementOf(kF32, 0.1)), 0.1f);
  EXPECT_EQ(As<double>(ElementOf(kF64, 0.1)), 0.1);
  EXPECT_EQ(As<std::complex<float>>(ElementOf(kC64, 2.5)), std::complex<float>(2.5f, 0.f));
  EXPECT_EQ(As<int8_t>(ElementOf(kI8, 300.7)), 44);  // 300 wraps to 44
  EXPECT_EQ(As<int16_t>(ElementOf(kI16, -1.9)), -1);
  EXPECT_EQ(As<uint8_t>(ElementOf(kU8, -1.0)), 255u);
  EXPECT_EQ(As<uint8_t>(ElementOf(kBool, 0.0)), 0u);
  EXPECT_EQ(As<uint8_t>(ElementOf(kBool, -3.0)), 1u);
  // A 128-bit integer gets the int64's bytes and zeros above them (nothing read past it).
  const Element wide = ElementOf(DType{kCodeInt, 128, 1}, 5.0);
  EXPECT_EQ(As<int64_t>(wide), 5);
  for (size_t b = 8; b < wide.size(); ++b) EXPECT_EQ(wide[b], 0) << b;
}

TEST(AccumulatorType, IsFloat64OrComplex128WhereAvgIsDefined) {
  EXPECT_EQ(AccumulatorType(kF16), kF64);
  EXPECT_EQ(AccumulatorType(kBF16), kF64);
  EXPECT_EQ(AccumulatorType(kF32), kF64);
  EXPECT_EQ(AccumulatorType(kF64), kF64);
  EXPECT_EQ(AccumulatorType(kC64), kC128);
  EXPECT_EQ(AccumulatorType(kI32), DType{});
  EXPECT_EQ(AccumulatorType(kBool), DType{});
}

}  // namespace
}  // namespace weft::device
