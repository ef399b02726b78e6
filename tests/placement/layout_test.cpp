// Layouts (SPEC §2.2, §2.3): local shapes and global offsets of every rank under chunk,
// nested and explicit splits, and layout equality. Expected values are literal or come from
// the reference rules in placement_test_util.hpp.
#include "placement/layout.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "tests/placement/placement_test_util.hpp"

namespace weft::placement {
namespace {

using testing::BlockOf;
using testing::kF32;
using testing::MakeLayout;
using testing::MakeMesh;
using testing::PiecesByRank;
using testing::RefExplicit;
using testing::RefNestedChunk;
using testing::RefPiece;
using Pieces = std::vector<RefPiece>;

const Placement R = Replicate{};
Placement S(int32_t d) { return Shard{d}; }
Placement P(ReduceOp op = ReduceOp::kSum) { return Partial{op}; }

TEST(LayoutTest, FlatChunkMatchesTorchChunk) {
  const MeshPtr four = MakeMesh({4});
  EXPECT_EQ(PiecesByRank(*MakeLayout(four, {5}, {S(0)}), 0),
            (Pieces{{0, 2}, {2, 2}, {4, 1}, {5, 0}}));
  EXPECT_EQ(PiecesByRank(*MakeLayout(four, {9}, {S(0)}), 0),
            (Pieces{{0, 3}, {3, 3}, {6, 3}, {9, 0}}));
  EXPECT_EQ(PiecesByRank(*MakeLayout(four, {3}, {S(0)}), 0),
            (Pieces{{0, 1}, {1, 1}, {2, 1}, {3, 0}}));
  EXPECT_EQ(PiecesByRank(*MakeLayout(MakeMesh({8}), {17}, {S(0)}), 0),
            (Pieces{{0, 3}, {3, 3}, {6, 3}, {9, 3}, {12, 3}, {15, 2}, {17, 0}, {17, 0}}));
}

TEST(LayoutTest, NestedChunkDiffersFromFlat) {
  // 5 rows, [S0, S0] on 2x2: 5 -> (3, 2) -> (2, 1), (1, 1). Flat over 4 gives 2, 2, 1, 0.
  const LayoutPtr nested = MakeLayout(MakeMesh({2, 2}), {5}, {S(0), S(0)});
  EXPECT_EQ(PiecesByRank(*nested, 0), (Pieces{{0, 2}, {2, 1}, {3, 1}, {4, 1}}));
  EXPECT_EQ(nested->ResolvedSizes(0), (std::vector<int64_t>{2, 1, 1, 1}));
  const LayoutPtr flat = MakeLayout(MakeMesh({4}), {5}, {S(0)});
  EXPECT_EQ(flat->ResolvedSizes(0), (std::vector<int64_t>{2, 2, 1, 0}));
}

TEST(LayoutTest, NestedEmptyPiecesSitAtTheGlobalExtent) {
  // 2 rows on 2x2 [S0, S0]: (1, 1) -> (1, 0), (1, 0). The empty pieces would start at 1 and 2
  // within their parents, but SPEC §2.2 puts every empty piece at the global extent.
  EXPECT_EQ(PiecesByRank(*MakeLayout(MakeMesh({2, 2}), {2}, {S(0), S(0)}), 0),
            (Pieces{{0, 1}, {2, 0}, {1, 1}, {2, 0}}));
  EXPECT_EQ(PiecesByRank(*MakeLayout(MakeMesh({2, 2}), {3}, {S(0), S(0)}), 0),
            (Pieces{{0, 1}, {1, 1}, {2, 1}, {3, 0}}));
}

TEST(LayoutTest, TwoDimsOnATwoDimMesh) {
  const LayoutPtr layout = MakeLayout(MakeMesh({2, 2}), {5, 8}, {S(0), S(1)});
  EXPECT_EQ(layout->num_elements(), 40);
  const std::vector<std::vector<int64_t>> shapes = {{3, 4}, {3, 4}, {2, 4}, {2, 4}};
  const std::vector<std::vector<int64_t>> offsets = {{0, 0}, {0, 4}, {3, 0}, {3, 4}};
  for (int32_t r = 0; r < 4; ++r) {
    EXPECT_EQ(BlockOf(*layout, r).shape, shapes[r]) << "rank " << r;
    EXPECT_EQ(BlockOf(*layout, r).offset, offsets[r]) << "rank " << r;
  }
  // Swapped: mesh dim 0 cuts columns, mesh dim 1 rows.
  const LayoutPtr swapped = MakeLayout(MakeMesh({2, 2}), {5, 8}, {S(1), S(0)});
  EXPECT_EQ(BlockOf(*swapped, 1).shape, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(BlockOf(*swapped, 1).offset, (std::vector<int64_t>{3, 0}));
  EXPECT_EQ(BlockOf(*swapped, 2).offset, (std::vector<int64_t>{0, 4}));
}

TEST(LayoutTest, ThreeDimMeshWithNonAdjacentNesting) {
  // Mesh dims 0 and 2 both shard tensor dim 0; mesh dim 1 shards dim 1.
  const std::vector<int64_t> mesh_shape = {2, 3, 2};
  const LayoutPtr layout = MakeLayout(MakeMesh(mesh_shape), {7, 5}, {S(0), S(1), S(0)});
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 3; ++b)
      for (int64_t c = 0; c < 2; ++c) {
        const int32_t rank = static_cast<int32_t>(a * 6 + b * 2 + c);
        const RefPiece rows = RefNestedChunk(7, {2, 2}, {a, c});
        const RefPiece cols = RefNestedChunk(5, {3}, {b});
        EXPECT_EQ(BlockOf(*layout, rank).shape, (std::vector<int64_t>{rows.size, cols.size}));
        EXPECT_EQ(BlockOf(*layout, rank).offset, (std::vector<int64_t>{rows.offset, cols.offset}));
      }
  EXPECT_EQ(layout->ResolvedSizes(0), (std::vector<int64_t>{2, 2, 2, 1}));
  EXPECT_EQ(layout->ResolvedSizes(1), (std::vector<int64_t>{2, 2, 1}));
}

TEST(LayoutTest, ReplicateAndPartialDimsDoNotSplit) {
  const LayoutPtr layout = MakeLayout(MakeMesh({2, 3, 2}), {6, 4}, {R, S(1), P()});
  for (int32_t r = 0; r < 12; ++r) {
    const int64_t b = (r / 2) % 3;
    const RefPiece cols = RefNestedChunk(4, {3}, {b});
    EXPECT_EQ(BlockOf(*layout, r).shape, (std::vector<int64_t>{6, cols.size})) << r;
    EXPECT_EQ(BlockOf(*layout, r).offset, (std::vector<int64_t>{0, cols.offset})) << r;
  }
  EXPECT_EQ(layout->split(0).pieces, 1);
  EXPECT_EQ(layout->split(1).pieces, 3);
}

TEST(LayoutTest, ZeroSizeTensors) {
  const LayoutPtr layout = MakeLayout(MakeMesh({2, 2}), {0, 3}, {S(0), S(1)});
  EXPECT_EQ(layout->num_elements(), 0);
  EXPECT_EQ(PiecesByRank(*layout, 0), (Pieces{{0, 0}, {0, 0}, {0, 0}, {0, 0}}));
  EXPECT_EQ(PiecesByRank(*layout, 1), (Pieces{{0, 2}, {2, 1}, {0, 2}, {2, 1}}));
  const LayoutPtr nested = MakeLayout(MakeMesh({2, 3}), {0}, {S(0), S(0)});
  EXPECT_EQ(nested->ResolvedSizes(0), (std::vector<int64_t>(6, 0)));
  EXPECT_EQ(BlockOf(*nested, 5).offset, (std::vector<int64_t>{0}));
  // Explicit all-empty split of an empty dim.
  const LayoutPtr ragged = MakeLayout(MakeMesh({2}), {0}, {S(0)}, {{{0, 0}}});
  EXPECT_EQ(PiecesByRank(*ragged, 0), (Pieces{{0, 0}, {0, 0}}));
}

TEST(LayoutTest, ScalarTensorHasNoDims) {
  const LayoutPtr layout = MakeLayout(MakeMesh({3}), {}, {P(ReduceOp::kMax)});
  EXPECT_EQ(layout->ndim(), 0);
  EXPECT_EQ(layout->num_elements(), 1);
  EXPECT_TRUE(layout->LocalBlock(2, nullptr, nullptr));
  EXPECT_FALSE(layout->LocalBlock(3, nullptr, nullptr));
}

TEST(LayoutTest, ExplicitSplitWithEmptyPieces) {
  const std::vector<int64_t> sizes = {3, 0, 4, 1};
  const LayoutPtr layout = MakeLayout(MakeMesh({4}), {8}, {S(0)}, {sizes});
  EXPECT_TRUE(layout->split(0).is_explicit());
  EXPECT_EQ(PiecesByRank(*layout, 0), (Pieces{{0, 3}, {8, 0}, {3, 4}, {7, 1}}));
  for (int32_t r = 0; r < 4; ++r)
    EXPECT_EQ(PiecesByRank(*layout, 0)[r], RefExplicit(sizes, r)) << r;
  EXPECT_EQ(layout->ResolvedSizes(0), sizes);
}

TEST(LayoutTest, ExplicitNestedSplitIsIndexedRowMajor) {
  // [S0, S0] on 2x2: pieces indexed by (coord0, coord1) row-major.
  const LayoutPtr layout = MakeLayout(MakeMesh({2, 2}), {5}, {S(0), S(0)}, {{{0, 3, 2, 0}}});
  EXPECT_EQ(PiecesByRank(*layout, 0), (Pieces{{5, 0}, {0, 3}, {3, 2}, {5, 0}}));
  // Non-adjacent mesh dims 0 and 2 (extents 2 and 3) shard dim 1: piece = c0·3 + c2.
  const std::vector<int64_t> sizes = {1, 0, 2, 0, 4, 3};
  const LayoutPtr wide =
      MakeLayout(MakeMesh({2, 2, 3}), {4, 10}, {S(1), S(0), S(1)}, {std::nullopt, sizes});
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t c = 0; c < 3; ++c) {
        const int32_t rank = static_cast<int32_t>(a * 6 + b * 3 + c);
        const RefPiece rows = RefNestedChunk(4, {2}, {b});
        const RefPiece cols = RefExplicit(sizes, a * 3 + c);
        EXPECT_EQ(BlockOf(*wide, rank).shape, (std::vector<int64_t>{rows.size, cols.size}));
        EXPECT_EQ(BlockOf(*wide, rank).offset, (std::vector<int64_t>{rows.offset, cols.offset}));
      }
}

TEST(LayoutTest, ExplicitSplitEqualToChunkIsTheSameLayout) {
  const MeshPtr mesh = MakeMesh({2, 2});
  const LayoutPtr chunk = MakeLayout(mesh, {5, 6}, {S(0), S(0)});
  const LayoutPtr given = MakeLayout(mesh, {5, 6}, {S(0), S(0)}, {{{2, 1, 1, 1}}, {{6}}});
  EXPECT_FALSE(given->split(0).is_explicit());
  EXPECT_TRUE(chunk->SameAs(*given));
  EXPECT_TRUE(given->SameAs(*chunk));
  EXPECT_EQ(PiecesByRank(*given, 0), PiecesByRank(*chunk, 0));
  // The flat chunk sizes (2, 2, 1, 0) are a different, explicit layout on a nested split.
  const LayoutPtr other = MakeLayout(mesh, {5, 6}, {S(0), S(0)}, {{{2, 2, 1, 0}}, std::nullopt});
  EXPECT_TRUE(other->split(0).is_explicit());
  EXPECT_FALSE(chunk->SameAs(*other));
}

TEST(LayoutTest, EqualityIgnoresMeshDimNames) {
  const LayoutPtr a = MakeLayout(MakeMesh({2, 2}, std::nullopt, {"dp", "tp"}), {4, 4}, {S(0), R});
  const LayoutPtr b = MakeLayout(MakeMesh({2, 2}), {4, 4}, {S(0), R});
  EXPECT_TRUE(a->SameAs(*b));
}

TEST(LayoutTest, EqualityComparesEveryPart) {
  const MeshPtr mesh = MakeMesh({2, 2});
  const LayoutPtr base = MakeLayout(mesh, {4, 4}, {S(0), R});
  EXPECT_FALSE(base->SameAs(*MakeLayout(mesh, {4, 5}, {S(0), R})));
  EXPECT_FALSE(base->SameAs(*MakeLayout(mesh, {4, 4}, {S(1), R})));
  EXPECT_FALSE(base->SameAs(*MakeLayout(mesh, {4, 4}, {S(0), P()})));
  EXPECT_FALSE(base->SameAs(*MakeLayout(mesh, {4, 4}, {S(0), R}, {}, testing::kI32)));
  EXPECT_FALSE(base->SameAs(*MakeLayout(mesh, {4, 4}, {S(0), R}, {{{1, 3}}, std::nullopt})));
  EXPECT_FALSE(base->SameAs(
      *MakeLayout(MakeMesh({2, 2}, std::vector<int32_t>{0, 1, 3, 2}), {4, 4}, {S(0), R})));
  EXPECT_FALSE(base->SameAs(*MakeLayout(MakeMesh({4}), {4, 4}, {S(0)})));
}

TEST(LayoutTest, RanksOutsideTheMeshHoldNothing) {
  const LayoutPtr layout =
      MakeLayout(MakeMesh({2, 2}, std::vector<int32_t>{10, 11, 12, 13}), {5, 8}, {S(0), S(1)});
  for (int32_t rank : {0, 9, 14, 1 << 30}) {
    int64_t shape[2] = {-1, -1}, offset[2] = {-1, -1};
    EXPECT_FALSE(layout->LocalBlock(rank, shape, offset));
    EXPECT_EQ(std::vector<int64_t>(shape, shape + 2), (std::vector<int64_t>{0, 0})) << rank;
    EXPECT_EQ(std::vector<int64_t>(offset, offset + 2), (std::vector<int64_t>{5, 8})) << rank;
  }
  EXPECT_EQ(BlockOf(*layout, 13).offset, (std::vector<int64_t>{3, 4}));
  const LayoutPtr dflt = MakeLayout(MakeMesh({4}), {6}, {S(0)});
  EXPECT_EQ(BlockOf(*dflt, 4), (testing::Block{{0}, {6}}));
}

TEST(LayoutTest, HugeExtentsSplitWithoutOverflow) {
  // An int8 dim of INT64_MAX elements is valid (its bytes fit in 64 bits).
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const DType i8{kCodeInt, 8, 1};
  const LayoutPtr whole = MakeLayout(MakeMesh({1}), {kMax}, {S(0)}, {}, i8);
  EXPECT_EQ(BlockOf(*whole, 0), (testing::Block{{kMax}, {0}}));
  const LayoutPtr halves = MakeLayout(MakeMesh({2}), {kMax}, {S(0)}, {}, i8);
  const int64_t c = kMax / 2 + 1;
  EXPECT_EQ(BlockOf(*halves, 0), (testing::Block{{c}, {0}}));
  EXPECT_EQ(BlockOf(*halves, 1), (testing::Block{{kMax - c}, {c}}));
}

}  // namespace
}  // namespace weft::placement
