// Random layout pairs (SPEC §3.1 "every transition, on any mesh"): 1-D to 3-D meshes of up to
// 8 ranks, chunk and ragged splits with empty pieces, Partial sum/avg/max, explicit rank
// lists with ranks outside the mesh. Every plan is simulated on every rank and checked against
// the formula of the global index. Failures print the seed and the pair; set
// WEFT_PROPERTY_SEED to explore other seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "placement/planner/localize.hpp"
#include "placement/planner/search.hpp"
#include "tests/placement/placement_test_util.hpp"
#include "tests/placement/planner/planner_sim.hpp"

namespace weft::placement::planner {
namespace {

using placement::testing::Splits;
using placement::testing::TryLayout;

constexpr int kPairs = 1000;
constexpr uint64_t kDefaultSeed = 0x91a2'7e55u;

int64_t Uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

uint64_t Seed() {
  const char* env = std::getenv("WEFT_PROPERTY_SEED");
  return env ? std::strtoull(env, nullptr, 0) : kDefaultSeed;
}

MeshPtr RandomMesh(std::mt19937_64& rng, int32_t* world) {
  std::vector<int64_t> shape(static_cast<size_t>(Uniform(rng, 1, 3)));
  int64_t n = 1;
  for (int64_t& e : shape) {
    e = Uniform(rng, 1, std::min<int64_t>(4, 8 / n));
    n *= e;
  }
  *world = static_cast<int32_t>(n);
  std::optional<std::vector<int32_t>> ranks;
  if (Uniform(rng, 0, 2) == 0) {  // a permutation of a subset of 0..2n-1
    std::vector<int32_t> pool(static_cast<size_t>(2 * n));
    std::iota(pool.begin(), pool.end(), 0);
    std::shuffle(pool.begin(), pool.end(), rng);
    pool.resize(static_cast<size_t>(n));
    *world = *std::max_element(pool.begin(), pool.end()) + 1;
    ranks = std::move(pool);
  }
  return placement::testing::MakeMesh(std::move(shape), std::move(ranks));
}

// Sizes >= 0 (zeros likely) summing to n.
std::vector<int64_t> RandomComposition(std::mt19937_64& rng, int64_t n, int64_t pieces) {
  std::vector<int64_t> cuts = {0, n};
  for (int64_t i = 1; i < pieces; ++i) cuts.push_back(Uniform(rng, 0, n));
  std::sort(cuts.begin(), cuts.end());
  std::vector<int64_t> sizes;
  for (size_t i = 1; i < cuts.size(); ++i) sizes.push_back(cuts[i] - cuts[i - 1]);
  return sizes;
}

// A random valid layout; Partial dims use one op family per layout (sum, avg, sum+avg or max).
LayoutPtr RandomLayout(std::mt19937_64& rng, const MeshPtr& mesh,
                       const std::vector<int64_t>& shape) {
  while (true) {
    const int family = static_cast<int>(Uniform(rng, 0, 3));
    std::vector<Placement> ps;
    for (int32_t m = 0; m < mesh->ndim(); ++m) {
      const int64_t k = Uniform(rng, 0, 5);
      if (k == 0) {
        ps.push_back(Replicate{});
      } else if (k <= 3) {
        ps.push_back(Shard{static_cast<int32_t>(Uniform(rng, 0, int64_t(shape.size()) - 1))});
      } else {
        const ReduceOp ops[4][2] = {{ReduceOp::kSum, ReduceOp::kSum},
                                    {ReduceOp::kAvg, ReduceOp::kAvg},
                                    {ReduceOp::kSum, ReduceOp::kAvg},
                                    {ReduceOp::kMax, ReduceOp::kMax}};
        ps.push_back(Partial{ops[family][Uniform(rng, 0, 1)]});
      }
    }
    Splits splits(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t pieces = 1;
      for (int32_t m = 0; m < mesh->ndim(); ++m)
        if (ps[m] == Placement{Shard{static_cast<int32_t>(d)}}) pieces *= mesh->shape()[m];
      if (pieces > 1 && Uniform(rng, 0, 1) == 0)
        splits[d] = RandomComposition(rng, shape[d], pieces);
    }
    auto layout = TryLayout(mesh, shape, ps, splits, placement::testing::kF32);
    if (layout.ok()) return *layout;
  }
}

// SPEC §2.4/§3.1: the pairs with no exact plan, decided from the placements alone.
bool Impossible(const Layout& src, const Layout& dst) {
  for (int32_t m = 0; m < src.mesh().ndim(); ++m) {
    const Placement &a = src.placements()[m], &b = dst.placements()[m];
    // Both on any extent, a mesh dim of one member included.
    if (IsShard(a) && b == Placement{Partial{ReduceOp::kAvg}}) return true;
    if (IsPartial(a) && IsPartial(b) && a != b) return true;
  }
  return false;
}

// One data-movement step: each rank receives exactly what its dst block lacks.
void ExpectReceivesWhatIsLacking(const Plan& plan, int32_t world) {
  for (int32_t r = 0; r < world; ++r) {
    const Box from = testing::RankBlock(*plan.src, r), to = testing::RankBlock(*plan.dst, r);
    auto stats = Stats(plan, r);
    ASSERT_TRUE(stats.ok());
    EXPECT_EQ(stats->recv_bytes, (to.Volume() - Intersect(from, to).Volume()) * 4) << "rank " << r;
  }
}

CostModel BytesOnly() {
  CostModel m;
  m.dims.assign(kMaxMeshDims, LinkCost{0.0, 1.0 / 1e9});
  return m;
}

TEST(PlanProperty, RandomPairsSimulateExactly) {
  const uint64_t seed = Seed();
  std::mt19937_64 rng(seed);
  int planned = 0, rejected = 0, multi_step = 0, exchanges = 0;
  for (int i = 0; planned < kPairs; ++i) {
    int32_t world = 0;
    const MeshPtr mesh = RandomMesh(rng, &world);
    std::vector<int64_t> shape(static_cast<size_t>(Uniform(rng, 1, 3)));
    for (int64_t& e : shape) e = Uniform(rng, 0, 9) == 0 ? 0 : Uniform(rng, 1, 7);
    const LayoutPtr src = RandomLayout(rng, mesh, shape);
    const LayoutPtr dst = RandomLayout(rng, mesh, shape);
    SCOPED_TRACE("seed " + std::to_string(seed) + " case " + std::to_string(i) + "\nsrc " +
                 src->Describe() + "\ndst " + dst->Describe());
    if (Impossible(*src, *dst)) {
      EXPECT_FALSE(PlanRedistribute(src, dst).ok());
      ++rejected;
      continue;
    }
    // The default model, and one that counts only bytes: it prefers intersection exchanges,
    // which small tensors would otherwise rarely take.
    for (const CostModel& model : {CostModel{}, BytesOnly()}) {
      auto plan = PlanRedistribute(src, dst, model);
      ASSERT_TRUE(plan.ok()) << plan.status().message();
      SCOPED_TRACE("plan\n" + Describe(*plan, 0));
      testing::Simulation(*plan, world).Run();
      ASSERT_FALSE(HasFailure());
      multi_step += plan->steps.size() > 1;
      if (plan->steps.size() == 1 && !plan->steps[0].conjugate &&
          plan->steps[0].kind != StepKind::kAllReduce &&
          plan->steps[0].kind != StepKind::kReduceScatter)
        ExpectReceivesWhatIsLacking(*plan, world);
      for (const Step& step : plan->steps) exchanges += step.kind == StepKind::kExchange;
    }
    ++planned;
  }
  std::printf("%d pairs planned (%d multi-step plans, %d exchanges), %d rejected\n", planned,
              multi_step, exchanges, rejected);
  // The generator must exercise both kinds of outcome.
  EXPECT_GT(rejected, kPairs / 40);
  EXPECT_GT(multi_step, kPairs / 8);
  EXPECT_GT(exchanges, kPairs / 20);
}

// The search states shared across plans (StateCache, as the rules engine uses it) change no
// plan: same steps, layouts and cost (the hash covers them) as a search with none, and
// RedistributeCost is the plan's cost. Many meshes and shapes pass through one cache, so it
// also fills and clears.
TEST(PlanProperty, SharedStatesChangeNoPlan) {
  std::mt19937_64 rng(Seed() ^ 0x5eedu);
  StateCache cache;
  int planned = 0;
  for (int i = 0; planned < kPairs; ++i) {
    int32_t world = 0;
    const MeshPtr mesh = RandomMesh(rng, &world);
    std::vector<int64_t> shape(static_cast<size_t>(Uniform(rng, 1, 3)));
    for (int64_t& e : shape) e = Uniform(rng, 1, 9);
    // Several pairs per tensor, so that states are shared.
    for (int k = 0; k < 8; ++k) {
      const LayoutPtr src = RandomLayout(rng, mesh, shape);
      const LayoutPtr dst = RandomLayout(rng, mesh, shape);
      if (Impossible(*src, *dst)) continue;
      SCOPED_TRACE("case " + std::to_string(i) + "\nsrc " + src->Describe() + "\ndst " +
                   dst->Describe());
      auto plain = PlanRedistribute(src, dst);
      auto shared = PlanRedistribute(src, dst, {}, kDefaultExtraBytesCap, &cache);
      auto cost = RedistributeCost(src, dst, {}, &cache);
      ASSERT_TRUE(plain.ok() && shared.ok() && cost.ok());
      EXPECT_EQ(plain->hash, shared->hash) << Describe(*plain, 0) << Describe(*shared, 0);
      EXPECT_EQ(plain->cost, shared->cost);
      EXPECT_EQ(plain->cost, *cost);
      ++planned;
    }
  }
}

}  // namespace
}  // namespace weft::placement::planner
