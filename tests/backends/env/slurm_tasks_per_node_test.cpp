// Slurm's per-node task counts, the source of the local world size under srun.
#include "backends/env/slurm_tasks_per_node.hpp"

#include <gtest/gtest.h>

#include "tests/backends/env/env_test_util.hpp"

namespace weft::backends {
namespace {

int64_t On(std::string_view list, int64_t node) {
  auto r = SlurmTasksOnNode(list, node);
  EXPECT_TRUE(r.ok()) << list << " node " << node << ": " << r.status().message();
  return r.ok() ? *r : -1;
}

TEST(SlurmTasksPerNodeTest, SingleCount) { EXPECT_EQ(On("4", 0), 4); }

TEST(SlurmTasksPerNodeTest, RepeatGroups) {
  // "2(x3),1" is 2, 2, 2, 1.
  EXPECT_EQ(On("2(x3),1", 0), 2);
  EXPECT_EQ(On("2(x3),1", 2), 2);
  EXPECT_EQ(On("2(x3),1", 3), 1);
  EXPECT_EQ(On("1,3(x2),2", 2), 3);
  EXPECT_EQ(On("1,3(x2),2", 3), 2);
}

TEST(SlurmTasksPerNodeTest, HugeRepeatCostsNothing) {
  EXPECT_EQ(On("1(x1000000000),5", 999999999), 1);
  EXPECT_EQ(On("1(x1000000000),5", 1000000000), 5);
}

TEST(SlurmTasksPerNodeTest, NodeBeyondTheList) {
  testing::ExpectError(SlurmTasksOnNode("2(x3),1", 4), Code::kInvalidArgument,
                       {"'2(x3),1'", "no node 4"});
}

TEST(SlurmTasksPerNodeTest, MalformedListsAreRejectedAndQuoted) {
  for (const char* bad : {"", "a", "0", "-1", "2(x", "2(x)", "2(x0)", "2(x-3)", "2(x3)1", "2,,1",
                          "2,", ",2", "2(y3)", " 2"}) {
    testing::ExpectError(SlurmTasksOnNode(bad, 0), Code::kInvalidArgument,
                         {"'" + std::string(bad) + "'"});
  }
}

}  // namespace
}  // namespace weft::backends
