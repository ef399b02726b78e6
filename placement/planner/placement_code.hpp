// Placements as small integers: the fixed total order used to break ties, and the hash input.
#pragma once

#include <cstdint>
#include <vector>

#include "placement/placement.hpp"

namespace weft::placement::planner {

inline int32_t EncodePlacement(const Placement& p) {
  if (std::holds_alternative<Replicate>(p)) return 0;
  if (const auto* s = std::get_if<Shard>(&p)) return 1 + s->dim;
  return 1000 + static_cast<int32_t>(std::get<Partial>(p).op);
}

inline std::vector<int32_t> EncodePlacements(const std::vector<Placement>& ps) {
  std::vector<int32_t> out;
  out.reserve(ps.size());
  for (const Placement& p : ps) out.push_back(EncodePlacement(p));
  return out;
}

}  // namespace weft::placement::planner
