// propagate / enumerate on abstract meshes with the built-in pointwise and matmul rules.
// Expected strategies are derived by hand from the rules' algebra; costs are checked against
// the planner run directly on the chosen layouts, and the pick against the full enumeration.
#include "ops/engine/engine.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "ops/rules/builtin.hpp"
#include "placement/planner/search.hpp"
#include "tests/ops/engine_fixture.hpp"

namespace weft::ops {
namespace {

using namespace weft::ops::testing;  // NOLINT: the fixture's helpers

class EngineTest : public EngineFixture {};

TEST_F(EngineTest, MatmulRowsStayRowsWithoutMoving) {
  auto m = Mesh({4});
  auto s = Run("matmul", {Make(m, {8, 6}, {S(0)}), Make(m, {6, 5}, {R})});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cost, 0);
  EXPECT_EQ(s->outputs[0]->shape(), (std::vector<int64_t>{8, 5}));
  EXPECT_EQ(s->outputs[0]->placements(), (std::vector<Placement>{S(0)}));
}

TEST_F(EngineTest, ShardedContractionGivesPartialSum) {
  auto m = Mesh({4});
  auto s = Run("mm", {Make(m, {8, 6}, {S(1)}), Make(m, {6, 5}, {S(0)})});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->op, "matmul");
  EXPECT_EQ(s->cost, 0);
  EXPECT_EQ(s->outputs[0]->placements(), (std::vector<Placement>{P()}));
}

TEST_F(EngineTest, RaggedRowsCarryIntoTheOutputExactly) {
  auto m = Mesh({4});
  auto a = Make(m, {8, 6}, {S(0)}, {std::vector<int64_t>{5, 1, 0, 2}, std::nullopt});
  auto s = Run("matmul", {a, Make(m, {6, 5}, {R})});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cost, 0);
  EXPECT_TRUE(s->inputs[0]->SameAs(*a));
  EXPECT_EQ(s->outputs[0]->ResolvedSizes(0), (std::vector<int64_t>{5, 1, 0, 2}));
}

TEST_F(EngineTest, TwoDimMeshCombinesPerDimStrategies) {
  auto m = Mesh({2, 2});
  // Rows over mesh dim 0; over mesh dim 1 the contracted dim on both: rows x P(sum).
  auto s = Run("matmul", {Make(m, {8, 6}, {S(0), S(1)}), Make(m, {6, 4}, {R, S(0)})});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cost, 0);
  EXPECT_EQ(s->outputs[0]->placements(), (std::vector<Placement>{S(0), P()}));
}

TEST_F(EngineTest, BatchDimsFollowOnThreeDimMesh) {
  auto m = Mesh({2, 2, 2});
  auto s =
      Run("bmm", {Make(m, {4, 8, 6}, {S(0), S(1), S(2)}), Make(m, {4, 6, 2}, {S(0), R, S(1)})});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cost, 0);
  EXPECT_EQ(s->outputs[0]->placements(), (std::vector<Placement>{S(0), S(1), P()}));
}

TEST_F(EngineTest, DisagreeingShardsPayForTheCheapestMove) {
  auto m = Mesh({4});
  auto s = Run("matmul", {Make(m, {64, 64}, {S(0)}), Make(m, {64, 64}, {S(1)})});
  ASSERT_TRUE(s);
  EXPECT_GT(s->cost, 0);
}

