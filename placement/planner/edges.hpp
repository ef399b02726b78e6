// The steps the search may take from one state (SPEC §3.1): reductions first (last Partial
// mesh dim first), then data movement closed within the groups of a minimal set of mesh dims,
// then Partial conjugates.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "placement/planner/plan.hpp"
#include "placement/planner/state.hpp"

namespace weft::placement::planner {

// A step the search may take, without its layouts (MakeStep builds the Step): the search
// looks at many more edges than it keeps.
struct Edge {
  int32_t to = 0;  // index into the states
  StepShape shape;
  int32_t tensor_dim = -1;
  ReduceOp op = ReduceOp::kSum;
  bool conjugate = false;
};

// Every step from states[a] into `out` (cleared first); `dst` is the target state. Steps into
// states b with skip[b] set are left out (the search's settled states), when skip is given.
void EdgesFrom(const std::vector<State>& states, int32_t a, const State& dst,
               std::vector<Edge>& out, std::span<const char> skip = {});

// The Step of edge `e` from states[a], its cost unset.
Step MakeStep(const std::vector<State>& states, int32_t a, const Edge& e);

}  // namespace weft::placement::planner
