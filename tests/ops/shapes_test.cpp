// The shape families (view.cpp, concat.cpp, index.cpp) on abstract meshes: expected layouts
// derived by hand (uneven chunk splits, explicit splits, nested splits, the fall-back cases that
// must redistribute), and each reference kernel on one process and rank by rank under the
// strategy propagate picks, assembled and compared with the one-process result.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ops/check/harness.hpp"
#include "ops/rules/shape_util.hpp"
#include "tests/ops/engine_fixture.hpp"

namespace weft::ops {
namespace {

using namespace weft::ops::testing;  // NOLINT: the fixture's helpers
using Sizes = std::vector<int64_t>;

const DType kI64{kCodeInt, 64, 1};

Attributes Attrs(std::initializer_list<std::pair<std::string, AttrValue>> items) {
  Attributes a;
  for (const auto& [k, v] : items) EXPECT_TRUE(a.Set(k, v).ok());
  return a;
}

DenseTensor Iota(Sizes shape, double from = 0) {
  DenseTensor t{std::move(shape), {}};
  for (int64_t k = 0; k < shape::Count(t.shape); ++k) t.values.push_back(from + double(k));
  return t;
}

class ShapesTest : public EngineFixture {
 protected:
  const OpDef& Op(const std::string& name) { return *registry_.Find(name); }

  // The kernel on one process: global inputs, no offsets, no output shapes given.
  std::vector<DenseTensor> Local(const std::string& op, const std::vector<DenseTensor>& in,
                                 const Attributes& a, std::vector<DType> dtypes = {}) {
    std::vector<TensorInfo> infos;
    for (size_t i = 0; i < in.size(); ++i)
      infos.push_back({in[i].shape, i < dtypes.size() ? dtypes[i] : kF32});
    KernelCall call;
    call.inputs = in;
    call.global_inputs = infos;
    call.attrs = &a;
    std::vector<DenseTensor> out;
    Status st = Op(op).kernel(call, &out);
    EXPECT_TRUE(st.ok()) << st.message();
    return out;
  }

  // The kernel rank by rank under `s`, the outputs assembled (the validation harness's
  // runner, ops/check: Partial inputs as exact shares, Partial outputs reduced, replicas
  // compared).
  std::vector<DenseTensor> Sharded(const std::string& op, const Strategy& s,
                                   const std::vector<DenseTensor>& global, const Attributes& a) {
    std::vector<TensorInfo> infos;
    for (const LayoutPtr& l : s.inputs) infos.push_back({l->shape(), l->dtype()});
    check::Rng rng(5);
    auto got = check::RunStrategy(Op(op), s, infos, global, a, 0, rng);
    EXPECT_TRUE(got.ok()) << got.status().message();
    return got.ok() ? *got : std::vector<DenseTensor>{};
  }

