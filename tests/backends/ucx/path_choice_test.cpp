// PathChoice (backends/ucx/transport/path_choice.hpp): which way single-copy-sized messages go,
// from what each way cost lately. Pure bookkeeping, driven here with made-up costs and a made-up
// clock; each case sends messages the way Choose says and reports the cost of that way.
#include "backends/ucx/transport/path_choice.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>

namespace weft::backends::ucx_plugin {
namespace {

using Way = PathChoice::Way;
using std::chrono::milliseconds;

constexpr uint64_t kMsg = 128 << 10;  // one size class throughout, unless a case says otherwise

// Sends `n` messages of `bytes` that cost `single` or `pipe` ns per byte by the way chosen,
// one every `step`, each sample back before the next message; counts the pipe messages.
struct Traffic {
  PathChoice c;
  PathChoice::Clock::time_point now{std::chrono::seconds(1000)};
  int Send(int n, double single, double pipe, uint64_t bytes = kMsg, bool strided = false,
           PathChoice::Clock::duration step = std::chrono::microseconds(10)) {
    int piped = 0;
    for (int i = 0; i < n; ++i) {
      const Way w = c.Choose(bytes, strided, now);
      piped += w == PathChoice::kPipe;
      const double per_byte = w == PathChoice::kPipe ? pipe : single;
      c.Record(w, bytes, strided, static_cast<uint64_t>(per_byte * static_cast<double>(bytes)),
               now);
      now += step;
    }
    return piped;
  }
};

TEST(PathChoice, StartsWithSingleCopyAndTriesPipesOneMessageInFour) {
  Traffic r;
  EXPECT_EQ(r.c.Preferred(kMsg, false), PathChoice::kSingleCopy);
  // Pipes cost more: they get messages 4, 8, 12 and 16, then none (their figure is fresh).
  EXPECT_EQ(r.Send(16, 1.0, 2.0), 4);
  EXPECT_EQ(r.Send(100, 1.0, 2.0), 0);
  EXPECT_EQ(r.c.Preferred(kMsg, false), PathChoice::kSingleCopy);
  EXPECT_NEAR(r.c.CostPerKiB(PathChoice::kSingleCopy, kMsg, false), 1024, 1);
  EXPECT_NEAR(r.c.CostPerKiB(PathChoice::kPipe, kMsg, false), 2048, 1);
}

TEST(PathChoice, TakesPipesWhenTheyCostClearlyLess) {
  Traffic r;
  r.Send(16, 1.0, 0.5);
  EXPECT_EQ(r.c.Preferred(kMsg, false), PathChoice::kPipe);
  // Single copy has its samples and they are fresh: every message takes a pipe now.
  EXPECT_EQ(r.Send(100, 1.0, 0.5), 100);
}

TEST(PathChoice, PipesNeedAClearMarginAndSingleCopyNone) {
  Traffic r;
  r.Send(16, 1.0, 0.8);  // 20% cheaper: not enough to leave single copy
  EXPECT_EQ(r.c.Preferred(kMsg, false), PathChoice::kSingleCopy);
  // Later, pipes 30% cheaper: enough, once refreshes (each after kStale and kRefreshEvery
  // messages) have brought their figure down.
  for (int i = 0; i < 3; ++i) {
    r.now += PathChoice::kStale + milliseconds(1);
    r.Send(PathChoice::kRefreshEvery, 1.0, 0.7);
  }
  EXPECT_EQ(r.c.Preferred(kMsg, false), PathChoice::kPipe);
  // Back as soon as single copy costs no more than pipes: while pipes are preferred and single
  // copy is close, it is refreshed every kRefreshEvery messages whatever the figures' age.
  r.Send(3 * PathChoice::kRefreshEvery, 1.0, 1.0);
  EXPECT_EQ(r.c.Preferred(kMsg, false), PathChoice::kSingleCopy);
}

TEST(PathChoice, ColdFirstCopiesDoNotDecide) {
  Traffic r;
  // The first pipe message copies into cold memory (30x); the others are cheap. The figure is
  // the second lowest of four, so the cold one does not count.
  PathChoice& c = r.c;
  int pipes_seen = 0;
  for (int i = 0; i < 16; ++i) {
    const Way w = c.Choose(kMsg, false, r.now);
    const double cost = w == PathChoice::kPipe ? (pipes_seen++ == 0 ? 30.0 : 0.5) : 1.0;
    c.Record(w, kMsg, false, static_cast<uint64_t>(cost * kMsg), r.now);
    r.now += milliseconds(1);
  }
  EXPECT_EQ(pipes_seen, 4);
  EXPECT_EQ(c.Preferred(kMsg, false), PathChoice::kPipe);
  EXPECT_NEAR(c.CostPerKiB(PathChoice::kPipe, kMsg, false), 512, 1);
}

TEST(PathChoice, LeavesThePreferredWayOnceItsOwnCostRises) {
  Traffic r;
  r.Send(16, 1.0, 0.5);
  ASSERT_EQ(r.c.Preferred(kMsg, false), PathChoice::kPipe);
  // The cores move apart and pipes now cost 2x single copy: their own figure follows within a
  // few messages (second lowest of four), and single copy's, still fresh, wins.
  EXPECT_LE(r.Send(10, 1.0, 2.0), 3);
  EXPECT_EQ(r.c.Preferred(kMsg, false), PathChoice::kSingleCopy);
}

TEST(PathChoice, WhenThePreferredWaysCostMovesTheOtherWayIsMeasuredAgain) {
  Traffic r;
  r.Send(16, 2.0, 0.5);
  ASSERT_EQ(r.c.Preferred(kMsg, false), PathChoice::kPipe);
  // Straight after, another pattern of messages: pipes now cost 1.5, single copy 0.4. Pipes'
  // figure triples, so single copy's old 2.0 (which alone would keep pipes) is not trusted: it
  // gets one message in four until it has four new samples, and wins within 20 messages, long
  // before its figure would be stale.
  r.Send(20, 0.4, 1.5);
  EXPECT_EQ(r.c.Preferred(kMsg, false), PathChoice::kSingleCopy);
  EXPECT_NEAR(r.c.CostPerKiB(PathChoice::kSingleCopy, kMsg, false), 0.4 * 1024, 1);
}

TEST(PathChoice, AStaleFigureIsRefreshedByOneMessageAtATime) {
  Traffic r;
  r.Send(16, 1.0, 2.0);
  ASSERT_EQ(r.c.Preferred(kMsg, false), PathChoice::kSingleCopy);
  // Later pipes became cheap: each refresh (one message once pipes' figure is stale and
  // kRefreshEvery messages passed) adds one sample; the second lowest of four follows after two.
  int piped = 0;
  for (int i = 0; i < 2; ++i) {
    r.now += PathChoice::kStale + milliseconds(1);
    piped += r.Send(PathChoice::kRefreshEvery, 1.0, 0.25);
  }
  EXPECT_EQ(piped, 2);
  EXPECT_EQ(r.c.Preferred(kMsg, false), PathChoice::kPipe);
  EXPECT_EQ(r.Send(50, 1.0, 0.25), 50);
}

TEST(PathChoice, ARefreshWhoseSampleNeverComesIsRetriedAfterTheStaleTime) {
  Traffic r;
  r.Send(16, 1.0, 2.0);
  r.now += PathChoice::kStale + milliseconds(1);
  EXPECT_EQ(r.Send(PathChoice::kRefreshEvery - 1, 1.0, 2.0), 0);
  ASSERT_EQ(r.c.Choose(kMsg, false, r.now), PathChoice::kPipe);  // its sample is lost
  // Messages after it go by single copy while its sample could still come...
  for (int i = 0; i < 20; ++i) {
    r.now += milliseconds(1);
    EXPECT_EQ(r.c.Choose(kMsg, false, r.now), PathChoice::kSingleCopy);
  }
  // ...and once kStale passed, pipes are tried again.
  r.now += PathChoice::kStale;
  EXPECT_EQ(r.c.Choose(kMsg, false, r.now), PathChoice::kPipe);
}

// A peer that gets a message of some kind only every quarter of a second (one all-gather per
// training step, say): both ways still get figures, the choice is made and followed, and
// refreshes stay one message in kRefreshEvery.
TEST(PathChoice, SparseMessagesStillDecide) {
  for (const bool pipes_cheaper : {false, true}) {
    Traffic r;
    const double pipe = pipes_cheaper ? 0.5 : 2.0;
    const int piped = r.Send(400, 1.0, pipe, kMsg, false, milliseconds(250));
    EXPECT_GT(r.c.CostPerKiB(PathChoice::kSingleCopy, kMsg, false), 0);
    EXPECT_GT(r.c.CostPerKiB(PathChoice::kPipe, kMsg, false), 0);
    if (pipes_cheaper) {
      EXPECT_EQ(r.c.Preferred(kMsg, false), PathChoice::kPipe);
      EXPECT_GE(piped, 400 - 400 / static_cast<int>(PathChoice::kRefreshEvery) - 16);
    } else {
      EXPECT_EQ(r.c.Preferred(kMsg, false), PathChoice::kSingleCopy);
      EXPECT_LE(piped, 400 / static_cast<int>(PathChoice::kRefreshEvery) + 4);
    }
  }
}

TEST(PathChoice, KindsAreMeasuredApart) {
  Traffic r;
  r.Send(16, 1.0, 0.5, kMsg, false);      // contiguous 128 KiB: pipes win
  r.Send(16, 1.0, 3.0, kMsg, true);       // strided 128 KiB: single copy wins
  r.Send(16, 1.0, 0.5, 2 << 20, false);   // 2 MiB: pipes win
  r.Send(16, 1.0, 3.0, 16 << 10, false);  // 16 KiB: single copy wins
  EXPECT_EQ(r.c.Preferred(kMsg, false), PathChoice::kPipe);
  EXPECT_EQ(r.c.Preferred(kMsg, true), PathChoice::kSingleCopy);
  EXPECT_EQ(r.c.Preferred(2 << 20, false), PathChoice::kPipe);
  EXPECT_EQ(r.c.Preferred(16 << 10, false), PathChoice::kSingleCopy);
  // Sizes of one class share a figure: 200 KiB is priced by the 128 KiB messages.
  EXPECT_EQ(r.c.Preferred(200 << 10, false), PathChoice::kPipe);
}

TEST(PathChoice, EmptySamplesAreIgnored) {
  PathChoice c;
  const auto now = PathChoice::Clock::time_point(std::chrono::seconds(5));
  EXPECT_FALSE(c.Record(PathChoice::kPipe, kMsg, false, 0, now));
  EXPECT_FALSE(c.Record(PathChoice::kPipe, 0, false, 100, now));
  EXPECT_EQ(c.CostPerKiB(PathChoice::kPipe, kMsg, false), 0);
}

}  // namespace
}  // namespace weft::backends::ucx_plugin
