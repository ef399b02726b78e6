#include "placement/placement.hpp"

namespace weft::placement {

std::string PlacementName(const Placement& p) {
  if (std::holds_alternative<Replicate>(p)) return "R";
  if (const auto* s = std::get_if<Shard>(&p)) return "S(" + std::to_string(s->dim) + ")";
  return std::string("P(") + ReduceOpName(std::get<Partial>(p).op) + ")";
}

}  // namespace weft::placement
