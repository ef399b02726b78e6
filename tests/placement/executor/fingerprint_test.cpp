// The first-execution check of a redistribute plan (SPEC §6.4) compares a fingerprint: it must
// change with WEFT_ALLTOALL_CHUNK_BYTES, which sets how many messages each piece takes, so
// that ranks chunking differently fail the check instead of mixing messages.
#include <gtest/gtest.h>
#include <stdlib.h>

#include "common/params.hpp"
#include "placement/executor/executor.hpp"
#include "placement/planner/search.hpp"
#include "tests/placement/placement_test_util.hpp"

namespace weft::placement::executor {
namespace {

using placement::testing::MakeLayout;
using placement::testing::MakeMesh;

// The fingerprint of S0 -> S1 on 4 ranks for rank 1, with the chunk size `chunk` (nullptr:
// unset, the default).
uint64_t Fingerprint(const char* chunk) {
  if (chunk)
    ::setenv("WEFT_ALLTOALL_CHUNK_BYTES", chunk, 1);
  else
    ::unsetenv("WEFT_ALLTOALL_CHUNK_BYTES");
  params::ReloadForTesting();
  const auto mesh = MakeMesh({4});
  auto plan = planner::PlanRedistribute(MakeLayout(mesh, {8, 8}, {Shard{0}}),
                                        MakeLayout(mesh, {8, 8}, {Shard{1}}));
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  auto e = Executor::Create(std::move(*plan), 1);
  EXPECT_TRUE(e.ok()) << e.status().message();
  return e.ok() ? (*e)->fingerprint() : 0;
}

TEST(ExecutorFingerprint, CoversTheAlltoallChunkSize) {
  const uint64_t dflt = Fingerprint(nullptr);
  EXPECT_EQ(Fingerprint("8M"), dflt);  // the default, written out: the same chunks
  EXPECT_EQ(Fingerprint("8388608"), dflt);
  EXPECT_NE(Fingerprint("4K"), dflt);
  EXPECT_NE(Fingerprint("4K"), Fingerprint("8K"));
  ::unsetenv("WEFT_ALLTOALL_CHUNK_BYTES");
}

TEST(ExecutorFingerprint, MalformedChunkSizeFailsThePlanNamingIt) {
  ::setenv("WEFT_ALLTOALL_CHUNK_BYTES", "lots", 1);
  params::ReloadForTesting();
  const auto mesh = MakeMesh({2});
  auto plan = planner::PlanRedistribute(MakeLayout(mesh, {4}, {Shard{0}}),
                                        MakeLayout(mesh, {4}, {Replicate{}}));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  auto e = Executor::Create(std::move(*plan), 0);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), Code::kInvalidArgument);
  EXPECT_NE(e.status().message().find("WEFT_ALLTOALL_CHUNK_BYTES is 'lots'"), std::string::npos)
      << e.status().message();
  ::unsetenv("WEFT_ALLTOALL_CHUNK_BYTES");
}

}  // namespace
}  // namespace weft::placement::executor
