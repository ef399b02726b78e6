#include "backends/ucx/transport/wait.hpp"

#include "backends/ucx/coll/schedule.hpp"
#include "backends/ucx/tuning_table.hpp"

#include <poll.h>
#include <sched.h>

#include <algorithm>
#include <mutex>

namespace weft::backends::ucx_plugin {
namespace {

// The op's result, reported to this thread's host error slot when it failed.
weft_status_t Result(const Request& r) {
  if (r.status == WEFT_OK) return WEFT_OK;
  return r.state->Fail(r.status, r.message);
}

// Ends `r` with TIMEOUT when its deadline passed. Requires the state lock.
bool Expired(Request* r, Clock::time_point now) {
  if (r->done || now < r->deadline) return false;
  r->Cancel(WEFT_ERR_TIMEOUT, r->Name() + ": passed its deadline");
  return true;
}

// Ends `r` with the abort's status once the state was aborted. Abort() fails the requests it
// finds, but one posted by a path that looked before the abort and posted after it (a receive
// on the worker needs no endpoint) would otherwise wait for its deadline: the killed-peer
// trials saw the store host wait 30 s for a dead rank while its neighbours had failed at once.
// Requires the state lock.
bool EndIfAborted(State& st, Request* r) {
  if (r->done) return false;
  std::string why;
  const weft_status_t a = st.Aborted(&why);
  if (a == WEFT_OK) return false;
  r->Cancel(a, r->Name() + ": " + why);
  return true;
}

// Progresses the worker, then lets a collective post its next round.
void Drive(State& st, Request* r) {
  st.Progress();
  if (r->sched && !r->done) r->sched->Advance();
}

}  // namespace

void State::Sleep(std::unique_lock<std::mutex>& lock, Clock::time_point until) {
  LetAbortIn(lock);
  const ucs_status_t armed = ucp_worker_arm(worker_);
  if (armed == UCS_ERR_BUSY) return;  // events arrived since the last progress
  const auto now = Clock::now();
  const auto span = std::min<Clock::duration>(until - now, kMaxSleep);
  int timeout_ms = static_cast<int>(
      std::chrono::duration_cast<std::chrono::milliseconds>(span + std::chrono::microseconds(999))
          .count());
  if (armed != UCS_OK) timeout_ms = 1;  // cannot arm: fall back to a short nap, not a spin
  // A wait on boards: publishers wake this rank only once it says it sleeps, so look again
  // after saying so (board.hpp).
  const bool watching = !watchers_.empty();
  if (watching) {
    board_.SetSleeping(true);
    // The add is a locked instruction on x86, but the look must not move before it anywhere.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    // Something arrived since the caller's last progress (which consumes what it can): no
    // sleep, the caller's next poll takes it.
    if (watchers_.AnyArrived()) {
      board_.SetSleeping(false);
      return;
    }
  }
  // The third: writers signal it when they finished a message written into a lent buffer
  // (grants.hpp); -1 (ignored by poll) when this rank lends nothing. The fourth: publishers on
  // a board this rank waits for.
  // Pipes likewise: the other side wakes this rank after moving a counter only once it says
  // it sleeps (pipes.hpp).
  const bool piping = !pipe_sends_.empty() || !pipe_recvs_.empty();
  if (piping) {
    pipes_.SetSleeping(true);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (PipesReady()) {
      pipes_.SetSleeping(false);
      if (watching) board_.SetSleeping(false);
      return;
    }
  }
  // The fifth: the other side of a pipe.
  pollfd fds[5] = {{worker_fd_, POLLIN, 0},
                   {wake_fd_, POLLIN, 0},
                   {single_copy_.grants().wake_fd(), POLLIN, 0},
                   {watching ? board_.wake_fd() : -1, POLLIN, 0},
                   {piping ? pipes_.wake_fd() : -1, POLLIN, 0}};
  lock.unlock();
  (void)poll(fds, 5, std::max(timeout_ms, 0));
  lock.lock();
  if (piping) {
    pipes_.SetSleeping(false);
    if (fds[4].revents & POLLIN) pipes_.DrainWake();
  }
  // The abort eventfd is never drained: an abort stays signalled, so no later sleep blocks.
  // The writers' one is: the caller's next poll checks every loan (State::CheckLoans), and a
  // write that ends after that signals again. The board's likewise: the caller looks again.
  if (fds[2].revents & POLLIN) single_copy_.grants().DrainWake();
  if (watching) {
    board_.SetSleeping(false);
    if (fds[3].revents & POLLIN) board_.DrainWake();
  }
}

weft_status_t TestRequest(Request* r, int32_t* done) {
  State& st = *r->state;
  std::lock_guard<std::mutex> lock(st.mu());
  if (!r->done) {
    Drive(st, r);
    if (!EndIfAborted(st, r)) Expired(r, Clock::now());
  }
  *done = r->done ? 1 : 0;
  return WEFT_OK;
}

weft_status_t WaitRequest(Request* r, int64_t timeout_ms) {
  State& st = *r->state;
  const auto until = DeadlineFromTimeoutMs(timeout_ms);
  std::unique_lock<std::mutex> lock(st.mu());
  const bool over = PollUntil(st, lock, until, r->deadline, [&](Clock::time_point now) {
    if (r->done) return true;
    Drive(st, r);
    return r->done || EndIfAborted(st, r) || Expired(r, now);
  });
  return over ? Result(*r) : WEFT_IN_PROGRESS;
}

weft_status_t CancelRequest(Request* r) {
  State& st = *r->state;
  std::lock_guard<std::mutex> lock(st.mu());
  if (!r->done) r->Cancel(WEFT_ERR_ABORTED, r->Name() + ": cancelled");
  return WEFT_OK;
}

void FreeRequest(Request* r) {
  if (r == nullptr) return;
  State& st = *r->state;
  std::lock_guard<std::mutex> lock(st.mu());
  r->Release();
}

}  // namespace weft::backends::ucx_plugin
