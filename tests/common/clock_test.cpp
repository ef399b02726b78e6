// The coarse clock stands in for steady_clock without ever running ahead of it.
#include "common/clock.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace {

using Clock = std::chrono::steady_clock;

TEST(CoarseClock, NeverAheadOfSteadyClockAndCloseBehind) {
  for (int i = 0; i < 2000; ++i) {
    const auto coarse = weft::CoarseNow();
    const auto fine = Clock::now();
    ASSERT_LE(coarse, fine);
    ASSERT_LT(fine - coarse, std::chrono::milliseconds(50));  // a tick is 1-10 ms
  }
}

TEST(CoarseClock, DeadlinesNeverComeEarlyAndLongOnesAreAtMostTicksLate) {
  for (const int64_t ms :
       {int64_t{0}, int64_t{50}, int64_t{9999}, int64_t{10000}, int64_t{300000}}) {
    for (int i = 0; i < 500; ++i) {
      const auto before = Clock::now();
      const auto d = weft::DeadlineAfter(ms);
      const auto after = Clock::now();
      ASSERT_GE(d, before + std::chrono::milliseconds(ms)) << ms;
      // Short ones are exact; long ones carry two coarse ticks of margin (1-10 ms each).
      const auto slack = ms < 10000 ? std::chrono::milliseconds(0) : std::chrono::milliseconds(25);
      ASSERT_LE(d, after + std::chrono::milliseconds(ms) + slack) << ms;
    }
  }
}

}  // namespace
