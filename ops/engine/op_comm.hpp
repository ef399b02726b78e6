// The cost of an operator's own communication (OpComm, docs/design/rules.md "The op's own
// communication"): the planner's cost model charged for the collective the op runs, on a
// message layout made from the candidate's layout of the tensor the OpComm names.
#pragma once

#include <cstdint>

#include "common/result.hpp"
#include "ops/engine/rule.hpp"
#include "placement/layout.hpp"
#include "placement/planner/cost_model.hpp"

namespace weft::ops {

// Seconds for `comm` over mesh dim `mesh_dim` when tensor `comm.tensor` has layout `t`: the
// model's cost of an all-reduce (or all-gather) step of the message, StepCost's sample of
// ranks included, so that uneven blocks count at their largest.
Result<double> OpCommCost(const placement::planner::CostModel& model, const placement::Layout& t,
                          int32_t mesh_dim, const OpComm& comm);

}  // namespace weft::ops
