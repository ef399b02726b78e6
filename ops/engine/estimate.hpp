// A separable estimate of a candidate's cost, for ordering the search (docs/design/rules.md):
// per input and mesh dim, what the model charges for changing that one mesh dim's placement
// from the input's to the candidate's code, as if the mesh dims moved one at a time. Not a
// bound (the planner may move several dims in one exchange for less): the search plans the
// most promising candidates exactly and takes the cheapest of those.
#pragma once

#include <cstdint>
#include <limits>

#include "ops/engine/rule.hpp"
#include "placement/layout.hpp"
#include "placement/planner/cost_model.hpp"

namespace weft::ops {

inline constexpr double kNoMove = std::numeric_limits<double>::infinity();

// Seconds for moving `in`'s placement on `mesh_dim` to `to` (kNoMove where no redistribute
// does it, e.g. P(max) -> P(sum)).
double DimEstimate(const placement::planner::CostModel& model, const placement::Layout& in,
                   int32_t mesh_dim, const PlacementCode& to);

}  // namespace weft::ops
