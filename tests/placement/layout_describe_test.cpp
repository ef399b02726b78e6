// Descriptions end up in logs, error messages and weft_layout_describe: they must show the
// resolved pieces (what a rank will actually hold) and stay bounded for huge meshes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "placement/layout.hpp"
#include "tests/placement/placement_test_util.hpp"

namespace weft::placement {
namespace {

using testing::MakeLayout;
using testing::MakeMesh;

const Placement R = Replicate{};
Placement S(int32_t d) { return Shard{d}; }

TEST(LayoutDescribeTest, MeshShowsShapeNamesAndRanks) {
  EXPECT_EQ(DescribeMesh(*MakeMesh({2, 4})), "mesh [2, 4] ranks 0..7 (abstract)");
  EXPECT_EQ(DescribeMesh(*MakeMesh({2, 4}, std::nullopt, {"dp", ""})),
            "mesh [2, 4] (dp, _) ranks 0..7 (abstract)");
  EXPECT_EQ(DescribeMesh(*MakeMesh({3}, std::vector<int32_t>{4, 2, 9})),
            "mesh [3] ranks [4, 2, 9] (abstract)");
  EXPECT_EQ(DescribeMesh(*MakeMesh({2}, std::vector<int32_t>{5, 6})),
            "mesh [2] ranks 5..6 (abstract)");
}

TEST(LayoutDescribeTest, LayoutShowsResolvedPieces) {
  const LayoutPtr flat = MakeLayout(MakeMesh({2, 2}), {5, 8}, {S(0), S(1)});
  EXPECT_EQ(flat->Describe(),
            "float32[5, 8] on mesh [2, 2] ranks 0..3 (abstract), placements [S(0), S(1)]\n"
            "  dim 0 (5) over mesh dims [0], chunk pieces [3, 2]\n"
            "  dim 1 (8) over mesh dims [1], chunk pieces [4, 4]");
  const LayoutPtr nested = MakeLayout(MakeMesh({2, 2}), {5}, {S(0), S(0)});
  EXPECT_EQ(nested->Describe(),
            "float32[5] on mesh [2, 2] ranks 0..3 (abstract), placements [S(0), S(0)]\n"
            "  dim 0 (5) over mesh dims [0, 1], chunk pieces [2, 1, 1, 1]");
  const LayoutPtr ragged = MakeLayout(MakeMesh({3}), {6, 2}, {S(0)}, {{{4, 0, 2}}, std::nullopt},
                                      DType{kCodeInt, 64, 1});
  EXPECT_EQ(ragged->Describe(),
            "int64[6, 2] on mesh [3] ranks 0..2 (abstract), placements [S(0)]\n"
            "  dim 0 (6) over mesh dims [0], explicit pieces [4, 0, 2]");
  const LayoutPtr replicated =
      MakeLayout(MakeMesh({2}), {3}, {Partial{ReduceOp::kAvg}}, {}, testing::kF32);
  EXPECT_EQ(replicated->Describe(),
            "float32[3] on mesh [2] ranks 0..1 (abstract), placements [P(avg)]");
  EXPECT_EQ(MakeLayout(MakeMesh({2}), {}, {R})->Describe(),
            "float32[] on mesh [2] ranks 0..1 (abstract), placements [R]");
}

TEST(LayoutDescribeTest, LongListsAreCut) {
  // 100 000 pieces: the description names the count instead of listing them.
  const LayoutPtr huge = MakeLayout(MakeMesh({100000}), {7}, {S(0)});
  const std::string text = huge->Describe();
  EXPECT_NE(text.find("chunk pieces (100000 pieces, chunk rule)"), std::string::npos) << text;
  EXPECT_LT(text.size(), 300u) << text;
  std::vector<int32_t> reversed(100);
  for (int32_t i = 0; i < 100; ++i) reversed[i] = 99 - i;
  const std::string mesh = DescribeMesh(*MakeMesh({100}, reversed));
  EXPECT_NE(mesh.find("[99, 98, "), std::string::npos) << mesh;
  EXPECT_NE(mesh.find(", ... (100 in all)]"), std::string::npos) << mesh;
}

}  // namespace
}  // namespace weft::placement
