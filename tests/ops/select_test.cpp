// where, masked_fill (ops/rules/select.cpp).
#include <gtest/gtest.h>

#include "tests/ops/families_helpers.hpp"

namespace weft::ops {
namespace {

// One fixture class per file (gtest needs one per test suite).
class SelectTest : public FamiliesTest {};

TEST_F(SelectTest, WhereShardsLikePointwiseAndKeepsExactPartials) {
  auto m = Mesh({4});
  auto s = Run("where", {Make(m, {8, 1}, {R}), Make(m, {8, 6}, {S(1)}), Make(m, {6}, {S(0)})});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cost, 0);
  EXPECT_EQ(s->outputs[0]->shape(), (std::vector<int64_t>{8, 6}));
  EXPECT_EQ(Places(s->outputs[0]), (std::vector<Placement>{S(1)}));
  auto cond = Make(m, {8, 6}, {R});
  auto sums = Run("where", {cond, Make(m, {8, 6}, {P()}), Make(m, {8, 6}, {P()})});
  ASSERT_TRUE(sums);
  EXPECT_EQ(sums->cost, 0);
  EXPECT_EQ(Places(sums->outputs[0]), (std::vector<Placement>{P()}));
  auto max = Run("where", {cond, Make(m, {8, 6}, {P(ReduceOp::kMax)}), Make(m, {8, 6}, {R})});
  ASSERT_TRUE(max);
  EXPECT_EQ(max->cost, 0);
  EXPECT_EQ(Places(max->outputs[0]), (std::vector<Placement>{P(ReduceOp::kMax)}));
  // A partial sum picked against a replicated value would count that value once per rank.
  auto mixed = Run("where", {cond, Make(m, {8, 6}, {P()}), Make(m, {8, 6}, {R})});
  ASSERT_TRUE(mixed);
  EXPECT_GT(mixed->cost, 0);
}

TEST_F(SelectTest, MaskedFillKeepsMaxAndMinPartialsOnly) {
  auto m = Mesh({2, 2});
  const Attributes v = Attrs({{"value", -1.0}});
  auto s = Run("masked_fill", {Make(m, {8, 6}, {S(0), S(1)}), Make(m, {6}, {S(0), R})}, v);
  ASSERT_TRUE(s);
  // The mask has no rows: it leaves S(0) on mesh dim 0. Over mesh dim 1 the model weighs
  // slicing the mask alike with x's columns against moving x; either is exact.
  EXPECT_GT(s->cost, 0);
  EXPECT_EQ(Places(s->outputs[0])[0], S(0));
  EXPECT_EQ(Places(s->inputs[1])[0], R);
  auto max =
      Run("masked_fill", {Make(m, {8, 6}, {P(ReduceOp::kMin), R}), Make(m, {8, 6}, {R, R})}, v);
  ASSERT_TRUE(max);
  EXPECT_EQ(max->cost, 0);
  EXPECT_EQ(Places(max->outputs[0]), (std::vector<Placement>{P(ReduceOp::kMin), R}));
  auto sum = Run("masked_fill", {Make(m, {8, 6}, {P(), R}), Make(m, {8, 6}, {R, R})}, v);
  ASSERT_TRUE(sum);
  EXPECT_GT(sum->cost, 0);
}

TEST_F(SelectTest, SelectErrors) {
  auto m = Mesh({4});
  EXPECT_EQ(Error(engine_, "masked_fill", {Make(m, {8, 6}, {R}), Make(m, {2, 8, 6}, {R})},
                  Attrs({{"value", 0.0}})),
            "operator 'masked_fill': mask [2,8,6] does not broadcast to [8,6]");
  EXPECT_EQ(Error(engine_, "masked_fill", {Make(m, {8, 6}, {R}), Make(m, {8, 6}, {R})}, {}),
            "operator 'masked_fill': attribute 'value' is missing (float)");
  EXPECT_EQ(
      Error(engine_, "where", {Make(m, {8, 6}, {R}), Make(m, {8, 5}, {R}), Make(m, {6}, {R})}, {}),
      "operator 'where': shapes [8,6] and [8,5] and [6] do not broadcast");
}

TEST_F(SelectTest, SelectKernelsOnOneProcess) {
  const DenseTensor cond{{2, 1}, {1, 0}}, a{{2, 2}, {1, 2, 3, 4}}, b{{2}, {9, 8}};
  EXPECT_EQ(Local("where", {cond, a, b})[0].values, (std::vector<double>{1, 2, 9, 8}));
  const DenseTensor mask{{2}, {0, 1}};
  EXPECT_EQ(Local("masked_fill", {a, mask}, Attrs({{"value", -5.0}}))[0].values,
            (std::vector<double>{1, -5, 3, -5}));
}

TEST_F(SelectTest, SelectKernelsAgreeOnEveryStrategy) {
  auto m2 = Mesh({2, 2});
  const DenseTensor cond = Values({5, 1}, 31, 0, 1), a = Values({5, 6}, 32), b = Values({6}, 33);
  EveryStrategyAgrees("where",
                      {Make(m2, {5, 1}, {S(0), R}), Make(m2, {5, 6}, {P(ReduceOp::kMax), S(1)}),
                       Make(m2, {6}, {R, S(0)})},
                      {cond, a, b});
  EveryStrategyAgrees(
      "where", {Make(m2, {5, 1}, {R, R}), Make(m2, {5, 6}, {P(), S(0)}), Make(m2, {6}, {P(), R})},
      {cond, a, b});
  const DenseTensor mask = Values({6}, 34, 0, 1);
  EveryStrategyAgrees("masked_fill",
                      {Make(m2, {5, 6}, {S(1), P(ReduceOp::kMin)}), Make(m2, {6}, {S(0), R})},
                      {a, mask}, Attrs({{"value", 7.0}}));
}

}  // namespace
}  // namespace weft::ops
