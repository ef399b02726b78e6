// Order statistics of per-iteration times, and nccl-tests' bandwidths.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

namespace weft::collbench {

// The q-quantile (0..1) of v by linear interpolation between order statistics; 0 if empty.
inline double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(at);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (at - static_cast<double>(lo));
}

struct Summary {
  double min = 0, median = 0, max = 0;  // seconds
};

inline Summary Summarize(const std::vector<double>& seconds) {
  return {Quantile(seconds, 0), Quantile(seconds, 0.5), Quantile(seconds, 1)};
}

// algbw = size / time, in GB/s (10^9 bytes, as nccl-tests).
inline double AlgBw(int64_t size_bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(size_bytes) / seconds / 1e9 : 0;
}

// Seconds from a to b.
inline double Seconds(std::chrono::steady_clock::time_point a,
                      std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace weft::collbench
