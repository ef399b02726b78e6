// The plugin kit's deadline: the plugin ABI passes "timeout_ms from now; < 0 none", and every
// plugin turns it into a point in time once, at the start of the op, then asks what is left.
// Header-only, depending on the plugin ABI alone.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

#include <weft/backend_plugin.h>

namespace weft::plugin_kit {

using Clock = std::chrono::steady_clock;

class Deadline {
 public:
  // timeout_ms < 0: no deadline. 0 means "due now": the host passes what is left of a
  // deadline, clamped at 0, so it is not a request for a default.
  static Deadline FromTimeoutMs(int64_t timeout_ms) {
    Deadline d;
    if (timeout_ms >= 0) {
      d.none_ = false;
      // Saturates: a timeout of centuries is a deadline at the clock's end, not an overflow.
      const auto now = Clock::now();
      const auto room =
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::time_point::max() - now);
      d.when_ = timeout_ms >= room.count() ? Clock::time_point::max()
                                           : now + std::chrono::milliseconds(timeout_ms);
    }
    return d;
  }

  bool none() const { return none_; }
  // Clock::time_point::max() without a deadline.
  Clock::time_point when() const { return none_ ? Clock::time_point::max() : when_; }
  bool passed() const { return !none_ && Clock::now() >= when_; }

  // What is left, at least `floor` and at most `cap`; `cap` without a deadline (for libraries
  // with a finite "forever" and a 0 that means "no timeout").
  std::chrono::milliseconds Remaining(std::chrono::milliseconds floor,
                                      std::chrono::milliseconds cap) const {
    if (none_) return cap;
    return std::clamp(Left(), floor, cap);
  }

  // What is left in the ABI's own terms, for the host's store calls: -1 without a deadline,
  // else >= 0.
  int64_t RemainingMs() const {
    if (none_) return -1;
    return std::max<int64_t>(0, Left().count());
  }

 private:
  std::chrono::milliseconds Left() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(when_ - Clock::now());
  }

  bool none_ = true;
  Clock::time_point when_{};
};

}  // namespace weft::plugin_kit