  // Propagate, then the kernel rank by rank must give the one-process result.
  StrategyPtr Check(const std::string& op, std::vector<LayoutPtr> in,
                    const std::vector<DenseTensor>& global, const Attributes& a = {}) {
    StrategyPtr s = Run(op, in, a);
    if (!s) return s;
    std::vector<DType> dtypes;
    for (const LayoutPtr& l : in) dtypes.push_back(l->dtype());
    const std::vector<DenseTensor> want = Local(op, global, a, dtypes);
    const std::vector<DenseTensor> got = Sharded(op, *s, global, a);
    EXPECT_EQ(got.size(), want.size()) << s->Describe();
    for (size_t o = 0; o < got.size() && o < want.size(); ++o) {
      EXPECT_EQ(got[o].shape, want[o].shape) << s->Describe();
      EXPECT_EQ(got[o].values, want[o].values) << s->Describe();
    }
    return s;
  }
};

LayoutPtr MakeIndex(const MeshPtr& mesh, Sizes shape, std::vector<Placement> p) {
  auto l = placement::Layout::Create({mesh, std::move(shape), kI64, std::move(p), {}});
  EXPECT_TRUE(l.ok()) << l.status().message();
  return *l;
}

// Random placements (R or a shard of a random dim per mesh dim) and, half the time, random
// explicit sizes for each sharded dim.
template <class Pick>
LayoutPtr RandomLayout(const MeshPtr& mesh, const Sizes& shape, DType dtype, Pick& pick) {
  std::vector<Placement> p;
  std::vector<int64_t> pieces(shape.size(), 1);
  for (int32_t m = 0; m < mesh->ndim(); ++m) {
    const auto d = static_cast<int32_t>(pick(int64_t(shape.size()) + 1)) - 1;
    p.push_back(d < 0 ? R : S(d));
    if (d >= 0) pieces[size_t(d)] *= mesh->shape()[size_t(m)];
  }
  std::vector<std::optional<Sizes>> splits(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (pieces[d] == 1 || pick(2)) continue;
    Sizes sizes(size_t(pieces[d]), 0);
    for (int64_t k = 0; k < shape[d]; ++k) ++sizes[size_t(pick(pieces[d]))];
    splits[d] = sizes;
  }
  auto l = placement::Layout::Create({mesh, shape, dtype, std::move(p), std::move(splits)});
  EXPECT_TRUE(l.ok()) << l.status().message();
  return *l;
}

TEST_F(ShapesTest, FlattenScalesTheOuterDimsSplitExactly) {
  auto m = Mesh({2});
  // Chunk {3,2} of the rows: 9 and 6 elements (not 15's chunk {8,7}).
  auto s = Check("flatten", {Make(m, {5, 3}, {S(0)})}, {Iota({5, 3})});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cost, 0);
  EXPECT_EQ(s->outputs[0]->shape(), (Sizes{15}));
  EXPECT_EQ(s->outputs[0]->placements(), (std::vector<Placement>{S(0)}));
  EXPECT_EQ(s->outputs[0]->ResolvedSizes(0), (Sizes{9, 6}));
  // Explicit rows, empty pieces included.
  auto m4 = Mesh({4});
  auto e = Check("flatten", {Make(m4, {8, 3}, {S(0)}, {Sizes{5, 1, 0, 2}, std::nullopt})},
                 {Iota({8, 3})});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->cost, 0);
  EXPECT_EQ(e->outputs[0]->ResolvedSizes(0), (Sizes{15, 3, 0, 6}));
}

TEST_F(ShapesTest, FlattenOfNestedShardsKeepsThePieceOrder) {
  auto m = Mesh({2, 2});
  // 6 rows: mesh dim 0 cuts {3,3}, mesh dim 1 each into {2,1}: pieces {2,1,2,1}.
  auto s = Check("flatten", {Make(m, {6, 3}, {S(0), S(0)})}, {Iota({6, 3})});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cost, 0);
  EXPECT_EQ(s->outputs[0]->placements(), (std::vector<Placement>{S(0), S(0)}));
  EXPECT_EQ(s->outputs[0]->ResolvedSizes(0), (Sizes{6, 3, 6, 3}));
  // Rows on one mesh dim, a trailing untouched dim on the other.
  auto t = Check("flatten", {Make(m, {4, 3, 6}, {S(0), S(2)})}, {Iota({4, 3, 6})},
                 Attrs({{"start_dim", int64_t{0}}, {"end_dim", int64_t{1}}}));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->cost, 0);
  EXPECT_EQ(t->outputs[0]->shape(), (Sizes{12, 6}));
  EXPECT_EQ(t->outputs[0]->placements(), (std::vector<Placement>{S(0), S(1)}));
}

TEST_F(ShapesTest, InnerDimShardsOfAGroupAreRedistributed) {
  auto m = Mesh({2});
  auto s = Check("flatten", {Make(m, {4, 6}, {S(1)})}, {Iota({4, 6})});
  ASSERT_TRUE(s);
  EXPECT_GT(s->cost, 0);
  EXPECT_NE(s->inputs[0]->placements()[0], S(1));
}

