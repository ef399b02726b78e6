// The planner on the transitions SPEC §3.1 lists and the examples of §3.2: each plan is checked
// for its kinds and byte counts, and run by the in-memory simulation on every rank.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "placement/planner/localize.hpp"
#include "placement/planner/search.hpp"
#include "tests/placement/placement_test_util.hpp"
#include "tests/placement/planner/planner_sim.hpp"

namespace weft::placement::planner {
namespace {

using placement::testing::kF32;
using placement::testing::MakeLayout;
using placement::testing::MakeMesh;
using testing::PlanAndSimulate;
using testing::RankBlock;

const Placement kR = Replicate{};
Placement S(int32_t d) { return Shard{d}; }
Placement P(ReduceOp op = ReduceOp::kSum) { return Partial{op}; }

std::vector<StepKind> Kinds(const Plan& plan) {
  std::vector<StepKind> out;
  for (const Step& s : plan.steps) out.push_back(s.kind);
  return out;
}

// |dst block \ src block| in bytes for `rank`.
int64_t LackedBytes(const Plan& plan, int32_t rank) {
  const Box from = RankBlock(*plan.src, rank), to = RankBlock(*plan.dst, rank);
  return (to.Volume() - Intersect(from, to).Volume()) * ItemSize(plan.src->dtype());
}

// Every rank receives exactly what it lacks (one-step plans), or at most twice that.
void ExpectRecvBytesBounded(const Plan& plan) {
  for (int32_t r = 0; r < plan.src->mesh().size(); ++r) {
    auto stats = Stats(plan, r);
    ASSERT_TRUE(stats.ok());
    if (plan.steps.size() == 1)
      EXPECT_EQ(stats->recv_bytes, LackedBytes(plan, r)) << "rank " << r;
    else
      EXPECT_LE(stats->recv_bytes, 2 * LackedBytes(plan, r)) << "rank " << r;
  }
}

TEST(PlanExamples, EveryOneDimTransition) {
  const auto mesh = MakeMesh({4});
  const std::vector<Placement> all = {kR, S(0), S(1), P(ReduceOp::kSum), P(ReduceOp::kMax)};
  for (const Placement& a : all) {
    for (const Placement& b : all) {
      SCOPED_TRACE(PlacementName(a) + " -> " + PlacementName(b));
      const auto src = MakeLayout(mesh, {5, 6}, {a});
      const auto dst = MakeLayout(mesh, {5, 6}, {b});
      if (IsPartial(a) && IsPartial(b) && a != b) {
        EXPECT_FALSE(PlanRedistribute(src, dst).ok());
        continue;
      }
      const Plan plan = PlanAndSimulate(src, dst);
      std::vector<StepKind> want;
      if (a == b) {
        want = {};
      } else if (IsShard(a) && b == kR) {
        want = {StepKind::kAllGather};
      } else if (IsShard(a) && IsShard(b)) {
        want = {StepKind::kAllToAll};
      } else if (IsPartial(a) && b == kR) {
        want = {StepKind::kAllReduce};
      } else if (IsPartial(a) && IsShard(b)) {
        want = {StepKind::kReduceScatter};
      } else {
        want = {StepKind::kLocal};  // R->S, R->P, S->P
      }
      EXPECT_EQ(Kinds(plan), want);
      if (!IsPartial(a) && !IsPartial(b)) ExpectRecvBytesBounded(plan);
    }
  }
}

TEST(PlanExamples, SwapShardsIsOneExchangeWithoutGathering) {
  const auto mesh = MakeMesh({2, 2});
  const auto src = MakeLayout(mesh, {512, 512}, {S(0), S(1)});
  const auto dst = MakeLayout(mesh, {512, 512}, {S(1), S(0)});
  auto plan = PlanRedistribute(src, dst);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(Kinds(*plan), std::vector<StepKind>{StepKind::kExchange});
  EXPECT_EQ(plan->steps[0].mesh_dims, (std::vector<int32_t>{0, 1}));
  ExpectRecvBytesBounded(*plan);
  // The same pair, small enough to simulate element by element.
  PlanAndSimulate(MakeLayout(mesh, {5, 7}, {S(0), S(1)}), MakeLayout(mesh, {5, 7}, {S(1), S(0)}));
}

TEST(PlanExamples, NestedShardToReplicateGathersOnlyWhatIsLacking) {
  const auto mesh = MakeMesh({2, 2, 2});
  // Large enough that bytes, not message counts, dominate the cost (16 MiB).
  const auto src = MakeLayout(mesh, {4096, 1024}, {S(0), S(0), S(0)});
  const auto dst = MakeLayout(mesh, {4096, 1024}, {kR, S(0), S(0)});
  auto plan = PlanRedistribute(src, dst);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(Kinds(*plan), std::vector<StepKind>{StepKind::kExchange}) << Describe(*plan, 0);
  ExpectRecvBytesBounded(*plan);
  PlanAndSimulate(MakeLayout(mesh, {11, 3}, {S(0), S(0), S(0)}),
                  MakeLayout(mesh, {11, 3}, {kR, S(0), S(0)}));
}

TEST(PlanExamples, ReplicatedSourcesSendEachElementOnce) {
  // [R, S0] -> [S0, R]: mesh dim 0 replicates in src, so each element has two holders in the
  // exchange over {0, 1}; each receiver must take it from exactly one.
  const auto mesh = MakeMesh({2, 2});
  auto plan = PlanRedistribute(MakeLayout(mesh, {1024, 1024}, {kR, S(0)}),
                               MakeLayout(mesh, {1024, 1024}, {S(0), kR}));
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(Kinds(*plan), std::vector<StepKind>{StepKind::kExchange}) << Describe(*plan, 0);
  ExpectRecvBytesBounded(*plan);
  CostModel bytes_only;
  bytes_only.dims.assign(2, LinkCost{0.0, 1e-9});
  const Plan small = PlanAndSimulate(MakeLayout(mesh, {7, 3}, {kR, S(0)}),
                                     MakeLayout(mesh, {7, 3}, {S(0), kR}), -1, bytes_only);
  EXPECT_EQ(Kinds(small), std::vector<StepKind>{StepKind::kExchange});
}

TEST(PlanExamples, GatherOnInnerDimIsOneAllGather) {
  const auto mesh = MakeMesh({2, 2});
  const Plan plan =
      PlanAndSimulate(MakeLayout(mesh, {9, 4}, {S(0), S(0)}), MakeLayout(mesh, {9, 4}, {S(0), kR}));
  ASSERT_EQ(Kinds(plan), std::vector<StepKind>{StepKind::kAllGather});
  EXPECT_EQ(plan.steps[0].mesh_dims, std::vector<int32_t>{1});
  EXPECT_EQ(plan.steps[0].tensor_dim, 0);
  ExpectRecvBytesBounded(plan);
}

TEST(PlanExamples, RaggedAndEmptyPieces) {
  const auto m4 = MakeMesh({4});
  // 9 over 4 is 3,3,3,0 by the chunk rule; to and from explicit splits with empty pieces.
  const auto chunk = MakeLayout(m4, {9, 2}, {S(0)});
  const auto ragged = MakeLayout(m4, {9, 2}, {S(0)}, {std::vector<int64_t>{0, 5, 0, 4}, {}});
  const Plan rebalance = PlanAndSimulate(chunk, ragged);
  EXPECT_EQ(Kinds(rebalance), std::vector<StepKind>{StepKind::kAllToAll});
  ExpectRecvBytesBounded(rebalance);
  PlanAndSimulate(ragged, MakeLayout(m4, {9, 2}, {S(1)}));
  PlanAndSimulate(ragged, MakeLayout(m4, {9, 2}, {kR}));
  PlanAndSimulate(MakeLayout(m4, {9, 2}, {P()}), ragged);
  PlanAndSimulate(ragged, MakeLayout(m4, {9, 2}, {P(ReduceOp::kMax)}));
  const auto m8 = MakeMesh({8});
  const auto s17 = MakeLayout(m8, {17}, {S(0)});
  const auto r17 = MakeLayout(m8, {17}, {S(0)}, {std::vector<int64_t>{1, 0, 7, 0, 0, 3, 6, 0}});
  ExpectRecvBytesBounded(PlanAndSimulate(s17, r17));
  ExpectRecvBytesBounded(PlanAndSimulate(r17, MakeLayout(m8, {17}, {kR})));
  // Nested ragged on a 2-D mesh.
  const auto m22 = MakeMesh({2, 2});
  PlanAndSimulate(MakeLayout(m22, {7, 3}, {S(0), S(0)}, {std::vector<int64_t>{0, 4, 3, 0}, {}}),
                  MakeLayout(m22, {7, 3}, {S(1), S(0)}, {std::vector<int64_t>{1, 6}, {}}));
}

TEST(PlanExamples, SizeOneMeshDimsCostNothing) {
  const auto mesh = MakeMesh({1, 4, 1});
  // Differs only on size-1 dims: no steps at all.
  auto same = PlanRedistribute(MakeLayout(mesh, {8, 4}, {S(1), S(0), P()}),
                               MakeLayout(mesh, {8, 4}, {kR, S(0), S(1)}));
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_TRUE(same->steps.empty());
  const Plan plan = PlanAndSimulate(MakeLayout(mesh, {8, 4}, {S(1), S(0), P()}),
                                    MakeLayout(mesh, {8, 4}, {P(), kR, S(0)}));
  for (const Step& s : plan.steps) EXPECT_EQ(s.mesh_dims, std::vector<int32_t>{1});
  EXPECT_EQ(Kinds(plan), std::vector<StepKind>{StepKind::kAllGather});
}

TEST(PlanExamples, PartialOnSeveralDimsReducesLastDimFirst) {
  const auto mesh = MakeMesh({2, 3});
  const Plan plan = PlanAndSimulate(MakeLayout(mesh, {6, 5}, {P(), P(ReduceOp::kAvg)}),
                                    MakeLayout(mesh, {6, 5}, {S(0), S(1)}));
  ASSERT_EQ(Kinds(plan),
            (std::vector<StepKind>{StepKind::kReduceScatter, StepKind::kReduceScatter}));
  EXPECT_EQ(plan.steps[0].mesh_dims, std::vector<int32_t>{1});
  EXPECT_EQ(plan.steps[0].op, ReduceOp::kAvg);
  // Rank 0's intermediate block under [P(sum), S(1)]: 6 rows x 2 of 5 columns, float32.
  auto stats = Stats(plan, 0);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->extra_bytes, 6 * 2 * 4);
  PlanAndSimulate(MakeLayout(mesh, {6, 5}, {S(0), S(0)}),
                  MakeLayout(mesh, {6, 5}, {P(ReduceOp::kMax), P(ReduceOp::kMax)}));
  PlanAndSimulate(MakeLayout(mesh, {6, 5}, {kR, S(1)}), MakeLayout(mesh, {6, 5}, {P(), P()}));
  PlanAndSimulate(MakeLayout(mesh, {6, 5}, {P(), kR}), MakeLayout(mesh, {6, 5}, {P(), S(0)}));
}

TEST(PlanExamples, RejectsWhatHasNoExactForm) {
  const auto mesh = MakeMesh({4});
  auto op_change =
      PlanRedistribute(MakeLayout(mesh, {4}, {P()}), MakeLayout(mesh, {4}, {P(ReduceOp::kMax)}));
  ASSERT_FALSE(op_change.ok());
  EXPECT_NE(op_change.status().message().find("P(sum) -> P(max)"), std::string::npos);
  auto shard_avg =
      PlanRedistribute(MakeLayout(mesh, {4}, {S(0)}), MakeLayout(mesh, {4}, {P(ReduceOp::kAvg)}));
  ASSERT_FALSE(shard_avg.ok());
  EXPECT_NE(shard_avg.status().message().find("P(avg)"), std::string::npos);
  EXPECT_FALSE(PlanRedistribute(MakeLayout(mesh, {4}, {kR}), MakeLayout(mesh, {5}, {kR})).ok());
  // S -> P(avg) is an error on a mesh dim of extent 1 too (SPEC §3.1), alone or beside others.
  for (const auto& one : {MakeMesh({1}), MakeMesh({1, 4})}) {
    std::vector<Placement> from(one->ndim(), kR), to(one->ndim(), kR);
    from[0] = S(0);
    to[0] = P(ReduceOp::kAvg);
    auto size_one = PlanRedistribute(MakeLayout(one, {4}, from), MakeLayout(one, {4}, to));
    ASSERT_FALSE(size_one.ok());
    EXPECT_EQ(size_one.status().code(), Code::kInvalidArgument);
    EXPECT_NE(size_one.status().message().find("mesh dim 0: S(0) -> P(avg)"), std::string::npos)
        << size_one.status().message();
  }
  // R -> P(avg) is fine: every rank keeps x (no identity fill), on any extent.
  const Plan avg =
      PlanAndSimulate(MakeLayout(mesh, {4}, {kR}), MakeLayout(mesh, {4}, {P(ReduceOp::kAvg)}));
  ASSERT_EQ(avg.steps.size(), 1u);
  for (int32_t r = 0; r < 4; ++r) {
    auto local = Localize(avg, r);
    ASSERT_TRUE(local.ok());
    ASSERT_TRUE((*local)[0].keep.has_value());
    EXPECT_EQ(*(*local)[0].keep, (*local)[0].to_block) << "rank " << r;
  }
  EXPECT_TRUE(PlanRedistribute(MakeLayout(MakeMesh({1}), {4}, {kR}),
                               MakeLayout(MakeMesh({1}), {4}, {P(ReduceOp::kAvg)}))
                  .ok());
}

TEST(PlanExamples, ExplicitRankListsAndRanksOutsideTheMesh) {
  const auto mesh = MakeMesh({2, 2}, std::vector<int32_t>{5, 1, 6, 2});
  PlanAndSimulate(MakeLayout(mesh, {5, 6}, {S(0), S(1)}), MakeLayout(mesh, {5, 6}, {S(1), kR}),
                  /*world=*/8);
  auto plan =
      PlanRedistribute(MakeLayout(mesh, {5, 6}, {P(), S(1)}), MakeLayout(mesh, {5, 6}, {kR, S(0)}));
  ASSERT_TRUE(plan.ok());
  auto outside = Localize(*plan, 0);
  ASSERT_TRUE(outside.ok());
  for (const RankStep& s : *outside) {
    EXPECT_TRUE(s.group.empty());
    EXPECT_EQ(s.send_bytes + s.recv_bytes, 0);
    EXPECT_TRUE(s.to_block.Empty());
  }
}

TEST(PlanExamples, SamePairSameHash) {
  const auto mesh = MakeMesh({2, 3});
  auto a = PlanRedistribute(MakeLayout(mesh, {6, 7}, {S(0), P()}),
                            MakeLayout(mesh, {6, 7}, {S(1), S(0)}));
  auto b = PlanRedistribute(MakeLayout(mesh, {6, 7}, {S(0), P()}),
                            MakeLayout(mesh, {6, 7}, {S(1), S(0)}));
  // An explicit split equal to the chunk rule and an equal mesh built separately: equal layouts.
  const auto mesh2 = MakeMesh({2, 3}, std::vector<int32_t>{0, 1, 2, 3, 4, 5});
  auto c = PlanRedistribute(
      MakeLayout(mesh2, {6, 7}, {S(0), P()}, {std::vector<int64_t>{3, 3}, std::nullopt}),
      MakeLayout(mesh2, {6, 7}, {S(1), S(0)},
                 {std::vector<int64_t>{2, 2, 2}, std::vector<int64_t>{4, 3}}));
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->hash, b->hash);
  EXPECT_EQ(a->hash, c->hash);
  auto d =
      PlanRedistribute(MakeLayout(mesh, {6, 7}, {S(0), P()}), MakeLayout(mesh, {6, 7}, {S(1), kR}));
  ASSERT_TRUE(d.ok());
  EXPECT_NE(a->hash, d->hash);
}

