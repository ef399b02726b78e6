// The UCX plugin's contract (backend_plugin.h, SPEC §10) on 2 or 3 forked ranks: values are
// checked against formulas of (rank, index); faults are real (a rank kills itself).
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "file_store.hpp"
#include "forked_ranks.hpp"
#include "helpers.hpp"

namespace weft::test::ucx {
namespace {

constexpr int64_t kInternalTag = (int64_t{1} << 40) + 7;  // as the host's composed ops use

// Single copy itself: messages that would take a pipe (backends/ucx/transport/pipes.hpp) do not.
struct NoPipes : ScopedEnv {
  NoPipes() : ScopedEnv("WEFT_UCX_PIPE_BYTES", "0") {}
};

// The table: every collective is the plugin's own; no group calls.
TEST(UcxPlugin, TableHasEveryCollective) {
  ExpectAllOk(RunRanks(1, [](Rank& r) -> std::string {
    const weft_backend_plugin_t& t = *r.plugin;
    if (std::strcmp(t.name, "ucx") != 0) return "name";
    const uint64_t want = WEFT_BK_CAP_ASYNC | WEFT_BK_CAP_STRIDED | WEFT_BK_CAP_SIZE_SAFE |
                          WEFT_BK_CAP_ALLREDUCE | WEFT_BK_CAP_ALLGATHER | WEFT_BK_CAP_ALLGATHERV |
                          WEFT_BK_CAP_REDUCE_SCATTER | WEFT_BK_CAP_REDUCE_SCATTERV |
                          WEFT_BK_CAP_ALLTOALL | WEFT_BK_CAP_ALLTOALLV | WEFT_BK_CAP_BROADCAST |
                          WEFT_BK_CAP_BARRIER;
    if (t.capabilities != want) return "capabilities";
    if (!t.allreduce || !t.allgather || !t.allgatherv || !t.reduce_scatter || !t.reduce_scatterv ||
        !t.alltoall || !t.alltoallv || !t.broadcast || !t.barrier)
      return "a collective is NULL";
    if (t.group_start || t.group_end) return "group calls are not NULL";
    if (t.struct_size != sizeof(weft_backend_plugin_t) || !t.send_strided || !t.recv_strided)
      return "no ABI 1.1 strided point-to-point";
    return "";
  }));
}

// A ring exchange with user and internal tags, two messages per tag in order, plus a message to
// oneself and an empty one.
TEST(UcxPlugin, RingSelfAndEmptyMessagesArriveInOrder) {
  ExpectAllOk(RunRanks(3, [](Rank& r) -> std::string {
    const weft_bk_op_t op = r.Op();
    const int32_t right = (r.rank + 1) % r.size, left = (r.rank + r.size - 1) % r.size;
    std::vector<int32_t> out1(1000), out2(1000), in1(1000, -1), in2(1000, -1);
    for (int i = 0; i < 1000; ++i) {
      out1[i] = r.rank * 100000 + i;
      out2[i] = -(r.rank * 100000 + i);
    }
    int32_t self_out = 42 + r.rank, self_in = 0;
    weft_bk_request_t* q[7] = {};
    const weft_backend_plugin_t& t = *r.plugin;
    weft_status_t s;
    if ((s = t.recv(r.comm, in1.data(), 1000, kI32, left, kInternalTag, &op, &q[0])) ||
        (s = t.recv(r.comm, in2.data(), 1000, kI32, left, kInternalTag, &op, &q[1])) ||
        (s = t.recv(r.comm, &self_in, 1, kI32, r.rank, 5, &op, &q[2])) ||
        (s = t.recv(r.comm, nullptr, 0, kU8, left, 0, &op, &q[3])) ||
        (s = t.send(r.comm, out1.data(), 1000, kI32, right, kInternalTag, &op, &q[4])) ||
        (s = t.send(r.comm, out2.data(), 1000, kI32, right, kInternalTag, &op, &q[5])) ||
        (s = t.send(r.comm, &self_out, 1, kI32, r.rank, 5, &op, &q[6])))
      return Err("post", s);
    // A blocking empty send (req == NULL).
    if ((s = t.send(r.comm, nullptr, 0, kU8, right, 0, &op, nullptr))) return Err("send", s);
    for (auto* req : q) {
      if ((s = t.request_wait(req, -1))) return Err("wait", s);
      int32_t done = 0;
      t.request_test(req, &done);
      if (!done) return "test after wait says not done";
      t.request_free(req);
    }
    for (int i = 0; i < 1000; ++i)
      if (in1[i] != left * 100000 + i || in2[i] != -(left * 100000 + i))
        return "wrong value at " + std::to_string(i);
    if (self_in != 42 + r.rank) return "wrong message to self";
    return "";
  }));
}

// A receive shorter or longer than the message fails with INVALID_ARGUMENT, not a crash, and
// the plugin stays usable.
// Sizes must match (the ABI's receive carries no length back). Single-copy-sized messages
// (backends/ucx/transport/cma.hpp) and pipe messages (pipes.hpp) into receives shorter than,
// exactly as long as, and longer than a descriptor: the sender waits for the receiver, which
// refuses it, so both sides see the mismatch and the sender's message names the receive's size.
std::string SizeMismatch(Rank& r) {
  const weft_bk_op_t op = r.Op();
  const weft_backend_plugin_t& t = *r.plugin;
  const int32_t peer = 1 - r.rank;
  weft_status_t s;
  auto exchange = [&](int64_t tag) -> std::string {  // a token each way
    int32_t v = r.rank, w = -1;
    weft_bk_request_t* q = nullptr;
    if ((s = t.recv(r.comm, &w, 1, kI32, peer, tag, &op, &q))) return Err("recv", s);
    if ((s = t.send(r.comm, &v, 1, kI32, peer, tag, &op, nullptr))) return Err("send", s);
    if ((s = t.request_wait(q, -1))) return Err("wait", s);
    t.request_free(q);
    return w == peer ? "" : "wrong token";
  };
  // Both connected (and mapped each other's pipes) before the first large message.
  if (std::string e = exchange(3); !e.empty()) return e;
  std::vector<char> big(64 * 1024, 'x');
  for (size_t n : {size_t{16}, size_t{192}, size_t{4096}}) {
    std::vector<char> small(n);
    if (r.rank == 0) {
      s = t.send(r.comm, big.data(), big.size(), kU8, 1, 1, &op, nullptr);
      if (s != WEFT_ERR_INVALID_ARGUMENT) return Err("single-copy send into a short receive", s);
      if (FileStoreHost::LastError().find(std::to_string(n) + " bytes") == std::string::npos)
        return "message does not name the receive's size: " + FileStoreHost::LastError();
      if ((s = t.send(r.comm, big.data(), 8, kU8, 1, 2, &op, nullptr))) return Err("send", s);
    } else {
      s = t.recv(r.comm, small.data(), small.size(), kU8, 0, 1, &op, nullptr);
      if (s != WEFT_ERR_INVALID_ARGUMENT) return Err("longer message: recv", s);
      if (FileStoreHost::LastError().find("rank 0") == std::string::npos)
        return "message does not name the peer: " + FileStoreHost::LastError();
      s = t.recv(r.comm, small.data(), small.size(), kU8, 0, 2, &op, nullptr);
      if (s != WEFT_ERR_INVALID_ARGUMENT) return Err("shorter message: recv", s);
    }
  }
  return exchange(3);  // still usable
}

TEST(UcxPlugin, SizeMismatchIsAnInvalidArgument) {
  ExpectAllOk(RunRanks(2, SizeMismatch));
  NoPipes off;
  ExpectAllOk(RunRanks(2, SizeMismatch));
}

// A wait's own timeout gives IN_PROGRESS and leaves the op alone; the op's deadline gives
// TIMEOUT; cancel gives ABORTED; device memory is refused before anything is posted.
TEST(UcxPlugin, DeadlinesCancelAndDeviceMemory) {
  ExpectAllOk(RunRanks(2, [](Rank& r) -> std::string {
    const weft_backend_plugin_t& t = *r.plugin;
    int32_t buf = 0;
    weft_bk_request_t* q = nullptr;
    const weft_bk_op_t op = r.Op(400);
    weft_status_t s;
    const auto t0 = Clock::now();
    if ((s = t.recv(r.comm, &buf, 1, kI32, 1 - r.rank, 9, &op, &q))) return Err("recv", s);
    if ((s = t.request_wait(q, 50)) != WEFT_IN_PROGRESS) return Err("short wait", s);
    if ((s = t.request_wait(q, -1)) != WEFT_ERR_TIMEOUT) return Err("wait to deadline", s);
    if (Since(t0) < 0.35 || Since(t0) > 2.0) return "deadline at " + std::to_string(Since(t0));
    t.request_free(q);

    const weft_bk_op_t none = r.Op(-1);
    if ((s = t.recv(r.comm, &buf, 1, kI32, 1 - r.rank, 10, &none, &q))) return Err("recv", s);
    if ((s = t.request_cancel(q))) return Err("cancel", s);
    if ((s = t.request_wait(q, -1)) != WEFT_ERR_ABORTED) return Err("wait after cancel", s);
    t.request_free(q);

    weft_bk_op_t gpu = r.Op();
    gpu.device = DLDevice{kDLCUDA, 0};
    if ((s = t.send(r.comm, &buf, 1, kI32, 1 - r.rank, 11, &gpu, nullptr)) != WEFT_ERR_UNSUPPORTED)
      return Err("send of device memory", s);
    return "";
  }));
}

// comm_create's timeout bounds the whole call, not each of its store waits: member 0 waits for
// member 1 (300 ms late) and then member 2 (600 ms late) with 450 ms for all, and gives up at
// 450 ms rather than succeeding at 600 ms (SPEC §10: every wait honours its deadline).
TEST(UcxPlugin, CommCreateTimeoutBoundsTheWholeCall) {
  ExpectAllOk(RunRanks(3, [](Rank& r) -> std::string {
    const int32_t world[] = {0, 1, 2};
    std::this_thread::sleep_for(std::chrono::milliseconds(300 * r.rank));
    weft_bk_comm_t* g = nullptr;
    const auto t0 = Clock::now();
    const weft_status_t s =
        r.plugin->comm_create(r.state, world, 3, r.rank, "late/", r.rank == 0 ? 450 : 20000, &g);
    if (r.rank != 0) {
      if (s != WEFT_OK) return Err("comm_create of a late member", s);
      r.plugin->comm_destroy(g);
      return "";
    }
    if (s != WEFT_ERR_TIMEOUT) return Err("comm_create with 450 ms for all", s);
    if (Since(t0) > 0.55) return "gave up after " + std::to_string(Since(t0)) + " s";
    return "";
  }));
}

// abort() from another thread wakes a waiter sleeping on the worker's event fd.
TEST(UcxPlugin, AbortWakesASleepingWaiter) {
  ExpectAllOk(RunRanks(2, [](Rank& r) -> std::string {
    const weft_backend_plugin_t& t = *r.plugin;
    int32_t buf = 0;
    weft_bk_request_t* q = nullptr;
    const weft_bk_op_t op = r.Op(-1);
    weft_status_t s;
    if ((s = t.recv(r.comm, &buf, 1, kI32, 1 - r.rank, 1, &op, &q))) return Err("recv", s);
    std::thread aborter([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      t.abort(r.state, WEFT_ERR_ABORTED, -1, "test abort");
    });
    const auto t0 = Clock::now();
    s = t.request_wait(q, -1);
    const double took = Since(t0);
    aborter.join();
    t.request_free(q);
    if (s != WEFT_ERR_ABORTED) return Err("wait", s);
    if (took > 1.5) return "abort woke the waiter after " + std::to_string(took) + " s";
    if ((s = t.send(r.comm, &buf, 1, kI32, 1 - r.rank, 2, &op, nullptr)) != WEFT_ERR_ABORTED)
      return Err("send after abort", s);
    if (FileStoreHost::LastError().find("test abort") == std::string::npos)
      return "no reason: " + FileStoreHost::LastError();
    return "";
  }));
}

// A small all-reduce runs inline when the caller blocks (coll/small.cpp) and through the
// schedule when it asks for a request: the two must exchange the same messages, so members may
// mix them. 3 and 5 ranks fold the extra members in and out; 64 int32 are the largest inline
// size, 65 the smallest scheduled one everywhere.
void SmallAllreduceMix(int n) {
  ExpectAllOk(RunRanks(n, [](Rank& r) -> std::string {
    const weft_backend_plugin_t& t = *r.plugin;
    const weft_bk_op_t op = r.Op();
    for (int round = 0; round < 4; ++round) {
      const bool scheduled = (r.rank + round) % 2 == 1;
      for (uint64_t count : {1, 7, 64, 65}) {
        for (int32_t red : {WEFT_REDUCE_SUM, WEFT_REDUCE_MAX}) {
          std::vector<int32_t> in(count), out(count, -1);
          for (uint64_t i = 0; i < count; ++i) in[i] = (r.rank * 37 + int32_t(i) * 11) % 101;
          weft_bk_request_t* q = nullptr;
          weft_status_t s = t.allreduce(r.comm, in.data(), out.data(), count, kI32, red, &op,
                                        scheduled ? &q : nullptr);
          if (s == WEFT_OK && scheduled) {
            s = t.request_wait(q, -1);
            t.request_free(q);
          }
          if (s) return Err("allreduce", s);
          for (uint64_t i = 0; i < count; ++i) {
            int32_t want = red == WEFT_REDUCE_SUM ? 0 : -1;
            for (int32_t k = 0; k < r.size; ++k) {
              const int32_t v = (k * 37 + int32_t(i) * 11) % 101;
              want = red == WEFT_REDUCE_SUM ? want + v : std::max(want, v);
            }
            if (out[i] != want)
              return "count " + std::to_string(count) + " element " + std::to_string(i) + ": " +
                     std::to_string(out[i]) + " != " + std::to_string(want);
          }
        }
      }
    }
    return "";
  }));
}
TEST(UcxPlugin, SmallAllreduceBlockingAndScheduledMembersMix2) { SmallAllreduceMix(2); }
TEST(UcxPlugin, SmallAllreduceBlockingAndScheduledMembersMix3) { SmallAllreduceMix(3); }
TEST(UcxPlugin, SmallAllreduceBlockingAndScheduledMembersMix5) { SmallAllreduceMix(5); }

// The inline small all-reduce fails like the scheduled one: the member whose partner died gets
// PEER_FAILURE naming it within 2 s, the member waiting on that one its deadline.
TEST(UcxPlugin, SmallAllreduceReportsADeadPartnerAndTheDeadline) {
  const auto results = RunRanks(3, [](Rank& r) -> std::string {
    const weft_backend_plugin_t& t = *r.plugin;
    weft_bk_op_t op = r.Op();
    int32_t in = r.rank + 1, out = 0;
    weft_status_t s;
    if ((s = t.allreduce(r.comm, &in, &out, 1, kI32, WEFT_REDUCE_SUM, &op, nullptr)))
      return Err("first allreduce", s);
    if (out != 6) return "first allreduce gave " + std::to_string(out);
    if (r.rank == 2) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      raise(SIGKILL);
    }
    // Rank 0 is folded into rank 1, whose partner is rank 2.
    op = r.Op(1500);
    const auto t0 = Clock::now();
    s = t.allreduce(r.comm, &in, &out, 1, kI32, WEFT_REDUCE_SUM, &op, nullptr);
    const double took = Since(t0);
    const std::string why = FileStoreHost::LastError();
    if (r.rank == 1) {
      if (s != WEFT_ERR_PEER_FAILURE) return Err("allreduce with rank 2 dead", s);
      if (why.find("rank 2") == std::string::npos) return "does not name rank 2: " + why;
      if (took > 2.2) return "noticed after " + std::to_string(took) + " s";
    } else {
      if (s != WEFT_ERR_TIMEOUT && s != WEFT_ERR_PEER_FAILURE)
        return Err("allreduce waiting on rank 1", s);
      if (took > 3.0) return "returned after " + std::to_string(took) + " s";
    }
    return "";
  });
  EXPECT_EQ(results[0], "");
  EXPECT_EQ(results[1], "");
  EXPECT_EQ(results[2], "killed by signal 9");
}

// A receive pending from a peer that dies fails with PEER_FAILURE naming it within 2 s,
// through the transport alone (no store liveness here).
TEST(UcxPlugin, KilledPeerFailsThePendingReceive) {
  const auto results = RunRanks(3, [](Rank& r) -> std::string {
    const weft_backend_plugin_t& t = *r.plugin;
    const weft_bk_op_t op = r.Op(15000);
    int32_t buf = 0;
    weft_status_t s;
    // Everyone has talked to everyone, so every endpoint is wired up.
    for (int32_t p = 0; p < r.size; ++p) {
      if (p == r.rank) continue;
      weft_bk_request_t* q = nullptr;
      int32_t in = -1;
      if ((s = t.recv(r.comm, &in, 1, kI32, p, 1, &op, &q))) return Err("recv", s);
      if ((s = t.send(r.comm, &r.rank, 1, kI32, p, 1, &op, nullptr))) return Err("send", s);
      if ((s = t.request_wait(q, -1))) return Err("wait", s);
      t.request_free(q);
    }
    if (r.rank == 2) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      raise(SIGKILL);
    }
    weft_bk_request_t* q = nullptr;
    if ((s = t.recv(r.comm, &buf, 1, kI32, 2, 2, &op, &q))) return Err("recv", s);
    const auto t0 = Clock::now();
    s = t.request_wait(q, -1);
    const double took = Since(t0);
    t.request_free(q);
    if (std::string e = PeerFailureNaming(2, s, "wait on the dead peer", took, 2.2); !e.empty())
      return e;
    int32_t failed = -1;
    if ((s = t.async_error(r.state, &failed)) != WEFT_ERR_PEER_FAILURE || failed != 2)
      return Err("async_error", s);
    std::printf("rank %d saw rank 2's death after %.0f ms\n", r.rank, took * 1000);
    return "";
  });
  EXPECT_EQ(results[0], "");
  EXPECT_EQ(results[1], "");
  EXPECT_EQ(results[2], "killed by signal 9");
}