TEST_F(EngineTest, PartialRulesOfPointwiseOps) {
  auto m = Mesh({4});
  auto ps = Make(m, {8, 6}, {P()}), r = Make(m, {8, 6}, {R});
  auto add = Run("add", {ps, ps});
  ASSERT_TRUE(add);
  EXPECT_EQ(add->cost, 0);
  EXPECT_EQ(add->outputs[0]->placements(), (std::vector<Placement>{P()}));
  auto scaled = Run("mul", {r, ps});
  ASSERT_TRUE(scaled);
  EXPECT_EQ(scaled->cost, 0);
  EXPECT_EQ(scaled->outputs[0]->placements(), (std::vector<Placement>{P()}));
  // Two partial sums multiplied: the cross terms need one of them reduced first; the other
  // may stay partial (linear in it alone).
  auto product = Run("mul", {ps, ps});
  ASSERT_TRUE(product);
  EXPECT_GT(product->cost, 0);
  EXPECT_FALSE(IsPartial(product->inputs[0]->placements()[0]) &&
               IsPartial(product->inputs[1]->placements()[0]));
  auto relu = Run("relu", {ps});
  ASSERT_TRUE(relu);
  EXPECT_GT(relu->cost, 0);
  EXPECT_FALSE(IsPartial(relu->outputs[0]->placements()[0]));
  auto neg = Run("neg", {Make(m, {8, 6}, {P(ReduceOp::kMax)})});
  ASSERT_TRUE(neg);
  EXPECT_EQ(neg->cost, 0);
  EXPECT_EQ(neg->outputs[0]->placements(), (std::vector<Placement>{P(ReduceOp::kMin)}));
  auto relu_max = Run("relu", {Make(m, {8, 6}, {P(ReduceOp::kMax)})});
  ASSERT_TRUE(relu_max);
  EXPECT_EQ(relu_max->cost, 0);
  EXPECT_EQ(relu_max->outputs[0]->placements(), (std::vector<Placement>{P(ReduceOp::kMax)}));
}

TEST_F(EngineTest, BroadcastInputsStayReplicated) {
  auto m = Mesh({4});
  auto s = Run("add", {Make(m, {8, 6}, {S(0)}), Make(m, {6}, {R})});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cost, 0);
  EXPECT_EQ(s->outputs[0]->shape(), (std::vector<int64_t>{8, 6}));
  EXPECT_EQ(s->outputs[0]->placements(), (std::vector<Placement>{S(0)}));
  auto t = Run("add", {Make(m, {8, 6}, {S(1)}), Make(m, {1, 6}, {S(1)})});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->cost, 0);
  EXPECT_EQ(t->outputs[0]->placements(), (std::vector<Placement>{S(1)}));
}

TEST_F(EngineTest, AlignedInputsShareOneSplit) {
  auto m = Mesh({4});
  auto a = Make(m, {16}, {S(0)}, {std::vector<int64_t>{7, 3, 3, 3}});
  auto b = Make(m, {16}, {S(0)});
  auto s = Run("add", {a, b});
  ASSERT_TRUE(s);
  EXPECT_GT(s->cost, 0);
  const auto& out = *s->outputs[0];
  if (IsShard(out.placements()[0])) {
    EXPECT_EQ(s->inputs[0]->ResolvedSizes(0), s->inputs[1]->ResolvedSizes(0));
    EXPECT_EQ(out.ResolvedSizes(0), s->inputs[0]->ResolvedSizes(0));
  }
}

TEST_F(EngineTest, ExtentOneMeshDimsStayReplicated) {
  auto m = Mesh({1, 4});
  auto s = Run("matmul", {Make(m, {8, 6}, {R, S(0)}), Make(m, {6, 5}, {R, R})});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->choice[0], -1);
  EXPECT_EQ(s->cost, 0);
  EXPECT_EQ(s->outputs[0]->placements(), (std::vector<Placement>{R, S(0)}));
}

TEST_F(EngineTest, CachedByLayoutsAndOnlyTheAttributesARuleReads) {
  auto m = Mesh({4});
  std::vector<LayoutPtr> in = {Make(m, {8, 6}, {S(0)}), Make(m, {6, 5}, {R})};
  auto first = engine_.Propagate("matmul", in, {});
  ASSERT_TRUE(first.ok());
  Attributes unread;
  ASSERT_TRUE(unread.Set("note", std::string("ignored")).ok());
  // Equal layouts built anew hit the same entry.
  std::vector<LayoutPtr> again = {Make(m, {8, 6}, {S(0)}), Make(m, {6, 5}, {R})};
  auto second = engine_.Propagate("matmul", again, unread);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(first->get(), second->get());
  auto other = engine_.Propagate("matmul", std::vector<LayoutPtr>{Make(m, {8, 6}, {R}), in[1]}, {});
  ASSERT_TRUE(other.ok());
  EXPECT_NE(first->get(), other->get());
}

