// An operation's deadline, from the plugin ABI's "timeout_ms from now; < 0 none".
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace weft::backends::gloo_plugin {

using Clock = std::chrono::steady_clock;

class Deadline {
 public:
  // Gloo's own "forever" (tcp::kLargeTimeDuration): long enough, and small enough that
  // now() + it cannot overflow inside Gloo's condition-variable waits.
  static constexpr std::chrono::milliseconds kForever = std::chrono::hours(100);

  // timeout_ms < 0: no deadline. 0 means "due now": the host passes what is left of a
  // deadline, clamped at 0, so it is not a request for a default.
  static Deadline FromTimeoutMs(int64_t timeout_ms) {
    Deadline d;
    if (timeout_ms >= 0) {
      d.none_ = false;
      d.when_ = Clock::now() + std::chrono::milliseconds(timeout_ms);
    }
    return d;
  }

  bool none() const { return none_; }
  Clock::time_point when() const { return none_ ? Clock::time_point::max() : when_; }
  bool passed() const { return !none_ && Clock::now() >= when_; }

  // What is left, as Gloo wants it: at least 1 ms (Gloo reads 0 as "no timeout" in places),
  // kForever without a deadline.
  std::chrono::milliseconds GlooTimeout() const {
    if (none_) return kForever;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(when_ - Clock::now());
    return std::clamp(left, std::chrono::milliseconds(1), kForever);
  }

  // What is left for the host's store calls: -1 without a deadline, else >= 0.
  int64_t RemainingMs() const {
    if (none_) return -1;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(when_ - Clock::now());
    return std::max<int64_t>(0, left.count());
  }

 private:
  bool none_ = true;
  Clock::time_point when_{};
};

}  // namespace weft::backends::gloo_plugin
