// The UCX plugin's contract (backend_plugin.h, SPEC §10) on 2 or 3 forked ranks: values are
// checked against formulas of (rank, index); faults are real (a rank kills itself).
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "file_store.hpp"
#include "forked_ranks.hpp"

namespace weft::test::ucx {
namespace {

using Clock = std::chrono::steady_clock;
const DLDataType kU8{kDLUInt, 8, 1};
const DLDataType kI32{kDLInt, 32, 1};
constexpr int64_t kInternalTag = (int64_t{1} << 40) + 7;  // as the host's composed ops use

std::string Err(const char* what, weft_status_t s) {
  return std::string(what) + " returned " + std::to_string(s) + ": " + FileStoreHost::LastError();
}

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void ExpectAllOk(const std::vector<std::string>& results) {
  for (size_t i = 0; i < results.size(); ++i) EXPECT_EQ(results[i], "") << "rank " << i;
}

// The table: only send/recv/request_*/comm_*; every collective left to the host.
TEST(UcxPlugin, TableLeavesCollectivesToTheHost) {
  ExpectAllOk(RunRanks(1, [](Rank& r) -> std::string {
    const weft_backend_plugin_t& t = *r.plugin;
    if (std::strcmp(t.name, "ucx") != 0) return "name";
    if (t.capabilities != WEFT_BK_CAP_ASYNC) return "capabilities";
    if (t.allreduce || t.allgather || t.allgatherv || t.reduce_scatter || t.reduce_scatterv ||
        t.alltoall || t.alltoallv || t.broadcast || t.barrier || t.group_start || t.group_end)
      return "a collective is not NULL";
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
TEST(UcxPlugin, SizeMismatchIsAnInvalidArgument) {
  ExpectAllOk(RunRanks(2, [](Rank& r) -> std::string {
    const weft_bk_op_t op = r.Op();
    const weft_backend_plugin_t& t = *r.plugin;
    std::vector<char> big(64 * 1024, 'x'), small(16);
    weft_status_t s;
    if (r.rank == 0) {
      for (int tag = 1; tag <= 2; ++tag)
        if ((s = t.send(r.comm, big.data(), tag == 1 ? big.size() : 8, kU8, 1, tag, &op, nullptr)))
          return Err("send", s);
    } else {
      s = t.recv(r.comm, small.data(), small.size(), kU8, 0, 1, &op, nullptr);
      if (s != WEFT_ERR_INVALID_ARGUMENT) return Err("longer message: recv", s);
      if (FileStoreHost::LastError().find("rank 0") == std::string::npos)
        return "message does not name the peer: " + FileStoreHost::LastError();
      s = t.recv(r.comm, small.data(), small.size(), kU8, 0, 2, &op, nullptr);
      if (s != WEFT_ERR_INVALID_ARGUMENT) return Err("shorter message: recv", s);
    }
    // Still usable: one more exchange.
    int32_t v = r.rank, w = -1;
    const int32_t peer = 1 - r.rank;
    weft_bk_request_t* q = nullptr;
    if ((s = t.recv(r.comm, &w, 1, kI32, peer, 3, &op, &q))) return Err("recv", s);
    if ((s = t.send(r.comm, &v, 1, kI32, peer, 3, &op, nullptr))) return Err("send", s);
    if ((s = t.request_wait(q, -1))) return Err("wait", s);
    t.request_free(q);
    return w == peer ? "" : "wrong value after the mismatch";
  }));
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
    if (s != WEFT_ERR_PEER_FAILURE) return Err("wait on the dead peer", s);
    if (FileStoreHost::LastError().find("rank 2") == std::string::npos)
      return "does not name rank 2: " + FileStoreHost::LastError();
    if (took > 2.2) return "noticed after " + std::to_string(took) + " s";
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

}  // namespace
}  // namespace weft::test::ucx
