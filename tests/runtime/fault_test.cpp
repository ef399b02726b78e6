// Fault tests of SPEC §10 and §6.4 through the public C ABI: real worker processes
// (fault_worker.cpp) on one backend (WEFT_FAULT_BACKEND, default gloo), killed, stopped or
// misconfigured on purpose. Each case is one launch of a few seconds; the WorkerGroup kills and
// reaps whatever is left.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "tests/runtime/fault_driver.hpp"
#include "tests/runtime/worker_group.hpp"
#include "weft/weft.h"

namespace weft::test {
namespace {

using namespace std::chrono_literals;

constexpr double kNs = 1e-9;
// 1 MiB of float32 per allreduce.
constexpr const char* kMiBFloats = "262144";

// Starts n ranks looping on allreduce, waits until every one loops, sends `sig` to `victim`
// and returns the monotonic time of the signal, or -1 after a failure.
int64_t StartLoopAndSignal(WorkerGroup& g, size_t victim, int sig, Clock::time_point deadline) {
  EXPECT_TRUE(g.started());
  const bool looping =
      g.ReadUntil([&] { return AnyFailed(g) || AllHave(g, All(g.size()), "ready"); }, deadline) &&
      !AnyFailed(g);
  EXPECT_TRUE(looping) << "the ranks never all ran allreduce:\n" << Dump(g);
  if (!looping) return -1;
  // Let them get well into the next operations, not between two of them.
  std::this_thread::sleep_for(100ms);
  const int64_t t = MonotonicNs();
  g.Signal(victim, sig);
  return t;
}

// SPEC §10: a dead peer gives PEER_FAILURE naming it on every rank within about a second.
void ExpectPeerFailureEverywhere(int n, size_t victim) {
  const auto deadline = Clock::now() + 25s;
  WorkerGroup g(WEFT_FAULT_WORKER, World(n, {"loop", "30000", kMiBFloats}));
  const int64_t t_kill = StartLoopAndSignal(g, victim, SIGKILL, deadline);
  ASSERT_GE(t_kill, 0);
  const std::vector<size_t> survivors = AllBut(n, victim);
  ASSERT_TRUE(g.ReadUntil([&] { return AllHave(g, survivors, "op"); }, deadline))
      << "a survivor did not notice the death of rank " << victim << ":\n"
      << Dump(g);
  const std::string name = "rank " + std::to_string(victim);
  for (size_t i : survivors) {
    const Report op = *g.Find(i, "op");
    EXPECT_EQ(StatusName(op.status), StatusName(WEFT_ERR_PEER_FAILURE)) << "rank " << i;
    EXPECT_EQ(StatusName(op.ctx_status), StatusName(WEFT_ERR_PEER_FAILURE)) << "rank " << i;
    EXPECT_EQ(op.failed_rank, static_cast<int32_t>(victim)) << "rank " << i << ": " << op.message;
    EXPECT_NE(op.message.find(name), std::string::npos) << "rank " << i << ": " << op.message;
    const double after = (op.t1_ns - t_kill) * kNs;
    EXPECT_LT(after, 2.0) << "rank " << i << " saw the failure " << after << " s after the kill";
    std::printf("rank %zu saw rank %zu's death after %.0f ms\n", i, victim, after * 1000);
  }
  ExpectCleanTeardown(g, survivors, deadline);
  const std::optional<int> st = g.Reap(victim, deadline);
  ASSERT_TRUE(st.has_value());
  EXPECT_TRUE(WIFSIGNALED(*st) && WTERMSIG(*st) == SIGKILL);
}

TEST(FaultTest, KilledRankIsReportedToEverySurvivor) { ExpectPeerFailureEverywhere(4, 2); }

// Rank 0 hosts the store: losing it counts as rank 0's failure.
TEST(FaultTest, KilledStoreHostIsReportedAsRankZero) { ExpectPeerFailureEverywhere(4, 0); }

// SPEC §10: a silent (stopped) peer gives TIMEOUT at the call's deadline, and abort + destroy
// then return promptly although that peer still holds its connections.
TEST(FaultTest, StoppedRankGivesTimeoutThenCleanTeardown) {
  constexpr int kRanks = 3;
  constexpr size_t kVictim = 1;  // not rank 0: rank 0 must not wait for it when leaving
  const auto deadline = Clock::now() + 25s;
  WorkerGroup g(WEFT_FAULT_WORKER, World(kRanks, {"loop", "1000", kMiBFloats}));
  const int64_t t_stop = StartLoopAndSignal(g, kVictim, SIGSTOP, deadline);
  ASSERT_GE(t_stop, 0);
  const std::vector<size_t> survivors = AllBut(kRanks, kVictim);
  ASSERT_TRUE(g.ReadUntil([&] { return AllHave(g, survivors, "op"); }, deadline)) << Dump(g);
  for (size_t i : survivors) {
    const Report op = *g.Find(i, "op");
    EXPECT_EQ(StatusName(op.status), StatusName(WEFT_ERR_TIMEOUT))
        << "rank " << i << ": " << op.message;
    EXPECT_GE(op.seconds(), 0.9) << "rank " << i;
    EXPECT_LT(op.seconds(), 3.0) << "rank " << i;
    EXPECT_LT((op.t1_ns - t_stop) * kNs, 3.0) << "rank " << i;
  }
  ExpectCleanTeardown(g, survivors, deadline);
  // Resumed, the stopped rank finds its peers gone: it fails too, and exits cleanly.
  g.Signal(kVictim, SIGCONT);
  ASSERT_TRUE(g.ReadUntil([&] { return g.Has(kVictim, "op"); }, deadline)) << Dump(g);
  EXPECT_NE(g.Find(kVictim, "op")->status, WEFT_OK);
  ExpectCleanTeardown(g, {kVictim}, deadline);
}

// SPEC §10: a timeout poisons the context. A rank whose all-reduce passed its deadline (its
// peer never joined) holds TIMEOUT as its sticky error, fails a later call with it at once, and
// destroys its context without an abort quickly, although the silent peer never comes to the
// destroy either (before, destroy waited for it a second, full context deadline). The silent
// rank, rank 0 (the store's host), then leaves quickly too: the timed-out rank left the store
// without the meeting, which the store reports as its failure.
TEST(FaultTest, TimeoutPoisonsTheContextAndDestroyIsQuick) {
  constexpr int kRanks = 2;
  constexpr size_t kSilent = 0, kCaller = 1;
  const auto deadline = Clock::now() + 30s;
  std::vector<WorkerSpec> specs = World(kRanks, {"silent", "500", std::to_string(kSilent)});
  for (WorkerSpec& w : specs) w.env.push_back("WEFT_TIMEOUT_MS=5000");  // destroy's deadline
  WorkerGroup g(WEFT_FAULT_WORKER, specs);
  ASSERT_TRUE(g.started());
  ASSERT_TRUE(
      g.ReadUntil([&] { return g.Has(kCaller, "after") && g.Has(kSilent, "ready"); }, deadline))
      << Dump(g);
  const Report op = *g.Find(kCaller, "op");
  EXPECT_EQ(StatusName(op.status), StatusName(WEFT_ERR_TIMEOUT)) << op.message;
  EXPECT_GE(op.seconds(), 0.45) << op.message;
  EXPECT_LT(op.seconds(), 1.5) << op.message;
  EXPECT_EQ(StatusName(op.ctx_status), StatusName(WEFT_ERR_TIMEOUT))
      << "the timeout is the context's sticky error: " << op.message;
  const Report after = *g.Find(kCaller, "after");
  EXPECT_EQ(StatusName(after.status), StatusName(WEFT_ERR_TIMEOUT)) << after.message;
  EXPECT_LT(after.seconds(), 0.2) << "a later call fails at once: " << after.message;
  // The timed-out rank leaves first, while its peer still holds.
  ExpectCleanTeardown(g, {kCaller}, deadline, 1.0);
  g.Release(kSilent);
  ASSERT_TRUE(g.ReadUntil([&] { return g.Has(kSilent, "destroy"); }, deadline)) << Dump(g);
  const Report d = *g.Find(kSilent, "destroy");
  EXPECT_LT(d.seconds(), 2.0) << "the silent rank's destroy: " << d.message;
  ASSERT_TRUE(g.ReadUntil([&] { return g.Has(kCaller, "buffers"); }, deadline)) << Dump(g);
  EXPECT_EQ(StatusName(g.Find(kCaller, "buffers")->status), StatusName(WEFT_OK))
      << "the timed-out all-reduce wrote into the caller's buffer after it had returned";
  const std::optional<int> st = g.Reap(kSilent, deadline);
  ASSERT_TRUE(st.has_value());
  EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0) << "wait status " << *st;
}

// SPEC §6.4: a rank rejecting its own buffer fails at once; its peers' matching call fails
// with ABORTED naming it within about a second.
TEST(FaultTest, InvalidBufferOnOneRankAbortsThePeers) {
  constexpr int kRanks = 3;
  constexpr size_t kBad = 1;
  const auto deadline = Clock::now() + 20s;
  WorkerGroup g(WEFT_FAULT_WORKER, World(kRanks, {"badarg", std::to_string(kBad)}));
  ASSERT_TRUE(g.started());
  ASSERT_TRUE(g.ReadUntil([&] { return AllHave(g, All(kRanks), "op"); }, deadline)) << Dump(g);
  for (size_t i = 0; i < kRanks; ++i)
    ASSERT_EQ(g.Find(i, "ready")->status, WEFT_OK) << "the first, valid allreduce failed\n"
                                                   << Dump(g);
  const Report bad = *g.Find(kBad, "op");
  EXPECT_EQ(StatusName(bad.status), StatusName(WEFT_ERR_INVALID_ARGUMENT)) << bad.message;
  EXPECT_LT(bad.seconds(), 0.5) << "the invalid call itself must fail at once";
  for (size_t i : AllBut(kRanks, kBad)) {
    const Report op = *g.Find(i, "op");
    EXPECT_EQ(StatusName(op.status), StatusName(WEFT_ERR_ABORTED)) << "rank " << i;
    EXPECT_EQ(op.failed_rank, static_cast<int32_t>(kBad)) << "rank " << i << ": " << op.message;
    EXPECT_NE(op.message.find("rank 1"), std::string::npos) << "rank " << i << ": " << op.message;
    EXPECT_LT((op.t1_ns - bad.t0_ns) * kNs, 2.0) << "rank " << i;
  }
  ExpectCleanTeardown(g, All(kRanks), deadline);
}

// SPEC §5: weft_rules_attach agrees on the rule registry through the store; a registry that
// differs on one rank is the same clear error on every rank, and an attached registry takes no
// more registrations.
void ExpectRulesAttach(int32_t odd_rank) {
  constexpr size_t kRanks = 3;
  const auto deadline = Clock::now() + 30s;
  WorkerGroup g(WEFT_FAULT_WORKER, World(kRanks, {"rules", std::to_string(odd_rank)}));
  ASSERT_TRUE(g.started());
  ASSERT_TRUE(g.ReadUntil([&] { return AllHave(g, All(kRanks), "late"); }, deadline)) << Dump(g);
  const std::string first = g.Find(0, "attach")->message;
  for (size_t i = 0; i < kRanks; ++i) {
    for (const char* kind : {"attach", "again"}) {
      const Report r = *g.Find(i, kind);
      if (odd_rank < 0) {
        EXPECT_EQ(StatusName(r.status), StatusName(WEFT_OK)) << "rank " << i << ": " << r.message;
        continue;
      }
      EXPECT_EQ(StatusName(r.status), StatusName(WEFT_ERR_INVALID_USAGE)) << "rank " << i;
      EXPECT_NE(r.message.find("rank " + std::to_string(odd_rank) + " has 'op extra"),
                std::string::npos)
          << "rank " << i << ": " << r.message;
      if (std::string(kind) == "attach") {
        EXPECT_EQ(r.message, first) << "rank " << i;
      }
    }
    const Report late = *g.Find(i, "late");
    EXPECT_EQ(StatusName(late.status), StatusName(odd_rank < 0 ? WEFT_ERR_INVALID_USAGE : WEFT_OK))
        << "rank " << i << ": " << late.message;
  }
  ExpectCleanTeardown(g, All(kRanks), deadline);
}

TEST(FaultTest, RulesAttachAgrees) { ExpectRulesAttach(-1); }
TEST(FaultTest, RulesAttachMismatchIsTheSameErrorEverywhere) { ExpectRulesAttach(2); }

// SPEC §8: a broken launch fails fast on every process, naming what is wrong, long before
// the 20 s connect timeout.
void ExpectInconsistentLaunch(const std::vector<WorkerSpec>& specs, const std::string& named) {
  const auto deadline = Clock::now() + 15s;
  WorkerGroup g(WEFT_FAULT_WORKER, specs);
  ASSERT_TRUE(g.started());
  ASSERT_TRUE(g.ReadUntil([&] { return AllHave(g, All(specs.size()), "create"); }, deadline))
      << Dump(g);
  for (size_t i = 0; i < specs.size(); ++i) {
    const Report c = *g.Find(i, "create");
    EXPECT_EQ(StatusName(c.status), StatusName(WEFT_ERR_INVALID_USAGE))
        << "process " << i << ": " << c.message;
    EXPECT_LT(c.seconds(), 5.0) << "process " << i;
    EXPECT_NE(c.message.find(named), std::string::npos) << "process " << i << ": " << c.message;
    const std::optional<int> st = g.Reap(i, deadline);
    ASSERT_TRUE(st.has_value());
    EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0) << "process " << i;
  }
}

