// The alpha-beta fit of collbench tune: t(s) = alpha + beta * s over measured (bytes, seconds)
// points, weighted by 1/t^2 so that every size counts by its relative error (a plain least
// squares fit would let the largest messages decide alpha too), with standard errors.
#pragma once

#include <span>

namespace weft::collbench {

struct Point {
  double bytes = 0, seconds = 0;
};

struct AlphaBeta {
  bool ok = false;                     // false: fewer than two distinct sizes, or no positive time
  double alpha = 0, beta = 0;          // seconds, seconds per byte
  double alpha_err = 0, beta_err = 0;  // standard errors
  double rel_rms = 0;                  // root mean square of the relative residuals
};

AlphaBeta FitAlphaBeta(std::span<const Point> points);

// A link's figures from ping-pong points (ascending sizes): alpha and its error from
// FitAlphaBeta over every size, beta and its error from a plain least-squares line through the
// sizes of at least the largest / 64 (three at least), where the link's sustained rate shows.
// One line through every size would let the small messages pick beta too, and they often move
// at another rate: a shaped link's token bucket passes them at line rate, a kernel copies them
// through other paths. rel_rms is the combined model's, over every point.
AlphaBeta FitLink(std::span<const Point> points);

// The first size from which `fast` is no slower than `slow` at that size and every larger one
// (both measured at the same ascending sizes); -1 when it never is.
double Crossover(std::span<const Point> slow, std::span<const Point> fast);

}  // namespace weft::collbench