// Large messages between ranks of one host go by single copy (backends/ucx/transport/cma.hpp): the
// receiver reads the sender's buffer. Messages on one tag keep their order across the size
// classes; a raw message into a receive that expects a descriptor is a size error; a sender
// that dies before its message was read fails the receive with PEER_FAILURE naming it.
void SingleCopyOrderAndFailures() {
  const auto results = RunRanks(2, [](Rank& r) -> std::string {
    const weft_backend_plugin_t& t = *r.plugin;
    const weft_bk_op_t op = r.Op(15000);
    weft_status_t s;
    // Sizes on both sides of the single-copy threshold (8 KiB), of a descriptor (192 B) and
    // of a contiguous sender's short descriptor (40 B).
    const std::vector<size_t> sizes = {
        1 << 20, 100, 40 * 1024, 7, 192, 193, 191, 40, 41, 39, 8192, 8191, 3 * (1 << 20) + 5, 0};
    auto value = [](size_t k, size_t i) { return static_cast<char>((k * 131 + i * 7) % 251); };
    if (r.rank == 0) {
      std::vector<std::vector<char>> out(sizes.size());
      std::vector<weft_bk_request_t*> q(sizes.size());
      for (size_t k = 0; k < sizes.size(); ++k) {
        out[k].resize(sizes[k]);
        for (size_t i = 0; i < sizes[k]; ++i) out[k][i] = value(k, i);
        if ((s = t.send(r.comm, out[k].data(), sizes[k], kU8, 1, 4, &op, &q[k])))
          return Err("send", s);
      }
      for (weft_bk_request_t* x : q) {
        if ((s = t.request_wait(x, -1))) return Err("wait for a send", s);
        t.request_free(x);
      }
      // Raw 100 bytes where the receiver expects 64 KiB (a descriptor).
      std::vector<char> small(100, 'y');
      if ((s = t.send(r.comm, small.data(), small.size(), kU8, 1, 5, &op, nullptr)))
        return Err("send of the short message", s);
      // A single-copy send, then die before the receiver gets to read it.
      std::vector<char> big(3 << 20, 'z');  // more than a pipe's ring
      weft_bk_request_t* doomed = nullptr;
      if ((s = t.send(r.comm, big.data(), big.size(), kU8, 1, 6, &op, &doomed)))
        return Err("send", s);
      int32_t done = 0;
      (void)t.request_test(doomed, &done);  // the descriptor leaves
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      raise(SIGKILL);
    }
    for (size_t k = 0; k < sizes.size(); ++k) {
      std::vector<char> in(sizes[k], 0);
      if ((s = t.recv(r.comm, in.data(), sizes[k], kU8, 0, 4, &op, nullptr)))
        return Err(("receive " + std::to_string(k)).c_str(), s);
      for (size_t i = 0; i < sizes[k]; ++i)
        if (in[i] != value(k, i))
          return "message " + std::to_string(k) + " byte " + std::to_string(i) + " is wrong";
    }
    std::vector<char> expect(64 * 1024);
    s = t.recv(r.comm, expect.data(), expect.size(), kU8, 0, 5, &op, nullptr);
    if (s != WEFT_ERR_INVALID_ARGUMENT) return Err("raw message into a large receive", s);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));  // rank 0 is gone by now
    std::vector<char> big(3 << 20);
    const auto t0 = Clock::now();
    s = t.recv(r.comm, big.data(), big.size(), kU8, 0, 6, &op, nullptr);
    return PeerFailureNaming(0, s, "receive from the dead sender", Since(t0), 2.2);
  });
  EXPECT_EQ(results[0], "killed by signal 9");
  EXPECT_EQ(results[1], "");
}