void ExpectInconsistentWorld(const std::vector<int>& ranks, const std::vector<int>& sizes,
                             const std::string& named) {
  ExpectInconsistentLaunch(Launch(ranks, sizes, {"create"}), named);
}

// A must-match variable (docs/parameters.md) set differently on one rank: every rank fails
// creation, naming the variable and both values, instead of deadlocking later on messages
// the ranks count differently.
void ExpectSettingDisagreement(int n, size_t odd, const std::string& assignment,
                               const std::string& named) {
  std::vector<WorkerSpec> specs = World(n, {"create"});
  specs[odd].env.push_back(assignment);
  ExpectInconsistentLaunch(specs, named);
}

TEST(FaultTest, ChunkSizeDisagreementFailsFastEverywhere) {
  ExpectSettingDisagreement(3, 1, "WEFT_ALLTOALL_CHUNK_BYTES=4K",
                            "WEFT_ALLTOALL_CHUNK_BYTES is 4096 on rank 1 but 8388608 on rank 0");
}

// The backend's own must-match variable (UCX: an algorithm switch of the plugin's table), or
// for Gloo, which declares none, the host's op mask.
TEST(FaultTest, BackendSettingDisagreementFailsFastEverywhere) {
  if (Backend() == "ucx") {
    ExpectSettingDisagreement(3, 2, "WEFT_UCX_ALLGATHER_DIRECT=no",
                              "WEFT_UCX_ALLGATHER_DIRECT is 0 on rank 2 but 1 on rank 0");
  } else {
    ExpectSettingDisagreement(
        3, 2, "WEFT_BACKEND_DISABLE_OPS=barrier",
        "WEFT_BACKEND_DISABLE_OPS is barrier on rank 2 but (unset) on rank 0");
  }
}

