// The steps the search may take from one state (SPEC §3.1): reductions first (last Partial
// mesh dim first), then data movement closed within the groups of a minimal set of mesh dims,
// then Partial conjugates.
#pragma once

#include <cstdint>
#include <vector>

#include "placement/planner/plan.hpp"
#include "placement/planner/state.hpp"

namespace weft::placement::planner {

struct Edge {
  int32_t to = 0;  // index into the states
  Step step;       // cost not yet set
};

// Every step from states[a]; `dst` is the target state.
std::vector<Edge> EdgesFrom(const std::vector<State>& states, int32_t a, const State& dst);

}  // namespace weft::placement::planner