TEST(UcxPlugin, SingleCopyMessagesKeepOrderAndReportFailures) {
  NoPipes off;
  SingleCopyOrderAndFailures();
}

// The same through pipes (backends/ucx/transport/pipes.hpp; the 3 MiB messages larger than a pipe's
// ring, so the dying sender's one cannot have arrived whole).
TEST(UcxPlugin, PipedMessagesKeepOrderAndReportFailures) { SingleCopyOrderAndFailures(); }

// Strided point-to-point (ABI 1.1): a block of rows of one matrix into a block of columns of
// another, strided on either side or both, at sizes read in place by the receiver (single
// copy), sent packed (below the threshold) and bounced (below a descriptor's size); then the
// same with single copy off (WEFT_UCX_CMA_BYTES=0: packed and unpacked by the plugin).
std::string StridedExchange(Rank& r) {
  const weft_backend_plugin_t& t = *r.plugin;
  const weft_bk_op_t op = r.Op();
  weft_status_t s;
  for (uint64_t rows : {uint64_t{3}, uint64_t{40}, uint64_t{700}}) {
    const uint64_t cols = 9;  // 36-byte rows: 108 B, 1.4 KiB, 25 KiB per message
    // Sender: rows x cols out of a rows x 20 matrix at column 5; receiver: into a rows x 13
    // matrix at column 2; also contiguous on one side.
    std::vector<int32_t> a(rows * 20), b(rows * 13, -1), flat(rows * cols, -1);
    for (uint64_t i = 0; i < a.size(); ++i) a[i] = static_cast<int32_t>(i * 7 + rows);
    auto want = [&](uint64_t i, uint64_t j) {
      return static_cast<int32_t>((i * 20 + 5 + j) * 7 + rows);
    };
    if (r.rank == 0) {
      const weft_bk_strided_t src = Int32Rows(rows, cols, 20);
      if ((s = t.send_strided(r.comm, a.data() + 5, &src, 1, 11, &op, nullptr)))
        return Err("strided send", s);
      if ((s = t.send_strided(r.comm, a.data() + 5, &src, 1, 11, &op, nullptr)))
        return Err("strided send", s);
      std::vector<int32_t> packed(rows * cols);
      for (uint64_t i = 0; i < rows; ++i)
        for (uint64_t j = 0; j < cols; ++j) packed[i * cols + j] = want(i, j);
      if ((s = t.send(r.comm, packed.data(), packed.size() * 4, kU8, 1, 11, &op, nullptr)))
        return Err("send", s);
    } else {
      const weft_bk_strided_t dst = Int32Rows(rows, cols, 13);
      if ((s = t.recv_strided(r.comm, b.data() + 2, &dst, 0, 11, &op, nullptr)))
        return Err("strided receive", s);
      for (uint64_t i = 0; i < rows; ++i)
        for (uint64_t j = 0; j < 13; ++j) {
          const int32_t expect = (j >= 2 && j < 2 + cols) ? want(i, j - 2) : -1;
          if (b[i * 13 + j] != expect)
            return "strided to strided: row " + std::to_string(i) + " col " + std::to_string(j);
        }
      if ((s = t.recv(r.comm, flat.data(), flat.size() * 4, kU8, 0, 11, &op, nullptr)))
        return Err("receive", s);
      for (uint64_t i = 0; i < rows; ++i)
        for (uint64_t j = 0; j < cols; ++j)
          if (flat[i * cols + j] != want(i, j)) return "strided to contiguous: wrong element";
      std::fill(b.begin(), b.end(), -1);
      if ((s = t.recv_strided(r.comm, b.data() + 2, &dst, 0, 11, &op, nullptr)))
        return Err("strided receive", s);
      for (uint64_t i = 0; i < rows; ++i)
        for (uint64_t j = 0; j < cols; ++j)
          if (b[i * 13 + 2 + j] != want(i, j)) return "contiguous to strided: wrong element";
    }
  }
  // A malformed layout is refused before anything is posted.
  weft_bk_strided_t bad = Int32Rows(2, 2, 4);
  bad.ndim = WEFT_BK_MAX_DIMS + 1;
  int32_t x = 0;
  s = t.send_strided(r.comm, &x, &bad, 1 - r.rank, 12, &op, nullptr);
  if (s != WEFT_ERR_INVALID_ARGUMENT) return Err("malformed layout", s);
  return "";
}