TEST(FaultTest, DuplicateRankFailsFastEverywhere) {
  ExpectInconsistentWorld({0, 1, 1}, {3, 3, 3}, "rank 1");
}

TEST(FaultTest, WorldSizeDisagreementFailsFastEverywhere) {
  ExpectInconsistentWorld({0, 1}, {2, 3}, "world size of 3");
}

TEST(FaultTest, StoreHostWorldSizeDisagreementFailsFastEverywhere) {
  ExpectInconsistentWorld({0, 1}, {3, 2}, "world size of 2");
}

// 8 ranks on 2 CPUs: many small operations make progress (no livelock) and stay correct.
TEST(FaultTest, EightRanksOnTwoCpusMakeProgress) {
  constexpr int kRanks = 8;
  const auto deadline = Clock::now() + 45s;
  WorkerGroup g(WEFT_FAULT_WORKER, World(kRanks, {"stress", "200"}), /*cpus=*/2);
  ASSERT_TRUE(g.started());
  ASSERT_TRUE(
      g.ReadUntil([&] { return AnyFailed(g) || AllHave(g, All(kRanks), "check"); }, deadline) &&
      !AnyFailed(g))
      << Dump(g);
  double slowest = 0;
  for (size_t i = 0; i < kRanks; ++i) {
    const Report c = *g.Find(i, "check");
    EXPECT_EQ(c.status, WEFT_OK) << "rank " << i << ": " << c.message;
    slowest = std::max(slowest, c.seconds());
  }
  EXPECT_LT(slowest, 20.0) << "200 allreduces + barriers over 8 ranks";
  std::printf("200 allreduces + barriers over 8 ranks on 2 CPUs: %.2f s\n", slowest);
  ASSERT_TRUE(g.ReadUntil([&] { return AllHave(g, All(kRanks), "destroy"); }, deadline)) << Dump(g);
  for (size_t i = 0; i < kRanks; ++i) {
    EXPECT_EQ(g.Find(i, "destroy")->status, WEFT_OK) << "rank " << i;
    const std::optional<int> st = g.Reap(i, deadline);
    ASSERT_TRUE(st.has_value());
    EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0) << "rank " << i;
  }
}

