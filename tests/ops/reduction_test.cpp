// Reductions (ops/rules/reduction.cpp): expected layouts by hand, kernels against hand values,
// and every candidate's sharded run against the one-process result.
#include <gtest/gtest.h>

#include "tests/ops/families_helpers.hpp"

namespace weft::ops {
namespace {

// One fixture class per file (gtest needs one per test suite).
class ReductionTest : public FamiliesTest {};

const std::vector<int64_t> kRows{5, 1, 0, 2};

TEST_F(ReductionTest, ReducingAShardedDimGivesTheExactPartial) {
  auto m = Mesh({4});
  auto x = Make(m, {8, 6}, {S(1)});
  const Attributes dim1 = Attrs({{"dims", std::vector<int64_t>{1}}});
  for (const auto& [op, want] : {std::pair{"sum", ReduceOp::kSum},
                                 {"prod", ReduceOp::kProd},
                                 {"max", ReduceOp::kMax},
                                 {"amax", ReduceOp::kMax},
                                 {"min", ReduceOp::kMin},
                                 {"amin", ReduceOp::kMin},
                                 // mean: each shard divides by the global count -> P(sum).
                                 {"mean", ReduceOp::kSum}}) {
    auto s = Run(op, {x}, dim1);
    ASSERT_TRUE(s) << op;
    EXPECT_EQ(s->cost, 0) << op;
    EXPECT_EQ(s->outputs[0]->shape(), (std::vector<int64_t>{8})) << op;
    EXPECT_EQ(Places(s->outputs[0]), (std::vector<Placement>{P(want)})) << op;
  }
}

TEST_F(ReductionTest, UnreducedDimsFollowWithTheirSplits) {
  auto m = Mesh({4});
  auto x = Make(m, {8, 6}, {S(0)}, {kRows, std::nullopt});
  auto s = Run("sum", {x}, Attrs({{"dims", std::vector<int64_t>{1}}, {"keepdim", true}}));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cost, 0);
  EXPECT_EQ(s->outputs[0]->shape(), (std::vector<int64_t>{8, 1}));
  EXPECT_EQ(Places(s->outputs[0]), (std::vector<Placement>{S(0)}));
  EXPECT_EQ(s->outputs[0]->ResolvedSizes(0), kRows);
  // Two mesh dims: dim 0 reduced over mesh dim 0 (partial sums), dim 1 follows on mesh dim 1.
  auto t = Run("sum", {Make(Mesh({2, 2}), {8, 6}, {S(0), S(1)})},
               Attrs({{"dims", std::vector<int64_t>{0}}}));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->cost, 0);
  EXPECT_EQ(Places(t->outputs[0]), (std::vector<Placement>{P(), S(0)}));
}

TEST_F(ReductionTest, PartialInputsPassOnlyWhereExact) {
  auto m = Mesh({4});
  const Attributes all;  // every dim
  auto sum = Run("sum", {Make(m, {8, 6}, {P()})}, all);
  ASSERT_TRUE(sum);
  EXPECT_EQ(sum->cost, 0);
  EXPECT_EQ(sum->outputs[0]->shape(), (std::vector<int64_t>{}));
  EXPECT_EQ(Places(sum->outputs[0]), (std::vector<Placement>{P()}));
  auto mean = Run("mean", {Make(m, {8, 6}, {P(ReduceOp::kAvg)})}, all);
  ASSERT_TRUE(mean);
  EXPECT_EQ(mean->cost, 0);
  EXPECT_EQ(Places(mean->outputs[0]), (std::vector<Placement>{P(ReduceOp::kAvg)}));
  auto max = Run("max", {Make(m, {8, 6}, {P(ReduceOp::kMax)})}, all);
  ASSERT_TRUE(max);
  EXPECT_EQ(max->cost, 0);
  EXPECT_EQ(Places(max->outputs[0]), (std::vector<Placement>{P(ReduceOp::kMax)}));
  // The max of partial sums is not the sum of maxima: the input is reduced first.
  auto wrong = Run("max", {Make(m, {8, 6}, {P()})}, all);
  ASSERT_TRUE(wrong);
  EXPECT_GT(wrong->cost, 0);
  EXPECT_FALSE(IsPartial(wrong->inputs[0]->placements()[0]));
}