TEST(PlanExamples, DescribeNamesKindsDimsAndBytes) {
  const auto mesh = MakeMesh({2, 2});
  auto plan = PlanRedistribute(MakeLayout(mesh, {8, 8}, {S(0), S(0)}),
                               MakeLayout(mesh, {8, 8}, {S(0), kR}));
  ASSERT_TRUE(plan.ok());
  const std::string text = Describe(*plan, 1);
  EXPECT_NE(text.find("all-gather over mesh dims [1]: [S(0), S(0)] -> [S(0), R]"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rank 1 sends 64 B, receives 64 B"), std::string::npos) << text;
  auto stats = Stats(*plan, 1);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->steps, 1);
  EXPECT_EQ(stats->extra_bytes, 0);
}

TEST(PlanExamples, HundredThousandRankMeshPlansQuickly) {
  const auto mesh = MakeMesh({50, 40, 50});
  const auto src = MakeLayout(mesh, {4096, 4096, 1024}, {S(0), S(1), S(0)});
  const auto dst = MakeLayout(mesh, {4096, 4096, 1024}, {S(1), kR, S(2)});
  const auto t0 = std::chrono::steady_clock::now();
  auto plan = PlanRedistribute(src, dst);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_LT(ms, 200.0) << "release target is 10 ms (bench/planner_bench.cpp)";
  // Localize of one rank walks only its groups.
  auto local = Localize(*plan, 12345);
  ASSERT_TRUE(local.ok());
  for (const RankStep& s : *local) EXPECT_LE(s.group.size(), 100000u);
}

TEST(PlanExamples, FiveDimMeshPlans) {
  const auto mesh = MakeMesh({2, 2, 2, 2, 2});
  const auto t0 = std::chrono::steady_clock::now();
  const Plan plan = PlanAndSimulate(MakeLayout(mesh, {6, 5, 4}, {S(0), S(1), P(), S(0), kR}),
                                    MakeLayout(mesh, {6, 5, 4}, {kR, S(0), S(2), S(1), S(0)}));
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(ms, 2000.0);
  std::printf("5-D plan and simulation: %.1f ms\n%s", ms, Describe(plan, 0).c_str());
}

}  // namespace
}  // namespace weft::placement::planner