// Destroying a context whose work is still pending past the context's deadline: the work is
// aborted and has ended before the communicators and the backend it runs on are freed (a
// sanitizer build reports a use after free otherwise), destroy says TIMEOUT, and the work
// reports its failure afterwards.
TEST(FaultTest, DestroyWithPendingWorkAbortsItBeforeFreeing) {
  constexpr int kRanks = 2;
  const auto deadline = Clock::now() + 30s;
  std::vector<WorkerSpec> specs = World(kRanks, {"pending"});
  for (WorkerSpec& w : specs) w.env.push_back("WEFT_TIMEOUT_MS=1000");
  WorkerGroup g(WEFT_FAULT_WORKER, specs);
  ASSERT_TRUE(g.started());
  ASSERT_TRUE(g.ReadUntil([&] { return g.Has(0, "work") && g.Has(1, "destroy"); }, deadline))
      << Dump(g);
  const Report posted = *g.Find(0, "posted");
  EXPECT_EQ(posted.status, WEFT_OK) << posted.message;
  const Report d = *g.Find(0, "destroy");
  EXPECT_EQ(StatusName(d.status), StatusName(WEFT_ERR_TIMEOUT)) << d.message;
  EXPECT_GE(d.seconds(), 0.9);
  EXPECT_LT(d.seconds(), 6.0) << "the aborted work should end at once";
  const Report w = *g.Find(0, "work");
  EXPECT_NE(w.status, WEFT_OK);
  EXPECT_LT(w.seconds(), 1.0) << "the work ended before destroy returned";
  for (size_t i = 0; i < kRanks; ++i) {
    const std::optional<int> st = g.Reap(i, deadline);
    ASSERT_TRUE(st.has_value()) << "worker " << i << " did not exit";
    EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0)
        << "worker " << i << " wait status " << *st;
  }
}

