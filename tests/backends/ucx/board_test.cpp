// Small all-reduces and barriers on shared-memory boards (backends/ucx/transport/board.hpp): exact
// values against formulas, the same bits on every member, blocking and request members mixed,
// the agreement when one member has no board, deadlines, abort, a member that arrives late,
// and the wake-up of members sleeping on the board.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "file_store.hpp"
#include "forked_ranks.hpp"

namespace weft::test::ucx {
namespace {

using Clock = std::chrono::steady_clock;
const DLDataType kI32{kDLInt, 32, 1};
const DLDataType kI64{kDLInt, 64, 1};
const DLDataType kF64{kDLFloat, 64, 1};
constexpr const char* kBoardLog = "runs its small collectives on shared-memory boards";

std::string Err(const std::string& what, weft_status_t s) {
  return what + " returned " + std::to_string(s) + ": " + FileStoreHost::LastError();
}

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void ExpectAllOk(const std::vector<std::string>& results) {
  for (size_t i = 0; i < results.size(); ++i) EXPECT_EQ(results[i], "") << "rank " << i;
}

// An all-reduce, blocking or through a request.
weft_status_t Allreduce(Rank& r, const void* in, void* out, uint64_t count, DLDataType t,
                        int32_t op, bool with_request, int64_t timeout_ms = 20000) {
  const weft_bk_op_t args = r.Op(timeout_ms);
  weft_bk_request_t* q = nullptr;
  weft_status_t s =
      r.plugin->allreduce(r.comm, in, out, count, t, op, &args, with_request ? &q : nullptr);
  if (s == WEFT_OK && with_request) {
    s = r.plugin->request_wait(q, -1);
    r.plugin->request_free(q);
  }
  return s;
}

weft_status_t Barrier(Rank& r, bool with_request, int64_t timeout_ms = 20000) {
  const weft_bk_op_t args = r.Op(timeout_ms);
  weft_bk_request_t* q = nullptr;
  weft_status_t s = r.plugin->barrier(r.comm, &args, with_request ? &q : nullptr);
  if (s == WEFT_OK && with_request) {
    s = r.plugin->request_wait(q, -1);
    r.plugin->request_free(q);
  }
  return s;
}

int32_t Term(int32_t rank, uint64_t i, int round) {
  return static_cast<int32_t>((rank * 37 + i * 11 + round * 5) % 101) - 50;
}

// Every size up to the board's largest (64 int32 = 256 bytes) and one past it, with sum, max,
// min and prod, in place and not, blocking and request members mixed; barriers in between.
// Then float64 sums whose result depends on the order of the additions: every member must
// hold the same bits (checked by a max and a min all-reduce of the bits).
std::string ExactOnEveryMember(Rank& r, bool expect_board) {
  for (int round = 0; round < 3; ++round) {
    for (uint64_t count : {1, 2, 7, 63, 64, 65}) {
      for (int32_t op : {WEFT_REDUCE_SUM, WEFT_REDUCE_MAX, WEFT_REDUCE_MIN, WEFT_REDUCE_PROD}) {
        const bool with_request = (r.rank + round + static_cast<int>(count)) % 2 == 1;
        const bool in_place = (round + op) % 2 == 0;
        std::vector<int32_t> in(count), out(count, 12345);
        for (uint64_t i = 0; i < count; ++i)
          in[i] =
              op == WEFT_REDUCE_PROD ? 1 + (Term(r.rank, i, round) & 1) : Term(r.rank, i, round);
        if (in_place) out = in;
        const weft_status_t s = Allreduce(r, in_place ? out.data() : in.data(), out.data(), count,
                                          kI32, op, with_request);
        if (s) return Err("allreduce of " + std::to_string(count), s);
        for (uint64_t i = 0; i < count; ++i) {
          int32_t want = op == WEFT_REDUCE_SUM ? 0 : op == WEFT_REDUCE_PROD ? 1 : 0;
          for (int32_t k = 0; k < r.size; ++k) {
            const int32_t v =
                op == WEFT_REDUCE_PROD ? 1 + (Term(k, i, round) & 1) : Term(k, i, round);
            want = op == WEFT_REDUCE_SUM    ? want + v
                   : op == WEFT_REDUCE_PROD ? want * v
                   : k == 0                 ? v
                   : op == WEFT_REDUCE_MAX  ? std::max(want, v)
                                            : std::min(want, v);
          }
          if (out[i] != want)
            return "round " + std::to_string(round) + " count " + std::to_string(count) + " op " +
                   std::to_string(op) + " element " + std::to_string(i) + ": " +
                   std::to_string(out[i]) + " != " + std::to_string(want);
        }
      }
      if (weft_status_t s = Barrier(r, (r.rank + round) % 2 == 0)) return Err("barrier", s);
    }
  }
  // Rounding: 1 + 2^-53 * k summed in different orders gives different doubles.
  std::vector<double> in(32), out(32);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = (r.rank % 2 ? 1.0 : std::ldexp(1.0, -53)) * (1.0 + static_cast<double>(i) / 7);
  if (weft_status_t s = Allreduce(r, in.data(), out.data(), 32, kF64, WEFT_REDUCE_SUM, r.rank == 0))
    return Err("float64 allreduce", s);
  std::vector<int64_t> bits(32), hi(32), lo(32);
  std::memcpy(bits.data(), out.data(), sizeof(double) * 32);
  if (weft_status_t s = Allreduce(r, bits.data(), hi.data(), 32, kI64, WEFT_REDUCE_MAX, false))
    return Err("max of the bits", s);
  if (weft_status_t s = Allreduce(r, bits.data(), lo.data(), 32, kI64, WEFT_REDUCE_MIN, true))
    return Err("min of the bits", s);
  if (hi != lo) return "members hold different bits for one float64 sum";
  if (FileStoreHost::Logged(kBoardLog) != expect_board)
    return expect_board ? "the board was not used" : "the board was used";
  return "";
}

TEST(UcxBoard, SmallCollectivesAreExactAndAlikeOnEveryMember) {
  for (int n : {2, 3, 4, 8})
    ExpectAllOk(RunRanks(
        n, [](Rank& r) { return ExactOnEveryMember(r, true); }, 60));
}

// One member without a board (WEFT_UCX_BOARD=0 there): the others must not use theirs either,
// and the collectives go over UCX with the same results.
TEST(UcxBoard, AMemberWithoutABoardTurnsItOffForAll) {
  ExpectAllOk(RunRanks(
      3, [](Rank& r) { return ExactOnEveryMember(r, false); }, 60,
      [](int32_t rank) {
        if (rank == 1) setenv("WEFT_UCX_BOARD", "0", 1);
      }));
}

// A member whose deadline passes while another is late gets TIMEOUT; having published, it
// does not hold the late one up, which then completes with every member's values, and the
// next collectives run as usual.
TEST(UcxBoard, DeadlinesAndALateMember) {
  ExpectAllOk(RunRanks(2, [](Rank& r) -> std::string {
    int32_t in = r.rank + 5, out = 0;
    weft_status_t s;
    if ((s = Barrier(r, false))) return Err("barrier", s);
    if (r.rank == 1) std::this_thread::sleep_for(std::chrono::milliseconds(600));
    const auto t0 = Clock::now();
    s = Allreduce(r, &in, &out, 1, kI32, WEFT_REDUCE_SUM, false, r.rank == 0 ? 200 : 20000);
    const double took = Since(t0);
    if (r.rank == 0) {
      if (s != WEFT_ERR_TIMEOUT) return Err("allreduce with rank 1 late", s);
      if (took < 0.19 || took > 1.0) return "timed out after " + std::to_string(took) + " s";
    } else {
      if (s) return Err("late allreduce", s);
      if (out != 11) return "late allreduce gave " + std::to_string(out);
    }
    for (int i = 0; i < 3; ++i) {
      in = r.rank * 10 + i;
      if ((s = Allreduce(r, &in, &out, 1, kI32, WEFT_REDUCE_MAX, i == r.rank)))
        return Err("allreduce after the timeout", s);
      if (out != 10 + i) return "allreduce after the timeout gave " + std::to_string(out);
    }
    if (!FileStoreHost::Logged(kBoardLog)) return "the board was not used";
    return "";
  }));
}

// Calls that time out keep their place in the member's queue and their data: a late member
// still gets them in order, and the calls behind them run as usual once it came.
TEST(UcxBoard, TimedOutCallsKeepTheirPlaceAndData) {
  ExpectAllOk(RunRanks(2, [](Rank& r) -> std::string {
    weft_status_t s;
    if ((s = Barrier(r, false))) return Err("barrier", s);
    if (r.rank == 1) std::this_thread::sleep_for(std::chrono::milliseconds(700));
    for (int i = 0; i < 4; ++i) {
      int32_t in = (r.rank + 1) * 100 + i, out = 0;
      const bool late = r.rank == 0 && i < 3;  // rank 0 gives up on its first three calls
      s = Allreduce(r, &in, &out, 1, kI32, WEFT_REDUCE_SUM, i == 1, late ? 100 : 20000);
      if (late) {
        if (s != WEFT_ERR_TIMEOUT) return Err("allreduce " + std::to_string(i), s);
        continue;
      }
      if (s) return Err("allreduce " + std::to_string(i), s);
      if (out != 300 + 2 * i)
        return "allreduce " + std::to_string(i) + " gave " + std::to_string(out);
    }
    if ((s = Barrier(r, true))) return Err("last barrier", s);
    return "";
  }));
}

// Several requests in flight on one member while the other is late and blocks: every call
// gets its own parts, whatever order the requests are waited in.
TEST(UcxBoard, RequestsInFlightMeetBlockingCallsInOrder) {
  ExpectAllOk(RunRanks(3, [](Rank& r) -> std::string {
    const weft_backend_plugin_t& t = *r.plugin;
    const weft_bk_op_t op = r.Op();
    constexpr int kCalls = 6;
    int32_t in[kCalls], out[kCalls];
    weft_status_t s;
    for (int i = 0; i < kCalls; ++i) {
      in[i] = (r.rank + 1) * 1000 + i;
      out[i] = -1;
    }
    if (r.rank == 0) {
      weft_bk_request_t* q[kCalls + 1] = {};
      for (int i = 0; i < kCalls; ++i) {
        if ((s = t.allreduce(r.comm, &in[i], &out[i], 1, kI32, WEFT_REDUCE_SUM, &op, &q[i])))
          return Err("post allreduce", s);
        if (i == 2 && (s = t.barrier(r.comm, &op, &q[kCalls]))) return Err("post barrier", s);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      for (int i = kCalls; i >= 0; --i) {
        if ((s = t.request_wait(q[i], -1))) return Err("wait " + std::to_string(i), s);
        t.request_free(q[i]);
      }
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(r.rank == 1 ? 100 : 0));
      for (int i = 0; i < kCalls; ++i) {
        if ((s = Allreduce(r, &in[i], &out[i], 1, kI32, WEFT_REDUCE_SUM, false)))
          return Err("allreduce " + std::to_string(i), s);
        if (i == 2 && (s = Barrier(r, false))) return Err("barrier", s);
      }
    }
    for (int i = 0; i < kCalls; ++i)
      if (out[i] != 6000 + 3 * i)
        return "call " + std::to_string(i) + " gave " + std::to_string(out[i]);
    return "";
  }));
}

// A call repeated after a timeout is the next call: where the others call something else
// there (here a barrier), both sides get INVALID_USAGE naming each other, never a result mixed
// from two different collectives.
TEST(UcxBoard, DifferentCollectivesAtOnePlaceAreAnError) {
  ExpectAllOk(RunRanks(2, [](Rank& r) -> std::string {
    weft_status_t s;
    if ((s = Barrier(r, false))) return Err("barrier", s);
    int32_t in = r.rank + 7, out = 0;
    if (r.rank == 0) {
      if ((s = Allreduce(r, &in, &out, 1, kI32, WEFT_REDUCE_SUM, false, 100)) != WEFT_ERR_TIMEOUT)
        return Err("allreduce with rank 1 late", s);
      s = Allreduce(r, &in, &out, 1, kI32, WEFT_REDUCE_SUM, false);  // the "retry"
      if (s != WEFT_ERR_INVALID_USAGE) return Err("repeated allreduce", s);
      if (FileStoreHost::LastError().find("rank 1 called a barrier") == std::string::npos)
        return "does not name rank 1's barrier: " + FileStoreHost::LastError();
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(400));
      if ((s = Allreduce(r, &in, &out, 1, kI32, WEFT_REDUCE_SUM, false)))
        return Err("late allreduce", s);
      if (out != 15) return "late allreduce gave " + std::to_string(out);
      if ((s = Barrier(r, true)) != WEFT_ERR_INVALID_USAGE) return Err("barrier", s);
      if (FileStoreHost::LastError().find("rank 0 called an all-reduce of 4 bytes") ==
          std::string::npos)
        return "does not name rank 0's all-reduce: " + FileStoreHost::LastError();
    }
    // The board goes on: both consumed that place.
    in = r.rank;
    if ((s = Allreduce(r, &in, &out, 1, kI32, WEFT_REDUCE_MAX, false))) return Err("after", s);
    return out == 1 ? "" : "allreduce after the mismatch gave " + std::to_string(out);
  }));
}

// A communicator destroyed while calls that timed out are still queued: those calls still
// reach the late member, in order and with their data (the context keeps moving them on).
TEST(UcxBoard, QueuedCallsOutliveTheirCommunicator) {
  ExpectAllOk(RunRanks(2, [](Rank& r) -> std::string {
    const weft_backend_plugin_t& t = *r.plugin;
    const int32_t world[2] = {0, 1};
    weft_bk_comm_t* g = nullptr;
    weft_status_t s;
    if ((s = t.comm_create(r.state, world, 2, r.rank, "g/", 20000, &g))) return Err("comm", s);
    Rank sub = r;
    sub.comm = g;
    for (int i = 0; i < 2; ++i) {
      int32_t in = (r.rank + 1) * 10 + i, out = 0;
      if (r.rank == 0) {
        if ((s = Allreduce(sub, &in, &out, 1, kI32, WEFT_REDUCE_SUM, i == 1, 100)) !=
            WEFT_ERR_TIMEOUT)
          return Err("allreduce with rank 1 late", s);
        continue;
      }
      if (i == 0) std::this_thread::sleep_for(std::chrono::milliseconds(400));
      if ((s = Allreduce(sub, &in, &out, 1, kI32, WEFT_REDUCE_SUM, false)))
        return Err("late allreduce " + std::to_string(i), s);
      if (out != 30 + 2 * i) return "late allreduce gave " + std::to_string(out);
    }
    t.comm_destroy(g);
    // Rank 0 progresses here while rank 1 catches up.
    if ((s = Barrier(r, false))) return Err("barrier on the world", s);
    return "";
  }));
}

// One request always in flight for a long run (the queue never empties).
TEST(UcxBoard, PipelinedRequestsRunLong) {
  ExpectAllOk(RunRanks(2, [](Rank& r) -> std::string {
    const weft_backend_plugin_t& t = *r.plugin;
    const weft_bk_op_t op = r.Op();
    constexpr int kCalls = 300;
    std::vector<int32_t> in(kCalls), out(kCalls, -1);
    std::vector<weft_bk_request_t*> q(kCalls, nullptr);
    weft_status_t s;
    for (int i = 0; i < kCalls; ++i) {
      in[i] = r.rank * 100000 + i;
      if ((s = t.allreduce(r.comm, &in[i], &out[i], 1, kI32, WEFT_REDUCE_SUM, &op, &q[i])))
        return Err("post", s);
      if (i == 0) continue;
      if ((s = t.request_wait(q[i - 1], -1))) return Err("wait", s);
      t.request_free(q[i - 1]);
    }
    if ((s = t.request_wait(q[kCalls - 1], -1))) return Err("wait", s);
    t.request_free(q[kCalls - 1]);
    for (int i = 0; i < kCalls; ++i)
      if (out[i] != 100000 + 2 * i)
        return "call " + std::to_string(i) + " gave " + std::to_string(out[i]);
    return "";
  }));
}

// abort() wakes a member sleeping on the board, blocking or waiting on a request.
TEST(UcxBoard, AbortWakesAMemberWaitingOnTheBoard) {
  for (bool with_request : {false, true}) {
    ExpectAllOk(RunRanks(2, [with_request](Rank& r) -> std::string {
      weft_status_t s;
      if ((s = Barrier(r, false))) return Err("barrier", s);
      if (r.rank == 1) {  // never comes to the second barrier, but stays alive meanwhile
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        return "";
      }
      std::thread aborter([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        r.plugin->abort(r.state, WEFT_ERR_ABORTED, -1, "test abort");
      });
      const auto t0 = Clock::now();
      s = Barrier(r, with_request, -1);
      const double took = Since(t0);
      aborter.join();
      if (s != WEFT_ERR_ABORTED) return Err("barrier", s);
      if (took > 1.5) return "abort woke the waiter after " + std::to_string(took) + " s";
      if (FileStoreHost::LastError().find("test abort") == std::string::npos)
        return "no reason: " + FileStoreHost::LastError();
      return "";
    }));
  }
}

// Members that went to sleep on the board are woken by the last one's publication, not by the
// end of their longest sleep (100 ms): the best of three rounds with one member 150 ms late
// must take well under 200 ms.
TEST(UcxBoard, ASleepingMemberIsWokenByThePublisher) {
  ExpectAllOk(RunRanks(3, [](Rank& r) -> std::string {
    double best = 1e9;
    for (int round = 0; round < 3; ++round) {
      weft_status_t s;
      if ((s = Barrier(r, false))) return Err("barrier", s);
      if (r.rank == 2) std::this_thread::sleep_for(std::chrono::milliseconds(150));
      int32_t in = 1, out = 0;
      const auto t0 = Clock::now();
      if ((s = Allreduce(r, &in, &out, 1, kI32, WEFT_REDUCE_SUM, r.rank == 1)))
        return Err("allreduce", s);
      best = std::min(best, Since(t0));
      if (out != 3) return "allreduce gave " + std::to_string(out);
    }
    if (r.rank != 2 && best > 0.185)
      return "the sleeping member returned " + std::to_string(best) + " s after it called";
    return "";
  }));
}

}  // namespace
}  // namespace weft::test::ucx
