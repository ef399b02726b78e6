// ReduceInto and Reduce3 for every (dtype, op), element by element against the independent
// reference, with unaligned buffers, odd counts and every aliasing shape.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "device/host/reduce/element_ops.hpp"
#include "device/host/reduce/reduce.hpp"
#include "device/host/reduce/reduce_loops.hpp"
#include "tests/device/host/reduce/reference_ops.hpp"

namespace weft::device::host::test {
namespace {

using Bytes = std::vector<unsigned char>;

// Checks got[i] == op(a[i], b[i]) and reports the first few differences.
void ExpectMatchesReference(const OpCase& c, const unsigned char* a, const unsigned char* b,
                            const unsigned char* got, uint64_t count) {
  const auto size = static_cast<uint64_t>(ItemSize(c.t));
  unsigned char want[16];
  int failures = 0;
  for (uint64_t i = 0; i < count && failures < 5; ++i) {
    RefElement(c.t, c.op, a + i * size, b + i * size, want);
    if (SameElement(c.t, got + i * size, want)) continue;
    ++failures;
    ADD_FAILURE() << CaseName(c) << " element " << i << ": op(" << ElementHex(c.t, a + i * size)
                  << ", " << ElementHex(c.t, b + i * size) << ") gave "
                  << ElementHex(c.t, got + i * size) << ", want " << ElementHex(c.t, want);
  }
}

class ReduceKernelTest : public testing::TestWithParam<OpCase> {
 protected:
  std::mt19937_64 gen_{20260611};
  Bytes Random(uint64_t count) { return RandomElements(GetParam().t, count, gen_); }
  uint64_t Size() const { return static_cast<uint64_t>(ItemSize(GetParam().t)); }
};

TEST_P(ReduceKernelTest, ReduceIntoMatchesReference) {
  const OpCase c = GetParam();
  const uint64_t n = 1000 + 3;
  const Bytes a = Random(n), b = Random(n);
  Bytes io = a;
  ASSERT_TRUE(ReduceInto(c.t, c.op, io.data(), b.data(), n).ok());
  ExpectMatchesReference(c, a.data(), b.data(), io.data(), n);
}

// The kernel plugins call directly (weft_bk_host_api_t.reduce_kernel): ReduceInto's loop, on
// separate buffers and in place.
TEST_P(ReduceKernelTest, DirectKernelMatchesReference) {
  const OpCase c = GetParam();
  const DirectReduceFn fn = ReduceKernel(c.t, c.op);
  ASSERT_NE(fn, nullptr);
  const uint64_t n = 1000 + 3;
  const Bytes a = Random(n), b = Random(n);
  Bytes io = a;
  fn(io.data(), b.data(), n);
  ExpectMatchesReference(c, a.data(), b.data(), io.data(), n);
  Bytes self = a;
  fn(self.data(), self.data(), n);
  ExpectMatchesReference(c, a.data(), a.data(), self.data(), n);
}

TEST_P(ReduceKernelTest, Reduce3MatchesReference) {
  const OpCase c = GetParam();
  const uint64_t n = 1000 + 3;
  const Bytes a = Random(n), b = Random(n);
  Bytes out(n * Size(), 0xcd);
  ASSERT_TRUE(Reduce3(c.t, c.op, out.data(), a.data(), b.data(), n).ok());
  ExpectMatchesReference(c, a.data(), b.data(), out.data(), n);
}

// Buffers at odd byte offsets (no element alignment) and counts that leave loop remainders;
// the bytes around the range must stay untouched.
TEST_P(ReduceKernelTest, UnalignedBuffersAndOddCounts) {
  const OpCase c = GetParam();
  for (const uint64_t n : {0, 1, 7, 1000 + 3}) {
    for (const uint64_t offset : {1, 3}) {
      const Bytes a = Random(n), b = Random(n);
      Bytes io(n * Size() + 2 * offset, 0xee), in(n * Size() + offset, 0);
      std::copy(a.begin(), a.end(), io.begin() + offset);  // memcpy from an empty vector's
      std::copy(b.begin(), b.end(), in.begin() + offset);  // NULL data() would be UB
      ASSERT_TRUE(ReduceInto(c.t, c.op, io.data() + offset, in.data() + offset, n).ok());
      ExpectMatchesReference(c, a.data(), b.data(), io.data() + offset, n);
      for (uint64_t k = 0; k < offset; ++k) {
        EXPECT_EQ(io[k], 0xee);
        EXPECT_EQ(io[offset + n * Size() + k], 0xee) << "wrote past the end, n=" << n;
      }
    }
  }
}

// Checks that two outputs agree element by element (NaN lanes match any NaN: which operand's
// payload survives is unspecified, as the compiler may commute a + b).
void ExpectSameElements(DType t, const Bytes& got, const Bytes& want, const char* what) {
  const auto size = static_cast<uint64_t>(ItemSize(t));
  ASSERT_EQ(got.size(), want.size());
  for (uint64_t i = 0; i < got.size() / size; ++i) {
    ASSERT_TRUE(SameElement(t, got.data() + i * size, want.data() + i * size))
        << what << ", element " << i << ": " << ElementHex(t, got.data() + i * size) << " vs "
        << ElementHex(t, want.data() + i * size);
  }
}

// out == a, out == b and out == a == b give what a separate output gets.
TEST_P(ReduceKernelTest, Reduce3AliasingMatchesSeparateOutput) {
  const OpCase c = GetParam();
  const uint64_t n = 257;
  const Bytes a = Random(n), b = Random(n);
  Bytes separate(n * Size());
  ASSERT_TRUE(Reduce3(c.t, c.op, separate.data(), a.data(), b.data(), n).ok());
  Bytes out_a = a;
  ASSERT_TRUE(Reduce3(c.t, c.op, out_a.data(), out_a.data(), b.data(), n).ok());
  ExpectSameElements(c.t, out_a, separate, "out == a");
  Bytes out_b = b;
  ASSERT_TRUE(Reduce3(c.t, c.op, out_b.data(), a.data(), out_b.data(), n).ok());
  ExpectSameElements(c.t, out_b, separate, "out == b");

  Bytes self = a, twice(n * Size());
  ASSERT_TRUE(Reduce3(c.t, c.op, twice.data(), a.data(), a.data(), n).ok());
  ExpectMatchesReference(c, a.data(), a.data(), twice.data(), n);
  ASSERT_TRUE(Reduce3(c.t, c.op, self.data(), self.data(), self.data(), n).ok());
  ExpectSameElements(c.t, self, twice, "out == a == b");
  Bytes into = a;
  ASSERT_TRUE(ReduceInto(c.t, c.op, into.data(), into.data(), n).ok());
  ExpectSameElements(c.t, into, twice, "ReduceInto with in == inout");
}

TEST_P(ReduceKernelTest, PartialOverlapIsRejectedAndWritesNothing) {
  const OpCase c = GetParam();
  const uint64_t n = 16;
  Bytes buf = Random(2 * n);
  const Bytes before = buf;
  unsigned char* p = buf.data();
  const uint64_t s = Size();
  EXPECT_EQ(ReduceInto(c.t, c.op, p, p + s, n).code(), Code::kInvalidArgument);
  EXPECT_EQ(ReduceInto(c.t, c.op, p + s, p, n).code(), Code::kInvalidArgument);
  EXPECT_EQ(Reduce3(c.t, c.op, p + s, p, p + n * s, n).code(), Code::kInvalidArgument);
  EXPECT_EQ(Reduce3(c.t, c.op, p, p + n * s, p + 1, n).code(), Code::kInvalidArgument);
  EXPECT_EQ(buf, before);
  // Adjacent is not overlapping.
  Bytes halves = before;
  EXPECT_TRUE(ReduceInto(c.t, c.op, halves.data(), halves.data() + n * s, n).ok());
  EXPECT_TRUE(Reduce3(c.t, c.op, halves.data() + n * s, halves.data(), halves.data(), n).ok());
  // Inputs may overlap each other: they are only read.
  Bytes out(n * s);
  EXPECT_TRUE(Reduce3(c.t, c.op, out.data(), p, p + s, n).ok());
  ExpectMatchesReference(c, p, p + s, out.data(), n);
}

INSTANTIATE_TEST_SUITE_P(AllDtypesAndOps, ReduceKernelTest, testing::ValuesIn(AllElementCases()),
                         [](const testing::TestParamInfo<OpCase>& info) {
                           return CaseName(info.param);
                         });

// On CPUs with AVX2 and F16C, ReduceInto runs float16/bfloat16 through the AVX2 loops; the
// portable loops (the only ones elsewhere) are checked here directly, on every machine.
template <class Codec, template <class> class Fn>
void ExpectPortableLoopMatchesReference(DType t, ReduceOp op) {
  using Loop = detail::Via32Fn<Codec, Fn>;
  std::mt19937_64 gen(31);
  const uint64_t n = 1000 + 3;
  const Bytes a = RandomElements(t, n, gen), b = RandomElements(t, n, gen);
  Bytes io = a, out(a.size());
  detail::RunLoop<Loop>(detail::Aliasing::kInto, io.data(), b.data(), nullptr, n);
  ExpectMatchesReference({t, op}, a.data(), b.data(), io.data(), n);
  detail::RunLoop<Loop>(detail::Aliasing::kThree, out.data(), a.data(), b.data(), n);
  ExpectMatchesReference({t, op}, a.data(), b.data(), out.data(), n);
}

template <class Codec>
void ExpectPortableLoopsMatchReference(DType t) {
  ExpectPortableLoopMatchesReference<Codec, detail::SumFn>(t, ReduceOp::kSum);
  ExpectPortableLoopMatchesReference<Codec, detail::ProdFn>(t, ReduceOp::kProd);
  ExpectPortableLoopMatchesReference<Codec, detail::MaxFn>(t, ReduceOp::kMax);
  ExpectPortableLoopMatchesReference<Codec, detail::MinFn>(t, ReduceOp::kMin);
}

TEST(PortableSixteenBitLoops, MatchTheReference) {
  ExpectPortableLoopsMatchReference<detail::HalfCodec>(kF16);
  ExpectPortableLoopsMatchReference<detail::Bfloat16Codec>(kBF16);
}

// ReduceKernel hands out a kernel exactly for the pairs ReduceInto accepts: none for avg,
// unknown ops, vector lanes or dtypes without kernels.
TEST(DirectKernel, NullExactlyWhereReduceIntoRejects) {
  int kernels = 0;
  for (uint8_t code = 0; code < 9; ++code)
    for (uint8_t bits : {0, 1, 8, 16, 24, 32, 64, 128, 255})
      for (uint16_t lanes : {1, 2})
        for (int32_t op = -1; op <= kNumReduceOps; ++op) {
          const DType t{code, bits, lanes};
          const auto o = static_cast<ReduceOp>(op);
          const bool accepted = ReduceInto(t, o, nullptr, nullptr, 0).ok();
          EXPECT_EQ(ReduceKernel(t, o) != nullptr, accepted)
              << "code " << int{code} << " bits " << int{bits} << " lanes " << lanes << " op "
              << op;
          kernels += accepted ? 1 : 0;
        }
  EXPECT_EQ(kernels, static_cast<int>(AllElementCases().size()));
}

}  // namespace
}  // namespace weft::device::host::test
