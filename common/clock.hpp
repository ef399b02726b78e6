// A cheap read of the monotonic clock, for checks that may come late but never early.
// steady_clock::now() costs about 28 ns a read on a VM, as much as a poll of a transport;
// CLOCK_MONOTONIC_COARSE about 6 ns. The coarse clock is the time of the last scheduler tick
// (1-4 ms apart, further on tickless kernels: measured 5 ms behind here), so it never runs
// ahead of steady_clock but may lag it: fine for "how long is left until this deadline" (the
// answer is a little long) or "has it passed" (noticed a little late), wrong for making a
// deadline (it would come early). Same epoch as steady_clock (CLOCK_MONOTONIC).
// Header-only and self-contained, so that backend plugins (which depend on nothing of Weft's
// but the plugin ABI) use it too.
#pragma once

#include <time.h>

#include <chrono>
#include <cstdint>

namespace weft {
namespace coarse_clock_detail {

using Clock = std::chrono::steady_clock;

inline bool Read(Clock::time_point* out) {
  timespec ts{};
  if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) != 0) return false;
  *out = Clock::time_point(std::chrono::duration_cast<Clock::duration>(
      std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec)));
  return true;
}

// Whether the coarse clock can stand in for steady_clock (checked once: a reading must be at
// most a second behind steady_clock and never ahead).
inline bool Usable() {
  static const bool usable = [] {
    Clock::time_point coarse;
    if (!Read(&coarse)) return false;
    const auto now = Clock::now();
    return coarse <= now && now - coarse < std::chrono::seconds(1);
  }();
  return usable;
}

}  // namespace coarse_clock_detail

// A time never after now, usually a tick or so before it (steady_clock::now() where the
// coarse clock cannot stand in).
inline std::chrono::steady_clock::time_point CoarseNow() {
  std::chrono::steady_clock::time_point t;
  if (!coarse_clock_detail::Usable() || !coarse_clock_detail::Read(&t))
    return std::chrono::steady_clock::now();
  return t;
}

// The deadline `ms` milliseconds from now, for the fast path of every call: a long one (the
// default timeout is minutes) from the coarse clock plus two of its ticks, which keeps it from
// coming early as long as the reading lags by less than that (about a tick is usual: 5.2 ms
// was the most measured with 4 ms ticks) and makes it at most a few milliseconds late, a
// fraction of a percent of ten seconds; a shorter one from steady_clock, exactly.
inline std::chrono::steady_clock::time_point DeadlineAfter(int64_t ms) {
  using std::chrono::milliseconds;
  constexpr int64_t kCoarseFromMs = 10000;
  static const std::chrono::nanoseconds margin = [] {
    timespec res{};
    if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) != 0) return std::chrono::nanoseconds(-1);
    return 2 * (std::chrono::seconds(res.tv_sec) + std::chrono::nanoseconds(res.tv_nsec));
  }();
  if (ms >= kCoarseFromMs && margin.count() >= 0 && margin < milliseconds(100) &&
      coarse_clock_detail::Usable()) {
    std::chrono::steady_clock::time_point t;
    if (coarse_clock_detail::Read(&t))
      return t + std::chrono::duration_cast<std::chrono::steady_clock::duration>(margin) +
             milliseconds(ms);
  }
  return std::chrono::steady_clock::now() + milliseconds(ms);
}

// "No deadline": what a timeout_ms < 0 (the C ABI's and the plugin ABI's "wait for ever")
// becomes. Every deadline in Weft is a steady_clock time point; this is the one "forever".
inline constexpr std::chrono::steady_clock::time_point kNoDeadline =
    std::chrono::steady_clock::time_point::max();

// The deadline of a timeout in milliseconds from now, as both ABIs pass one: < 0 none
// (kNoDeadline); a timeout of a century or more is none too, rather than an overflow of the
// clock (a user's INT64_MAX "for ever" once wrapped to the past and failed at once).
inline std::chrono::steady_clock::time_point DeadlineFromTimeoutMs(int64_t ms) {
  constexpr int64_t kCenturyMs = int64_t{100} * 365 * 24 * 3600 * 1000;
  if (ms < 0 || ms >= kCenturyMs) return kNoDeadline;
  return DeadlineAfter(ms);
}

// What is left of `deadline` in the ABIs' terms: -1 for kNoDeadline, else milliseconds >= 0.
// From the coarse clock, which is never ahead: what is left comes out a little long, never
// short, so a deadline handed on (to a plugin, to the store) is never early.
inline int64_t RemainingMs(std::chrono::steady_clock::time_point deadline) {
  if (deadline == kNoDeadline) return -1;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - CoarseNow());
  return left.count() > 0 ? left.count() : 0;
}

// Nanoseconds of steady_clock from `start` until now (timing a copy, for instance).
inline uint64_t NanosecondsSince(std::chrono::steady_clock::time_point start) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count());
}

}  // namespace weft
