// What Layout::Create rejects (SPEC §2.3). Every rejection is kInvalidArgument with a
// message naming the offending argument, because the C ABI passes it on verbatim.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "placement/layout.hpp"
#include "tests/placement/placement_test_util.hpp"

namespace weft::placement {
namespace {

using testing::kBool;
using testing::kF32;
using testing::kI32;
using testing::MakeMesh;
using testing::RejectedNaming;
using testing::TryLayout;

const Placement R = Replicate{};
Placement S(int32_t d) { return Shard{d}; }
Placement P(ReduceOp op) { return Partial{op}; }

TEST(LayoutValidationTest, ShardDimOutOfRange) {
  const MeshPtr mesh = MakeMesh({2, 2});
  EXPECT_TRUE(RejectedNaming(TryLayout(mesh, {4, 4}, {S(0), S(2)}).status(),
                             "placements[1] shards tensor dim 2 but the tensor has 2 dims"));
  EXPECT_TRUE(RejectedNaming(TryLayout(mesh, {4, 4}, {S(-1), R}).status(), "placements[0]"));
  EXPECT_TRUE(RejectedNaming(TryLayout(mesh, {}, {R, S(0)}).status(), "placements[1]"));
}

TEST(LayoutValidationTest, PlacementCountMustMatchTheMesh) {
  const MeshPtr mesh = MakeMesh({2, 2});
  EXPECT_TRUE(RejectedNaming(TryLayout(mesh, {4}, {S(0)}).status(), "placements has 1"));
  EXPECT_TRUE(RejectedNaming(TryLayout(mesh, {4}, {R, R, R}).status(), "placements has 3"));
}

TEST(LayoutValidationTest, NegativeExtent) {
  EXPECT_TRUE(
      RejectedNaming(TryLayout(MakeMesh({2}), {3, -1}, {S(0)}).status(), "global_shape[1] is -1"));
}

TEST(LayoutValidationTest, ShapesTooLargeOrTooManyDims) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_TRUE(
      RejectedNaming(TryLayout(MakeMesh({2}), {kMax}, {R}).status(), "global_shape"));  // f32
  EXPECT_TRUE(
      RejectedNaming(TryLayout(MakeMesh({2}), {1 << 20, 1 << 20, 1 << 20, 1 << 20}, {R}).status(),
                     "global_shape"));
  EXPECT_TRUE(RejectedNaming(TryLayout(MakeMesh({2}), std::vector<int64_t>(33, 1), {R}).status(),
                             "ndim is 33"));
  EXPECT_TRUE(TryLayout(MakeMesh({2}), std::vector<int64_t>(32, 1), {R}).ok());
}

TEST(LayoutValidationTest, UnmovableDtype) {
  EXPECT_TRUE(RejectedNaming(
      TryLayout(MakeMesh({2}), {4}, {R}, {}, DType{kCodeFloat, 32, 2}).status(), "dtype"));
  EXPECT_TRUE(RejectedNaming(TryLayout(MakeMesh({2}), {4}, {R}, {}, DType{kCodeInt, 4, 1}).status(),
                             "dtype"));
}

TEST(LayoutValidationTest, NullMesh) {
  EXPECT_TRUE(RejectedNaming(TryLayout(nullptr, {4}, {}).status(), "mesh"));
}

TEST(LayoutValidationTest, PartialOpsAgainstDtypes) {
  const MeshPtr mesh = MakeMesh({2});
  EXPECT_TRUE(RejectedNaming(TryLayout(mesh, {4}, {P(ReduceOp::kAvg)}, {}, kI32).status(),
                             "placements[0] is P(avg) on dtype int32"));
  EXPECT_TRUE(RejectedNaming(TryLayout(mesh, {4}, {P(ReduceOp::kAvg)}, {}, kBool).status(),
                             "placements[0]"));
  EXPECT_TRUE(RejectedNaming(TryLayout(mesh, {4}, {P(ReduceOp::kSum)}, {}, kBool).status(),
                             "placements[0] is P(sum) on dtype bool"));
  EXPECT_TRUE(RejectedNaming(TryLayout(mesh, {4}, {P(ReduceOp::kProd)}, {}, kBool).status(),
                             "placements[0]"));
  // Bool allows max (or) and min (and); integers allow sum, prod, max, min.
  EXPECT_TRUE(TryLayout(mesh, {4}, {P(ReduceOp::kMax)}, {}, kBool).ok());
  EXPECT_TRUE(TryLayout(mesh, {4}, {P(ReduceOp::kMin)}, {}, kBool).ok());
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMax, ReduceOp::kMin})
    EXPECT_TRUE(TryLayout(mesh, {4}, {P(op)}, {}, kI32).ok()) << ReduceOpName(op);
  for (int32_t op = 0; op < kNumReduceOps; ++op)
    EXPECT_TRUE(TryLayout(mesh, {4}, {P(static_cast<ReduceOp>(op))}, {}, kF32).ok()) << op;
  // Complex numbers have no order.
  EXPECT_TRUE(RejectedNaming(
      TryLayout(mesh, {4}, {P(ReduceOp::kMax)}, {}, DType{kCodeComplex, 64, 1}).status(),
      "placements[0]"));
}