// NCCL only (device buffers): a link failure with every process alive, which only NCCL's
// asynchronous error reports (the fake's FAKE_NCCL_FAIL_BYTES), leaves ranks waiting on their
// streams, not in Weft. The plugin's watchdog (WEFT_NCCL_WATCHDOG_MS) aborts the communicators,
// which releases the waits, and the next call reports the failure, within about a second.
TEST(NcclFaultTest, LinkFailureReleasesAWaitOnTheStream) {
  constexpr int kRanks = 3;
  constexpr int64_t kNumel = 65536;
  const auto deadline = Clock::now() + 25s;
  std::vector<WorkerSpec> specs = World(kRanks, {"streamwait", "30000", std::to_string(kNumel)});
  for (WorkerSpec& s : specs)  // the all-reduce of half the elements fails
    s.env.push_back("FAKE_NCCL_FAIL_BYTES=" + std::to_string(kNumel / 2 * sizeof(float)));
  WorkerGroup g(WEFT_FAULT_WORKER, specs);
  const std::vector<size_t> all = All(kRanks);
  ASSERT_TRUE(g.ReadUntil([&] { return AnyFailed(g) || AllHave(g, all, "waiting"); }, deadline) &&
              !AnyFailed(g))
      << Dump(g);
  const int64_t t_wait = MonotonicNs();
  for (size_t i : all) ASSERT_EQ(g.Find(i, "waiting")->status, WEFT_OK) << Dump(g);
  ASSERT_TRUE(g.ReadUntil([&] { return AllHave(g, all, "op"); }, deadline))
      << "a rank stayed in its stream wait after the link failure:\n"
      << Dump(g);
  for (size_t i : all) {
    const Report op = *g.Find(i, "op");
    EXPECT_EQ(StatusName(op.status), StatusName(WEFT_ERR_PEER_FAILURE))
        << "rank " << i << ": " << op.message;
    EXPECT_NE(op.message.find("injected"), std::string::npos) << "rank " << i << ": " << op.message;
    const double after = (op.t1_ns - t_wait) * kNs;
    EXPECT_LT(after, 3.0) << "rank " << i << " failed " << after << " s after its wait began";
    std::printf("rank %zu: the next call failed %.0f ms after the wait began\n", i, after * 1000);
  }
  ExpectCleanTeardown(g, all, deadline);
}