TEST(UcxPlugin, StridedPointToPointWithAndWithoutSingleCopy) {
  ExpectAllOk(RunRanks(2, StridedExchange));
  {
    NoPipes off;
    ExpectAllOk(RunRanks(2, StridedExchange));
  }
  setenv("WEFT_UCX_CMA_BYTES", "0", 1);
  ExpectAllOk(RunRanks(2, StridedExchange));
  unsetenv("WEFT_UCX_CMA_BYTES");
}

// Single-copy reads whose destination lies 1..63 bytes past the source modulo 4 KiB go through
// a scratch page-aligned like the source (cma.hpp, Bounce) on processors that copy slowly
// there (common/copy.hpp; forced here, so that this runs on any processor; and once as this
// processor has it): sizes around its 128 KiB pieces, each landing exactly, the bytes around
// the receive untouched.
std::string SkewedReads(Rank& r);

TEST(UcxPlugin, SkewedSingleCopyReadsLandExactly) {
  NoPipes off;
  {
    ScopedEnv bounce("WEFT_COPY_SKEW_SLOW", "1");
    ExpectAllOk(RunRanks(2, SkewedReads));
  }
  ExpectAllOk(RunRanks(2, SkewedReads));
}

std::string SkewedReads(Rank& r) {
  {
    const weft_backend_plugin_t& t = *r.plugin;
    const weft_bk_op_t op = r.Op();
    const std::vector<size_t> sizes = {40 << 10, 128 << 10, (128 << 10) + 1, (300 << 10) + 7,
                                       (1 << 20) + 5};
    const std::vector<size_t> skews = {1, 16, 63, 64, 4080};  // destination minus source
    std::vector<char> mem((2 << 20) + 3 * 4096);
    char* page = mem.data() + (4096 - reinterpret_cast<uintptr_t>(mem.data()) % 4096);
    auto value = [](size_t k, size_t i) { return static_cast<char>((k * 37 + i * 11) % 253); };
    weft_status_t s;
    size_t k = 0;
    for (size_t n : sizes)
      for (size_t skew : skews) {
        ++k;
        if (r.rank == 0) {
          for (size_t i = 0; i < n; ++i) page[i] = value(k, i);
          if ((s = t.send(r.comm, page, n, kU8, 1, 51, &op, nullptr))) return Err("send", s);
          continue;
        }
        char* into = page + skew;
        std::fill(mem.begin(), mem.end(), '\x5a');
        if ((s = t.recv(r.comm, into, n, kU8, 0, 51, &op, nullptr))) return Err("recv", s);
        for (size_t i = 0; i < mem.size(); ++i) {
          const char* at = mem.data() + i;
          const bool inside = at >= into && at < into + n;
          if (mem[i] != (inside ? value(k, static_cast<size_t>(at - into)) : '\x5a'))
            return "size " + std::to_string(n) + " skew " + std::to_string(skew) + ": byte " +
                   std::to_string(i) + " is wrong";
        }
      }
    return "";
  }
}

