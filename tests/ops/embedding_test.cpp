// Embedding and vocab-parallel cross-entropy (ops/rules/embedding.cpp).
#include <gtest/gtest.h>

#include <cmath>

#include "tests/ops/families_helpers.hpp"

namespace weft::ops {
namespace {

// One fixture class per file (gtest needs one per test suite).
class EmbeddingTest : public FamiliesTest {};

TEST_F(EmbeddingTest, EmbeddingRowsGivePartialSumsColumnsAndIndicesFollow) {
  auto m = Mesh({4});
  auto idx = MakeInt(m, {3, 5}, {R});
  auto rows = Run("embedding", {Make(m, {10, 4}, {S(0)}), idx});
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->cost, 0);
  EXPECT_EQ(rows->outputs[0]->shape(), (std::vector<int64_t>{3, 5, 4}));
  EXPECT_EQ(Places(rows->outputs[0]), (std::vector<Placement>{P()}));
  // Ragged rows: still exact partial sums.
  auto ragged =
      Run("embedding",
          {Make(m, {10, 4}, {S(0)}, {std::vector<int64_t>{6, 1, 3, 0}, std::nullopt}), idx});
  ASSERT_TRUE(ragged);
  EXPECT_EQ(ragged->cost, 0);
  EXPECT_EQ(Places(ragged->outputs[0]), (std::vector<Placement>{P()}));
  auto cols =
      Run("embedding",
          {Make(m, {10, 8}, {S(1)}, {std::nullopt, std::vector<int64_t>{5, 1, 1, 1}}), idx});
  ASSERT_TRUE(cols);
  EXPECT_EQ(cols->cost, 0);
  EXPECT_EQ(Places(cols->outputs[0]), (std::vector<Placement>{S(2)}));
  EXPECT_EQ(cols->outputs[0]->ResolvedSizes(2), (std::vector<int64_t>{5, 1, 1, 1}));
  auto batch = Run("embedding", {Make(m, {10, 4}, {R}), MakeInt(m, {3, 5}, {S(1)})});
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->cost, 0);
  EXPECT_EQ(Places(batch->outputs[0]), (std::vector<Placement>{S(1)}));
  auto m2 = Mesh({2, 2});
  auto both = Run("embedding", {Make(m2, {10, 4}, {S(0), R}), MakeInt(m2, {3, 5}, {R, S(0)})});
  ASSERT_TRUE(both);
  EXPECT_EQ(both->cost, 0);
  EXPECT_EQ(Places(both->outputs[0]), (std::vector<Placement>{P(), S(0)}));
}

TEST_F(EmbeddingTest, CrossEntropyOwnCommunicationIsCosted) {
  auto m = Mesh({4});
  // A large vocabulary: two all-reduces of per-row values beat gathering the logits.
  auto big = Run("cross_entropy", {Make(m, {4, 65536}, {S(1)}), MakeInt(m, {4}, {R})});
  ASSERT_TRUE(big);
  EXPECT_EQ(Places(big->inputs[0]), (std::vector<Placement>{S(1)}));
  EXPECT_EQ(big->input_costs[0], 0);
  EXPECT_GT(big->op_cost, 0);
  EXPECT_EQ(big->cost, big->op_cost);
  EXPECT_EQ(big->outputs[0]->shape(), (std::vector<int64_t>{}));
  EXPECT_EQ(Places(big->outputs[0]), (std::vector<Placement>{R}));
  // A small one: four alpha terms of all-reduce lose to one all-gather of the logits.
  auto small = Run("cross_entropy", {Make(m, {4, 8}, {S(1)}), MakeInt(m, {4}, {R})});
  ASSERT_TRUE(small);
  EXPECT_EQ(small->op_cost, 0);
  EXPECT_NE(Places(small->inputs[0]), (std::vector<Placement>{S(1)}));
  // Rows: per-sample losses sharded; a mean or sum is a partial sum.
  auto rows = Run("cross_entropy", {Make(m, {8, 5}, {S(0)}), MakeInt(m, {8}, {S(0)})},
                  Attrs({{"reduction", std::string("none")}}));
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->cost, 0);
  EXPECT_EQ(Places(rows->outputs[0]), (std::vector<Placement>{S(0)}));
  auto mean = Run("cross_entropy", {Make(m, {8, 5}, {S(0)}), MakeInt(m, {8}, {S(0)})});
  ASSERT_TRUE(mean);
  EXPECT_EQ(mean->cost, 0);
  EXPECT_EQ(Places(mean->outputs[0]), (std::vector<Placement>{P()}));
}