TEST_F(EngineTest, BadCallsAreClearErrors) {
  auto m = Mesh({4});
  auto a = Make(m, {8, 6}, {S(0)});
  auto unknown = engine_.Propagate("conv9d", std::vector<LayoutPtr>{a}, {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(), "no operator 'conv9d' is registered");
  auto count = engine_.Propagate("matmul", std::vector<LayoutPtr>{a}, {});
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.status().message(), "operator 'matmul' takes 2 inputs, got 1");
  auto shapes = engine_.Propagate("matmul", std::vector<LayoutPtr>{a, a}, {});
  ASSERT_FALSE(shapes.ok());
  EXPECT_EQ(shapes.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(shapes.status().message(),
            "operator 'matmul': the contracted extents differ ([8,6] x [8,6])");
  auto other_mesh = engine_.Propagate(
      "add", std::vector<LayoutPtr>{a, Make(Mesh({2, 2}), {8, 6}, {S(0), R})}, {});
  ASSERT_FALSE(other_mesh.ok());
  EXPECT_EQ(other_mesh.status().message(),
            "operator 'add': input 1 is on another mesh than input 0");
  auto broadcast = engine_.Propagate("add", std::vector<LayoutPtr>{a, Make(m, {8, 5}, {R})}, {});
  ASSERT_FALSE(broadcast.ok());
  EXPECT_EQ(broadcast.status().message(),
            "operator 'add': shapes [8,6] and [8,5] do not broadcast");
}

TEST_F(EngineTest, RegistryRefusesTakenNamesAndDanglingAliases) {
  OpDef dup;
  dup.name = "add";
  dup.source = "plugin x";
  dup.rule = [](std::span<const TensorInfo>, const Attributes&, RuleResult*) {
    return Status::Ok();
  };
  Status s = registry_.Add(dup);
  EXPECT_EQ(s.message(), "operator 'add' from plugin x is already registered by built-in");
  EXPECT_EQ(registry_.AddAlias("aten.mm", "nope", "plugin x").message(),
            "alias 'aten.mm' from plugin x names 'nope', which is not a registered operator");
  EXPECT_EQ(registry_.AddAlias("mm", "add", "plugin x").message(),
            "operator 'mm' from plugin x is already an alias of 'matmul' from built-in");
  ASSERT_TRUE(registry_.AddAlias("aten.mm", "matmul", "plugin x").ok());
  EXPECT_EQ(registry_.Find("aten.mm")->name, "matmul");
}

TEST_F(EngineTest, ThrowingOrLyingRulesFailNamingTheOperator) {
  OpDef thrower;
  thrower.name = "thrower";
  thrower.source = "test";
  thrower.rule = [](std::span<const TensorInfo>, const Attributes&, RuleResult*) -> Status {
    throw std::runtime_error("boom");
  };
  ASSERT_TRUE(registry_.Add(thrower).ok());
  OpDef liar;
  liar.name = "liar";
  liar.rule = [](std::span<const TensorInfo> in, const Attributes&, RuleResult* r) {
    r->outputs.push_back(in[0]);
    r->strategies.push_back({{PlacementCode::S(5), PlacementCode::R()}});
    return Status::Ok();
  };
  ASSERT_TRUE(registry_.Add(liar).ok());
  auto a = Make(Mesh({4}), {8, 6}, {S(0)});
  auto t = engine_.Propagate("thrower", std::vector<LayoutPtr>{a}, {});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), Code::kInternal);
  EXPECT_EQ(t.status().message(), "operator 'thrower' (test): its rule threw: boom");
  auto l = engine_.Propagate("liar", std::vector<LayoutPtr>{a}, {});
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().message(),
            "operator 'liar': its rule shards dim 5 of tensor 0, which has 2 dims");
}