// Pushed single copy (backends/ucx/transport/grants.hpp): a receiver whose memory is in fewer
// pieces than the sender's lends its buffer and the sender writes into it. `rows` x `cols` int32
// elements every `stride` elements (stride == cols: one run).
struct Rows {
  uint64_t rows, cols, stride;
  uint64_t Count() const { return rows * cols; }
  uint64_t Index(uint64_t e) const { return e / cols * stride + e % cols; }  // of element e
  weft_bk_strided_t Layout() const { return Int32Rows(rows, cols, stride); }
};

int32_t PushValue(size_t k, uint64_t e) { return static_cast<int32_t>(k * 1000003 + e * 7 + 1); }

// Rank 0 sends every case at once on one tag (strided), rank 1 receives them in order; each
// element of a message lands where the receiver's layout puts it, and the receiver's gaps keep
// their -1. Returns the first difference.
std::string PushCases(Rank& r, bool expect_push) {
  const weft_backend_plugin_t& t = *r.plugin;
  const weft_bk_op_t op = r.Op();
  struct Case {
    Rows send, recv;
  };
  const std::vector<Case> cases = {
      {{256, 256, 512}, {1, 65536, 65536}},   // 1 KiB rows into one run: pushed
      {{64, 1000, 1500}, {1, 64000, 64000}},  // 4000-byte rows: pushed
      {{128, 256, 768}, {64, 512, 600}},      // into fewer, longer strided rows: pushed
      {{512, 150, 300}, {1, 76800, 76800}},   // 600-byte rows: packed by the sender, read
      {{32, 2048, 2055}, {256, 256, 300}},    // into more, shorter rows: read
      {{3, 1000, 1001}, {1, 3000, 3000}},     // 12 KB in 3 rows: pushed, one call
  };
  std::vector<std::vector<int32_t>> mem(cases.size());
  std::vector<weft_bk_request_t*> q(cases.size());
  weft_status_t s;
  for (size_t k = 0; k < cases.size(); ++k) {
    const Rows& mine = r.rank == 0 ? cases[k].send : cases[k].recv;
    mem[k].assign(mine.rows * mine.stride, -1);
    const weft_bk_strided_t l = mine.Layout();
    if (r.rank == 0) {
      for (uint64_t e = 0; e < mine.Count(); ++e) mem[k][mine.Index(e)] = PushValue(k, e);
      s = t.send_strided(r.comm, mem[k].data(), &l, 1, 31, &op, &q[k]);
    } else {
      s = t.recv_strided(r.comm, mem[k].data(), &l, 0, 31, &op, &q[k]);
    }
    if (s) return Err("post", s);
  }
  for (size_t k = 0; k < cases.size(); ++k) {
    if ((s = t.request_wait(q[k], -1))) return Err(("message " + std::to_string(k)).c_str(), s);
    t.request_free(q[k]);
  }
  if (r.rank == 1) {
    for (size_t k = 0; k < cases.size(); ++k) {
      const Rows& mine = cases[k].recv;
      std::vector<int32_t> want(mem[k].size(), -1);
      for (uint64_t e = 0; e < mine.Count(); ++e) want[mine.Index(e)] = PushValue(k, e);
      for (size_t i = 0; i < want.size(); ++i)
        if (mem[k][i] != want[i])
          return "message " + std::to_string(k) + ": element " + std::to_string(i) + " is " +
                 std::to_string(mem[k][i]) + ", not " + std::to_string(want[i]);
    }
  }
  const bool pushed = FileStoreHost::Logged(r.rank == 0 ? "writes messages into buffers rank 1"
                                                        : "lends receive buffers to rank 0");
  if (pushed != expect_push)
    return std::string(expect_push ? "nothing was" : "a message was") + " pushed";
  return "";
}

