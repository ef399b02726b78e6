// common/fnv1a.hpp against the published FNV-1a 64-bit test vectors, and the framing of its
// integer and sequence forms (what a fingerprint relies on).
#include "common/fnv1a.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace weft {
namespace {

TEST(Fnv1a, PublishedVectors) {
  EXPECT_EQ(Fnv1a().value(), 0xcbf29ce484222325ull);
  EXPECT_EQ(Fnv1a().Text("a").value(), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(Fnv1a().Text("foobar").value(), 0x85944171f73967e8ull);
  const char bytes[] = {'f', 'o', 'o', 'b', 'a', 'r'};
  EXPECT_EQ(Fnv1a().Bytes(bytes, sizeof(bytes)).value(), 0x85944171f73967e8ull);
  static_assert(Fnv1a().Text("a").value() == 0xaf63dc4c8601ec8cull);  // usable at compile time
}

TEST(Fnv1a, AnIntegerIsItsEightBytesLeastSignificantFirst) {
  const unsigned char le[8] = {0x04, 0x03, 0x02, 0x01, 0, 0, 0, 0};
  EXPECT_EQ(Fnv1a().Int(0x01020304).value(), Fnv1a().Bytes(le, 8).value());
  EXPECT_NE(Fnv1a().Int(-1).value(), Fnv1a().Int(1).value());
}

TEST(Fnv1a, SequencesCarryTheirLength) {
  const std::vector<int> a = {1}, b = {2, 3}, c = {1, 2}, d = {3};
  EXPECT_NE(Fnv1a().Ints(a).Ints(b).value(), Fnv1a().Ints(c).Ints(d).value());
  EXPECT_EQ(Fnv1a().Ints(b).value(), Fnv1a().Int(2).Int(2).Int(3).value());
}

}  // namespace
}  // namespace weft
