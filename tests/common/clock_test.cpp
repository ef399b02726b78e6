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

}  // namespace
