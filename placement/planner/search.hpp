// PlanRedistribute: the cheapest sequence of steps from one layout to another (SPEC §3.2).
// A pure function of its inputs: every rank computes the same plan without communication.
#pragma once

#include "common/result.hpp"
#include "placement/layout.hpp"
#include "placement/planner/cost_model.hpp"
#include "placement/planner/plan.hpp"

namespace weft::placement::planner {

// `src` and `dst` must share mesh, global shape and dtype. Errors: kInvalidArgument for
// Partial(a) -> Partial(b) with a != b on a mesh dim of extent > 1, and for Shard ->
// Partial(avg) on any mesh dim (size 1 included: SPEC §3.1 has no exact local form for it).
Result<Plan> PlanRedistribute(const LayoutPtr& src, const LayoutPtr& dst,
                              const CostModel& model = {});

}  // namespace weft::placement::planner
