// Lending a receive buffer to a writer (backends/ucx/transport/grants.hpp) when the writer is
// stopped or slow: the receiver's Reclaim must honour the call's deadline (SPEC §10: a stopped
// process is alive, and a receiver once waited for one for ever), and a writer whose loan was
// revoked must write nothing more. The receiver is this process; the writer a forked child that
// maps the table as a peer does (pidfd_getfd) and writes with process_vm_writev.
#include "backends/ucx/transport/grants.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "backends/ucx/transport/cma.hpp"
#include "backends/ucx/transport/layout.hpp"

namespace weft::backends::ucx_plugin {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr uint64_t kBytes = 64 << 10;
constexpr char kBefore = '\x11', kWritten = '\x77';

// What the writer does once it holds the loan: returns its exit code (0: as the test wants).
enum class Writer {
  kStopThenWrite,  // stops itself (SIGSTOP), then writes what the loan still allows
  kRunShort,       // runs for 30 ms, then writes
  kRunLong,        // runs for 600 ms, then writes what the loan still allows
};

// The receiver's side of one loan, with a forked writer.
class UcxGrants : public ::testing::Test {
 protected:
  void SetUp() override {
    // A child may map its parent's files and write its memory where Yama would forbid it, as
    // the plugin allows its peers (EINVAL without Yama, which forbids nothing then).
    (void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    ASSERT_TRUE(table_.Open(1));
    buffer_.assign(kBytes, kBefore);
  }
  void TearDown() override {
    if (child_ > 0) {
      kill(child_, SIGKILL);
      waitpid(child_, nullptr, 0);
    }
  }

  // Forks the writer; returns once it claimed the loan.
  void StartWriter(uint64_t token, Writer how) {
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    const GrantIdentity id = table_.Identity();
    const pid_t parent = getpid();
    char* into = buffer_.data();
    child_ = fork();
    ASSERT_GE(child_, 0);
    if (child_ == 0) {
      close(ready[0]);
      _exit(RunWriter(parent, id, token, into, how, ready[1]));
    }
    close(ready[1]);
    char byte = 0;
    ASSERT_EQ(read(ready[0], &byte, 1), 1) << "the writer could not claim the loan";
    close(ready[0]);
    if (how == Writer::kStopThenWrite) {
      int st = 0;
      ASSERT_EQ(waitpid(child_, &st, WUNTRACED), child_);
      ASSERT_TRUE(WIFSTOPPED(st));
    }
  }

  // The writer's exit code once it ended.
  int WriterExit() {
    int st = 0;
    EXPECT_EQ(waitpid(child_, &st, 0), child_);
    child_ = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  }

  // Reclaim on another thread, given `limit` (it waited for ever before the fix: the writer is
  // then resumed so that the test ends, and the wait is reported).
  bool TimedReclaim(uint64_t token, std::chrono::milliseconds limit, double* seconds) {
    const auto start = Clock::now();
    auto ours = std::async(std::launch::async,
                           [&] { return table_.Reclaim(token, child_, WEFT_ERR_TIMEOUT); });
    if (ours.wait_for(limit) != std::future_status::ready) {
      kill(child_, SIGCONT);
      ADD_FAILURE() << "Reclaim still waited for the writer after " << limit.count() << " ms";
    }
    const bool got = ours.get();
    *seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return got;
  }

  static int RunWriter(pid_t parent, const GrantIdentity& id, uint64_t token, char* into,
                       Writer how, int ready) {
    PeerGrants grants;
    if (!grants.Open(parent, id)) return 10;
    if (grants.Claim(token) != WEFT_OK) return 11;
    if (write(ready, "x", 1) != 1) return 12;
    if (how == Writer::kStopThenWrite) raise(SIGSTOP);
    const auto start = Clock::now();
    const auto run = how == Writer::kRunShort ? 30ms : how == Writer::kRunLong ? 600ms : 0ms;
    while (Clock::now() - start < run) {  // running, not sleeping: a writer busy copying
    }
    const std::vector<char> data(kBytes, kWritten);
    std::string why;
    const weft_status_t s =
        WriteRemoteRegion(parent, reinterpret_cast<uint64_t>(into), Contiguous(kBytes), data.data(),
                          Contiguous(kBytes), &why, grants, token);
    grants.Complete(token, s);
    // Revoked: the receive's status comes back, and nothing was written.
    if (how == Writer::kRunShort) return s == WEFT_OK ? 0 : 20;
    return s == WEFT_ERR_TIMEOUT ? 0 : 21;
  }

  bool BufferIs(char c) const {
    for (char b : buffer_)
      if (b != c) return false;
    return true;
  }

  GrantTable table_;
  std::vector<char> buffer_;
  pid_t child_ = -1;
};

// SIGSTOP between the writer's claim and its copy: Reclaim revokes the loan at once rather than
// waiting for a process that is alive but does not run; resumed, the writer writes nothing.
TEST_F(UcxGrants, StoppedWriterIsRevokedAtOnceAndWritesNothingAfter) {
  const uint64_t token = table_.Lend();
  ASSERT_NE(token, 0u);
  StartWriter(token, Writer::kStopThenWrite);
  double seconds = 0;
  EXPECT_FALSE(TimedReclaim(token, 2000ms, &seconds)) << "the buffer was not the writer's to keep";
  EXPECT_LT(seconds, 0.05) << "a stopped writer is revoked at once";
  // The revoked slot stays out of use while the writer may still touch it.
  EXPECT_EQ(table_.Lend(), 0u);
  kill(child_, SIGCONT);
  EXPECT_EQ(WriterExit(), 0) << "the resumed writer did not see the revocation";
  EXPECT_TRUE(BufferIs(kBefore)) << "the revoked writer wrote into the buffer";
  // The writer stored DONE: the slot is lent again.
  EXPECT_NE(table_.Lend(), 0u);
}

// A writer that runs and finishes within the grace is waited for: the buffer holds its bytes.
TEST_F(UcxGrants, RunningWriterIsWaitedFor) {
  const uint64_t token = table_.Lend();
  StartWriter(token, Writer::kRunShort);
  double seconds = 0;
  EXPECT_TRUE(TimedReclaim(token, 2000ms, &seconds));
  EXPECT_GE(seconds, 0.01);
  EXPECT_EQ(WriterExit(), 0);
  EXPECT_TRUE(BufferIs(kWritten));
  EXPECT_NE(table_.Lend(), 0u);
}

// A writer still at it after kWriterGrace is revoked too, and stops before its copy.
TEST_F(UcxGrants, WriterPastTheGraceIsRevoked) {
  const uint64_t token = table_.Lend();
  StartWriter(token, Writer::kRunLong);
  double seconds = 0;
  EXPECT_FALSE(TimedReclaim(token, 2000ms, &seconds));
  const double grace = std::chrono::duration<double>(kWriterGrace).count();
  EXPECT_GE(seconds, grace * 0.9);
  EXPECT_LT(seconds, grace + 0.3);
  EXPECT_EQ(WriterExit(), 0);
  EXPECT_TRUE(BufferIs(kBefore));
}

// A loan taken back before the writer claimed it: the claim fails with how the receive ended.
TEST_F(UcxGrants, ClaimAfterReclaimSaysHowTheReceiveEnded) {
  const uint64_t token = table_.Lend();
  EXPECT_TRUE(table_.Reclaim(token, getpid(), WEFT_ERR_TIMEOUT));
  PeerGrants grants;
  ASSERT_TRUE(grants.Open(getpid(), table_.Identity()));
  EXPECT_EQ(grants.Claim(token), WEFT_ERR_TIMEOUT);
  // Other ends read as ABORTED.
  const uint64_t next = table_.Lend();
  EXPECT_TRUE(table_.Reclaim(next, getpid(), WEFT_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(grants.Claim(next), WEFT_ERR_ABORTED);
}

}  // namespace
}  // namespace weft::backends::ucx_plugin
