// Failures of real processes and of the plugin's own deadlines: a rank killed in the middle
// of an allreduce, abort() from another thread, a receive that times out, a cancelled
// receive. Every blocked call must come back promptly with the documented status.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/backends/gloo/rank_runner.hpp"

namespace weft::test {
namespace {

using Clock = std::chrono::steady_clock;
constexpr DLDataType kF32{kDLFloat, 32, 1};
constexpr DLDataType kI32{kDLInt, 32, 1};

int64_t MsSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

// Plays the host's liveness channel (SPEC §10): once `pid` is gone (the test parent reaps
// its children within milliseconds), aborts with PEER_FAILURE naming `rank`.
class LivenessWatcher {
 public:
  LivenessWatcher(Rank& r, pid_t pid, int32_t rank)
      : thread_([this, &r, pid, rank] {
          while (!stop_ && kill(pid, 0) == 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
          }
          if (!stop_) r.plugin->abort(r.state, WEFT_ERR_PEER_FAILURE, rank, "process gone");
        }) {}
  ~LivenessWatcher() {
    stop_ = true;
    Join();
  }
  // Returns once the watcher saw the process go and aborted.
  void Join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// The last rank SIGKILLs itself from inside its first reduction, i.e. in the middle of the
// ring (of two members: on entering the call). With `watch`, the others learn it as the host would
// and must fail with PEER_FAILURE naming it within moments; without, Gloo's connections alone must
// end their ops with PEER_FAILURE or TIMEOUT by the 3 s deadline (a wait on bytes in flight from
// the dead rank is not woken by Gloo).
void KilledMidAllreduce(Rank& r, bool watch) {
  const int32_t victim = r.size - 1;
  if (r.rank == victim) {
    const std::string pid = std::to_string(getpid());
    RCHECK_OK(r.store->Set("victim/pid", pid.data(), pid.size()));
  }
  std::string pid_text;
  RCHECK_OK(r.store->Get("victim/pid", &pid_text, kOpTimeoutMs));
  std::unique_ptr<LivenessWatcher> watcher;
  if (watch && r.rank != victim) {
    watcher = std::make_unique<LivenessWatcher>(r, pid_t(std::stol(pid_text)), victim);
  }
  std::vector<float> buf(1 << 18, 1.0f);
  // Two members exchange their whole vectors before either reduces (gloo_allreduce.cpp), so a
  // death in the reduction comes after the peer has all it needs: there the victim dies as it
  // enters the call instead.
  if (r.rank == victim && r.size == 2) raise(SIGKILL);
  if (r.rank == victim) SetDieInReduce(true);
  const auto start = Clock::now();
  const auto op = r.Op(r.world, 3000);
  const weft_status_t s = r.plugin->allreduce(r.world, buf.data(), buf.data(), buf.size(), kF32,
                                              WEFT_REDUCE_SUM, &op, nullptr);
  RCHECK(r.rank != victim);
  const std::string message = TestHost::LastError();
  RCHECK(message.find("allreduce") != std::string::npos);
  if (watch) {
    RCHECK_STATUS(s, WEFT_ERR_PEER_FAILURE);
    RCHECK(MsSince(start) < 2000);
  } else {
    RCHECK(s == WEFT_ERR_PEER_FAILURE || s == WEFT_ERR_TIMEOUT);
    RCHECK(MsSince(start) < 5000);
  }
  int32_t failed_rank = -2;
  if (watcher) watcher->Join();  // the op may have failed through Gloo before the abort came
  RCHECK(r.plugin->async_error(r.state, &failed_rank) != WEFT_OK);
  if (watch) RCHECK(failed_rank == victim);
  // The communicator stays failed: the next op returns at once.
  const auto op2 = r.Op(r.world);
  const auto again = Clock::now();
  RCHECK(r.plugin->barrier(r.world, &op2, nullptr) != WEFT_OK);
  RCHECK(MsSince(again) < 500);
}

// Rank 0 blocks in a receive nobody sends; another thread aborts. Rank 1 stays alive (and
// idle) until rank 0 is done, so that only the abort can end the receive.
void AbortUnblocksRecv(Rank& r) {
  if (r.rank != 0) return r.AwaitSignal("abort/done");
  std::thread aborter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    r.plugin->abort(r.state, WEFT_ERR_ABORTED, -1, "test abort");
  });
  int32_t v = 0;
  const auto start = Clock::now();
  const auto op = r.Op(r.world, 30000);
  const weft_status_t s = r.plugin->recv(r.world, &v, 1, kI32, 1, 99, &op, nullptr);
  aborter.join();
  RCHECK_STATUS(s, WEFT_ERR_ABORTED);
  RCHECK(MsSince(start) < 2000);
  RCHECK(TestHost::LastError().find("test abort") != std::string::npos);
  const auto op2 = r.Op(r.world);
  RCHECK_STATUS(r.plugin->allreduce(r.world, &v, &v, 1, kI32, WEFT_REDUCE_SUM, &op2, nullptr),
                WEFT_ERR_ABORTED);
  int32_t failed_rank = 7;
  RCHECK_STATUS(r.plugin->async_error(r.state, &failed_rank), WEFT_ERR_ABORTED);
  r.Signal("abort/done");
}

// Ranks 0 and 1 block in an allreduce that rank 2 never joins. Like the host when the store
// reports rank 2 dead, both abort with PEER_FAILURE naming it. Whichever aborts second may
// first see the other close its connections; async_error still reports the abort.
void AbortWithPeerFailureUnblocksCollective(Rank& r) {
  if (r.rank == 2) {
    r.AwaitSignal("peer/done/0");
    return r.AwaitSignal("peer/done/1");
  }
  std::thread aborter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    r.plugin->abort(r.state, WEFT_ERR_PEER_FAILURE, 2, "store lost rank 2");
  });
  std::vector<float> buf(1000, 1.0f);
  const auto start = Clock::now();
  const auto op = r.Op(r.world, 30000);
  const weft_status_t s = r.plugin->allreduce(r.world, buf.data(), buf.data(), buf.size(), kF32,
                                              WEFT_REDUCE_SUM, &op, nullptr);
  aborter.join();
  RCHECK_STATUS(s, WEFT_ERR_PEER_FAILURE);
  RCHECK(MsSince(start) < 2000);
  // Either its own abort ("rank 2 failed"), or the other rank's closing its connections
  // (which names that rank when it can).
  RCHECK(TestHost::LastError().find("allreduce") != std::string::npos);
  int32_t failed_rank = -1;
  RCHECK_STATUS(r.plugin->async_error(r.state, &failed_rank), WEFT_ERR_PEER_FAILURE);
  RCHECK(failed_rank == 2);
  r.Signal("peer/done/" + std::to_string(r.rank));
}

