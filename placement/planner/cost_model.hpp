// The alpha-beta cost model the planner minimises (SPEC §3.2). Costs are seconds. Defaults are
// built in; a tuning file from collbench will replace them later.
#pragma once

#include <cstdint>
#include <vector>

#include "placement/layout.hpp"
#include "placement/planner/plan.hpp"

namespace weft::placement::planner {

struct LinkCost {
  double alpha = 20e-6;     // seconds per message
  double beta = 1.0 / 1e9;  // seconds per byte
};

struct CostModel {
  std::vector<LinkCost> dims;  // per mesh dim; missing dims use the default LinkCost
  double copy_beta = 1.0 / 10e9;
  double reduce_beta = 1.0 / 5e9;

  LinkCost Link(int32_t mesh_dim) const {
    return mesh_dim < static_cast<int32_t>(dims.size()) ? dims[mesh_dim] : LinkCost{};
  }
};

// Estimated seconds of `step` (its kind, mesh dims, from/to and op must be set). Rank
// independent: the maximum of the per-rank estimate over a fixed sample of mesh coordinates.
double StepCost(const CostModel& model, const Step& step);

// The messages per rank the model charges alpha for in `step` (its group size less one per
// round; 0 for a local step).
int64_t StepMessages(const Step& step);

}  // namespace weft::placement::planner
