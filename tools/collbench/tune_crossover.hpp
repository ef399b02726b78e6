// The UCX backend's algorithm crossovers for collbench tune: each threshold variable is set on
// every rank to force one algorithm, then the other, each time in a fresh context (the plugin
// reads its variables when a context starts), the collective is timed at the same sizes, and
// the size from which the second algorithm wins becomes the threshold.
#pragma once

#include <weft/weft.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tools/collbench/tune_fit.hpp"

namespace weft::collbench {

struct CrossoverResult {
  std::string variable;       // WEFT_UCX_...
  std::string first, second;  // the algorithms: below the threshold, from it
  std::vector<Point> a, b;    // seconds per call at each size (max over ranks)
  std::string value;          // what the tuning file sets; empty: left at its default
  std::string why;            // one line: the crossover found, or why none was
};

struct CrossoverOptions {
  int64_t max_bytes = 4 << 20;
  double budget_s = 0.05;  // per size and algorithm
  bool one_host = false;   // every rank on one host (boards, direct algorithms apply)
};

// Collective over the world; every rank returns the same results. False with *error.
bool RunCrossovers(int32_t rank, int32_t nranks, const CrossoverOptions& o,
                   std::vector<CrossoverResult>* out, std::string* error);

}  // namespace weft::collbench
