// request_test / request_wait / request_cancel / request_free: progress without spinning.
#pragma once

#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <mutex>

#include "backends/ucx/request.hpp"

namespace weft::backends::ucx_plugin {

// How long a waiter polls with sched_yield() between polls before it sleeps.
inline constexpr auto kYieldBudget = std::chrono::microseconds(500);

// Calls poll(now) until it returns true (it progresses the worker and says whether the wait is
// over, having failed whatever passed its deadline): a burst of back-to-back polls for
// State::spin(); then polls that hand the CPU over between them for kYieldBudget (with more
// ranks than CPUs the peer being waited for may need this CPU, and waking from a sleep on the
// event fd costs tens of microseconds, more than a small collective's whole round); then
// sleeps on the worker's event fd between polls, at most until `wake_by` (the op's deadline).
// Returns false when `until` came first. Requires `lock` on State::mu().
template <typename Poll>
bool PollUntil(State& st, std::unique_lock<std::mutex>& lock, Clock::time_point until,
               Clock::time_point wake_by, Poll&& poll) {
  const auto start = Clock::now();
  auto now = start;
  while (now - start < st.spin()) {
    if (poll(now)) return true;
    now = Clock::now();
  }
  const auto yield_until = start + st.spin() + kYieldBudget;
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
