// FillIdentity: the written bit patterns, and op(identity, x) == x for every dtype and op,
// including -0.0 surviving the Replicate -> Partial(sum) conjugate (SPEC §2.4).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "device/host/reduce/reduce.hpp"
#include "tests/device/host/reduce/reference_ops.hpp"

namespace weft::device::host::test {
namespace {

using Bytes = std::vector<unsigned char>;

template <class T>
Bytes BytesOf(std::initializer_list<T> lanes) {
  Bytes b(lanes.size() * sizeof(T));
  std::memcpy(b.data(), lanes.begin(), b.size());
  return b;
}

// The expected identity element, spelled out per dtype (sum, max, min, prod).
Bytes ExpectedIdentity(DType t, ReduceOp op) {
  const int i = op == ReduceOp::kSum ? 0 : op == ReduceOp::kMax ? 1 : op == ReduceOp::kMin ? 2 : 3;
  if (t == kF16)
    return BytesOf<uint16_t>({std::array<uint16_t, 4>{0x8000, 0xfc00, 0x7c00, 0x3c00}[i]});
  if (t == kBF16)
    return BytesOf<uint16_t>({std::array<uint16_t, 4>{0x8000, 0xff80, 0x7f80, 0x3f80}[i]});
  if (t == kF32) return BytesOf<float>({std::array<float, 4>{-0.0f, -INFINITY, INFINITY, 1}[i]});
  if (t == kF64) return BytesOf<double>({std::array<double, 4>{-0.0, -INFINITY, INFINITY, 1}[i]});
  if (t == kC64) return i == 0 ? BytesOf<float>({-0.0f, -0.0f}) : BytesOf<float>({1, 0});
  if (t == kC128) return i == 0 ? BytesOf<double>({-0.0, -0.0}) : BytesOf<double>({1, 0});
  if (t == kBool) return BytesOf<uint8_t>({std::array<uint8_t, 4>{0, 0, 1, 1}[i]});
  const int bytes = t.bits / 8;
  const bool is_signed = t.code == kCodeInt;
  const uint64_t all = bytes == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1;
  const uint64_t high = uint64_t{1} << (8 * bytes - 1);
  const uint64_t values[4] = {0, is_signed ? high : 0, is_signed ? high - 1 : all, 1};
  Bytes b(bytes);
  std::memcpy(b.data(), &values[i], bytes);
  return b;
}

class IdentityTest : public testing::TestWithParam<OpCase> {};

TEST_P(IdentityTest, WritesTheIdentityIntoEveryElementAndNothingElse) {
  const OpCase c = GetParam();
  const auto size = static_cast<uint64_t>(ItemSize(c.t));
  const Bytes want = ExpectedIdentity(c.t, c.op);
  ASSERT_EQ(want.size(), size);
  for (const uint64_t n : {1, 2, 7, 1000 + 3}) {
    Bytes buf(n * size + 2, 0x5a);  // one guard byte each side; elements start unaligned
    ASSERT_TRUE(FillIdentity(c.t, c.op, buf.data() + 1, n).ok());
    EXPECT_EQ(buf.front(), 0x5a);
    EXPECT_EQ(buf.back(), 0x5a);
    for (uint64_t i = 0; i < n; ++i) {
      ASSERT_EQ(Bytes(buf.begin() + 1 + i * size, buf.begin() + 1 + (i + 1) * size), want)
          << CaseName(c) << " element " << i << " of " << n;
    }
  }
}

// Whether op(identity, x) must give x back for this element. Complex prod by the formula does
// not keep -0.0 components or infinities (documented in reduce.hpp): only finite values with
// non-zero components are promised.
bool IdentityPromised(const OpCase& c, const unsigned char* x) {
  if (!(c.t.code == kCodeComplex && c.op == ReduceOp::kProd)) return true;
  for (int lane = 0; lane < 2; ++lane) {
    double v;
    if (c.t.bits == 64) {
      float f;
      std::memcpy(&f, x + 4 * lane, 4);
      v = f;
    } else {
      std::memcpy(&v, x + 8 * lane, 8);
    }
    if (!std::isfinite(v) || v == 0) return false;
  }
  return true;
}

TEST_P(IdentityTest, ReducingWithTheIdentityGivesTheValueBack) {
  const OpCase c = GetParam();
  const auto size = static_cast<uint64_t>(ItemSize(c.t));
  const uint64_t n = 1000 + 3;
  std::mt19937_64 gen(99);
  const Bytes x = RandomElements(c.t, n, gen);
  Bytes left(n * size), right = x;
  ASSERT_TRUE(FillIdentity(c.t, c.op, left.data(), n).ok());
  Bytes e = left;
  ASSERT_TRUE(ReduceInto(c.t, c.op, left.data(), x.data(), n).ok());   // op(e, x)
  ASSERT_TRUE(ReduceInto(c.t, c.op, right.data(), e.data(), n).ok());  // op(x, e)
  for (uint64_t i = 0; i < n; ++i) {
    const unsigned char* xi = x.data() + i * size;
    if (!IdentityPromised(c, xi)) continue;
    unsigned char want[16];
    std::memcpy(want, xi, size);
    if (c.t == kBool) want[0] = xi[0] != 0;  // bool results are normalized to 0/1
    ASSERT_TRUE(SameElement(c.t, left.data() + i * size, want))
        << CaseName(c) << " op(e, " << ElementHex(c.t, xi)
        << ") = " << ElementHex(c.t, left.data() + i * size);
    ASSERT_TRUE(SameElement(c.t, right.data() + i * size, want))
        << CaseName(c) << " op(" << ElementHex(c.t, xi)
        << ", e) = " << ElementHex(c.t, right.data() + i * size);
  }
}

INSTANTIATE_TEST_SUITE_P(AllDtypesAndOps, IdentityTest, testing::ValuesIn(AllElementCases()),
                         [](const testing::TestParamInfo<OpCase>& info) {
                           return CaseName(info.param);
                         });

// R -> P(sum) -> R: coordinate 0 keeps x, the other ranks hold the identity, and the sum over
// ranks (in any order) is x bit for bit, -0.0 included.
TEST(IdentitySum, NegativeZeroSurvivesTheSumConjugate) {
  const std::pair<DType, Bytes> cases[] = {
      {kF16, BytesOf<uint16_t>({0x8000, 0x0000, 0x3c00})},
      {kBF16, BytesOf<uint16_t>({0x8000, 0x0000, 0xbf80})},
      {kF32, BytesOf<float>({-0.0f, 0.0f, 2.5f})},
      {kF64, BytesOf<double>({-0.0, 0.0, -7.0})},
      {kC64, BytesOf<float>({-0.0f, -0.0f, 0.0f, -0.0f, -0.0f, 3.0f})},
      {kC128, BytesOf<double>({-0.0, 0.0, -0.0, -0.0, 1.0, -0.0})}};
  for (const auto& [t, x] : cases) {
    const uint64_t n = x.size() / static_cast<uint64_t>(ItemSize(t));
    Bytes identity(x.size());
    ASSERT_TRUE(FillIdentity(t, ReduceOp::kSum, identity.data(), n).ok());
    Bytes acc = identity;  // rank 1 first, then rank 0's x, then ranks 2 and 3
    ASSERT_TRUE(ReduceInto(t, ReduceOp::kSum, acc.data(), x.data(), n).ok());
    for (int rank = 2; rank < 4; ++rank) {
      ASSERT_TRUE(ReduceInto(t, ReduceOp::kSum, acc.data(), identity.data(), n).ok());
    }
    EXPECT_EQ(acc, x) << DTypeName(t);
  }
}

}  // namespace
}  // namespace weft::device::host::test