TEST(UcxPlugin, PushedMessagesLandExactlyWhereTheReceiverWantsThem) {
  NoPipes off;
  ExpectAllOk(RunRanks(2, [](Rank& r) { return PushCases(r, true); }));
  // One loan at a time: the messages behind it are read.
  setenv("WEFT_UCX_PUSH_SLOTS", "1", 1);
  ExpectAllOk(RunRanks(2, [](Rank& r) { return PushCases(r, true); }));
  setenv("WEFT_UCX_PUSH_SLOTS", "0", 1);  // lending off: all read
  ExpectAllOk(RunRanks(2, [](Rank& r) { return PushCases(r, false); }));
  unsetenv("WEFT_UCX_PUSH_SLOTS");
}

// 256 KiB of 1 KiB rows from the sender's matrix into one contiguous receive.
const Rows kPushed{256, 256, 512};

// A receive that ends (its deadline) while its buffer is lent takes the loan back: the sender,
// which only gets to it later, must not write, and fails instead.
TEST(UcxPlugin, ALentBufferIsNeverWrittenAfterTheReceiveEnded) {
  NoPipes off;
  ExpectAllOk(RunRanks(2, [](Rank& r) -> std::string {
    const weft_backend_plugin_t& t = *r.plugin;
    const weft_bk_op_t op = r.Op();
    const weft_bk_strided_t l = kPushed.Layout();
    weft_status_t s;
    if (r.rank == 0) {
      std::vector<int32_t> a(kPushed.rows * kPushed.stride, 5);
      weft_bk_request_t* q = nullptr;
      if ((s = t.send_strided(r.comm, a.data(), &l, 1, 41, &op, &q))) return Err("send", s);
      int32_t done = 0;
      (void)t.request_test(q, &done);  // the descriptor leaves; the answer is not here yet
      std::this_thread::sleep_for(std::chrono::milliseconds(1200));  // the receive gives up
      s = t.request_wait(q, -1);
      t.request_free(q);
      // How the receive ended comes back, as through an Ack or a pipe: its deadline.
      if (s != WEFT_ERR_TIMEOUT) return Err("send after the receiver gave up", s);
      if (FileStoreHost::LastError().find("withdrew") == std::string::npos)
        return "unexpected message: " + FileStoreHost::LastError();
      int32_t token = 1;
      if ((s = t.send(r.comm, &token, 1, kI32, 1, 42, &op, nullptr))) return Err("send", s);
      return "";
    }
    std::vector<int32_t> b(kPushed.Count(), -1);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // rank 0 polled already
    const weft_bk_op_t short_op = r.Op(300);
    const auto t0 = Clock::now();
    s = t.recv(r.comm, b.data(), b.size() * 4, kU8, 0, 41, &short_op, nullptr);
    if (s != WEFT_ERR_TIMEOUT) return Err("receive with a 300 ms deadline", s);
    if (Since(t0) > 1.0) return "the deadline came after " + std::to_string(Since(t0)) + " s";
    if (!FileStoreHost::Logged("lends receive buffers to rank 0")) return "the buffer was not lent";
    int32_t token = 0;
    if ((s = t.recv(r.comm, &token, 1, kI32, 0, 42, &op, nullptr))) return Err("recv", s);
    for (size_t i = 0; i < b.size(); ++i)
      if (b[i] != -1) return "element " + std::to_string(i) + " was written after the deadline";
    return "";
  }));
}

