// Normalisations and dropout (ops/rules/norm.cpp).
#include <gtest/gtest.h>

#include <cmath>

#include "tests/ops/families_helpers.hpp"

namespace weft::ops {
namespace {

// One fixture class per file (gtest needs one per test suite).
class NormTest : public FamiliesTest {};

TEST_F(NormTest, SoftmaxDimIsWholeOthersFollow) {
  auto m = Mesh({4});
  for (const char* op : {"softmax", "log_softmax"}) {
    auto rows = Run(op, {Make(m, {8, 6}, {S(0)})}, Attrs({{"dim", int64_t{1}}}));
    ASSERT_TRUE(rows);
    EXPECT_EQ(rows->cost, 0);
    EXPECT_EQ(Places(rows->outputs[0]), (std::vector<Placement>{S(0)}));
    // Over the sharded dim: the input leaves S(1) (the cheapest is an all-to-all to rows).
    auto moved = Run(op, {Make(m, {8, 6}, {S(1)})}, Attrs({{"dim", int64_t{-1}}}));
    ASSERT_TRUE(moved);
    EXPECT_GT(moved->cost, 0);
    EXPECT_EQ(Places(moved->inputs[0]), (std::vector<Placement>{S(0)}));
    EXPECT_EQ(Places(moved->outputs[0]), (std::vector<Placement>{S(0)}));
    // A partial input is reduced first (softmax is not linear).
    auto partial = Run(op, {Make(m, {8, 6}, {P()})}, Attrs({{"dim", int64_t{1}}}));
    ASSERT_TRUE(partial);
    EXPECT_FALSE(IsPartial(partial->inputs[0]->placements()[0]));
  }
}

TEST_F(NormTest, NormsKeepTrailingDimsWholeAndWeightsReplicated) {
  auto m = Mesh({2, 2});
  auto x = Make(m, {4, 8, 6}, {S(0), S(1)});
  auto w = Make(m, {6}, {R, R}), b = Make(m, {6}, {R, R});
  auto s = Run("layer_norm", {x, w, b}, Attrs({{"normalized_shape", std::vector<int64_t>{6}}}));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cost, 0);
  EXPECT_EQ(Places(s->outputs[0]), (std::vector<Placement>{S(0), S(1)}));
  // Two normalised dims: the S(1) over mesh dim 1 has to go.
  auto two = Run("rms_norm", {x}, Attrs({{"ndims", int64_t{2}}}));
  ASSERT_TRUE(two);
  EXPECT_GT(two->cost, 0);
  EXPECT_EQ(Places(two->inputs[0])[0], S(0));
  EXPECT_FALSE(IsShard(Places(two->inputs[0])[1]) &&
               std::get<placement::Shard>(Places(two->inputs[0])[1]).dim != 0);
  // A sharded weight is gathered.
  auto ws = Run("rms_norm", {x, Make(m, {6}, {S(0), R})}, Attrs({{"ndims", int64_t{1}}}));
  ASSERT_TRUE(ws);
  EXPECT_EQ(Places(ws->inputs[1]), (std::vector<Placement>{R, R}));
}

TEST_F(NormTest, DropoutIsPointwiseWithoutPartials) {
  auto m = Mesh({4});
  auto s = Run("dropout", {Make(m, {8, 6}, {S(1)})}, Attrs({{"p", 0.1}}));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cost, 0);
  EXPECT_EQ(Places(s->outputs[0]), (std::vector<Placement>{S(1)}));
  auto partial = Run("dropout", {Make(m, {8, 6}, {P()})}, Attrs({{"p", 0.1}}));
  ASSERT_TRUE(partial);
  EXPECT_GT(partial->cost, 0);
}