TEST_F(ShapesTest, SplittingAShardedDimNeedsPiecesTheInnerSizeDivides) {
  auto m = Mesh({2});
  const Attributes a = Attrs({{"dim", int64_t{0}}, {"sizes", Sizes{3, 4}}});
  // Chunk {6,6}: 6 is no multiple of 4, no exact output split: the input must move.
  auto s = Check("unflatten", {Make(m, {12}, {S(0)})}, {Iota({12})}, a);
  ASSERT_TRUE(s);
  EXPECT_GT(s->cost, 0);
  // Explicit {8,4}: rows {2,1} of the output.
  auto e = Check("unflatten", {Make(m, {12}, {S(0)}, {Sizes{8, 4}})}, {Iota({12})}, a);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->cost, 0);
  EXPECT_EQ(e->outputs[0]->ResolvedSizes(0), (Sizes{2, 1}));
  // Three ranks, chunk {4,4,4}: one row each.
  auto t = Check("view", {Make(Mesh({3}), {12}, {S(0)})}, {Iota({12})},
                 Attrs({{"shape", Sizes{-1, 4}}}));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->op, "reshape");
  EXPECT_EQ(t->cost, 0);
  EXPECT_EQ(t->outputs[0]->shape(), (Sizes{3, 4}));
  EXPECT_EQ(t->outputs[0]->placements(), (std::vector<Placement>{S(0)}));
}

TEST_F(ShapesTest, ReshapeAcrossAGroupScalesByTheInnerProducts) {
  // [6,4] -> [4,6]: rows {3,3} are 12 elements each, rows {2,2} of the output.
  auto s = Check("reshape", {Make(Mesh({2}), {6, 4}, {S(0)})}, {Iota({6, 4})},
                 Attrs({{"shape", Sizes{4, 6}}}));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cost, 0);
  EXPECT_EQ(s->outputs[0]->ResolvedSizes(0), (Sizes{2, 2}));
  // Partial sums pass.
  auto p = Run("reshape", {Make(Mesh({2}), {6, 4}, {P()})}, Attrs({{"shape", Sizes{24}}}));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->cost, 0);
  EXPECT_EQ(p->outputs[0]->placements(), (std::vector<Placement>{P()}));
}

TEST_F(ShapesTest, DimMapsCarryRaggedSplits) {
  auto m = Mesh({2});
  auto x = Make(m, {4, 6}, {S(1)}, {std::nullopt, Sizes{5, 1}});
  auto t =
      Check("transpose", {x}, {Iota({4, 6})}, Attrs({{"dim0", int64_t{0}}, {"dim1", int64_t{-1}}}));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->cost, 0);
  EXPECT_EQ(t->outputs[0]->placements(), (std::vector<Placement>{S(0)}));
  EXPECT_EQ(t->outputs[0]->ResolvedSizes(0), (Sizes{5, 1}));
  auto p = Check("permute", {Make(Mesh({2, 2}), {2, 3, 4}, {S(2), S(0)})}, {Iota({2, 3, 4})},
                 Attrs({{"dims", Sizes{2, 0, 1}}}));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->cost, 0);
  EXPECT_EQ(p->outputs[0]->placements(), (std::vector<Placement>{S(0), S(1)}));
  auto sq =
      Check("squeeze", {Make(m, {4, 1, 6}, {S(2)}, {std::nullopt, std::nullopt, Sizes{1, 5}})},
            {Iota({4, 1, 6})});
  ASSERT_TRUE(sq);
  EXPECT_EQ(sq->cost, 0);
  EXPECT_EQ(sq->outputs[0]->ResolvedSizes(1), (Sizes{1, 5}));
  auto un = Check("unsqueeze", {x}, {Iota({4, 6})}, Attrs({{"dim", int64_t{1}}}));
  ASSERT_TRUE(un);
  EXPECT_EQ(un->outputs[0]->shape(), (Sizes{4, 1, 6}));
  EXPECT_EQ(un->outputs[0]->ResolvedSizes(2), (Sizes{5, 1}));
  auto c = Check("contiguous", {x}, {Iota({4, 6})});
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->outputs[0]->SameAs(*x));
}

TEST_F(ShapesTest, ExpandedDimsAreReplicatedInTheInput) {
  auto m = Mesh({2});
  const Attributes a = Attrs({{"shape", Sizes{3, 4, -1}}});
  auto s = Check("expand", {Make(m, {1, 6}, {S(1)})}, {Iota({1, 6})}, a);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cost, 0);
  EXPECT_EQ(s->outputs[0]->shape(), (Sizes{3, 4, 6}));
  EXPECT_EQ(s->outputs[0]->placements(), (std::vector<Placement>{S(2)}));
  // A replicated input may give an output sharded on a broadcast dim: each rank makes its
  // piece. Sharded on the size-1 dim (pieces {1,0}), the input must move.
  auto r = Check("expand", {Make(m, {1, 6}, {S(0)})}, {Iota({1, 6})}, a);
  ASSERT_TRUE(r);
  EXPECT_GT(r->cost, 0);
  EXPECT_NE(r->inputs[0]->placements()[0], S(0)) << r->Describe();
}

