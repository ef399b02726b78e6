// The host operations' Copy and Fill on random N-D regions (any dim order, padding, mirrored
// dims, repeated source cells, unaligned cells) for every item size, checked cell by cell
// against the address formula, and that no byte outside the destination's cells changes.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "device/host/host_ops.hpp"
#include "device/ops.hpp"
#include "tests/device/host/random_regions.hpp"

namespace weft::device::host::test {
namespace {

constexpr int64_t kItems[] = {1, 2, 3, 4, 8, 16, 32};
const Target kHost{};

// What Copy must leave in dst's buffer: its old bytes, with every cell replaced by src's cell.
std::vector<char> ExpectedCopy(const Operand& dst, const Operand& src, const TestShape& s) {
  std::vector<char> want = dst.mem;
  for (int64_t i = 0; i < s.Volume(); ++i)
    std::memcpy(want.data() + CellByte(dst, s, i), src.mem.data() + CellByte(src, s, i),
                static_cast<size_t>(dst.item));
  return want;
}

void CheckCopy(const TestShape& s, int64_t item, bool compact, std::mt19937_64& g) {
  Operand dst = Place(s, item, /*repeat=*/false, compact, g);
  Operand src = Place(s, item, /*repeat=*/!compact, compact, g);
  const std::vector<char> want = ExpectedCopy(dst, src, s);
  ASSERT_TRUE(HostOps::Get().Copy(kHost, RegionOf(dst), RegionOf(src), s.view(), item).ok());
  ASSERT_EQ(dst.mem, want) << "ndim " << s.ndim << " volume " << s.Volume() << " item " << item;
}

TEST(HostCopy, RandomRegionsEveryItemSize) {
  std::mt19937_64 g(7);
  for (const int64_t item : kItems)
    for (int n = 0; n < 300; ++n) {
      SCOPED_TRACE("item " + std::to_string(item) + " case " + std::to_string(n));
      CheckCopy(RandomShape(g, 5, 5), item, /*compact=*/false, g);
    }
}

// Compact on both sides: the rows merge into one run per box (the memcpy fast path), also for
// runs long enough for CopyBytes' vector loop.
TEST(HostCopy, CompactRegionsMergeIntoRuns) {
  std::mt19937_64 g(11);
  for (const int64_t item : kItems)
    for (int n = 0; n < 50; ++n) CheckCopy(RandomShape(g, 4, 7), item, /*compact=*/true, g);
  TestShape big;
  big.ndim = 3;
  big.extent = {3, 5, 700};
  for (const int64_t item : kItems) CheckCopy(big, item, /*compact=*/true, g);
}

TEST(HostCopy, ZeroDimsIsOneCellAndEmptyShapesTouchNothing) {
  std::mt19937_64 g(3);
  CheckCopy(TestShape{}, 8, false, g);
  TestShape empty;
  empty.ndim = 3;
  empty.extent = {4, 0, 2};
  ASSERT_TRUE(HostOps::Get().Copy(kHost, Region{}, ConstRegion{}, empty.view(), 4).ok());
}

void CheckFill(const TestShape& s, int64_t item, bool zero, std::mt19937_64& g) {
  Operand dst = Place(s, item, false, Pick(g, 0, 1) == 1, g);
  std::vector<char> element(static_cast<size_t>(item), 0);
  if (!zero)
    for (char& c : element) c = static_cast<char>(Pick(g, 0, 255));
  std::vector<char> want = dst.mem;
  for (int64_t i = 0; i < s.Volume(); ++i)
    std::memcpy(want.data() + CellByte(dst, s, i), element.data(), static_cast<size_t>(item));
  ASSERT_TRUE(HostOps::Get().Fill(kHost, RegionOf(dst), s.view(), element.data(), item).ok());
  ASSERT_EQ(dst.mem, want) << "ndim " << s.ndim << " item " << item << " zero " << zero;
}

TEST(HostFill, RandomRegionsEveryItemSizeZeroAndNot) {
  std::mt19937_64 g(5);
  for (const int64_t item : kItems)
    for (int n = 0; n < 200; ++n) {
      SCOPED_TRACE("item " + std::to_string(item) + " case " + std::to_string(n));
      CheckFill(RandomShape(g, 5, 6), item, n % 3 == 0, g);
    }
}

TEST(HostOpsErrors, BadArgumentsNameThemselves) {
  HostOps& ops = HostOps::Get();
  char cell[64] = {};
  const int64_t strides[1] = {1};
  Region r{cell, strides};
  ConstRegion c{cell, strides};
  Shape one;
  int stream = 0;
  const Status s1 = ops.Copy(Target{{kDLCPU, 0}, &stream}, r, c, one, 4);
  EXPECT_EQ(s1.code(), Code::kInvalidArgument);
  EXPECT_NE(s1.message().find("stream"), std::string::npos) << s1.message();
  Shape deep;
  deep.ndim = kMaxDims + 1;
  const Status s2 = ops.Fill(kHost, r, deep, cell, 4);
  EXPECT_EQ(s2.code(), Code::kInvalidArgument);
  EXPECT_NE(s2.message().find("ndim is 33"), std::string::npos) << s2.message();
  const Status s3 = ops.Fill(kHost, r, one, cell, kMaxItemBytes + 1);
  EXPECT_EQ(s3.code(), Code::kInvalidArgument);
  EXPECT_NE(s3.message().find("item is 33"), std::string::npos) << s3.message();
  const Status s4 = ops.Copy(kHost, Region{}, c, one, 4);
  EXPECT_EQ(s4.code(), Code::kInvalidArgument);
  EXPECT_NE(s4.message().find("dst.data is NULL"), std::string::npos) << s4.message();
  TestShape negative;
  negative.ndim = 1;
  negative.extent[0] = -2;
  const Status s5 = ops.Copy(kHost, r, c, negative.view(), 4);
  EXPECT_EQ(s5.code(), Code::kInvalidArgument);
  EXPECT_NE(s5.message().find("shape.extent[0] is -2"), std::string::npos) << s5.message();
  EXPECT_EQ(ops.Copy(kHost, r, c, one, 0).code(), Code::kInvalidArgument);
  const TestShape two{1, {2}};
  const Status s6 = ops.Copy(kHost, r, ConstRegion{cell, nullptr}, two.view(), 4);
  EXPECT_EQ(s6.code(), Code::kInvalidArgument);
  EXPECT_NE(s6.message().find("src.stride is NULL"), std::string::npos) << s6.message();
  EXPECT_EQ(ops.Fill(kHost, r, one, nullptr, 4).code(), Code::kInvalidArgument);
}

TEST(HostTransfers, ToHostFromHostCopyBytesAndSynchronizeHasNothingToWait) {
  HostOps& ops = HostOps::Get();
  std::vector<char> a(1000), b(1000, 0), c(1000, 0);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<char>(i * 7 + 3);
  ASSERT_TRUE(ops.ToHost(kHost, b.data(), a.data(), a.size()).ok());
  ASSERT_TRUE(ops.FromHost(kHost, c.data(), b.data(), b.size()).ok());
  EXPECT_EQ(c, a);
  EXPECT_TRUE(ops.ToHost(kHost, nullptr, nullptr, 0).ok());  // nothing to move
  EXPECT_TRUE(ops.Synchronize(kHost).ok());
  const Status s = ops.ToHost(kHost, nullptr, a.data(), 4);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("NULL"), std::string::npos) << s.message();
  int stream = 0;
  EXPECT_EQ(ops.Synchronize(Target{{kDLCPU, 0}, &stream}).code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace weft::device::host::test
