// cumsum, sort, topk (ops/rules/scan.cpp).
#include <gtest/gtest.h>

#include "tests/ops/families_helpers.hpp"

namespace weft::ops {
namespace {

// One fixture class per file (gtest needs one per test suite).
class ScanTest : public FamiliesTest {};

TEST_F(ScanTest, CumsumAlongAShardedDimStaysShardedWithItsOwnExchange) {
  auto m = Mesh({4});
  const Attributes dim1 = Attrs({{"dim", int64_t{1}}});
  const std::vector<int64_t> split{40000, 0, 20000, 5536};
  auto along = Run("cumsum", {Make(m, {8, 65536}, {S(1)}, {std::nullopt, split})}, dim1);
  ASSERT_TRUE(along);
  EXPECT_EQ(along->input_costs[0], 0);
  EXPECT_GT(along->op_cost, 0);
  EXPECT_EQ(Places(along->outputs[0]), (std::vector<Placement>{S(1)}));
  EXPECT_EQ(along->outputs[0]->ResolvedSizes(1), split);
  auto other = Run("cumsum", {Make(m, {8, 6}, {S(0)})}, dim1);
  ASSERT_TRUE(other);
  EXPECT_EQ(other->cost, 0);
  EXPECT_EQ(Places(other->outputs[0]), (std::vector<Placement>{S(0)}));
  auto partial = Run("cumsum", {Make(m, {8, 6}, {P()})}, dim1);
  ASSERT_TRUE(partial);
  EXPECT_EQ(partial->cost, 0);
  EXPECT_EQ(Places(partial->outputs[0]), (std::vector<Placement>{P()}));
}

TEST_F(ScanTest, SortAndTopkOnlyAlongWholeDims) {
  auto m = Mesh({2, 2});
  auto x = Make(m, {8, 6}, {S(0), S(1)});
  auto sort = Run("sort", {x}, Attrs({{"dim", int64_t{0}}}));
  ASSERT_TRUE(sort);
  EXPECT_GT(sort->cost, 0);
  EXPECT_FALSE(IsShard(Places(sort->inputs[0])[0]) &&
               std::get<placement::Shard>(Places(sort->inputs[0])[0]).dim == 0);
  auto topk = Run("topk", {x}, Attrs({{"k", int64_t{2}}, {"dim", int64_t{0}}}));
  ASSERT_TRUE(topk);
  ASSERT_EQ(topk->outputs.size(), 2u);
  EXPECT_EQ(topk->outputs[0]->shape(), (std::vector<int64_t>{2, 6}));
  EXPECT_EQ(topk->outputs[1]->dtype(), kI64);
  EXPECT_EQ(Places(topk->outputs[0]), Places(topk->outputs[1]));
  auto last = Run("topk", {Make(m, {8, 6}, {S(0), R})}, Attrs({{"k", int64_t{3}}}));
  ASSERT_TRUE(last);
  EXPECT_EQ(last->cost, 0);
  EXPECT_EQ(Places(last->outputs[1]), (std::vector<Placement>{S(0), R}));
}

TEST_F(ScanTest, ScanErrors) {
  auto x = Make(Mesh({4}), {8, 6}, {S(0)});
  EXPECT_EQ(Error(engine_, "cumsum", {x}, {}),
            "operator 'cumsum': attribute 'dim' is missing (int)");
  EXPECT_EQ(Error(engine_, "topk", {x}, Attrs({{"k", int64_t{7}}})),
            "operator 'topk': attribute 'k': 7 is not between 0 and 6");
  EXPECT_EQ(Error(engine_, "sort", {x}, Attrs({{"dim", int64_t{-3}}})),
            "operator 'sort': dim is -3 but the tensor has 2 dims");
}

TEST_F(ScanTest, ScanKernelsOnOneProcess) {
  const DenseTensor x{{2, 3}, {1, 2, 3, 3, 1, 2}};
  EXPECT_EQ(Local("cumsum", {x}, Attrs({{"dim", int64_t{1}}}))[0].values,
            (std::vector<double>{1, 3, 6, 3, 4, 6}));
  EXPECT_EQ(Local("cumsum", {x}, Attrs({{"dim", int64_t{0}}}))[0].values,
            (std::vector<double>{1, 2, 3, 4, 3, 5}));
  auto sorted = Local("sort", {x}, Attrs({{"descending", true}}));
  EXPECT_EQ(sorted[0].values, (std::vector<double>{3, 2, 1, 3, 2, 1}));
  EXPECT_EQ(sorted[1].values, (std::vector<double>{2, 1, 0, 0, 2, 1}));
  auto top =
      Local("topk", {x}, Attrs({{"k", int64_t{1}}, {"dim", int64_t{0}}, {"largest", false}}));
  EXPECT_EQ(top[0].values, (std::vector<double>{1, 1, 2}));
  EXPECT_EQ(top[1].values, (std::vector<double>{0, 1, 1}));
}

TEST_F(ScanTest, ScanKernelsAgreeOnEveryStrategy) {
  auto m2 = Mesh({2, 2}), m3 = Mesh({3});
  const DenseTensor x = Values({5, 7}, 21);
  // Nested: dim 1 cut by both mesh dims (four pieces in row-major order of the coordinates).
  const std::vector<LayoutPtr> xs[] = {
      {Make(m2, {5, 7}, {S(1), S(1)})},
      {Make(m2, {5, 7}, {P(), S(1)})},
      {Make(m3, {5, 7}, {S(1)}, {std::nullopt, std::vector<int64_t>{3, 0, 4}})}};
  for (const auto& in : xs) {
    EveryStrategyAgrees("cumsum", in, {x}, Attrs({{"dim", int64_t{1}}}));
    EveryStrategyAgrees("cumsum", in, {x}, Attrs({{"dim", int64_t{0}}}));
    EveryStrategyAgrees("sort", in, {x}, Attrs({{"dim", int64_t{0}}}));
    EveryStrategyAgrees("topk", in, {x}, Attrs({{"k", int64_t{2}}, {"dim", int64_t{1}}}));
  }
}

}  // namespace
}  // namespace weft::ops
