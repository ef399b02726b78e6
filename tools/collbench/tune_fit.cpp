#include "tools/collbench/tune_fit.hpp"

#include <algorithm>
#include <cmath>

namespace weft::collbench {

AlphaBeta FitAlphaBeta(std::span<const Point> points) {
  // Normal equations of min sum w_i (alpha + beta s_i - t_i)^2 with w_i = 1 / t_i^2.
  double sw = 0, ss = 0, sss = 0, st = 0, sst = 0;
  double smin = INFINITY, smax = -INFINITY;
  int n = 0;
  for (const Point& p : points) {
    if (!(p.seconds > 0)) continue;
    const double w = 1.0 / (p.seconds * p.seconds);
    sw += w;
    ss += w * p.bytes;
    sss += w * p.bytes * p.bytes;
    st += w * p.seconds;
    sst += w * p.bytes * p.seconds;
    smin = std::min(smin, p.bytes);
    smax = std::max(smax, p.bytes);
    ++n;
  }
  AlphaBeta f;
  const double det = sw * sss - ss * ss;
  if (n < 2 || smin == smax || !(det > 0)) return f;
  f.beta = (sw * sst - ss * st) / det;
  f.alpha = (st - f.beta * ss) / sw;
  // Negative figures are noise around zero (a latency too small to see next to the largest
  // messages, or the reverse): clamp, and fit the other alone.
  if (f.alpha < 0) {
    f.alpha = 0;
    f.beta = sst / sss;
  } else if (f.beta < 0) {
    f.beta = 0;
    f.alpha = st / sw;
  }
  double rss = 0;
  for (const Point& p : points) {
    if (!(p.seconds > 0)) continue;
    const double r = (f.alpha + f.beta * p.bytes - p.seconds) / p.seconds;
    rss += r * r;
  }
  f.rel_rms = std::sqrt(rss / n);
  // Covariance of the weighted fit: sigma^2 (X^T W X)^-1, sigma^2 from the residuals.
  const double sigma2 = n > 2 ? rss / (n - 2) : 0;
  f.alpha_err = std::sqrt(sigma2 * sss / det);
  f.beta_err = std::sqrt(sigma2 * sw / det);
  f.ok = true;
  return f;
}

AlphaBeta FitLink(std::span<const Point> points) {
  AlphaBeta f = FitAlphaBeta(points);
  if (!f.ok || points.size() < 3) return f;
  size_t first = points.size() - 3;
  while (first > 0 && points[first - 1].bytes >= points.back().bytes / 64) --first;
  double n = 0, ss = 0, st = 0, sss = 0, sst = 0;
  for (size_t i = first; i < points.size(); ++i) {
    const Point& p = points[i];
    n += 1;
    ss += p.bytes;
    st += p.seconds;
    sss += p.bytes * p.bytes;
    sst += p.bytes * p.seconds;
  }
  const double det = n * sss - ss * ss;
  if (!(det > 0)) return f;
  const double beta = (n * sst - ss * st) / det;
  if (!(beta > 0)) return f;  // flat or falling: noise; keep the whole-range figure
  const double a = (st - beta * ss) / n;
  double rss = 0;
  for (size_t i = first; i < points.size(); ++i) {
    const double r = a + beta * points[i].bytes - points[i].seconds;
    rss += r * r;
  }
  f.beta = beta;
  f.beta_err = n > 2 ? std::sqrt(rss / (n - 2) * n / det) : 0;
  double rel = 0;
  for (const Point& p : points) {
    const double r = (f.alpha + f.beta * p.bytes - p.seconds) / p.seconds;
    rel += r * r;
  }
  f.rel_rms = std::sqrt(rel / static_cast<double>(points.size()));
  return f;
}

double Crossover(std::span<const Point> slow, std::span<const Point> fast) {
  const size_t n = std::min(slow.size(), fast.size());
  double from = -1;
  for (size_t i = n; i-- > 0;) {
    if (fast[i].seconds > slow[i].seconds) break;
    from = fast[i].bytes;
  }
  return from;
}

}  // namespace weft::collbench
