// The windowed family (conv, conv_backward_weight, conv_transpose, max_pool, avg_pool, pad,
// interpolate, neighborhood_attention, offset_stencil; SPEC §4.5, §5):
// random cases through the validation harness (halo blocks from the reference exchange), and
// what propagate hands a spatially sharded image.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "ops/check/cases.hpp"
#include "ops/check/harness.hpp"
#include "placement/halo/derive/layout_windows.hpp"
#include "tests/ops/engine_fixture.hpp"

namespace weft::ops {
namespace {

using namespace weft::ops::testing;  // NOLINT: the fixture's meshes and layouts

class WindowedTest : public EngineFixture {};

TEST_F(WindowedTest, RandomCasesAgreeWithOneProcess) {
  check::Rng rng(23);
  for (const std::string op :
       {"conv", "conv_backward_weight", "conv_transpose", "conv_transpose_backward_weight",
        "max_pool", "avg_pool", "pad", "interpolate", "neighborhood_attention", "offset_stencil"}) {
    int64_t candidates = 0;
    for (int k = 0; k < 25; ++k) {
      auto c = check::MakeCase(op, rng);
      ASSERT_TRUE(c.ok()) << c.status().message();
      const check::CaseResult r = check::CheckCase(engine_, *registry_.Find(op), *c, 2, rng);
      ASSERT_EQ(r.failure, "") << op;
      candidates += r.candidates;
    }
    EXPECT_GT(candidates, 150) << op;
  }
}

Attributes ConvAttrs(int64_t pad) {
  Attributes a;
  EXPECT_TRUE(a.Set("padding", std::vector<int64_t>{pad}).ok());
  return a;
}

// A 3x3 conv on an image sharded unevenly by rows: the input stays where it is, gets a one-row
// halo each side (zeros past the edges) and the output keeps the input's split.
TEST_F(WindowedTest, ConvOnRowShardedImageExchangesHalosInsteadOfGathering) {
  auto mesh = Mesh({4});
  auto x = Make(mesh, {2, 8, 64, 48}, {S(2)},
                {std::nullopt, std::nullopt, std::vector<int64_t>{10, 20, 14, 20}, std::nullopt});
  auto w = Make(mesh, {8, 8, 3, 3}, {R});
  StrategyPtr s = Run("conv2d", {x, w}, ConvAttrs(1));
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->inputs[0]->SameAs(*x)) << s->Describe();
  EXPECT_EQ(s->input_costs[0], 0.0);
  EXPECT_GT(s->halo_cost, 0.0);
  ASSERT_EQ(s->halos.size(), 2u);
  EXPECT_TRUE(s->halos[1].dims.empty());  // the weight: none
  const auto& dims = s->halos[0].dims;
  ASSERT_EQ(dims.size(), 2u);  // both spatial dims: the kernel runs unpadded on the block
  EXPECT_EQ(dims[0].dim, 2);
  EXPECT_EQ(dims[0].pad_lo, 1);
  EXPECT_EQ(dims[0].pad_hi, 1);
  EXPECT_EQ(dims[0].windows, (std::vector<int64_t>{-1, 11, 9, 31, 29, 45, 43, 65}));
  EXPECT_EQ(dims[1].dim, 3);
  EXPECT_EQ(dims[1].windows, (std::vector<int64_t>{-1, 49, -1, 49, -1, 49, -1, 49}));
  EXPECT_EQ(s->outputs[0]->ResolvedSizes(2), (std::vector<int64_t>{10, 20, 14, 20}));
  EXPECT_NE(s->Describe().find("halo on dim 2"), std::string::npos);
}

// Stride 2 halves every piece's output rows by the window's anchors, as
// weft_halo_derive_windows does.
TEST_F(WindowedTest, StridedConvOutputSplitIsTheDerivedOne) {
  auto mesh = Mesh({3});
  auto x = Make(mesh, {1, 2, 31}, {S(2)});
  auto w = Make(mesh, {4, 2, 5}, {R});
  Attributes a;
  ASSERT_TRUE(a.Set("stride", std::vector<int64_t>{2}).ok());
  ASSERT_TRUE(a.Set("padding", std::vector<int64_t>{2, 1}).ok());
  StrategyPtr s = Run("conv1d", {x, w}, a);
  ASSERT_TRUE(s);
  placement::halo::WindowOp op{placement::halo::WindowKind::kConv, 5, 2, 1, 2, 1, 0};
  auto want = placement::halo::DeriveLayoutWindows(*x, 2, op);
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(s->outputs[0]->shape()[2], want->out_extent);
  EXPECT_EQ(s->outputs[0]->ResolvedSizes(2), want->out_sizes);
  EXPECT_EQ(s->halos[0].dims[0].windows, want->table);
}

// Shards of one row and a 9-tap kernel: the windows reach several shards away (multi-hop), and
// the engine weighs that exchange against gathering the rows; either way the pick is the
// cheapest candidate and the harness runs it correctly.
TEST_F(WindowedTest, DeepHalosReachPastTheNeighbours) {
  auto mesh = Mesh({8});
  auto x = Make(mesh, {1, 1, 8}, {S(2)});
  auto w = Make(mesh, {1, 1, 9}, {R});
  auto all = engine_.Enumerate("conv", std::vector<LayoutPtr>{x, w}, ConvAttrs(4));
  ASSERT_TRUE(all.ok()) << all.status().message();
  bool multi_hop = false;
  for (const StrategyPtr& s : *all)
    for (const auto& d : s->halos[0].dims)
      if (d.dim == 2 && s->inputs[0]->split(2).pieces == 8)
        multi_hop |= d.windows[2 * 3 + 1] - d.windows[2 * 3] == 9;
  EXPECT_TRUE(multi_hop);
  ASSERT_TRUE(Run("conv", {x, w}, ConvAttrs(4)));
}

TEST_F(WindowedTest, MaxPoolPadsWithMinusInfinityAndAvgPoolWithZeros) {
  auto mesh = Mesh({2});
  auto x = Make(mesh, {1, 3, 9, 9}, {S(2)});
  Attributes a;
  ASSERT_TRUE(a.Set("kernel_size", std::vector<int64_t>{3}).ok());
  ASSERT_TRUE(a.Set("stride", std::vector<int64_t>{2}).ok());
  ASSERT_TRUE(a.Set("padding", std::vector<int64_t>{1}).ok());
  StrategyPtr m = Run("max_pool2d", {x}, a);
  ASSERT_TRUE(m && !m->halos[0].dims.empty());
  EXPECT_EQ(m->halos[0].constant, -std::numeric_limits<double>::infinity());
  StrategyPtr v = Run("avg_pool2d", {x}, a);
  ASSERT_TRUE(v && !v->halos[0].dims.empty());
  EXPECT_EQ(v->halos[0].constant, 0.0);
  // Without the padding in the count, the divisor depends on the global position: the rule
  // does not shard the padded dims, and the rows are gathered.
  ASSERT_TRUE(a.Set("count_include_pad", false).ok());
  StrategyPtr g = Run("avg_pool2d", {x}, a);
  ASSERT_TRUE(g);
  EXPECT_TRUE(g->halos.empty() || g->halos[0].dims.empty());
  EXPECT_EQ(g->inputs[0]->split(2).pieces, 1);
}

TEST_F(WindowedTest, ReflectPadTakesItsMirrorRowsFromTheNeighbours) {
  auto mesh = Mesh({3});
  auto x = Make(mesh, {4, 7}, {S(1)}, {std::nullopt, std::vector<int64_t>{1, 5, 1}});
  Attributes a;
  ASSERT_TRUE(a.Set("pad", std::vector<int64_t>{3, 2}).ok());
  ASSERT_TRUE(a.Set("mode", std::string("reflect")).ok());
  StrategyPtr s = Run("pad", {x}, a);
  ASSERT_TRUE(s);
  ASSERT_EQ(s->halos[0].dims.size(), 1u);
  EXPECT_EQ(s->halos[0].dims[0].lo_rule, placement::halo::Boundary::kReflect);
  EXPECT_EQ(s->outputs[0]->shape()[1], 12);
  EXPECT_EQ(s->outputs[0]->ResolvedSizes(1), (std::vector<int64_t>{4, 5, 3}));
}

// Bilinear upsampling by 2 of a row-sharded image: each rank reads one row past its edge, and
// the output split doubles the input's (the anchors of an integer factor).
TEST_F(WindowedTest, LinearUpsamplingDoublesTheSplitAndReadsOneRowMore) {
  auto mesh = Mesh({2});
  auto x = Make(mesh, {1, 1, 6, 4}, {S(2)},
                {std::nullopt, std::nullopt, std::vector<int64_t>{2, 4}, std::nullopt});
  Attributes a;
  ASSERT_TRUE(a.Set("size", std::vector<int64_t>{12, 8}).ok());
  ASSERT_TRUE(a.Set("mode", std::string("bilinear")).ok());
  StrategyPtr s = Run("interpolate", {x}, a);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->inputs[0]->SameAs(*x)) << s->Describe();
  EXPECT_EQ(s->outputs[0]->ResolvedSizes(2), (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(s->halos[0].dims[0].windows, (std::vector<int64_t>{0, 3, 1, 6}));
}

// A neighbourhood of 5 over shards of 2 rows: keys and values come from two shards each way.
TEST_F(WindowedTest, NeighborhoodAttentionHalosKeysAndValuesOnly) {
  auto mesh = Mesh({4});
  auto q = Make(mesh, {1, 2, 8, 3}, {S(2)});
  Attributes a;
  ASSERT_TRUE(a.Set("kernel_size", std::vector<int64_t>{5}).ok());
  StrategyPtr s = Run("neighborhood_attention", {q, q, q}, a);
  ASSERT_TRUE(s);
  ASSERT_EQ(s->halos.size(), 3u);
  EXPECT_TRUE(s->halos[0].dims.empty());  // queries: their own rows
  ASSERT_EQ(s->halos[1].dims.size(), 1u);
  EXPECT_EQ(s->halos[1].dims[0].windows, (std::vector<int64_t>{0, 5, 0, 6, 2, 8, 3, 8}));
  EXPECT_EQ(s->outputs[0]->ResolvedSizes(2), (std::vector<int64_t>{2, 2, 2, 2}));
}

TEST_F(WindowedTest, BadArgumentsNameTheOperatorAndAttribute) {
  auto mesh = Mesh({2});
  auto x = Make(mesh, {1, 4, 8, 8}, {R});
  auto w = Make(mesh, {8, 3, 3, 3}, {R});
  auto bad = engine_.Propagate("conv", std::vector<LayoutPtr>{x, w}, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("operator 'conv'"), std::string::npos);
  Attributes a;
  ASSERT_TRUE(a.Set("padding", std::vector<int64_t>{1, 2, 3}).ok());
  auto w4 = Make(mesh, {8, 4, 3, 3}, {R});
  bad = engine_.Propagate("conv", std::vector<LayoutPtr>{x, w4}, a);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'padding'"), std::string::npos) << bad.status().message();
  Attributes p;
  ASSERT_TRUE(p.Set("pad", std::vector<int64_t>{8, 0}).ok());
  ASSERT_TRUE(p.Set("mode", std::string("reflect")).ok());
  bad = engine_.Propagate("pad", std::vector<LayoutPtr>{x}, p);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("reflect padding of 8 rows"), std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace weft::ops