// NCCL only (device buffers): a rank that never joins a collective leaves its peers' streams
// waiting, with every process alive and no NCCL error. The all-reduce's deadline (1.5 s) is
// held against an event recorded after it (WEFT_NCCL_DEVICE_TIMEOUTS): the watchdog aborts the
// communicators once it passes, which releases the waits, and the next call says TIMEOUT.
TEST(NcclFaultTest, CollectiveAPeerSkipsTimesOutOnTheStream) {
  constexpr int kRanks = 3;
  constexpr int64_t kTimeoutMs = 1500;
  const auto deadline = Clock::now() + 25s;
  WorkerGroup g(WEFT_FAULT_WORKER,
                World(kRanks, {"streamskip", std::to_string(kTimeoutMs), "4096"}));
  const std::vector<size_t> all = All(kRanks), waiting = {0, 1};
  ASSERT_TRUE(g.ReadUntil([&] { return AnyFailed(g) || AllHave(g, all, "waiting"); }, deadline) &&
              !AnyFailed(g))
      << Dump(g);
  ASSERT_TRUE(g.ReadUntil([&] { return AllHave(g, waiting, "op"); }, deadline))
      << "a rank stayed in its stream wait past the all-reduce's deadline:\n"
      << Dump(g);
  for (size_t i : waiting) {
    const Report op = *g.Find(i, "op");
    const Report w = *g.Find(i, "waiting");
    EXPECT_EQ(StatusName(op.status), StatusName(WEFT_ERR_TIMEOUT))
        << "rank " << i << ": " << op.message;
    EXPECT_NE(op.message.find("still running on its stream past its deadline"), std::string::npos)
        << "rank " << i << ": " << op.message;
    const double after = (op.t1_ns - w.t0_ns) * kNs;
    EXPECT_GE(after, kTimeoutMs / 1000.0) << "rank " << i << " timed out early";
    EXPECT_LT(after, kTimeoutMs / 1000.0 + 3.0) << "rank " << i;
    std::printf("rank %zu: the next call failed %.0f ms after the all-reduce was enqueued\n", i,
                after * 1000);
  }
  ExpectCleanTeardown(g, all, deadline);
}

}  // namespace
}  // namespace weft::test