TEST_F(ReductionTest, ArgmaxNeverReducesAShardedDim) {
  auto m = Mesh({4});
  auto s = Run("argmax", {Make(m, {8, 6}, {S(1)})}, Attrs({{"dims", std::vector<int64_t>{1}}}));
  ASSERT_TRUE(s);
  EXPECT_GT(s->cost, 0);
  EXPECT_NE(Places(s->inputs[0]), (std::vector<Placement>{S(1)}));
  EXPECT_EQ(s->outputs[0]->dtype(), kI64);
  auto rows = Run("argmax", {Make(m, {8, 6}, {S(0)})}, Attrs({{"dims", std::vector<int64_t>{1}}}));
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->cost, 0);
  EXPECT_EQ(Places(rows->outputs[0]), (std::vector<Placement>{S(0)}));
  auto flat = Run("argmax", {Make(m, {8, 6}, {S(0)})});
  ASSERT_TRUE(flat);
  EXPECT_EQ(Places(flat->outputs[0]), (std::vector<Placement>{R}));
}

TEST_F(ReductionTest, ReductionAttributeErrorsNameOperatorAndAttribute) {
  auto x = Make(Mesh({4}), {8, 6}, {S(0)});
  EXPECT_EQ(Error(engine_, "sum", {x}, Attrs({{"dims", std::vector<int64_t>{2}}})),
            "operator 'sum': dims is 2 but the tensor has 2 dims");
  EXPECT_EQ(Error(engine_, "mean", {x}, Attrs({{"dims", std::vector<int64_t>{1, -1}}})),
            "operator 'mean': attribute 'dims': dim -1 is named twice");
  EXPECT_EQ(Error(engine_, "argmax", {x}, Attrs({{"dims", std::vector<int64_t>{0, 1}}})),
            "operator 'argmax': attribute 'dims': argmax reduces one dim or, absent, all of them");
  EXPECT_EQ(Error(engine_, "max", {x}, Attrs({{"keepdim", int64_t{1}}})),
            "operator 'max': attribute 'keepdim': expected bool, got int");
}

TEST_F(ReductionTest, ReductionKernelsOnOneProcess) {
  const DenseTensor x{{2, 3}, {1, 5, 2, 4, 3, 6}};
  const Attributes d1 = Attrs({{"dims", std::vector<int64_t>{1}}});
  EXPECT_EQ(Local("sum", {x}, d1)[0].values, (std::vector<double>{8, 13}));
  EXPECT_EQ(Local("mean", {x})[0].values, (std::vector<double>{21.0 / 6}));
  EXPECT_EQ(Local("prod", {x}, Attrs({{"dims", std::vector<int64_t>{0}}}))[0].values,
            (std::vector<double>{4, 15, 12}));
  EXPECT_EQ(Local("max", {x}, d1)[0].values, (std::vector<double>{5, 6}));
  EXPECT_EQ(Local("amin", {x}, d1)[0].values, (std::vector<double>{1, 3}));
  EXPECT_EQ(Local("argmax", {x}, d1)[0].values, (std::vector<double>{1, 2}));
  EXPECT_EQ(Local("argmax", {x})[0].values, (std::vector<double>{5}));
  auto kept = Local("sum", {x}, Attrs({{"dims", std::vector<int64_t>{0}}, {"keepdim", true}}));
  EXPECT_EQ(kept[0].shape, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(kept[0].values, (std::vector<double>{5, 8, 8}));
}

TEST_F(ReductionTest, ReductionKernelsAgreeOnEveryStrategy) {
  const DenseTensor x = Values({5, 6}, 1, 1, 3);
  auto m2 = Mesh({2, 2}), m3 = Mesh({3});
  const std::vector<std::vector<LayoutPtr>> inputs = {
      {Make(m2, {5, 6}, {S(0), S(1)})},
      {Make(m2, {5, 6}, {P(), S(0)})},
      {Make(m3, {5, 6}, {S(0)}, {std::vector<int64_t>{3, 0, 2}, std::nullopt})},
      {Make(m3, {5, 6}, {P(ReduceOp::kMax)})}};
  for (const char* op : {"sum", "mean", "prod", "max", "min", "argmax"})
    for (const Attributes& a :
         {Attrs({{"dims", std::vector<int64_t>{1}}}),
          Attrs({{"dims", std::vector<int64_t>{0}}, {"keepdim", true}}), Attrs({})})
      for (const auto& in : inputs) {
        SCOPED_TRACE(std::string(op) + " " + a.Describe() + " " + in[0]->Describe());
        EveryStrategyAgrees(op, in, {x}, a);
      }
}

}  // namespace
}  // namespace weft::ops
