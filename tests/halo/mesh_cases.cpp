// Mesh dims that do not shard a windowed tensor dim (SPEC §4.1): Replicate and Partial dims,
// and dims sharding an unwindowed tensor dim, exchange within each of their coordinates;
// Partial terms differ per coordinate and each rank's padded block is its own group's
// reference. Nested sharding (two mesh dims on one tensor dim) windows the combined pieces.
#include "check.hpp"

namespace halo {
namespace {

void RunGroups(const std::vector<std::string>& placements, int32_t windowed_dim,
               std::vector<std::vector<int64_t>> splits = {}, std::vector<int32_t> ranks = {}) {
  Case c;
  c.mesh = Mesh2D();
  c.mesh_ranks = std::move(ranks);
  c.shape = {6, 5};
  c.placements = placements;
  c.splits = std::move(splits);
  DimSpec d;
  d.dim = windowed_dim;
  d.lo = 2, d.hi = 1;
  d.pad_lo = d.pad_hi = 1;
  d.rule_lo = WEFT_BOUNDARY_PERIODIC, d.rule_hi = WEFT_BOUNDARY_SYMMETRIC;
  c.halo.dims = {d};
  SCOPED_TRACE(c.Name());
  auto s = MakeSetup(c);
  ASSERT_EQ(s->status, WEFT_OK);
  CheckWindows(*s);
  const DataFn data = FormulaData(s->geo);
  ExchangeAndCheck(*s, data);
  ExchangeAndCheck(*s, data, true);
  AccumulateAndCheck(*s, SmallGrad(11), 0, data);
  AccumulateAndCheck(*s, SmallGrad(12), 1, data);
}

TEST(MeshDims, ReplicateDimExchangesPerReplica) {
  RunGroups({"S0", "R"}, 0);
  RunGroups({"R", "S1"}, 1);
}

TEST(MeshDims, PartialDimExchangesPerTerm) {
  RunGroups({"S0", "Ps"}, 0);
  RunGroups({"Ps", "S1"}, 1);
}

TEST(MeshDims, DimShardingAnUnwindowedDim) {
  RunGroups({"S0", "S1"}, 0);
  RunGroups({"S0", "S1"}, 1);
}

TEST(MeshDims, NestedSharding) {
  // Both mesh dims shard tensor dim 0: chunk (nested) and ragged with empty pieces.
  RunGroups({"S0", "S0"}, 0);
  const std::vector<int64_t> mesh = Mesh2D();
  std::vector<int64_t> sizes(static_cast<size_t>(mesh[0] * mesh[1]), 0);
  for (size_t i = 0; i < 6; ++i) ++sizes[(i * 3) % sizes.size()];
  RunGroups({"S0", "S0"}, 0, {sizes});
}

TEST(MeshDims, PermutedRankList) {
  // Mesh positions hold world ranks in another order (reversed, then rotated by one): windows
  // and neighbours follow positions, padded_shape takes world ranks.
  const int32_t k = TheWorld().size;
  std::vector<int32_t> reversed, rotated;
  for (int32_t i = 0; i < k; ++i) reversed.push_back(k - 1 - i), rotated.push_back((i + 1) % k);
  RunGroups({"S0", "S1"}, 0, {}, reversed);
  RunGroups({"S0", "Ps"}, 0, {}, rotated);
  // Explicit, asymmetric windows indexed by position on a rotated 1-D mesh (chunk blocks of
  // 3 rows, the last one short).
  Case c;
  c.mesh = Mesh1D();
  c.mesh_ranks = rotated;
  const int64_t n = 3 * int64_t{k} - 1;
  c.shape = {n, 2};
  c.placements = {"S0"};
  DimSpec d;
  d.pad_lo = 2, d.pad_hi = 1;
  d.rule_lo = WEFT_BOUNDARY_PERIODIC, d.rule_hi = WEFT_BOUNDARY_REFLECT;
  for (int64_t p = 0; p < k; ++p) {
    const int64_t a = 3 * p, b = std::min(a + 3 + p % 3, n + 1);
    d.windows.insert(d.windows.end(), {std::max(a - 1 - p % 2, int64_t{-2}), b});
  }
  c.halo.dims = {d};
  SCOPED_TRACE(c.Name());
  auto s = MakeSetup(c);
  ASSERT_EQ(s->status, WEFT_OK);
  CheckWindows(*s);
  const DataFn data = FormulaData(s->geo);
  ExchangeAndCheck(*s, data);
  AccumulateAndCheck(*s, SmallGrad(13), 1, data);
}

}  // namespace
}  // namespace halo