TEST_F(NormTest, NormAttributeErrors) {
  auto m = Mesh({4});
  auto x = Make(m, {8, 6}, {S(0)});
  EXPECT_EQ(Error(engine_, "softmax", {x}, {}),
            "operator 'softmax': attribute 'dim' is missing (int)");
  EXPECT_EQ(Error(engine_, "log_softmax", {x}, Attrs({{"dim", int64_t{2}}})),
            "operator 'log_softmax': dim is 2 but the tensor has 2 dims");
  EXPECT_EQ(
      Error(engine_, "layer_norm", {x}, Attrs({{"normalized_shape", std::vector<int64_t>{8}}})),
      "operator 'layer_norm': attribute 'normalized_shape': [8] is not the trailing "
      "extents of [8,6]");
  EXPECT_EQ(Error(engine_, "layer_norm", {x, Make(m, {8}, {R})}, Attrs({{"ndims", int64_t{1}}})),
            "operator 'layer_norm': weight [8] is not the normalized shape [6]");
  EXPECT_EQ(Error(engine_, "rms_norm", {x}, Attrs({{"ndims", int64_t{3}}})),
            "operator 'rms_norm': attribute 'ndims': 3 is not between 1 and 2");
  EXPECT_EQ(Error(engine_, "dropout", {x}, Attrs({{"p", 1.5}})),
            "operator 'dropout': attribute 'p': 1.500000 is not in [0, 1]");
}

TEST_F(NormTest, NormKernelsOnOneProcess) {
  const DenseTensor row{{1, 2}, {0, std::log(3.0)}};
  auto sm = Local("softmax", {row}, Attrs({{"dim", int64_t{1}}}))[0].values;
  EXPECT_NEAR(sm[0], 0.25, 1e-12);
  EXPECT_NEAR(sm[1], 0.75, 1e-12);
  auto lsm = Local("log_softmax", {row}, Attrs({{"dim", int64_t{1}}}))[0].values;
  EXPECT_NEAR(lsm[0], std::log(0.25), 1e-12);
  const DenseTensor x{{2, 2}, {1, -1, 3, 5}}, w{{2}, {2, 1}}, b{{2}, {0, 10}};
  auto ln = Local("layer_norm", {x, w, b}, Attrs({{"ndims", int64_t{1}}, {"eps", 0.0}}))[0].values;
  EXPECT_EQ(ln, (std::vector<double>{2, 9, -2, 11}));  // rows normalise to (1,-1) and (-1,1)
  auto rms = Local("rms_norm", {DenseTensor{{2}, {3, 4}}}, Attrs({{"eps", 0.0}}))[0].values;
  EXPECT_NEAR(rms[0], 3 / std::sqrt(12.5), 1e-12);
  EXPECT_NEAR(rms[1], 4 / std::sqrt(12.5), 1e-12);
  EXPECT_EQ(Local("dropout", {x}, Attrs({{"p", 0.0}}))[0].values, x.values);
  EXPECT_EQ(Local("dropout", {x}, Attrs({{"p", 0.9}, {"train", false}}))[0].values, x.values);
  EXPECT_EQ(Local("dropout", {x}, Attrs({{"p", 1.0}}))[0].values, (std::vector<double>(4, 0.0)));
  auto half = Local("dropout", {Values({64}, 3, 1, 1)}, Attrs({{"p", 0.5}}))[0].values;
  int kept = 0;
  for (double v : half) {
    EXPECT_TRUE(v == 0 || v == 2) << v;
    kept += v == 2;
  }
  EXPECT_GT(kept, 16);
  EXPECT_LT(kept, 48);
}

TEST_F(NormTest, NormKernelsAgreeOnEveryStrategy) {
  auto m2 = Mesh({2, 2}), m3 = Mesh({3});
  const DenseTensor x = Values({5, 4}, 7), w = Values({4}, 8), b = Values({4}, 9);
  const std::vector<LayoutPtr> xs[] = {
      {Make(m2, {5, 4}, {S(0), S(1)})},
      {Make(m3, {5, 4}, {S(0)}, {std::vector<int64_t>{4, 0, 1}, std::nullopt})}};
  for (const auto& in : xs) {
    EveryStrategyAgrees("softmax", in, {x}, Attrs({{"dim", int64_t{0}}}));
    EveryStrategyAgrees("log_softmax", in, {x}, Attrs({{"dim", int64_t{1}}}));
    EveryStrategyAgrees("dropout", in, {x}, Attrs({{"p", 0.5}, {"seed", int64_t{7}}}));
    EveryStrategyAgrees("rms_norm", in, {x}, Attrs({{"ndims", int64_t{1}}}));
  }
  auto wl = Make(m2, {4}, {S(0), R});
  EveryStrategyAgrees("layer_norm", {xs[0][0], wl, wl}, {x, w, b},
                      Attrs({{"normalized_shape", std::vector<int64_t>{4}}}));
}

}  // namespace
}  // namespace weft::ops