TEST_F(ShapesTest, CatAlongAShardedDimKeepsARaggedSplit) {
  auto m = Mesh({2});
  const Attributes d0 = Attrs({{"dim", int64_t{0}}});
  // Chunk {3,2} and explicit {0,4}: rank 1 holds rows 3..4 of a and 0..3 of b, rows 3..8 of
  // the result: {3,6}.
  auto s =
      Check("cat", {Make(m, {5, 3}, {S(0)}), Make(m, {4, 3}, {S(0)}, {Sizes{0, 4}, std::nullopt})},
            {Iota({5, 3}), Iota({4, 3}, 100)}, d0);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cost, 0);
  EXPECT_EQ(s->outputs[0]->shape(), (Sizes{9, 3}));
  EXPECT_EQ(s->outputs[0]->placements(), (std::vector<Placement>{S(0)}));
  EXPECT_EQ(s->outputs[0]->ResolvedSizes(0), (Sizes{3, 6}));
  // Chunk ++ chunk: each rank's pieces laid end to end interleave a and b, not the result;
  // the inputs must move.
  auto c = Check("cat", {Make(m, {5, 3}, {S(0)}), Make(m, {4, 3}, {S(0)})},
                 {Iota({5, 3}), Iota({4, 3}, 100)}, d0);
  ASSERT_TRUE(c);
  EXPECT_GT(c->cost, 0);
  // Nested over a 2x2 mesh: pieces {4,4,0,0} ++ {0,1,2,0}, {4,5,2,0}.
  auto n = Check("cat",
                 {Make(Mesh({2, 2}), {8, 2}, {S(0), S(0)}, {Sizes{4, 4, 0, 0}, std::nullopt}),
                  Make(Mesh({2, 2}), {3, 2}, {S(0), S(0)}, {Sizes{0, 1, 2, 0}, std::nullopt})},
                 {Iota({8, 2}), Iota({3, 2}, 100)}, d0);
  ASSERT_TRUE(n);
  EXPECT_EQ(n->cost, 0);
  EXPECT_EQ(n->outputs[0]->ResolvedSizes(0), (Sizes{4, 5, 2, 0}));
  // Along another dim the rows follow.
  auto o = Check("cat", {Make(m, {5, 3}, {S(0)}), Make(m, {5, 2}, {S(0)})},
                 {Iota({5, 3}), Iota({5, 2}, 100)}, Attrs({{"dim", int64_t{-1}}}));
  ASSERT_TRUE(o);
  EXPECT_EQ(o->cost, 0);
  EXPECT_EQ(o->outputs[0]->placements(), (std::vector<Placement>{S(0)}));
  EXPECT_EQ(o->outputs[0]->ResolvedSizes(0), (Sizes{3, 2}));
}

TEST_F(ShapesTest, StackFollowsTheInputsDims) {
  auto m = Mesh({2});
  auto s = Check("stack", {Make(m, {4, 3}, {S(1)}), Make(m, {4, 3}, {S(1)})},
                 {Iota({4, 3}), Iota({4, 3}, 100)}, Attrs({{"dim", int64_t{1}}}));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cost, 0);
  EXPECT_EQ(s->outputs[0]->shape(), (Sizes{4, 2, 3}));
  EXPECT_EQ(s->outputs[0]->placements(), (std::vector<Placement>{S(2)}));
}

