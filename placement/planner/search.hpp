// PlanRedistribute: the cheapest sequence of steps from one layout to another (SPEC §3.2).
// A pure function of its inputs: every rank computes the same plan without communication.
#pragma once

#include "common/result.hpp"
#include "placement/layout.hpp"
#include "placement/planner/cost_model.hpp"
#include "placement/planner/plan.hpp"
#include "placement/planner/state.hpp"

namespace weft::placement::planner {

// The default of PlanRedistribute's `extra_bytes_cap` (SPEC §3.2): bytes per rank a plan may
// receive past the byte bound when the model rates it cheaper than the one-step plan.
inline constexpr int64_t kDefaultExtraBytesCap = 256 * 1024;

// `src` and `dst` must share mesh, global shape and dtype. Errors: kInvalidArgument for
// Partial(a) -> Partial(b) with a != b on a mesh dim of extent > 1, for Shard -> Partial(avg)
// on any mesh dim (size 1 included: SPEC §3.1 has no exact local form for it), and for a
// negative `extra_bytes_cap`.
//
// For pairs without Partial the plan meets SPEC §3.2's byte bound (byte_bound.hpp) on every
// rank, unless the model rates it cheaper than the one-step plan that does, it exceeds the
// bound by at most `extra_bytes_cap` bytes on every rank, and no rank that lacks nothing
// receives anything; Plan::bound_note then records why (Describe prints it).
//
// `cache`, when given, shares the search's states with other plans (state.hpp): the plan is the
// same with or without it.
Result<Plan> PlanRedistribute(const LayoutPtr& src, const LayoutPtr& dst,
                              const CostModel& model = {},
                              int64_t extra_bytes_cap = kDefaultExtraBytesCap,
                              StateCache* cache = nullptr);

// PlanRedistribute(src, dst, model).cost, without the plan's hash (the rules engine prices
// many moves and runs none).
Result<double> RedistributeCost(const LayoutPtr& src, const LayoutPtr& dst,
                                const CostModel& model = {}, StateCache* cache = nullptr);

}  // namespace weft::placement::planner