// A writer that dies before it writes fails the lent receive with PEER_FAILURE naming it.
TEST(UcxPlugin, AWriterKilledBeforeWritingFailsTheLentReceive) {
  NoPipes off;
  const auto results = RunRanks(2, [](Rank& r) -> std::string {
    const weft_backend_plugin_t& t = *r.plugin;
    const weft_bk_op_t op = r.Op(15000);
    const weft_bk_strided_t l = kPushed.Layout();
    weft_status_t s;
    if (r.rank == 0) {
      std::vector<int32_t> a(kPushed.rows * kPushed.stride, 5);
      weft_bk_request_t* q = nullptr;
      if ((s = t.send_strided(r.comm, a.data(), &l, 1, 43, &op, &q))) return Err("send", s);
      int32_t done = 0;
      (void)t.request_test(q, &done);
      std::this_thread::sleep_for(std::chrono::milliseconds(400));  // the loan arrives unread
      raise(SIGKILL);
    }
    std::vector<int32_t> b(kPushed.Count(), -1);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const auto t0 = Clock::now();
    s = t.recv(r.comm, b.data(), b.size() * 4, kU8, 0, 43, &op, nullptr);
    if (std::string e = PeerFailureNaming(0, s, "receive from the killed writer", Since(t0), 2.5);
        !e.empty())
      return e;
    if (!FileStoreHost::Logged("lends receive buffers to rank 0")) return "the buffer was not lent";
    for (size_t i = 0; i < b.size(); ++i)
      if (b[i] != -1) return "element " + std::to_string(i) + " was written";
    return "";
  });
  EXPECT_EQ(results[0], "killed by signal 9");
  EXPECT_EQ(results[1], "");
}

