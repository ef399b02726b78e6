// Point-to-point of the Gloo plugin: tags, ordering, asynchronous requests, and messages of
// unverified length (WEFT_BK_OP_UNVERIFIED_SIZE), which go framed (framed_p2p.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/backends/gloo/rank_runner.hpp"

namespace weft::test {
namespace {

constexpr DLDataType kI32{kDLInt, 32, 1};

int32_t Payload(int from, int tag, uint64_t i) { return from * 100000 + tag * 1000 + int(i); }

// The next op's arguments, with `flags`.
weft_bk_op_t Op(Rank& r, uint32_t flags) {
  weft_bk_op_t op = r.Op(r.world);
  op.flags = flags;
  return op;
}

// Receives are posted for tags 3..0, sends go out for tags 0..3, and the requests are
// waited on in yet another order: tags, not posting order, match messages.
void RingWithTags(Rank& r, uint32_t flags) {
  const int n = r.size, right = (r.rank + 1) % n, left = (r.rank + n - 1) % n;
  constexpr int kTags = 4;
  std::vector<std::vector<int32_t>> in(kTags), out(kTags);
  std::vector<weft_bk_request_t*> reqs;
  for (int tag = kTags - 1; tag >= 0; --tag) {
    in[tag].assign(size_t{10} * (tag + 1), -1);
    weft_bk_request_t* req = nullptr;
    const auto op = Op(r, flags);
    RCHECK_OK(r.plugin->recv(r.world, in[tag].data(), in[tag].size(), kI32, left, tag, &op, &req));
    reqs.push_back(req);
  }
  for (int tag = 0; tag < kTags; ++tag) {
    out[tag].resize(size_t{10} * (tag + 1));
    for (size_t i = 0; i < out[tag].size(); ++i) out[tag][i] = Payload(r.rank, tag, i);
    weft_bk_request_t* req = nullptr;
    const auto op = Op(r, flags);
    RCHECK_OK(
        r.plugin->send(r.world, out[tag].data(), out[tag].size(), kI32, right, tag, &op, &req));
    reqs.push_back(req);
  }
  std::rotate(reqs.begin(), reqs.begin() + 3, reqs.end());
  for (auto* req : reqs) {
    RCHECK_OK(r.plugin->request_wait(req, -1));
    r.plugin->request_free(req);
  }
  for (int tag = 0; tag < kTags; ++tag) {
    for (size_t i = 0; i < in[tag].size(); ++i) RCHECK(in[tag][i] == Payload(left, tag, i));
  }
}

// Several messages on one (peer, tag) arrive in the order they were sent; framed ones even
// when their receives are waited on last-first (each waiter posts its payload's receive).
void SameTagKeepsOrder(Rank& r, uint32_t flags) {
  const int n = r.size, right = (r.rank + 1) % n, left = (r.rank + n - 1) % n;
  std::vector<weft_bk_request_t*> sends;
  int32_t out[5], in[5];
  std::vector<weft_bk_request_t*> recvs;
  for (int k = 0; k < 5; ++k) {
    in[k] = -1;
    weft_bk_request_t* req = nullptr;
    const auto op = Op(r, flags);
    RCHECK_OK(r.plugin->recv(r.world, &in[k], 1, kI32, left, 7, &op, &req));
    recvs.push_back(req);
  }
  for (int k = 0; k < 5; ++k) {
    out[k] = Payload(r.rank, 7, k);
    weft_bk_request_t* req = nullptr;
    const auto op = Op(r, flags);
    RCHECK_OK(r.plugin->send(r.world, &out[k], 1, kI32, right, 7, &op, &req));
    sends.push_back(req);
  }
  for (int k = 4; k >= 0; --k) {
    RCHECK_OK(r.plugin->request_wait(recvs[k], -1));
    r.plugin->request_free(recvs[k]);
    RCHECK(in[k] == Payload(left, 7, k));
  }
  for (auto* req : sends) {
    RCHECK_OK(r.plugin->request_wait(req, -1));
    r.plugin->request_free(req);
  }
}

// A framed message of another length than its receive fails the receive (a longer one
// terminates the process unframed), completes the send, and leaves the pair in step.
void FramedLengthMismatch(Rank& r) {
  if (r.rank > 1) return;
  const uint32_t framed = WEFT_BK_OP_UNVERIFIED_SIZE;
  std::vector<int32_t> nine(9, 9), eight(8, 8);
  for (size_t recv_count : {size_t{8}, size_t{10}}) {
    if (r.rank == 0) {
      auto op = Op(r, framed);
      RCHECK_OK(r.plugin->send(r.world, nine.data(), nine.size(), kI32, 1, 3, &op, nullptr));
      op = Op(r, framed);
      RCHECK_OK(r.plugin->send(r.world, eight.data(), eight.size(), kI32, 1, 3, &op, nullptr));
    } else {
      std::vector<int32_t> into(recv_count, -1), next(8, -1);
      auto op = Op(r, framed);
      RCHECK_STATUS(r.plugin->recv(r.world, into.data(), into.size(), kI32, 0, 3, &op, nullptr),
                    WEFT_ERR_INVALID_ARGUMENT);
      RCHECK(TestHost::LastError().find("the message has 36 bytes but the receive " +
                                        std::to_string(recv_count * 4)) != std::string::npos);
      op = Op(r, framed);
      RCHECK_OK(r.plugin->recv(r.world, next.data(), next.size(), kI32, 0, 3, &op, nullptr));
      RCHECK(next == eight);
    }
  }
}

// A posted receive is pending until its send arrives; test and a short wait leave it alone.
void RequestsProgressAsynchronously(Rank& r) {
  if (r.rank > 1) return;
  int32_t v = -1;
  if (r.rank == 0) {
    weft_bk_request_t* req = nullptr;
    const auto op = r.Op(r.world);
    RCHECK_OK(r.plugin->recv(r.world, &v, 1, kI32, 1, 42, &op, &req));
    int32_t done = 1;
    RCHECK_OK(r.plugin->request_test(req, &done));
    RCHECK(done == 0);
    RCHECK_STATUS(r.plugin->request_wait(req, 50), WEFT_IN_PROGRESS);
    r.Signal("async/posted");
    RCHECK_OK(r.plugin->request_wait(req, -1));
    RCHECK(v == 4242);
    RCHECK_OK(r.plugin->request_test(req, &done));
    RCHECK(done == 1);
    r.plugin->request_free(req);
  } else {
    r.AwaitSignal("async/posted");
    v = 4242;
    const auto op = r.Op(r.world);
    RCHECK_OK(r.plugin->send(r.world, &v, 1, kI32, 0, 42, &op, nullptr));
  }
}

// A request freed while pending is kept by the communicator: the message still lands in the
// caller's buffer and the connection stays usable.
void FreeWhilePending(Rank& r) {
  if (r.rank > 1) return;
  static int32_t landing = -1;  // must outlive the freed request, as the ABI requires
  const auto op = r.Op(r.world);
  if (r.rank == 0) {
    weft_bk_request_t* req = nullptr;
    RCHECK_OK(r.plugin->recv(r.world, &landing, 1, kI32, 1, 5, &op, &req));
    r.plugin->request_free(req);
    r.Signal("free/posted");
    int32_t v = -1;
    RCHECK_OK(r.plugin->recv(r.world, &v, 1, kI32, 1, 6, &op, nullptr));
    RCHECK(v == 6 && landing == 5);
  } else {
    r.AwaitSignal("free/posted");
    int32_t five = 5, six = 6;
    RCHECK_OK(r.plugin->send(r.world, &five, 1, kI32, 0, 5, &op, nullptr));
    RCHECK_OK(r.plugin->send(r.world, &six, 1, kI32, 0, 6, &op, nullptr));
  }
}

class GlooP2p : public ::testing::TestWithParam<int> {};

TEST_P(GlooP2p, RingWithTagsAndOrdering) {
  const auto outcomes = RunRanks(GetParam(), [](Rank& r) {
    RingWithTags(r, 0);
    SameTagKeepsOrder(r, 0);
  });
  EXPECT_TRUE(AllSucceeded(outcomes)) << Describe(outcomes);
}

TEST_P(GlooP2p, FramedRingWithTagsAndOrdering) {
  const auto outcomes = RunRanks(GetParam(), [](Rank& r) {
    RingWithTags(r, WEFT_BK_OP_UNVERIFIED_SIZE);
    SameTagKeepsOrder(r, WEFT_BK_OP_UNVERIFIED_SIZE);
  });
  EXPECT_TRUE(AllSucceeded(outcomes)) << Describe(outcomes);
}

TEST_P(GlooP2p, FramedLengthMismatchFailsTheReceiveOnly) {
  const auto outcomes = RunRanks(GetParam(), [](Rank& r) {
    FramedLengthMismatch(r);
    const auto op = r.Op(r.world);
    RCHECK_OK(r.plugin->barrier(r.world, &op, nullptr));
  });
  EXPECT_TRUE(AllSucceeded(outcomes)) << Describe(outcomes);
}

TEST_P(GlooP2p, AsynchronousRequests) {
  const auto outcomes = RunRanks(GetParam(), [](Rank& r) {
    RequestsProgressAsynchronously(r);
    FreeWhilePending(r);
    const auto op = r.Op(r.world);
    RCHECK_OK(r.plugin->barrier(r.world, &op, nullptr));
  });
  EXPECT_TRUE(AllSucceeded(outcomes)) << Describe(outcomes);
}

INSTANTIATE_TEST_SUITE_P(Ranks, GlooP2p, ::testing::Values(2, 3, 4));

}  // namespace
}  // namespace weft::test
