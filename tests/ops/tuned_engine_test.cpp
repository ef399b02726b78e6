// The library's engine (Engine::FromTuningFile) prices moves with the model WEFT_TUNING_FILE
// gives each mesh, as the redistribute plans on that mesh are made; without a file it is the
// default engine, cost for cost.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "ops/engine/engine.hpp"
#include "ops/rules/builtin.hpp"
#include "placement/planner/search.hpp"
#include "placement/planner/tuned_model.hpp"
#include "tests/ops/test_layouts.hpp"

namespace weft::ops::testing {
namespace {

// [hosts, local] with a 1 Gbit/s link between the hosts (slower than the default 1 GB/s).
constexpr const char* kTwoHosts = R"({"weft_tuning": 1,
  "ranks": [{"rank": 0, "host": 0, "l3": 0, "numa": 0}, {"rank": 1, "host": 0, "l3": 0, "numa": 0},
            {"rank": 2, "host": 1, "l3": 1, "numa": 1}, {"rank": 3, "host": 1, "l3": 1, "numa": 1}],
  "links": {"same_l3": {"alpha_s": 5e-6, "beta_s_per_byte": 2e-10},
            "cross_host": {"alpha_s": 60e-6, "beta_s_per_byte": 8e-9}}})";

TEST(TunedEngine, MovesArePricedWithTheMeshsTunedModel) {
  Registry reg;
  ASSERT_TRUE(RegisterBuiltins(reg).ok());
  auto mesh = Mesh({2, 2});
  // A matmul whose inputs must move: a row-sharded left operand against a row-sharded right.
  const std::vector<LayoutPtr> in = {Make(mesh, {256, 512}, {S(1), S(0)}),
                                     Make(mesh, {512, 128}, {S(0), S(1)})};
  ::unsetenv("WEFT_TUNING_FILE");
  Engine plain(reg), untuned(reg, Engine::FromTuningFile{});
  auto a = plain.Propagate("matmul", in, {});
  auto b = untuned.Propagate("matmul", in, {});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ((*a)->cost, (*b)->cost);  // no file: the built-in figures
  EXPECT_EQ((*a)->choice, (*b)->choice);

  const std::string path = ::testing::TempDir() + "/weft_tuned_engine_test.json";
  std::ofstream(path) << kTwoHosts;
  ::setenv("WEFT_TUNING_FILE", path.c_str(), 1);
  Engine tuned(reg, Engine::FromTuningFile{});
  auto all = tuned.Enumerate("matmul", in, {});
  ASSERT_TRUE(all.ok()) << all.status().message();
  const auto model = placement::planner::ModelFor(*mesh);
  ASSERT_TRUE(model.ok());
  for (const StrategyPtr& s : *all)
    for (size_t i = 0; i < in.size(); ++i) {
      double want = 0;
      if (!in[i]->SameAs(*s->inputs[i])) {
        auto plan = placement::planner::PlanRedistribute(in[i], s->inputs[i], *model);
        ASSERT_TRUE(plan.ok());
        want = plan->cost;
      }
      EXPECT_DOUBLE_EQ(s->input_costs[i], want) << s->Describe();
    }
  auto c = tuned.Propagate("matmul", in, {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)->cost, (*all)[0]->cost);
  EXPECT_NE((*c)->cost, (*a)->cost);  // other figures, another price
  ::unsetenv("WEFT_TUNING_FILE");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace weft::ops::testing
