// request_test / request_wait / request_cancel / request_free: progress without spinning.
#pragma once

#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <mutex>

#include "backends/ucx/transport/request.hpp"
#include "backends/ucx/tuning_table.hpp"
#include "common/clock.hpp"

namespace weft::backends::ucx_plugin {

// kYieldBudget and kPollsPerClockRead: tuning_table.hpp.

// Calls poll(now) until it returns true (it progresses the worker and says whether the wait is
// over, having failed whatever passed its deadline): a burst of back-to-back polls for
// State::spin(); then polls that hand the CPU over between them for kYieldBudget (with more
// ranks than CPUs the peer being waited for may need this CPU, and waking from a sleep on the
// event fd costs tens of microseconds, more than a small collective's whole round); then
// sleeps on the worker's event fd between polls, at most until `wake_by` (the op's deadline).
// Returns false when `until` came first. Requires `lock` on State::mu().
//
// A clock read costs as much as a poll on a VM (common/clock.hpp), so the burst reads it only
// every kPollsPerClockRead polls and starts timing itself at the first read: a reply that
// arrives within the first polls (a small collective's) is taken without reading it at all.
// Until then `now` is a coarse reading (common/clock.hpp), never ahead of the true time, so a
// deadline is noticed a little late, never early.
template <typename Poll>
bool PollUntil(State& st, std::unique_lock<std::mutex>& lock, Clock::time_point until,
               Clock::time_point wake_by, Poll&& poll) {
  auto now = CoarseNow();
  if (st.spin() > Clock::duration::zero()) {
    Clock::time_point start;
    for (uint32_t i = 1;; ++i) {
      if (poll(now)) return true;
      if (i % kPollsPerClockRead != 0) continue;
      now = Clock::now();
      if (i == kPollsPerClockRead)
        start = now;
      else if (now - start >= st.spin())
        break;
    }
  }
  now = Clock::now();
  const auto yield_until = now + kYieldBudget;
  while (now < yield_until && now < until) {
    lock.unlock();
    sched_yield();
    lock.lock();
    now = Clock::now();
    if (poll(now)) return true;
  }
  while (true) {
    if (poll(now)) return true;
    if (now >= until) return false;
    st.Sleep(lock, std::min(until, wake_by));
    now = Clock::now();
  }
}

weft_status_t TestRequest(Request* r, int32_t* done);
// Progresses in a short burst, then sleeps on the worker's event fd (ucp_worker_arm + poll)
// until an event, an abort, the op's deadline or this wait's own timeout.
weft_status_t WaitRequest(Request* r, int64_t timeout_ms);
weft_status_t CancelRequest(Request* r);
void FreeRequest(Request* r);

}  // namespace weft::backends::ucx_plugin
