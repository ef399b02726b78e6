// Meshes (SPEC §2.1): coordinates, groups, explicit rank lists, slicing and flattening. Ranks
// are checked against row-major formulas written here, not against other Mesh methods.
#include "placement/mesh.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "tests/placement/placement_test_util.hpp"

namespace weft::placement {
namespace {

using testing::MakeMesh;
using testing::RejectedNaming;

std::vector<int64_t> CoordOf(const Mesh& mesh, int32_t rank) {
  Coord c{};
  EXPECT_TRUE(mesh.Coordinate(rank, c.data())) << "rank " << rank;
  return {c.begin(), c.begin() + mesh.ndim()};
}

bool Contains(const Mesh& mesh, int32_t rank) {
  Coord c{};
  return mesh.Coordinate(rank, c.data());
}

// Every rank of a mesh in row-major order of its coordinates.
std::vector<int32_t> RanksOf(const Mesh& mesh) {
  std::vector<int32_t> out;
  for (int64_t i = 0; i < mesh.size(); ++i) out.push_back(mesh.RankAtIndex(i));
  return out;
}

TEST(MeshTest, DefaultRanksAreRowMajor) {
  const MeshPtr mesh = MakeMesh({2, 3, 4});
  ASSERT_TRUE(mesh);
  EXPECT_EQ(mesh->ndim(), 3);
  EXPECT_EQ(mesh->size(), 24);
  EXPECT_TRUE(mesh->is_affine());
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 3; ++b)
      for (int64_t c = 0; c < 4; ++c) {
        const int32_t rank = static_cast<int32_t>(a * 12 + b * 4 + c);
        const int64_t coord[] = {a, b, c};
        EXPECT_EQ(mesh->RankAt(coord), rank);
        EXPECT_EQ(CoordOf(*mesh, rank), (std::vector<int64_t>{a, b, c}));
        EXPECT_EQ(mesh->RankAtIndex(rank), rank);
      }
  EXPECT_FALSE(Contains(*mesh, 24));
  EXPECT_FALSE(Contains(*mesh, -1));
}

TEST(MeshTest, ExplicitRanksMapCoordinatesBothWays) {
  const std::vector<int32_t> ranks = {7, 3, 11, 0, 5, 9};
  const MeshPtr mesh = MakeMesh({2, 3}, ranks);
  ASSERT_TRUE(mesh);
  EXPECT_FALSE(mesh->is_affine());
  for (int64_t i = 0; i < 6; ++i) {
    const int64_t coord[] = {i / 3, i % 3};
    EXPECT_EQ(mesh->RankAt(coord), ranks[i]);
    EXPECT_EQ(CoordOf(*mesh, ranks[i]), (std::vector<int64_t>{i / 3, i % 3}));
  }
  for (int32_t r : {1, 2, 4, 6, 8, 10, 12}) EXPECT_FALSE(Contains(*mesh, r)) << r;
}

TEST(MeshTest, GroupsShareEveryOtherCoordinate) {
  const MeshPtr mesh = MakeMesh({2, 3, 4});
  const int64_t coord[] = {1, 2, 3};  // rank 23
  EXPECT_EQ(mesh->Group(0, coord), (std::vector<int32_t>{11, 23}));
  EXPECT_EQ(mesh->Group(1, coord), (std::vector<int32_t>{15, 19, 23}));
  EXPECT_EQ(mesh->Group(2, coord), (std::vector<int32_t>{20, 21, 22, 23}));

  const MeshPtr perm = MakeMesh({2, 2}, std::vector<int32_t>{3, 1, 0, 2});
  const int64_t c01[] = {0, 1};
  EXPECT_EQ(perm->Group(0, c01), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(perm->Group(1, c01), (std::vector<int32_t>{3, 1}));
}

TEST(MeshTest, EqualityIgnoresNamesButNotRanksOrShape) {
  const MeshPtr a = MakeMesh({2, 4}, std::nullopt, {"dp", "tp"});
  const MeshPtr b = MakeMesh({2, 4});
  EXPECT_TRUE(a->SameAs(*b));
  std::vector<int32_t> identity(8);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_TRUE(a->SameAs(*MakeMesh({2, 4}, identity)));  // explicit list equal to default
  EXPECT_FALSE(a->SameAs(*MakeMesh({4, 2})));
  EXPECT_FALSE(a->SameAs(*MakeMesh({2, 4}, std::vector<int32_t>{1, 0, 2, 3, 4, 5, 6, 7})));

  Mesh::Spec other_ctx;
  other_ctx.context = ContextId(1);
  other_ctx.shape = {2, 4};
  EXPECT_FALSE(a->SameAs(**Mesh::Create(other_ctx)));
}

TEST(MeshTest, NamesAreLookedUp) {
  const MeshPtr mesh = MakeMesh({2, 3, 4}, std::nullopt, {"pp", "", "tp"});
  EXPECT_EQ(mesh->DimIndex("pp"), 0);
  EXPECT_EQ(mesh->DimIndex("tp"), 2);
  EXPECT_EQ(mesh->DimIndex(""), -1);  // unnamed dims are not found by the empty name
  EXPECT_EQ(mesh->DimIndex("dp"), -1);
  EXPECT_EQ(mesh->dim_name(1), "");
}

TEST(MeshTest, SliceKeepsDimsThroughARank) {
  const MeshPtr mesh = MakeMesh({2, 3, 4}, std::nullopt, {"pp", "dp", "tp"});
  // Rank 17 = (1, 1, 1).
  const int32_t keep_dp_tp[] = {1, 2};
  auto sub = mesh->Slice(keep_dp_tp, 17);
  ASSERT_TRUE(sub.ok()) << sub.status().message();
  EXPECT_EQ((*sub)->shape(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ((*sub)->dim_name(0), "dp");
  EXPECT_EQ(RanksOf(**sub), (std::vector<int32_t>{12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}));

  const int32_t keep_pp_tp[] = {0, 2};
  auto sub2 = mesh->Slice(keep_pp_tp, 17);
  ASSERT_TRUE(sub2.ok());
  EXPECT_EQ(RanksOf(**sub2), (std::vector<int32_t>{4, 5, 6, 7, 16, 17, 18, 19}));
  EXPECT_EQ(CoordOf(**sub2, 18), (std::vector<int64_t>{1, 2}));
  for (int32_t r : {0, 3, 8, 12, 20, 23, 24}) EXPECT_FALSE(Contains(**sub2, r)) << r;
  const int64_t at[] = {1, 3};
  EXPECT_EQ((*sub2)->RankAt(at), 19);
}

TEST(MeshTest, SliceByNameResolvesDims) {
  const MeshPtr mesh = MakeMesh({2, 3}, std::nullopt, {"dp", "tp"});
  const int32_t keep[] = {mesh->DimIndex("tp")};
  auto row = mesh->Slice(keep, 4);  // (1, 1)
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(RanksOf(**row), (std::vector<int32_t>{3, 4, 5}));
  EXPECT_EQ((*row)->dim_name(0), "tp");
}

TEST(MeshTest, SliceOfExplicitRanks) {
  const std::vector<int32_t> ranks = {10, 20, 30, 40, 50, 60};
  const MeshPtr mesh = MakeMesh({3, 2}, ranks);
  const int32_t keep_col[] = {0};
  auto col = mesh->Slice(keep_col, 40);  // (1, 1)
  ASSERT_TRUE(col.ok());
  EXPECT_EQ(RanksOf(**col), (std::vector<int32_t>{20, 40, 60}));
  EXPECT_EQ(CoordOf(**col, 60), (std::vector<int64_t>{2}));
  EXPECT_FALSE(Contains(**col, 30));
}

TEST(MeshTest, SliceOfAHundredThousandRanksIsCheap) {
  // An abstract mesh of 100 000 ranks: slices stay affine (O(ndim)), so this is immediate.
  const MeshPtr mesh = MakeMesh({50, 40, 50});
  const int32_t keep[] = {0, 2};
  const int32_t rank = 31 * 2000 + 17 * 50 + 27;  // (31, 17, 27)
  auto sub = mesh->Slice(keep, rank);
  ASSERT_TRUE(sub.ok());
  EXPECT_TRUE((*sub)->is_affine());
  EXPECT_EQ((*sub)->size(), 2500);
  for (int64_t a : {0, 13, 49})
    for (int64_t c : {0, 27, 49}) {
      const int32_t expect = static_cast<int32_t>(a * 2000 + 17 * 50 + c);
      const int64_t coord[] = {a, c};
      EXPECT_EQ((*sub)->RankAt(coord), expect);
      EXPECT_EQ(CoordOf(**sub, expect), (std::vector<int64_t>{a, c}));
    }
  EXPECT_FALSE(Contains(**sub, rank + 50));  // differs on the dropped dim 1
}

TEST(MeshTest, FlattenMergesDimsRowMajor) {
  const MeshPtr mesh = MakeMesh({2, 3, 4}, std::nullopt, {"a", "b", "c"});
  auto flat = mesh->Flatten(1, 2, "bc");
  ASSERT_TRUE(flat.ok()) << flat.status().message();
  EXPECT_EQ((*flat)->shape(), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ((*flat)->dim_name(1), "bc");
  EXPECT_TRUE((*flat)->is_affine());
  EXPECT_EQ(RanksOf(**flat), RanksOf(*mesh));
  EXPECT_EQ(CoordOf(**flat, 17), (std::vector<int64_t>{1, 5}));
  // Flattening every dim gives the 1-D mesh of the same ranks.
  auto all = mesh->Flatten(0, 3, "");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE((*all)->SameAs(*MakeMesh({24})));
}

TEST(MeshTest, FlattenOfExplicitRanks) {
  const std::vector<int32_t> ranks = {5, 4, 3, 2, 1, 0, 11, 10, 9, 8, 7, 6};
  const MeshPtr mesh = MakeMesh({2, 2, 3}, ranks);
  auto flat = mesh->Flatten(0, 2, "");
  ASSERT_TRUE(flat.ok());
  EXPECT_EQ((*flat)->shape(), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(RanksOf(**flat), ranks);
  const int64_t coord[] = {3, 1};
  EXPECT_EQ((*flat)->RankAt(coord), 7);
  EXPECT_EQ(CoordOf(**flat, 7), (std::vector<int64_t>{3, 1}));
}

TEST(MeshTest, FlattenOfASlice) {
  const MeshPtr mesh = MakeMesh({2, 3, 4});
  // Dims 0 and 2 through rank 6 = (0, 1, 2): ranks a·12 + 4 + c. Their strides (12, 1) do not
  // nest, so the flattened mesh must list its ranks.
  const int32_t keep[] = {0, 2};
  auto sub = mesh->Slice(keep, 6);
  ASSERT_TRUE(sub.ok());
  auto flat = (*sub)->Flatten(0, 2, "x");
  ASSERT_TRUE(flat.ok());
  EXPECT_EQ((*flat)->shape(), (std::vector<int64_t>{8}));
  EXPECT_EQ(RanksOf(**flat), (std::vector<int32_t>{4, 5, 6, 7, 16, 17, 18, 19}));
  EXPECT_EQ(CoordOf(**flat, 16), (std::vector<int64_t>{4}));
  EXPECT_FALSE(Contains(**flat, 8));
  // Dims 1 and 2 nest (strides 4, 1), so their flattening stays affine.
  const int32_t keep12[] = {1, 2};
  auto inner = mesh->Slice(keep12, 20);
  auto flat12 = (*inner)->Flatten(0, 2, "");
  ASSERT_TRUE(flat12.ok());
  EXPECT_TRUE((*flat12)->is_affine());
  EXPECT_EQ(RanksOf(**flat12).front(), 12);
  EXPECT_EQ(CoordOf(**flat12, 23), (std::vector<int64_t>{11}));
  EXPECT_FALSE(Contains(**flat12, 11));
}

TEST(MeshTest, UnitDimsDoNotConfuseCoordinates) {
  const MeshPtr mesh = MakeMesh({1, 3, 1, 2});
  EXPECT_EQ(CoordOf(*mesh, 5), (std::vector<int64_t>{0, 2, 0, 1}));
  auto flat = mesh->Flatten(1, 2, "");
  ASSERT_TRUE(flat.ok());
  EXPECT_EQ(CoordOf(**flat, 5), (std::vector<int64_t>{0, 2, 1}));
  const MeshPtr one = MakeMesh({1});
  EXPECT_EQ(CoordOf(*one, 0), (std::vector<int64_t>{0}));
  EXPECT_FALSE(Contains(*one, 1));
}

// Random chains of slices and flattens over default and explicit meshes, against a model
// that keeps the row-major rank list: a slice keeps the ranks matching the anchor rank on the
// dropped dims; a flatten keeps the list and merges extents.
struct MeshModel {
  std::vector<int64_t> shape;
  std::vector<int32_t> ranks;  // row-major
};

std::vector<int64_t> ModelCoord(const MeshModel& m, int64_t index) {
  std::vector<int64_t> c(m.shape.size());
  for (size_t d = c.size(); d-- > 0;) {
    c[d] = index % m.shape[d];
    index /= m.shape[d];
  }
  return c;
}

MeshModel ModelSlice(const MeshModel& m, const std::vector<int32_t>& keep, int64_t anchor) {
  MeshModel out;
  for (int32_t d : keep) out.shape.push_back(m.shape[d]);
  const std::vector<int64_t> at = ModelCoord(m, anchor);
  for (int64_t i = 0; i < static_cast<int64_t>(m.ranks.size()); ++i) {
    const std::vector<int64_t> c = ModelCoord(m, i);
    bool same = true;
    for (size_t d = 0; d < c.size(); ++d)
      if (std::find(keep.begin(), keep.end(), static_cast<int32_t>(d)) == keep.end())
        same = same && c[d] == at[d];
    if (same) out.ranks.push_back(m.ranks[i]);
  }
  return out;
}

void ExpectMatchesModel(const Mesh& mesh, const MeshModel& m) {
  ASSERT_EQ(mesh.shape(), m.shape);
  ASSERT_EQ(RanksOf(mesh), m.ranks);
  for (int64_t i = 0; i < static_cast<int64_t>(m.ranks.size()); ++i) {
    const std::vector<int64_t> c = ModelCoord(m, i);
    ASSERT_EQ(mesh.RankAt(c.data()), m.ranks[i]);
    ASSERT_EQ(CoordOf(mesh, m.ranks[i]), c);
  }
  const int32_t top = *std::max_element(m.ranks.begin(), m.ranks.end());
  for (int32_t r = 0; r <= top + 1; ++r) {
    const bool member = std::find(m.ranks.begin(), m.ranks.end(), r) != m.ranks.end();
    ASSERT_EQ(Contains(mesh, r), member) << "rank " << r;
  }
  EXPECT_TRUE(mesh.SameAs(*MakeMesh(m.shape, m.ranks)));
}

TEST(MeshPropertyTest, RandomSlicesAndFlattensKeepTheirRanks) {
  std::mt19937_64 rng(20240611);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int iter = 0; iter < 500; ++iter) {
    MeshModel m;
    m.shape.resize(static_cast<size_t>(uniform(1, 4)));
    for (int64_t& e : m.shape) e = uniform(1, 4);
    m.ranks.resize(static_cast<size_t>(
        std::accumulate(m.shape.begin(), m.shape.end(), int64_t{1}, std::multiplies<>())));
    std::iota(m.ranks.begin(), m.ranks.end(), 0);
    const bool explicit_ranks = uniform(0, 1) == 1;
    if (explicit_ranks) std::shuffle(m.ranks.begin(), m.ranks.end(), rng);
    MeshPtr mesh = explicit_ranks ? MakeMesh(m.shape, m.ranks) : MakeMesh(m.shape);
    SCOPED_TRACE("iteration " + std::to_string(iter));
    for (int step = 0; step < 3; ++step) {
      const int32_t ndim = mesh->ndim();
      if (uniform(0, 1) == 0) {
        std::vector<int32_t> keep;
        for (int32_t d = 0; d < ndim; ++d)
          if (uniform(0, 1) == 1) keep.push_back(d);
        if (keep.empty()) keep.push_back(static_cast<int32_t>(uniform(0, ndim - 1)));
        const int64_t anchor = uniform(0, static_cast<int64_t>(m.ranks.size()) - 1);
        auto sub = mesh->Slice(keep, m.ranks[anchor]);
        ASSERT_TRUE(sub.ok()) << sub.status().message();
        mesh = *sub;
        m = ModelSlice(m, keep, anchor);
      } else {
        const int32_t first = static_cast<int32_t>(uniform(0, ndim - 1));
        const int32_t count = static_cast<int32_t>(uniform(1, ndim - first));
        auto flat = mesh->Flatten(first, count, "");
        ASSERT_TRUE(flat.ok()) << flat.status().message();
        mesh = *flat;
        int64_t merged = 1;
        for (int32_t d = first; d < first + count; ++d) merged *= m.shape[d];
        m.shape.erase(m.shape.begin() + first, m.shape.begin() + first + count);
        m.shape.insert(m.shape.begin() + first, merged);
      }
      ASSERT_NO_FATAL_FAILURE(ExpectMatchesModel(*mesh, m)) << "step " << step;
    }
  }
}

// --- validation (each rejected case names its argument) ---

Status CreateStatus(Mesh::Spec spec) { return Mesh::Create(std::move(spec)).status(); }

TEST(MeshValidationTest, RejectsBadShapes) {
  EXPECT_TRUE(RejectedNaming(CreateStatus({.shape = {}}), "ndim"));
  EXPECT_TRUE(RejectedNaming(CreateStatus({.shape = std::vector<int64_t>(17, 1)}), "ndim"));
  EXPECT_TRUE(RejectedNaming(CreateStatus({.shape = {2, 0}}), "shape[1]"));
  EXPECT_TRUE(RejectedNaming(CreateStatus({.shape = {-3}}), "shape[0]"));
  EXPECT_TRUE(RejectedNaming(CreateStatus({.shape = {65536, 65536}}), "mesh shape"));
}

TEST(MeshValidationTest, RejectsBadRankLists) {
  EXPECT_TRUE(RejectedNaming(CreateStatus({.shape = {2, 2}, .ranks = std::vector<int32_t>{0, 1}}),
                             "ranks has 2 entries"));
  EXPECT_TRUE(RejectedNaming(CreateStatus({.shape = {3}, .ranks = std::vector<int32_t>{0, -1, 2}}),
                             "ranks[1]"));
  EXPECT_TRUE(RejectedNaming(CreateStatus({.shape = {3}, .ranks = std::vector<int32_t>{4, 2, 4}}),
                             "ranks[2] = 4"));
  EXPECT_TRUE(RejectedNaming(
      CreateStatus({.world_size = 4, .shape = {2}, .ranks = std::vector<int32_t>{1, 4}}),
      "ranks[1]"));
  EXPECT_TRUE(RejectedNaming(CreateStatus({.world_size = 4, .shape = {5}}), "world has 4"));
}

TEST(MeshValidationTest, RejectsBadNames) {
  EXPECT_TRUE(RejectedNaming(CreateStatus({.shape = {2, 2}, .dim_names = {"a"}}), "dim_names"));
  EXPECT_TRUE(RejectedNaming(CreateStatus({.shape = {2, 2, 2}, .dim_names = {"a", "", "a"}}),
                             "dim_names[2]"));
  // Several unnamed dims are fine.
  EXPECT_TRUE(CreateStatus({.shape = {2, 2}, .dim_names = {"", ""}}).ok());
}

TEST(MeshValidationTest, RejectsBadSlices) {
  const MeshPtr mesh = MakeMesh({2, 3});
  const int32_t none[] = {0};
  EXPECT_TRUE(RejectedNaming(mesh->Slice(std::span<const int32_t>(none, 0), 0).status(), "nkeep"));
  const int32_t too_many[] = {0, 1, 1};
  EXPECT_TRUE(RejectedNaming(mesh->Slice(too_many, 0).status(), "nkeep"));
  const int32_t out_of_range[] = {2};
  EXPECT_TRUE(RejectedNaming(mesh->Slice(out_of_range, 0).status(), "dims[0]"));
  const int32_t descending[] = {1, 0};
  EXPECT_TRUE(RejectedNaming(mesh->Slice(descending, 0).status(), "dims[1]"));
  const int32_t ok_dims[] = {1};
  EXPECT_TRUE(RejectedNaming(mesh->Slice(ok_dims, 6).status(), "rank 6"));
}

TEST(MeshValidationTest, RejectsBadFlattens) {
  const MeshPtr mesh = MakeMesh({2, 3, 4}, std::nullopt, {"a", "b", "c"});
  EXPECT_TRUE(RejectedNaming(mesh->Flatten(2, 2, "").status(), "dims [2, 4)"));
  EXPECT_TRUE(RejectedNaming(mesh->Flatten(-1, 2, "").status(), "dims [-1, 1)"));
  EXPECT_TRUE(RejectedNaming(mesh->Flatten(0, 0, "").status(), "dims [0, 0)"));
  EXPECT_TRUE(RejectedNaming(mesh->Flatten(0, 2, "c").status(), "name \"c\""));
  // Reusing the name of a merged dim is fine: it no longer exists.
  EXPECT_TRUE(mesh->Flatten(0, 2, "a").ok());
}

}  // namespace
}  // namespace weft::placement
