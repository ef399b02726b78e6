// Cheap reads of the monotonic clock for deadlines. steady_clock::now() costs about 28 ns a
// read on a VM, as much as a poll of a transport, and a small blocking collective read it
// several times before sending anything; CLOCK_MONOTONIC_COARSE costs about 6 ns, at the
// resolution of a scheduler tick (1-4 ms). Same epoch as steady_clock (CLOCK_MONOTONIC).
// Header-only and self-contained, so that backend plugins (which depend on nothing of Weft's
// but the plugin ABI) use it too.
#pragma once

#include <time.h>

#include <chrono>

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

// The coarse clock's resolution, or zero when it cannot stand in for steady_clock (checked
// once: a coarse reading must be at most a second behind steady_clock and never ahead).
inline Clock::duration Tick() {
  static const Clock::duration tick = [] {
    timespec res{};
    Clock::time_point coarse;
    if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) != 0 || !Read(&coarse))
      return Clock::duration::zero();
    const auto now = Clock::now();
    if (coarse > now || now - coarse > std::chrono::seconds(1)) return Clock::duration::zero();
    return std::chrono::duration_cast<Clock::duration>(std::chrono::seconds(res.tv_sec) +
                                                       std::chrono::nanoseconds(res.tv_nsec));
  }();
  return tick;
}

}  // namespace coarse_clock_detail

// A time at most one tick before now, never after it (steady_clock::now() where the coarse
// clock cannot stand in).
inline std::chrono::steady_clock::time_point CoarseNow() {
  std::chrono::steady_clock::time_point t;
  if (coarse_clock_detail::Tick() == std::chrono::steady_clock::duration::zero() ||
      !coarse_clock_detail::Read(&t))
    return std::chrono::steady_clock::now();
  return t;
}

// A deadline `ms` from now: never early, at most one tick late.
inline std::chrono::steady_clock::time_point CoarseDeadline(std::chrono::milliseconds ms) {
  return CoarseNow() + coarse_clock_detail::Tick() + ms;
}

}  // namespace weft
