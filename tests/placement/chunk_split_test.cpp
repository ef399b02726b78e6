// The default split must be torch.chunk exactly (SPEC §2.2): DTensor interoperability
// depends on every piece size and offset agreeing.
#include "placement/chunk_split.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "tests/placement/placement_test_util.hpp"

namespace weft::placement {
namespace {

using testing::RefChunk;
using testing::RefPiece;

std::vector<RefPiece> Split(int64_t n, int64_t k) {
  std::vector<RefPiece> out;
  for (int64_t r = 0; r < k; ++r) {
    const Piece p = ChunkPiece(n, k, r);
    out.push_back({p.offset, p.size});
  }
  return out;
}

TEST(ChunkSplitTest, KnownTorchChunkResults) {
  // Values as torch.tensor(range(n)).chunk(k) gives them, padded with empty trailing pieces.
  EXPECT_EQ(Split(5, 4), (std::vector<RefPiece>{{0, 2}, {2, 2}, {4, 1}, {5, 0}}));
  EXPECT_EQ(Split(9, 4), (std::vector<RefPiece>{{0, 3}, {3, 3}, {6, 3}, {9, 0}}));
  EXPECT_EQ(Split(3, 4), (std::vector<RefPiece>{{0, 1}, {1, 1}, {2, 1}, {3, 0}}));
  EXPECT_EQ(Split(17, 8), (std::vector<RefPiece>{
                              {0, 3}, {3, 3}, {6, 3}, {9, 3}, {12, 3}, {15, 2}, {17, 0}, {17, 0}}));
  EXPECT_EQ(Split(8, 4), (std::vector<RefPiece>{{0, 2}, {2, 2}, {4, 2}, {6, 2}}));
  EXPECT_EQ(Split(7, 1), (std::vector<RefPiece>{{0, 7}}));
}

TEST(ChunkSplitTest, ZeroExtentGivesEmptyPiecesAtOffsetZero) {
  EXPECT_EQ(Split(0, 3), (std::vector<RefPiece>{{0, 0}, {0, 0}, {0, 0}}));
}

TEST(ChunkSplitTest, MatchesSpecFormulaExhaustively) {
  for (int64_t n = 0; n <= 70; ++n) {
    for (int64_t k = 1; k <= 19; ++k) {
      int64_t covered = 0;
      for (int64_t r = 0; r < k; ++r) {
        const Piece p = ChunkPiece(n, k, r);
        ASSERT_EQ((RefPiece{p.offset, p.size}), RefChunk(n, k, r))
            << n << " over " << k << ", piece " << r;
        // Contiguous, in order: a non-empty piece starts where the previous ones end.
        if (p.size > 0) {
          EXPECT_EQ(p.offset, covered);
        }
        covered += p.size;
      }
      EXPECT_EQ(covered, n) << n << " over " << k;
    }
  }
}

// 128-bit reference for extents where c·r overflows 64 bits.
RefPiece WideChunk(int64_t n, int64_t k, int64_t r) {
  using I = __int128;
  const I c = (I{n} + k - 1) / k;
  const I end = std::min<I>(n, c * (r + 1));
  const I begin = std::min<I>(c * r, n);
  return {static_cast<int64_t>(begin), static_cast<int64_t>(std::max<I>(0, end - c * r))};
}

TEST(ChunkSplitTest, HugeExtentsAndPieceCountsDoNotOverflow) {
  // An int8 tensor may have INT64_MAX elements on one dim, and a mesh up to 2^31-1 ranks.
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const int64_t kPieces = std::numeric_limits<int32_t>::max();
  const struct {
    int64_t n, k, r;
  } cases[] = {{kMax, 2, 0},
               {kMax, 2, 1},
               {kMax, 3, 2},
               {kMax, kPieces, 0},
               {kMax, kPieces, 12345},
               {kMax, kPieces, kPieces - 1},
               {kMax - 1, 7, 6},
               {kPieces + 5, kPieces, kPieces - 1},
               {5, kPieces, kPieces - 1},
               {kMax, 1, 0}};
  for (const auto& c : cases) {
    const Piece p = ChunkPiece(c.n, c.k, c.r);
    EXPECT_EQ((RefPiece{p.offset, p.size}), WideChunk(c.n, c.k, c.r))
        << c.n << " over " << c.k << ", piece " << c.r;
  }
}

}  // namespace
}  // namespace weft::placement