TEST_F(ShapesTest, SlicesOfAShardedDimKeepEachRanksIntersection) {
  auto m = Mesh({4});
  auto x = Make(m, {10}, {S(0)});  // chunk {3,3,3,1} at 0, 3, 6, 9
  auto n = Check("narrow", {x}, {Iota({10})},
                 Attrs({{"dim", int64_t{0}}, {"start", int64_t{2}}, {"length", int64_t{5}}}));
  ASSERT_TRUE(n);
  EXPECT_EQ(n->cost, 0);
  EXPECT_EQ(n->outputs[0]->ResolvedSizes(0), (Sizes{1, 3, 1, 0}));
  auto sp = Check("split", {x}, {Iota({10})}, Attrs({{"split_size", int64_t{4}}}));
  ASSERT_TRUE(sp);
  EXPECT_EQ(sp->cost, 0);
  ASSERT_EQ(sp->outputs.size(), 3u);
  EXPECT_EQ(sp->outputs[0]->ResolvedSizes(0), (Sizes{3, 1, 0, 0}));
  EXPECT_EQ(sp->outputs[1]->ResolvedSizes(0), (Sizes{0, 2, 2, 0}));
  EXPECT_EQ(sp->outputs[2]->ResolvedSizes(0), (Sizes{0, 0, 1, 1}));
  auto ch = Check("chunk", {x}, {Iota({10})}, Attrs({{"chunks", int64_t{3}}}));
  ASSERT_TRUE(ch);
  ASSERT_EQ(ch->outputs.size(), 3u);  // 4, 4, 2 as torch.chunk
  EXPECT_EQ(ch->outputs[2]->ResolvedSizes(0), (Sizes{0, 0, 1, 1}));
  auto sl = Check("slice", {Make(Mesh({2}), {4, 10}, {S(1)}, {std::nullopt, Sizes{7, 3}})},
                  {Iota({4, 10})}, Attrs({{"dim", int64_t{1}}, {"start", int64_t{-5}}}));
  ASSERT_TRUE(sl);
  EXPECT_EQ(sl->cost, 0);
  EXPECT_EQ(sl->outputs[0]->ResolvedSizes(1), (Sizes{2, 3}));
  auto sz = Check("split", {Make(Mesh({2}), {4, 10}, {S(0)})}, {Iota({4, 10})},
                  Attrs({{"dim", int64_t{1}}, {"sizes", Sizes{6, 4}}}));
  ASSERT_TRUE(sz);
  EXPECT_EQ(sz->cost, 0);
  EXPECT_EQ(sz->outputs[1]->placements(), (std::vector<Placement>{S(0)}));
}

TEST_F(ShapesTest, IndexSelectFollowsTheIndexOrMasksToAPartialSum) {
  auto m = Mesh({2});
  const DenseTensor x = Iota({8, 4}), index{{3}, {7, 0, 3}};
  const Attributes d0 = Attrs({{"dim", int64_t{0}}});
  auto masked =
      Check("index_select", {Make(m, {8, 4}, {S(0)}), MakeIndex(m, {3}, {R})}, {x, index}, d0);
  ASSERT_TRUE(masked);
  EXPECT_EQ(masked->cost, 0);
  EXPECT_EQ(masked->outputs[0]->placements(), (std::vector<Placement>{P()}));
  auto cols =
      Check("index_select", {Make(m, {8, 4}, {S(1)}), MakeIndex(m, {3}, {R})}, {x, index}, d0);
  ASSERT_TRUE(cols);
  EXPECT_EQ(cols->cost, 0);
  EXPECT_EQ(cols->outputs[0]->placements(), (std::vector<Placement>{S(1)}));
  auto by_index =
      Check("index_select", {Make(m, {8, 4}, {R}), MakeIndex(m, {3}, {S(0)})}, {x, index}, d0);
  ASSERT_TRUE(by_index);
  EXPECT_EQ(by_index->cost, 0);
  EXPECT_EQ(by_index->outputs[0]->placements(), (std::vector<Placement>{S(0)}));
  EXPECT_EQ(by_index->outputs[0]->ResolvedSizes(0), (Sizes{2, 1}));
}

TEST_F(ShapesTest, GatherShardsAlikeOrMasks) {
  auto m = Mesh({2});
  const DenseTensor x = Iota({4, 6}), index{{4, 3}, {5, 0, 1, 2, 2, 2, 0, 0, 0, 3, 4, 5}};
  const Attributes d1 = Attrs({{"dim", int64_t{1}}});
  auto rows =
      Check("gather", {Make(m, {4, 6}, {S(0)}), MakeIndex(m, {4, 3}, {S(0)})}, {x, index}, d1);
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->cost, 0);
  EXPECT_EQ(rows->outputs[0]->placements(), (std::vector<Placement>{S(0)}));
  auto masked =
      Check("gather", {Make(m, {4, 6}, {S(1)}), MakeIndex(m, {4, 3}, {R})}, {x, index}, d1);
  ASSERT_TRUE(masked);
  EXPECT_EQ(masked->cost, 0);
  EXPECT_EQ(masked->outputs[0]->placements(), (std::vector<Placement>{P()}));
}

