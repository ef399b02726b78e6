// scaled_dot_product_attention (ops/rules/attention.cpp).
#include <gtest/gtest.h>

#include <cmath>

#include "tests/ops/families_helpers.hpp"

namespace weft::ops {
namespace {

// One fixture class per file (gtest needs one per test suite).
class AttentionTest : public FamiliesTest {};

TEST_F(AttentionTest, AttentionShardsBatchHeadsQueriesAndValueColumns) {
  auto m = Mesh({2, 2});
  auto q = Make(m, {2, 4, 8, 16}, {S(0), S(1)}), k = Make(m, {2, 4, 12, 16}, {S(0), S(1)});
  auto v = Make(m, {2, 4, 12, 32}, {S(0), S(1)});
  auto heads = Run("sdpa", {q, k, v});
  ASSERT_TRUE(heads);
  EXPECT_EQ(heads->op, "scaled_dot_product_attention");
  EXPECT_EQ(heads->cost, 0);
  EXPECT_EQ(heads->outputs[0]->shape(), (std::vector<int64_t>{2, 4, 8, 32}));
  EXPECT_EQ(Places(heads->outputs[0]), (std::vector<Placement>{S(0), S(1)}));
  auto m4 = Mesh({4});
  auto seq = Run("scaled_dot_product_attention",
                 {Make(m4, {2, 4, 8, 16}, {S(2)}), Make(m4, {2, 4, 12, 16}, {R}),
                  Make(m4, {2, 4, 12, 32}, {R})},
                 Attrs({{"is_causal", true}}));
  ASSERT_TRUE(seq);
  EXPECT_EQ(seq->cost, 0);
  EXPECT_EQ(Places(seq->outputs[0]), (std::vector<Placement>{S(2)}));
  // Sequence-sharded keys: no strategy keeps them so.
  auto keys = Run("sdpa", {Make(m4, {2, 4, 8, 16}, {R}), Make(m4, {2, 4, 12, 16}, {S(2)}),
                           Make(m4, {2, 4, 12, 32}, {R})});
  ASSERT_TRUE(keys);
  EXPECT_GT(keys->cost, 0);
  EXPECT_NE(Places(keys->inputs[1]), (std::vector<Placement>{S(2)}));
  auto partial = Run("sdpa", {Make(m4, {2, 4, 8, 16}, {R}), Make(m4, {2, 4, 12, 16}, {R}),
                              Make(m4, {2, 4, 12, 32}, {P()})});
  ASSERT_TRUE(partial);
  EXPECT_EQ(partial->cost, 0);
  EXPECT_EQ(Places(partial->outputs[0]), (std::vector<Placement>{P()}));
}

TEST_F(AttentionTest, AttentionErrors) {
  auto m = Mesh({4});
  EXPECT_EQ(
      Error(engine_, "sdpa",
            {Make(m, {2, 8, 16}, {R}), Make(m, {2, 8, 15}, {R}), Make(m, {2, 8, 4}, {R})}, {}),
      "operator 'scaled_dot_product_attention': expects q [...,Lq,E], k [...,Lk,E], "
      "v [...,Lk,Ev], got [2,8,16], [2,8,15], [2,8,4]");
  EXPECT_EQ(
      Error(engine_, "sdpa", {Make(m, {8, 4}, {R}), Make(m, {8, 4}, {R}), Make(m, {8, 4}, {R})},
            Attrs({{"is_causal", int64_t{1}}})),
      "operator 'scaled_dot_product_attention': attribute 'is_causal': expected bool, got "
      "int");
}

TEST_F(AttentionTest, AttentionKernelOnOneProcess) {
  const DenseTensor q{{2, 2}, {1, 0, 1, 0}}, k{{2, 2}, {1, 0, 0, 1}}, v{{2, 1}, {1, 3}};
  // Scores (ln 3, 0) per row: weights (3/4, 1/4) -> 1.5; causal: row 0 sees key 0 only.
  auto out = Local("sdpa", {q, k, v}, Attrs({{"scale", std::log(3.0)}}))[0].values;
  EXPECT_NEAR(out[0], 1.5, 1e-12);
  EXPECT_NEAR(out[1], 1.5, 1e-12);
  auto causal =
      Local("sdpa", {q, k, v}, Attrs({{"scale", std::log(3.0)}, {"is_causal", true}}))[0].values;
  EXPECT_NEAR(causal[0], 1, 1e-12);
  EXPECT_NEAR(causal[1], 1.5, 1e-12);
}

TEST_F(AttentionTest, AttentionKernelAgreesOnEveryStrategy) {
  auto m2 = Mesh({2, 2});
  const DenseTensor q = Values({2, 3, 5, 4}, 41), k = Values({2, 3, 6, 4}, 42),
                    v = Values({2, 3, 6, 3}, 43);
  for (bool causal : {false, true})
    EveryStrategyAgrees("sdpa",
                        {Make(m2, {2, 3, 5, 4}, {S(2), S(1)}), Make(m2, {2, 3, 6, 4}, {R, S(1)}),
                         Make(m2, {2, 3, 6, 3}, {P(), S(3)})},
                        {q, k, v}, Attrs({{"is_causal", causal}}));
}

}  // namespace
}  // namespace weft::ops
