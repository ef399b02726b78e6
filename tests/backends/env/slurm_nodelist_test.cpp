// Slurm host-list expansion, checked against lists written out by hand.
#include "backends/env/slurm_nodelist.hpp"

#include <gtest/gtest.h>

#include "tests/backends/env/env_test_util.hpp"

namespace weft::backends {
namespace {

using Hosts = std::vector<std::string>;

Hosts Expand(std::string_view list) {
  auto r = ExpandSlurmNodeList(list);
  EXPECT_TRUE(r.ok()) << list << ": " << r.status().message();
  return r.ok() ? *r : Hosts{};
}

TEST(SlurmNodeListTest, PlainNames) {
  EXPECT_EQ(Expand("x"), (Hosts{"x"}));
  EXPECT_EQ(Expand("a,b.example,c_d"), (Hosts{"a", "b.example", "c_d"}));
}

TEST(SlurmNodeListTest, Ranges) {
  EXPECT_EQ(Expand("node[1-4]"), (Hosts{"node1", "node2", "node3", "node4"}));
  EXPECT_EQ(Expand("node[3]"), (Hosts{"node3"}));
  EXPECT_EQ(Expand("n[8-11]"), (Hosts{"n8", "n9", "n10", "n11"}));
}

TEST(SlurmNodeListTest, RangesAndSinglesInOneBracket) {
  EXPECT_EQ(Expand("node[1-2,7,9-10]"), (Hosts{"node1", "node2", "node7", "node9", "node10"}));
}

TEST(SlurmNodeListTest, ZeroPaddingIsKept) {
  EXPECT_EQ(Expand("node[001-003]"), (Hosts{"node001", "node002", "node003"}));
  EXPECT_EQ(Expand("n[08-11]"), (Hosts{"n08", "n09", "n10", "n11"}));
  EXPECT_EQ(Expand("n[098-101]"), (Hosts{"n098", "n099", "n100", "n101"}));
  EXPECT_EQ(Expand("n[0]"), (Hosts{"n0"}));
}

TEST(SlurmNodeListTest, SeveralBracketGroupsInTheList) {
  EXPECT_EQ(Expand("a[1-2],b3,c[05-06]"), (Hosts{"a1", "a2", "b3", "c05", "c06"}));
  EXPECT_EQ(Expand("node[1-4,7],gpu-a[01-02],x"),
            (Hosts{"node1", "node2", "node3", "node4", "node7", "gpu-a01", "gpu-a02", "x"}));
}

TEST(SlurmNodeListTest, TextAfterABracket) {
  EXPECT_EQ(Expand("n[1-2]-ib"), (Hosts{"n1-ib", "n2-ib"}));
}

TEST(SlurmNodeListTest, SeveralGroupsInOneNameExpandLeftmostSlowest) {
  EXPECT_EQ(Expand("r[1-2]n[1-2]"), (Hosts{"r1n1", "r1n2", "r2n1", "r2n2"}));
}

TEST(SlurmNodeListTest, LargeRange) {
  const Hosts hosts = Expand("n[00000-09999]");
  ASSERT_EQ(hosts.size(), 10000u);
  EXPECT_EQ(hosts.front(), "n00000");
  EXPECT_EQ(hosts[1234], "n01234");
  EXPECT_EQ(hosts.back(), "n09999");
}

TEST(SlurmNodeListTest, MalformedListsAreRejectedAndQuoted) {
  for (const char* bad : {"",
                          ",",
                          "a,",
                          ",a",
                          "a,,b",
                          "n[",
                          "n[1-2",
                          "n]",
                          "n[1-2]]",
                          "n[[1]]",
                          "n[]",
                          "n[2-1]",
                          "n[a-b]",
                          "n[1-]",
                          "n[-1]",
                          "n[1-2-3]",
                          "n[1,]",
                          "n[,1]",
                          "n[ 1]",
                          "a b",
                          "n[1-2];x",
                          "n[1:2]",
                          "n[1234567890123456789]",
                          "n[0-99999999999]",
                          "r[0-9999]c[0-9999]"}) {
    testing::ExpectError(ExpandSlurmNodeList(bad), Code::kInvalidArgument,
                         {"Slurm node list '" + std::string(bad) + "'"});
  }
}

TEST(SlurmNodeListTest, ExplainsTheProblem) {
  testing::ExpectError(ExpandSlurmNodeList("n[1-2"), Code::kInvalidArgument, {"never closed"});
  testing::ExpectError(ExpandSlurmNodeList("n[2-1]"), Code::kInvalidArgument, {"backwards"});
  testing::ExpectError(ExpandSlurmNodeList("n[0-99999999999]"), Code::kInvalidArgument,
                       {"too many"});
}

}  // namespace
}  // namespace weft::backends