TEST_F(EmbeddingTest, VocabularyErrors) {
  auto m = Mesh({4});
  EXPECT_EQ(Error(engine_, "embedding", {Make(m, {10}, {R}), MakeInt(m, {3}, {R})}, {}),
            "operator 'embedding': weight [10] is not [V,D]");
  EXPECT_EQ(Error(engine_, "embedding", {Make(m, {10, 4}, {R}), Make(m, {3}, {R})}, {}),
            "operator 'embedding': indices must have an integer dtype");
  EXPECT_EQ(Error(engine_, "cross_entropy", {Make(m, {8, 5}, {R}), MakeInt(m, {7}, {R})}, {}),
            "operator 'cross_entropy': expects logits [N,C] and target [N], got [8,5] and [7]");
  EXPECT_EQ(Error(engine_, "cross_entropy", {Make(m, {8, 5}, {R}), MakeInt(m, {8}, {R})},
                  Attrs({{"reduction", std::string("max")}})),
            "operator 'cross_entropy': attribute 'reduction': 'max' is not mean, sum or none");
}

TEST_F(EmbeddingTest, VocabularyKernelsOnOneProcess) {
  const DenseTensor w{{3, 2}, {1, 2, 3, 4, 5, 6}}, idx{{2}, {2, 0}};
  EXPECT_EQ(Local("embedding", {w, idx})[0].values, (std::vector<double>{5, 6, 1, 2}));
  const DenseTensor logits{{2, 2}, {0, std::log(3.0), 1, 1}}, target{{2}, {1, 0}};
  auto none = Local("cross_entropy", {logits, target}, Attrs({{"reduction", std::string("none")}}));
  EXPECT_NEAR(none[0].values[0], -std::log(0.75), 1e-12);
  EXPECT_NEAR(none[0].values[1], std::log(2.0), 1e-12);
  auto mean = Local("cross_entropy", {logits, target});
  EXPECT_EQ(mean[0].shape, (std::vector<int64_t>{}));
  EXPECT_NEAR(mean[0].values[0], (std::log(2.0) - std::log(0.75)) / 2, 1e-12);
}

TEST_F(EmbeddingTest, VocabularyKernelsAgreeOnEveryStrategy) {
  auto m2 = Mesh({2, 2}), m3 = Mesh({3});
  const DenseTensor w = Values({7, 4}, 11), idx = Values({2, 3}, 12, 0, 6);
  EveryStrategyAgrees("embedding", {Make(m2, {7, 4}, {S(0), S(1)}), MakeInt(m2, {2, 3}, {R, S(1)})},
                      {w, idx});
  EveryStrategyAgrees("embedding",
                      {Make(m3, {7, 4}, {S(0)}, {std::vector<int64_t>{1, 6, 0}, std::nullopt}),
                       MakeInt(m3, {2, 3}, {R})},
                      {w, idx});
  const DenseTensor logits = Values({5, 7}, 13), target = Values({5}, 14, 0, 6);
  for (const char* red : {"mean", "sum", "none"}) {
    const Attributes a = Attrs({{"reduction", std::string(red)}});
    EveryStrategyAgrees("cross_entropy",
                        {Make(m2, {5, 7}, {S(1), S(0)}), MakeInt(m2, {5}, {R, S(0)})},
                        {logits, target}, a);
    EveryStrategyAgrees("cross_entropy",
                        {Make(m3, {5, 7}, {S(1)}, {std::nullopt, std::vector<int64_t>{5, 0, 2}}),
                         MakeInt(m3, {5}, {R})},
                        {logits, target}, a);
  }
}

}  // namespace
}  // namespace weft::ops