TEST(LayoutValidationTest, PartialOnSeveralMeshDimsMustShareAnOp) {
  const MeshPtr mesh = MakeMesh({2, 2, 2});
  EXPECT_TRUE(
      RejectedNaming(TryLayout(mesh, {4}, {P(ReduceOp::kSum), R, P(ReduceOp::kMax)}).status(),
                     "placements[2] is P(max) but placements[0] is P(sum)"));
  EXPECT_TRUE(RejectedNaming(
      TryLayout(mesh, {4}, {P(ReduceOp::kSum), P(ReduceOp::kAvg), P(ReduceOp::kProd)}).status(),
      "placements[2]"));
  EXPECT_TRUE(TryLayout(mesh, {4}, {P(ReduceOp::kSum), P(ReduceOp::kAvg), S(0)}).ok());
  EXPECT_TRUE(TryLayout(mesh, {4}, {P(ReduceOp::kAvg), S(0), P(ReduceOp::kSum)}).ok());
  EXPECT_TRUE(TryLayout(mesh, {4}, {P(ReduceOp::kMin), P(ReduceOp::kMin), R}).ok());
}

TEST(LayoutValidationTest, ExplicitSizesMustSumToTheExtent) {
  const MeshPtr mesh = MakeMesh({3});
  EXPECT_TRUE(RejectedNaming(TryLayout(mesh, {6}, {S(0)}, {{{1, 2, 2}}}).status(),
                             "split_sizes[0] sums to 5 but global_shape[0] is 6"));
  EXPECT_TRUE(RejectedNaming(TryLayout(mesh, {6}, {S(0)}, {{{4, 4, 0}}}).status(),
                             "split_sizes[0][1] is 4"));
  EXPECT_TRUE(RejectedNaming(TryLayout(mesh, {6}, {S(0)}, {{{3, -1, 4}}}).status(),
                             "split_sizes[0][1] is -1"));
}

TEST(LayoutValidationTest, ExplicitSizesNeedOneEntryPerPiece) {
  EXPECT_TRUE(RejectedNaming(TryLayout(MakeMesh({3}), {6}, {S(0)}, {{{3, 3}}}).status(),
                             "split_sizes[0] has 2 entries"));
  // Nested: 2x3 mesh dims both shard dim 0, so 6 pieces.
  EXPECT_TRUE(RejectedNaming(TryLayout(MakeMesh({2, 3}), {6}, {S(0), S(0)}, {{{3, 3}}}).status(),
                             "cut into 6 pieces"));
  EXPECT_TRUE(RejectedNaming(TryLayout(MakeMesh({3}), {6, 2}, {S(0)}, {{{2, 2, 2}}}).status(),
                             "split_sizes has 1 entries but the tensor has 2 dims"));
}

TEST(LayoutValidationTest, UnshardedDimTakesOnlyItsExtent) {
  const MeshPtr mesh = MakeMesh({2});
  EXPECT_TRUE(RejectedNaming(TryLayout(mesh, {4, 6}, {S(0)}, {std::nullopt, {{3, 3}}}).status(),
                             "split_sizes[1] has 2 entries"));
  EXPECT_TRUE(RejectedNaming(TryLayout(mesh, {4, 6}, {S(0)}, {std::nullopt, {{5}}}).status(),
                             "split_sizes[1] sums to 5"));
  auto ok = TryLayout(mesh, {4, 6}, {S(0)}, {std::nullopt, {{6}}});
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_FALSE((*ok)->split(1).is_explicit());
}

}  // namespace
}  // namespace weft::placement