// A receiver that dies after lending its buffer: the writer's send fails with PEER_FAILURE.
TEST(UcxPlugin, AReceiverKilledAfterLendingFailsTheWriter) {
  NoPipes off;
  const auto results = RunRanks(2, [](Rank& r) -> std::string {
    const weft_backend_plugin_t& t = *r.plugin;
    const weft_bk_op_t op = r.Op(15000);
    const weft_bk_strided_t l = kPushed.Layout();
    weft_status_t s;
    if (r.rank == 1) {
      std::vector<int32_t> b(kPushed.Count(), -1);
      weft_bk_request_t* q = nullptr;
      if ((s = t.recv(r.comm, b.data(), b.size() * 4, kU8, 0, 44, &op, &q))) return Err("recv", s);
      const auto t0 = Clock::now();
      int32_t done = 0;
      while (Since(t0) < 0.3) (void)t.request_test(q, &done);  // the descriptor comes: lend
      if (done) return "the receive completed although rank 0 never progressed";
      raise(SIGKILL);
    }
    std::vector<int32_t> a(kPushed.rows * kPushed.stride, 5);
    weft_bk_request_t* q = nullptr;
    if ((s = t.send_strided(r.comm, a.data(), &l, 1, 44, &op, &q))) return Err("send", s);
    return SendFailsWhenRankOneDies(t, q, 600);  // rank 1 lends, then dies
  });
  ExpectRankOneKilled(results);
}

}  // namespace
}  // namespace weft::test::ucx
