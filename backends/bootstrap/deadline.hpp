// Deadline helpers. Callers may pass deadlines far in the future (even time_point::max());
// those mean "no deadline" and must not overflow the clock arithmetic of the waits below.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

#include "backends/bootstrap/store_types.hpp"

namespace weft::backends::bootstrap::detail {

// Beyond this a deadline is treated as "wait forever".
inline constexpr Clock::duration kForever = std::chrono::hours(24 * 365);

inline bool IsForever(Clock::time_point deadline, Clock::time_point now) {
  return deadline > now && deadline - now > kForever;
}

// cv.wait_until that tolerates far deadlines; returns pred() at the end like wait_until.
template <class Pred>
bool WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
               Clock::time_point deadline, Pred pred) {
  auto now = Clock::now();
  if (deadline <= now) return pred();
  if (IsForever(deadline, now)) {
    cv.wait(lock, pred);
    return true;
  }
  return cv.wait_until(lock, deadline, pred);
}

// Milliseconds until `deadline`, clamped to [0, limit] (poll() takes an int).
inline int RemainingMs(Clock::time_point deadline, int limit = 1 << 30) {
  auto now = Clock::now();
  if (deadline <= now) return 0;
  if (IsForever(deadline, now)) return limit;
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
  return ms > limit ? limit : static_cast<int>(ms);
}

inline std::string ElapsedMs(Clock::time_point since) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since);
  return std::to_string(ms.count()) + " ms";
}

}  // namespace weft::backends::bootstrap::detail
