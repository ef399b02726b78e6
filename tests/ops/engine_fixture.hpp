// The ops engine tests' fixture (meshes and layouts: test_layouts.hpp): its Run checks
// propagate's pick against the full enumeration and every cost against the planner (plus the
// op's own communication).
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "ops/engine/engine.hpp"
#include "ops/rules/builtin.hpp"
#include "placement/planner/search.hpp"
#include "tests/ops/test_layouts.hpp"

namespace weft::ops::testing {

using placement::Partial;
using placement::Replicate;
using placement::Shard;

class EngineFixture : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(RegisterBuiltins(registry_).ok()); }

  StrategyPtr Run(const std::string& op, std::vector<LayoutPtr> in, const Attributes& a = {}) {
    auto s = engine_.Propagate(op, in, a);
    EXPECT_TRUE(s.ok()) << s.status().message();
    if (!s.ok()) return nullptr;
    CheckAgainstEnumeration(op, in, a, **s);
    return *s;
  }

  // The pick is the first of the enumeration, every cost is what the planner says for moving
  // each input, and the enumeration is sorted.
  void CheckAgainstEnumeration(const std::string& op, const std::vector<LayoutPtr>& in,
                               const Attributes& a, const Strategy& pick) {
    auto all = engine_.Enumerate(op, in, a);
    ASSERT_TRUE(all.ok()) << all.status().message();
    ASSERT_FALSE(all->empty());
    EXPECT_EQ((*all)[0]->choice, pick.choice);
    EXPECT_EQ((*all)[0]->cost, pick.cost);
    for (size_t k = 0; k < all->size(); ++k) {
      const Strategy& s = *(*all)[k];
      if (k > 0) {
        EXPECT_LE((*all)[k - 1]->cost, s.cost);
      }
      double sum = 0;
      for (size_t i = 0; i < in.size(); ++i) {
        double want = 0;
        if (!in[i]->SameAs(*s.inputs[i])) {
          auto plan = placement::planner::PlanRedistribute(in[i], s.inputs[i]);
          ASSERT_TRUE(plan.ok()) << plan.status().message();
          want = plan->cost;
        }
        EXPECT_DOUBLE_EQ(s.input_costs[i], want) << s.Describe();
        sum += want;
      }
      EXPECT_DOUBLE_EQ(s.cost, sum + s.op_cost + s.halo_cost);
    }
  }

  Registry registry_;
  Engine engine_{registry_};
};

}  // namespace weft::ops::testing