// The kernels on one process, against values worked out by hand.
TEST_F(ShapesTest, KernelsOnOneProcess) {
  using V = std::vector<double>;
  const DenseTensor x = Iota({2, 3});
  EXPECT_EQ(Local("transpose", {x}, Attrs({{"dim0", int64_t{0}}, {"dim1", int64_t{1}}}))[0].values,
            (V{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(Local("permute", {Iota({2, 1, 3})}, Attrs({{"dims", Sizes{2, 1, 0}}}))[0].shape,
            (Sizes{3, 1, 2}));
  EXPECT_EQ(Local("reshape", {x}, Attrs({{"shape", Sizes{3, -1}}}))[0].shape, (Sizes{3, 2}));
  EXPECT_EQ(Local("flatten", {x}, {})[0].shape, (Sizes{6}));
  EXPECT_EQ(Local("unflatten", {Iota({6})}, Attrs({{"dim", int64_t{0}}, {"sizes", Sizes{2, 3}}}))[0]
                .shape,
            (Sizes{2, 3}));
  EXPECT_EQ(Local("squeeze", {Iota({1, 3, 1})}, Attrs({{"dims", Sizes{0}}}))[0].shape,
            (Sizes{3, 1}));
  EXPECT_EQ(Local("expand", {Iota({3, 1})}, Attrs({{"shape", Sizes{3, 2}}}))[0].values,
            (V{0, 0, 1, 1, 2, 2}));
  const DenseTensor y = Iota({2, 1}, 10);
  EXPECT_EQ(Local("cat", {x, y}, Attrs({{"dim", int64_t{1}}}))[0].values,
            (V{0, 1, 2, 10, 3, 4, 5, 11}));
  EXPECT_EQ(Local("stack", {x, x}, Attrs({{"dim", int64_t{2}}}))[0].values,
            (V{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}));
  auto parts = Local("split", {x}, Attrs({{"dim", int64_t{1}}, {"sizes", Sizes{1, 2}}}));
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].values, (V{1, 2, 4, 5}));
  EXPECT_EQ(Local("narrow", {x},
                  Attrs({{"dim", int64_t{1}}, {"start", int64_t{1}}, {"length", int64_t{1}}}))[0]
                .values,
            (V{1, 4}));
  EXPECT_EQ(Local("index_select", {x, {{2}, {1, 1}}}, Attrs({{"dim", int64_t{0}}}), {kF32, kI64})[0]
                .values,
            (V{3, 4, 5, 3, 4, 5}));
  EXPECT_EQ(
      Local("gather", {x, {{2, 1}, {2, 0}}}, Attrs({{"dim", int64_t{1}}}), {kF32, kI64})[0].values,
      (V{2, 3}));
}

// Every candidate of every shape op, from random layouts (uneven, explicit and nested splits),
// run rank by rank: the assembled outputs equal the one-process result. What the validation
// harness does for every operator; here it checks the derived splits and the kernels on any
// local block.
TEST_F(ShapesTest, EveryCandidateRunsExactlyOnRandomLayouts) {
  const char* env = std::getenv("WEFT_PROPERTY_SEED");
  std::mt19937_64 rng(env ? std::strtoull(env, nullptr, 0) : 0x5ea);
  auto pick = [&](int64_t n) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(n)); };
  struct Case {
    const char* op;
    std::vector<Sizes> shapes;  // an index last where `index`
    Attributes attrs;
    bool index = false;
  };
  const auto I = [](int64_t v) { return AttrValue{v}; };
  const std::vector<Case> cases = {
      {"reshape", {{6, 4}}, Attrs({{"shape", Sizes{4, 6}}})},
      {"reshape", {{12, 2}}, Attrs({{"shape", Sizes{3, 4, 2}}})},
      {"flatten", {{4, 3, 2}}, Attrs({{"end_dim", I(1)}})},
      {"unflatten", {{2, 12}}, Attrs({{"dim", I(1)}, {"sizes", Sizes{3, 4}}})},
      {"transpose", {{4, 6}}, Attrs({{"dim0", I(0)}, {"dim1", I(1)}})},
      {"permute", {{2, 3, 4}}, Attrs({{"dims", Sizes{1, 2, 0}}})},
      {"squeeze", {{4, 1, 6}}, {}},
      {"unsqueeze", {{4, 6}}, Attrs({{"dim", I(-1)}})},
      {"expand", {{1, 6}}, Attrs({{"shape", Sizes{2, 4, 6}}})},
      {"cat", {{5, 3}, {4, 3}}, Attrs({{"dim", I(0)}})},
      {"cat", {{4, 3}, {4, 2}, {4, 1}}, Attrs({{"dim", I(1)}})},
      {"stack", {{4, 3}, {4, 3}}, Attrs({{"dim", I(1)}})},
      {"split", {{10, 2}}, Attrs({{"split_size", I(3)}})},
      {"chunk", {{3, 10}}, Attrs({{"chunks", I(4)}, {"dim", I(1)}})},
      {"narrow", {{10, 2}}, Attrs({{"dim", I(0)}, {"start", I(3)}, {"length", I(5)}})},
      {"slice", {{10, 2}}, Attrs({{"dim", I(0)}, {"start", I(-4)}})},
      {"index_select", {{8, 4}, {5}}, Attrs({{"dim", I(0)}}), true},
      {"index_select", {{8, 4}, {3}}, Attrs({{"dim", I(1)}}), true},
      {"gather", {{4, 6}, {4, 3}}, Attrs({{"dim", I(1)}}), true},
      {"gather", {{5, 3}, {4, 2}}, Attrs({{"dim", I(0)}}), true},
  };
  const std::vector<Sizes> meshes = {{2}, {3}, {2, 2}};
  for (int round = 0; round < 3; ++round)
    for (const Case& c : cases) {
      auto mesh = Mesh(meshes[size_t(pick(int64_t(meshes.size())))]);
      std::vector<LayoutPtr> in;
      std::vector<DenseTensor> values;
      for (size_t i = 0; i < c.shapes.size(); ++i) {
        const bool is_index = c.index && i == 1;
        in.push_back(RandomLayout(mesh, c.shapes[i], is_index ? kI64 : kF32, pick));
        values.push_back(Iota(c.shapes[i], double(100 * i)));
        if (is_index) {
          const int64_t dim = std::get<int64_t>(*c.attrs.Find("dim"));
          for (double& v : values.back().values) v = double(pick(c.shapes[0][size_t(dim)]));
        }
      }
      SCOPED_TRACE(std::string(c.op) + " round " + std::to_string(round) + ": " +
                   in[0]->Describe());
      auto all = engine_.Enumerate(c.op, in, c.attrs);
      ASSERT_TRUE(all.ok()) << all.status().message();
      std::vector<DType> dtypes;
      for (const LayoutPtr& l : in) dtypes.push_back(l->dtype());
      const std::vector<DenseTensor> want = Local(c.op, values, c.attrs, dtypes);
      for (const StrategyPtr& s : *all) {
        const std::vector<DenseTensor> got = Sharded(c.op, *s, values, c.attrs);
        ASSERT_EQ(got.size(), want.size()) << s->Describe();
        for (size_t o = 0; o < got.size(); ++o)
          ASSERT_EQ(got[o].values, want[o].values) << s->Describe();
      }
    }
}

TEST_F(ShapesTest, BadAttributesAreClearErrors) {
  auto x = Make(Mesh({2}), {4, 6}, {R});
  auto bad =
      engine_.Propagate("reshape", std::vector<LayoutPtr>{x}, Attrs({{"shape", Sizes{5, -1}}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "operator 'reshape': cannot reshape [4,6] into [5,-1]");
  auto dim = engine_.Propagate("cat", std::vector<LayoutPtr>{x, x}, Attrs({{"dim", int64_t{2}}}));
  ASSERT_FALSE(dim.ok());
  EXPECT_EQ(dim.status().message(), "operator 'cat': dim is 2 but the tensor has 2 dims");
  auto index =
      engine_.Propagate("gather", std::vector<LayoutPtr>{x, x}, Attrs({{"dim", int64_t{0}}}));
  ASSERT_FALSE(index.ok());
  EXPECT_EQ(index.status().message(),
            "operator 'gather': the index is float32, not an integer dtype");
}

}  // namespace
}  // namespace weft::ops
