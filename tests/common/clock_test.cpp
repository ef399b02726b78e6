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

TEST(Deadlines, NegativeOrCenturyTimeoutsAreNoneAndOthersRoundTrip) {
  EXPECT_EQ(weft::DeadlineFromTimeoutMs(-1), weft::kNoDeadline);
  // Once an overflow: INT64_MAX milliseconds from now wrapped into the past.
  EXPECT_EQ(weft::DeadlineFromTimeoutMs(INT64_MAX), weft::kNoDeadline);
  EXPECT_EQ(weft::DeadlineFromTimeoutMs(int64_t{1} << 50), weft::kNoDeadline);
  EXPECT_EQ(weft::RemainingMs(weft::kNoDeadline), -1);
  const auto before = Clock::now();
  const auto d = weft::DeadlineFromTimeoutMs(60000);
  EXPECT_GE(d, before + std::chrono::seconds(60));
  const int64_t left = weft::RemainingMs(d);
  EXPECT_GE(left, 59000);  // never short (the coarse clock lags)
  EXPECT_LE(left, 60100);
  EXPECT_EQ(weft::RemainingMs(Clock::now() - std::chrono::seconds(1)), 0);  // passed: 0
}

}  // namespace
