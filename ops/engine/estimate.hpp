// An estimate of what moving the inputs to a candidate's layouts costs, for ordering the search
// (docs/design/rules.md). Per input it mimics the order a good plan takes: slices first (the
// block shrinks), then all-to-alls, then reductions, then gathers last (the block grows), each
// priced on the block it then has, and one local copy of the final block when anything was
// sliced. Not a bound (the planner may move several dims in one exchange for less, or ragged
// pieces may cost more): the search plans the most promising candidates exactly and takes the
// cheapest of those.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "ops/engine/rule.hpp"
#include "placement/layout.hpp"
#include "placement/planner/cost_model.hpp"

namespace weft::ops {

inline constexpr double kNoMove = std::numeric_limits<double>::infinity();

// The estimate summed over the inputs for every combination of dim strategies: index i is
// mixed radix over `free` (the mesh dims of extent > 1, free[0] most significant), digit =
// strategy index; kNoMove where some input has no move (P(max) -> P(sum), S -> P). Each input
// is priced once per distinct tuple of its own codes (strategies often agree on an input), not
// once per combination. `model`: the cost model of the inputs' mesh.
std::vector<double> CombinationEstimates(std::span<const placement::LayoutPtr> inputs,
                                         const placement::planner::CostModel& model,
                                         const RuleResult& r, std::span<const int32_t> free);

}  // namespace weft::ops
