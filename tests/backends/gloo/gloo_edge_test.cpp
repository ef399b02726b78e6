// Edge cases of the Gloo plugin: empty ops, requests of blocking collectives, device memory,
// bad arguments, and communicators of subgroups (including groups of one, which run
// without Gloo).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/backends/gloo/rank_runner.hpp"

namespace weft::test {
namespace {

constexpr DLDataType kF32{kDLFloat, 32, 1};
constexpr DLDataType kI32{kDLInt, 32, 1};

void EmptyOps(Rank& r) {
  const int n = r.size;
  auto op = r.Op(r.world);
  RCHECK_OK(r.plugin->allreduce(r.world, nullptr, nullptr, 0, kF32, WEFT_REDUCE_SUM, &op, nullptr));
  op = r.Op(r.world);
  RCHECK_OK(r.plugin->allgather(r.world, nullptr, nullptr, 0, kI32, &op, nullptr));
  std::vector<uint64_t> zeros(n, 0);
  op = r.Op(r.world);
  RCHECK_OK(r.plugin->allgatherv(r.world, nullptr, 0, nullptr, zeros.data(), nullptr, kI32, &op,
                                 nullptr));
  op = r.Op(r.world);
  RCHECK_OK(r.plugin->alltoall(r.world, nullptr, nullptr, 0, kI32, &op, nullptr));
  op = r.Op(r.world);
  RCHECK_OK(r.plugin->alltoallv(r.world, nullptr, zeros.data(), nullptr, nullptr, zeros.data(),
                                nullptr, kI32, &op, nullptr));
  op = r.Op(r.world);
  RCHECK_OK(r.plugin->broadcast(r.world, nullptr, 0, kI32, 0, &op, nullptr));
  const int peer = (r.rank + 1) % n, from = (r.rank + n - 1) % n;
  weft_bk_request_t* req = nullptr;
  op = r.Op(r.world);
  RCHECK_OK(r.plugin->recv(r.world, nullptr, 0, kI32, from, 9, &op, &req));
  op = r.Op(r.world);
  RCHECK_OK(r.plugin->send(r.world, nullptr, 0, kI32, peer, 9, &op, nullptr));
  RCHECK_OK(r.plugin->request_wait(req, -1));
  r.plugin->request_free(req);
}

void CollectiveRequestsComeBackComplete(Rank& r) {
  float x = 1.0f;
  weft_bk_request_t* req = nullptr;
  const auto op = r.Op(r.world);
  RCHECK_OK(r.plugin->allreduce(r.world, &x, &x, 1, kF32, WEFT_REDUCE_SUM, &op, &req));
  int32_t done = 0;
  RCHECK_OK(r.plugin->request_test(req, &done));
  RCHECK(done == 1);
  RCHECK_OK(r.plugin->request_wait(req, 0));
  RCHECK_OK(r.plugin->request_cancel(req));
  r.plugin->request_free(req);
  RCHECK(x == float(r.size));
}

// Every op rejects device memory locally, before communicating, on every rank.
void DeviceMemoryIsUnsupported(Rank& r) {
  const DLDevice cuda{kDLCUDA, 0};
  int32_t v[4] = {};
  uint64_t counts[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  auto op = r.Op(r.world, kOpTimeoutMs, cuda);
  RCHECK_STATUS(r.plugin->allreduce(r.world, v, v, 1, kI32, WEFT_REDUCE_SUM, &op, nullptr),
                WEFT_ERR_UNSUPPORTED);
  RCHECK(TestHost::LastError().find("device type 2") != std::string::npos);
  RCHECK_STATUS(r.plugin->allgatherv(r.world, v, 1, v, counts, nullptr, kI32, &op, nullptr),
                WEFT_ERR_UNSUPPORTED);
  RCHECK_STATUS(
      r.plugin->alltoallv(r.world, v, counts, nullptr, v, counts, nullptr, kI32, &op, nullptr),
      WEFT_ERR_UNSUPPORTED);
  RCHECK_STATUS(r.plugin->broadcast(r.world, v, 1, kI32, 0, &op, nullptr), WEFT_ERR_UNSUPPORTED);
  RCHECK_STATUS(r.plugin->barrier(r.world, &op, nullptr), WEFT_ERR_UNSUPPORTED);
  RCHECK_STATUS(r.plugin->send(r.world, v, 1, kI32, 0, 0, &op, nullptr), WEFT_ERR_UNSUPPORTED);
  // CUDA host memory is host memory.
  op = r.Op(r.world, kOpTimeoutMs, DLDevice{kDLCUDAHost, 0});
  RCHECK_OK(r.plugin->barrier(r.world, &op, nullptr));
}

void BadArgumentsAreRejected(Rank& r) {
  int32_t v[4] = {};
  auto op = r.Op(r.world);
  RCHECK_STATUS(r.plugin->allreduce(r.world, v, v, 1, kI32, WEFT_REDUCE_AVG, &op, nullptr),
                WEFT_ERR_INVALID_ARGUMENT);
  const DLDataType odd{kDLInt, 24, 1};
  RCHECK_STATUS(r.plugin->allreduce(r.world, v, v, 1, odd, WEFT_REDUCE_SUM, &op, nullptr),
                WEFT_ERR_UNSUPPORTED);
  RCHECK_STATUS(r.plugin->broadcast(r.world, v, 1, kI32, r.size, &op, nullptr),
                WEFT_ERR_INVALID_ARGUMENT);
  RCHECK_STATUS(r.plugin->send(r.world, v, 1, kI32, r.size, 0, &op, nullptr),
                WEFT_ERR_INVALID_ARGUMENT);
  RCHECK_STATUS(r.plugin->send(r.world, v, 1, kI32, 0, -1, &op, nullptr),
                WEFT_ERR_INVALID_ARGUMENT);
  RCHECK_STATUS(r.plugin->allgather(r.world, nullptr, v, 1, kI32, &op, nullptr),
                WEFT_ERR_INVALID_ARGUMENT);
  // Rejections do not poison the communicator.
  op = r.Op(r.world);
  RCHECK_OK(r.plugin->barrier(r.world, &op, nullptr));
}

// Members of the same parity form a group; with 2 ranks the groups have one member each.
void SubgroupCollectives(Rank& r) {
  std::vector<int32_t> members;
  for (int q = r.rank % 2; q < r.size; q += 2) members.push_back(q);
  const int m = int(members.size()), me = r.rank / 2;
  weft_bk_comm_t* comm = nullptr;
  const std::string prefix = r.rank % 2 ? "group/odd" : "group/even";
  RCHECK_OK(
      r.plugin->comm_create(r.state, members.data(), m, me, prefix.c_str(), kOpTimeoutMs, &comm));
  int32_t x = r.rank + 1;
  auto op = r.Op(comm);
  RCHECK_OK(r.plugin->allreduce(comm, &x, &x, 1, kI32, WEFT_REDUCE_SUM, &op, nullptr));
  int32_t want = 0;
  for (int32_t q : members) want += q + 1;
  RCHECK(x == want);
  std::vector<int32_t> all(m, -1);
  op = r.Op(comm);
  RCHECK_OK(r.plugin->allgather(comm, &r.rank, all.data(), 1, kI32, &op, nullptr));
  for (int i = 0; i < m; ++i) RCHECK(all[i] == members[i]);
  // Point-to-point with oneself: a send before its receive, and a receive before its send.
  int32_t in = 0, out = 41;
  weft_bk_request_t* req = nullptr;
  op = r.Op(comm);
  RCHECK_OK(r.plugin->send(comm, &out, 1, kI32, me, 3, &op, nullptr));
  RCHECK_OK(r.plugin->recv(comm, &in, 1, kI32, me, 3, &op, nullptr));
  RCHECK(in == 41);
  RCHECK_OK(r.plugin->recv(comm, &in, 1, kI32, me, 4, &op, &req));
  out = 42;
  RCHECK_OK(r.plugin->send(comm, &out, 1, kI32, me, 4, &op, nullptr));
  RCHECK_OK(r.plugin->request_wait(req, -1));
  r.plugin->request_free(req);
  RCHECK(in == 42);
  r.plugin->comm_destroy(comm);
}

class GlooEdges : public ::testing::TestWithParam<int> {};

TEST_P(GlooEdges, EmptyOpsAndCompleteRequests) {
  const auto outcomes = RunRanks(GetParam(), [](Rank& r) {
    EmptyOps(r);
    CollectiveRequestsComeBackComplete(r);
  });
  EXPECT_TRUE(AllSucceeded(outcomes)) << Describe(outcomes);
}

TEST_P(GlooEdges, DeviceMemoryAndBadArgumentsAreRejectedLocally) {
  const auto outcomes = RunRanks(GetParam(), [](Rank& r) {
    DeviceMemoryIsUnsupported(r);
    BadArgumentsAreRejected(r);
  });
  EXPECT_TRUE(AllSucceeded(outcomes)) << Describe(outcomes);
}

TEST_P(GlooEdges, SubgroupCommunicators) {
  const auto outcomes = RunRanks(GetParam(), [](Rank& r) { SubgroupCollectives(r); });
  EXPECT_TRUE(AllSucceeded(outcomes)) << Describe(outcomes);
}

INSTANTIATE_TEST_SUITE_P(Ranks, GlooEdges, ::testing::Values(2, 3, 4));

}  // namespace
}  // namespace weft::test
