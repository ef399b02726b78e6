// weft::CopyBytes has memmove's result for every size, address skew and overlap, including
// the skews it copies with its own loop (destination 1..63 bytes past the source mod 4 KiB).
#include "common/copy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

uint8_t Value(size_t i) { return static_cast<uint8_t>((i * 131 + 7) % 251); }

TEST(CopyBytes, MatchesMemmoveAtEverySkewAndSize) {
  const std::vector<size_t> sizes = {
      0, 1, 63, 64, 127, 129, 1000, 1024, 1025, 4096, (128 << 10) + 5, (600 << 10) + 3};
  const std::vector<size_t> skews = {0, 1, 15, 16, 31, 32, 63, 64, 100, 4095};
  std::vector<uint8_t> src(700 << 10), dst((700 << 10) + 8192);
  for (size_t i = 0; i < src.size(); ++i) src[i] = Value(i);
  // Destination offsets chosen so that (dst - src) mod 4096 takes each skew.
  const auto base_skew =
      (reinterpret_cast<uintptr_t>(dst.data()) - reinterpret_cast<uintptr_t>(src.data())) & 4095;
  for (size_t n : sizes)
    for (size_t skew : skews) {
      const size_t off = (skew + 4096 - base_skew) & 4095;
      ASSERT_EQ((reinterpret_cast<uintptr_t>(dst.data() + off) -
                 reinterpret_cast<uintptr_t>(src.data() + 0)) &
                    4095,
                skew);
      std::fill(dst.begin(), dst.end(), 0xEE);
      weft::CopyBytes(dst.data() + off, src.data(), n);
      size_t wrong = dst.size();  // the first byte that differs from memmove's result
      for (size_t i = 0; i < dst.size() && wrong == dst.size(); ++i)
        if (dst[i] != (i >= off && i < off + n ? Value(i - off) : 0xEE)) wrong = i;
      ASSERT_EQ(wrong, dst.size()) << "size " << n << " skew " << skew;
    }
}

TEST(CopyBytes, OverlappingRegionsMoveLikeMemmove) {
  for (size_t n : {size_t{100}, size_t{5000}, size_t{200 << 10}})
    for (long shift : {-4095L, -64L, -16L, -1L, 1L, 16L, 63L, 4097L}) {
      std::vector<uint8_t> a(n + 16384);
      for (size_t i = 0; i < a.size(); ++i) a[i] = Value(i);
      uint8_t* from = a.data() + 8192;
      weft::CopyBytes(from + shift, from, n);
      // memmove's result, from the formula: the moved range holds the source's original
      // bytes, everything else is untouched. (Not memmove itself: GCC 12 cannot bound n
      // there and stops the -O2 build with a false -Wstringop-overflow.)
      const size_t to = static_cast<size_t>(8192 + shift);
      size_t wrong = a.size();
      for (size_t i = 0; i < a.size() && wrong == a.size(); ++i)
        if (a[i] != (i >= to && i < to + n ? Value(i - to + 8192) : Value(i))) wrong = i;
      ASSERT_EQ(wrong, a.size()) << "size " << n << " shift " << shift;
    }
}

TEST(CopyBytes, SkewedIsOneToSixtyThreeBytesAhead) {
  alignas(4096) static char page[3 * 4096];
  EXPECT_FALSE(weft::SkewedCopy(page + 4096, page));
  EXPECT_TRUE(weft::SkewedCopy(page + 4096 + 1, page));
  EXPECT_TRUE(weft::SkewedCopy(page + 16, page));
  EXPECT_TRUE(weft::SkewedCopy(page + 63, page));
  EXPECT_FALSE(weft::SkewedCopy(page + 64, page));
  EXPECT_FALSE(weft::SkewedCopy(page, page + 16));    // behind is fine
  EXPECT_FALSE(weft::SlowCopySkew(page + 64, page));  // whatever the processor
}

#if defined(__x86_64__)
// The vector loops CopyBytes takes at those skews where they are slow (not on every
// processor that runs this), each against memmove at every skew and size.
TEST(CopyBytes, VectorLoopsMatchMemmove) {
  std::vector<uint8_t> src(300 << 10), dst((300 << 10) + 8192);
  for (size_t i = 0; i < src.size(); ++i) src[i] = Value(i);
  for (size_t n : {size_t{0}, size_t{63}, size_t{64}, size_t{129}, size_t{1024}, size_t{4097},
                   size_t{(256 << 10) + 77}})
    for (size_t off : {size_t{0}, size_t{1}, size_t{16}, size_t{63}, size_t{100}})
      for (int avx2 = 0; avx2 < 2; ++avx2) {
        if (avx2 && !weft::copy_detail::HasAvx2()) continue;
        std::fill(dst.begin(), dst.end(), 0xEE);
        char* d = reinterpret_cast<char*>(dst.data()) + off;
        const char* s = reinterpret_cast<const char*>(src.data());
        if (avx2)
          weft::copy_detail::LoopAvx2(d, s, n);
        else
          weft::copy_detail::LoopSse2(d, s, n);
        for (size_t i = 0; i < dst.size(); ++i)
          ASSERT_EQ(dst[i], i >= off && i < off + n ? Value(i - off) : 0xEE)
              << "size " << n << " offset " << off << (avx2 ? " avx2" : " sse2") << " byte " << i;
      }
}
#endif

}  // namespace