// Up to Engine::kExhaustiveUpTo combinations (these meshes) propagate's pick is the cheapest
// of the exhaustive enumeration (Run checks pick == enumeration[0]) on random inputs.
TEST_F(EngineTest, SearchFindsTheEnumerationsCheapestOnRandomInputs) {
  const char* env = std::getenv("WEFT_PROPERTY_SEED");
  std::mt19937_64 rng(env ? std::strtoull(env, nullptr, 0) : 0x0b5);
  auto pick = [&](int64_t n) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(n)); };
  auto placement = [&](int32_t ndim) -> Placement {
    switch (pick(4)) {
      case 0:
        return R;
      case 1:
        return P(pick(2) ? ReduceOp::kSum : ReduceOp::kMax);
      default:
        return S(static_cast<int32_t>(pick(ndim)));
    }
  };
  const std::vector<std::vector<int64_t>> meshes = {{4}, {3}, {2, 2}, {2, 3}, {2, 1, 2}};
  for (int c = 0; c < 60; ++c) {
    auto mesh = Mesh(meshes[static_cast<size_t>(pick(int64_t(meshes.size())))]);
    const int64_t m = 4 + pick(12), k = 4 + pick(12), n = 4 + pick(12);
    std::vector<Placement> pa, pb;
    for (int32_t d = 0; d < mesh->ndim(); ++d) {
      pa.push_back(placement(2));
      pb.push_back(placement(2));
    }
    auto a = placement::Layout::Create({mesh, {m, k}, kF32, pa, {}});
    auto b = placement::Layout::Create(
        {mesh, c % 2 ? std::vector<int64_t>{k, n} : std::vector<int64_t>{m, k}, kF32, pb, {}});
    if (!a.ok() || !b.ok()) continue;  // e.g. two Partial ops on one tensor
    SCOPED_TRACE("case " + std::to_string(c) + ": " + (*a)->Describe() + " | " + (*b)->Describe());
    Run(c % 2 ? "matmul" : "add", {*a, *b});
  }
}

// Beyond Engine::kExhaustiveUpTo (3-D and 4-D meshes, bmm's 8 dim strategies) propagate runs
// the estimate-led search, which may miss the cheapest by a little. Against the exhaustive
// enumeration on random inputs: the estimate must order well enough that a miss is rare and
// small. (The separable per-dim estimate it replaced missed in 49 of 400 such cases, once by
// 2.9x: it charged a slice per mesh dim, so cutting a replicated input finer looked dearer.)
TEST_F(EngineTest, SearchOnThreeDimMeshesIsRarelyAndBarelyWorseThanTheCheapest) {
  std::mt19937_64 rng(0x5eed);
  auto pick = [&](int64_t n) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(n)); };
  auto placement = [&]() -> Placement {
    switch (pick(4)) {
      case 0:
        return R;
      case 1:
        return P();
      default:
        return S(static_cast<int32_t>(pick(3)));
    }
  };
  const std::vector<std::vector<int64_t>> meshes = {{2, 2, 2}, {2, 3, 2}, {4, 2, 2}, {2, 2, 2, 2}};
  int cases = 0, misses = 0;
  double worst = 0, picked = 0, cheapest = 0;
  for (int c = 0; c < 200; ++c) {
    auto mesh = Mesh(meshes[static_cast<size_t>(pick(int64_t(meshes.size())))]);
    const int64_t b = 4 + pick(12), m = 16 + pick(200), k = 16 + pick(200), n = 16 + pick(200);
    std::vector<Placement> pa, pb;
    for (int32_t d = 0; d < mesh->ndim(); ++d) {
      pa.push_back(placement());
      pb.push_back(placement());
    }
    auto a = placement::Layout::Create({mesh, {b, m, k}, kF32, pa, {}});
    auto bb = placement::Layout::Create({mesh, {b, k, n}, kF32, pb, {}});
    ASSERT_TRUE(a.ok() && bb.ok());
    Engine engine(registry_);
    const std::vector<LayoutPtr> in{*a, *bb};
    auto s = engine.Propagate("bmm", in, {});
    auto all = engine.Enumerate("bmm", in, {});
    ASSERT_TRUE(s.ok() && all.ok());
    ++cases;
    const double best = (*all)[0]->cost, got = (*s)->cost;
    EXPECT_GE(got, best);
    picked += got;
    cheapest += best;
    if (got > best) {
      ++misses;
      worst = std::max(worst, (got - best) / best);
    }
  }
  EXPECT_EQ(cases, 200);
  // Measured at kExactCandidates 3: 2 misses, the worst 3.7% dearer, 0.01% over the sum.
  EXPECT_LE(misses, 6);
  EXPECT_LE(worst, 0.10);
  EXPECT_LE(picked / cheapest, 1.002);
}

}  // namespace
}  // namespace weft::ops
