// collbench tune's fits (tools/collbench/tune_fit.hpp) on points made from known figures: exact
// lines, noise, a token-bucket link whose small messages pass at line rate, and crossovers.
#include "tools/collbench/tune_fit.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace weft::collbench {
namespace {

std::vector<Point> Line(double alpha, double beta) {
  std::vector<Point> p;
  for (double s = 8; s <= 4 << 20; s *= 4) p.push_back({s, alpha + beta * s});
  return p;
}

TEST(TuneFit, AnExactLineIsRecovered) {
  const AlphaBeta f = FitAlphaBeta(Line(5e-6, 1e-9));
  ASSERT_TRUE(f.ok);
  EXPECT_NEAR(f.alpha, 5e-6, 1e-12);
  EXPECT_NEAR(f.beta, 1e-9, 1e-15);
  EXPECT_NEAR(f.alpha_err, 0, 1e-12);
  EXPECT_NEAR(f.rel_rms, 0, 1e-9);
  const AlphaBeta l = FitLink(Line(5e-6, 1e-9));
  EXPECT_NEAR(l.alpha, 5e-6, 1e-12);
  EXPECT_NEAR(l.beta, 1e-9, 1e-15);
}

TEST(TuneFit, NoiseShowsInTheErrors) {
  std::vector<Point> p = Line(5e-6, 1e-9);
  for (size_t i = 0; i < p.size(); ++i) p[i].seconds *= (i % 2 ? 1.1 : 0.9);
  const AlphaBeta f = FitLink(p);
  ASSERT_TRUE(f.ok);
  EXPECT_NEAR(f.alpha, 5e-6, 1e-6);
  EXPECT_NEAR(f.beta, 1e-9, 0.15e-9);
  EXPECT_GT(f.alpha_err, 0);
  EXPECT_GT(f.beta_err, 0);
  EXPECT_GT(f.rel_rms, 0.05);
}

// 1 Gbit/s behind a token bucket that lets the first 128 KiB through at 10 Gbit/s: the
// whole-range fit misses the rate, FitLink's large-size line finds it.
TEST(TuneFit, TheSustainedRateOfAShapedLinkIsFound) {
  std::vector<Point> p;
  for (double s = 8; s <= 4 << 20; s *= 4) {
    const double burst = std::min(s, 131072.0);
    p.push_back({s, 8e-6 + burst * 0.8e-9 + (s - burst) * 8e-9});
  }
  EXPECT_GT(std::fabs(FitAlphaBeta(p).beta - 8e-9), 2e-9);
  const AlphaBeta f = FitLink(p);
  EXPECT_NEAR(f.beta, 8e-9, 0.25 * 8e-9);
  EXPECT_NEAR(f.alpha, 8e-6, 0.25 * 8e-6);
}

TEST(TuneFit, TooFewPointsGiveNoFit) {
  EXPECT_FALSE(FitAlphaBeta(std::vector<Point>{{8, 1e-6}}).ok);
  EXPECT_FALSE(FitAlphaBeta(std::vector<Point>{{8, 1e-6}, {8, 2e-6}}).ok);
  EXPECT_FALSE(FitAlphaBeta(std::vector<Point>{{8, 0}, {16, 0}}).ok);
}

TEST(TuneFit, CrossoverIsWhereTheSecondWinsFromThenOn) {
  const std::vector<Point> slow = {{1, 1}, {2, 2}, {4, 4}, {8, 8}};
  EXPECT_EQ(Crossover(slow, std::vector<Point>{{1, 2}, {2, 1}, {4, 5}, {8, 7}}), 8);
  EXPECT_EQ(Crossover(slow, std::vector<Point>{{1, 2}, {2, 1}, {4, 3}, {8, 7}}), 2);
  EXPECT_EQ(Crossover(slow, std::vector<Point>{{1, 0}, {2, 1}, {4, 3}, {8, 7}}), 1);
  EXPECT_EQ(Crossover(slow, std::vector<Point>{{1, 2}, {2, 3}, {4, 5}, {8, 9}}), -1);
}

}  // namespace
}  // namespace weft::collbench