// A receive whose deadline passes returns TIMEOUT near the deadline; a collective too.
void DeadlinesGiveTimeout(Rank& r) {
  if (r.rank != 0) return r.AwaitSignal("timeout/done");
  int32_t v = 0;
  auto start = Clock::now();
  auto op = r.Op(r.world, 300);
  RCHECK_STATUS(r.plugin->recv(r.world, &v, 1, kI32, 1, 1, &op, nullptr), WEFT_ERR_TIMEOUT);
  RCHECK(MsSince(start) >= 250 && MsSince(start) < 2000);
  // Like Gloo's own timeouts, a passed deadline closes the communicator.
  op = r.Op(r.world);
  RCHECK_STATUS(r.plugin->barrier(r.world, &op, nullptr), WEFT_ERR_TIMEOUT);
  r.Signal("timeout/done");
}

void CollectiveDeadline(Rank& r) {
  if (r.rank != 0) return r.AwaitSignal("ctimeout/done");
  const auto start = Clock::now();
  const auto op = r.Op(r.world, 300);
  RCHECK_STATUS(r.plugin->barrier(r.world, &op, nullptr), WEFT_ERR_TIMEOUT);
  RCHECK(MsSince(start) >= 250 && MsSince(start) < 2000);
  r.Signal("ctimeout/done");
}

// Cancelling a pending receive finishes it with ABORTED (and closes the communicator).
void CancelPendingRecv(Rank& r) {
  if (r.rank != 0) return r.AwaitSignal("cancel/done");
  int32_t v = 0;
  weft_bk_request_t* req = nullptr;
  const auto op = r.Op(r.world);
  RCHECK_OK(r.plugin->recv(r.world, &v, 1, kI32, 1, 3, &op, &req));
  RCHECK_OK(r.plugin->request_cancel(req));
  int32_t done = 0;
  RCHECK_OK(r.plugin->request_test(req, &done));
  RCHECK(done == 1);
  RCHECK_STATUS(r.plugin->request_wait(req, 0), WEFT_ERR_ABORTED);
  r.plugin->request_free(req);
  r.Signal("cancel/done");
}

class GlooFaults : public ::testing::TestWithParam<int> {};

void ExpectVictimKilled(const std::vector<ChildOutcome>& outcomes, int n) {
  ASSERT_EQ(outcomes.size(), size_t(n));
  EXPECT_FALSE(outcomes[n - 1].exited) << Describe(outcomes);
  EXPECT_EQ(outcomes[n - 1].signal, SIGKILL) << Describe(outcomes);
  for (int i = 0; i + 1 < n; ++i) {
    EXPECT_TRUE(outcomes[i].exited && outcomes[i].code == 0) << Describe(outcomes);
  }
}

TEST_P(GlooFaults, KilledRankFailsItsPeersWhenTheHostAborts) {
  const int n = GetParam();
  ExpectVictimKilled(RunRanks(n, [](Rank& r) { KilledMidAllreduce(r, true); }), n);
}

TEST_P(GlooFaults, KilledRankFailsItsPeersByTheDeadline) {
  const int n = GetParam();
  ExpectVictimKilled(RunRanks(n, [](Rank& r) { KilledMidAllreduce(r, false); }), n);
}

INSTANTIATE_TEST_SUITE_P(Ranks, GlooFaults, ::testing::Values(2, 3, 4));

TEST(GlooFault, AbortUnblocksARecvPromptly) {
  const auto outcomes = RunRanks(2, [](Rank& r) { AbortUnblocksRecv(r); });
  EXPECT_TRUE(AllSucceeded(outcomes)) << Describe(outcomes);
}

TEST(GlooFault, AbortWithPeerFailureUnblocksACollective) {
  const auto outcomes = RunRanks(3, [](Rank& r) { AbortWithPeerFailureUnblocksCollective(r); });
  EXPECT_TRUE(AllSucceeded(outcomes)) << Describe(outcomes);
}

TEST(GlooFault, DeadlinesGiveTimeout) {
  auto outcomes = RunRanks(2, [](Rank& r) { DeadlinesGiveTimeout(r); });
  EXPECT_TRUE(AllSucceeded(outcomes)) << Describe(outcomes);
  outcomes = RunRanks(2, [](Rank& r) { CollectiveDeadline(r); });
  EXPECT_TRUE(AllSucceeded(outcomes)) << Describe(outcomes);
}

TEST(GlooFault, CancelFinishesAPendingRecv) {
  const auto outcomes = RunRanks(2, [](Rank& r) { CancelPendingRecv(r); });
  EXPECT_TRUE(AllSucceeded(outcomes)) << Describe(outcomes);
}

}  // namespace
}  // namespace weft::test
